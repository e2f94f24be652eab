#!/usr/bin/env python3
"""The cooperative 128x256 1x2 on an H100 at K 2048-5119 where the pingpong 128x128 stays: per call,
its time over the pingpong's (forced in the same run) and both ratios to cuBLASLt + act·mul.
Run from this folder: python3 ab_summary.py"""
import json
import math

COOPERATIVE = 'sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2'


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def final_form(M):
    return M <= 2304 and M % 128 != 0


def calls(json_file, picks_file=None):
    """(shape, M, cooperative us, pingpong us, cuBLASLt + act·mul us) per call the cooperative ran."""
    old = dict(l.split() for l in open(picks_file)) if picks_file else {}
    by_shape = {}
    for r in json.load(open(json_file))['rows']:
        by_shape.setdefault(f"{r['M']}x{r['N']}x{r['K']}", []).append(r)
    out = []
    for s, rows in by_shape.items():
        base = next(r['median_us'] for r in rows if r['impl'] == 'cublaslt+act')
        dispatched = next(r for r in rows if r['impl'] == 'epifuse')
        swept = {r['kernel']: r['median_us'] for r in rows if r['impl'] == 'sweep'}
        if dispatched['kernel'] == COOPERATIVE:  # the rule ran: the old kernel is forced beside it
            cooperative, pingpong = dispatched['median_us'], swept[old[s]]
        elif 'pingpong_128x128' in dispatched['kernel'] and COOPERATIVE in swept:  # forced beside it
            cooperative, pingpong = swept[COOPERATIVE], dispatched['median_us']
        else:
            continue
        out.append((s, int(s.split('x')[0]), cooperative, pingpong, base))
    return out


def report(label, rows, show=True):
    if show:
        for s, _, c, p, b in sorted(rows, key=lambda r: r[2] / r[3]):
            print(f"  {s:18s} time {c / p:.3f}  vs+act {b / p:.3f} -> {b / c:.3f}")
    t = [c / p for _, _, c, p, _ in rows]
    old = [b / p for *_, p, b in rows]
    new = [b / c for _, _, c, _, b in rows]
    print(f"{label}: n={len(rows)} time {geomean(t):.3f} ({min(t):.3f}-{max(t):.3f}); vs+act {geomean(old):.3f} -> "
          f"{geomean(new):.3f}; below .95 {sum(x < .95 for x in old)} -> {sum(x < .95 for x in new)}; "
          f"below .97 {sum(x < .97 for x in old)} -> {sum(x < .97 for x in new)}; slower >3% {sum(x > 1.03 for x in t)}")


seen = calls('../hbm3-swapped-tiles/ab-ec542b3-fresh/ab-hbm3-fresh3.json')
report('run96 (seed 202611288): where the pingpong stayed, the cooperative forced beside it', seen)
trial = calls('trial-e69fcf4/ab-coop-mid-k.json', 'trial-e69fcf4/picks-before-coop-mid-k.txt')
catalogue = calls('trial-e69fcf4/ab-coop-mid-k-catalogue.json', 'trial-e69fcf4/picks-before-coop-mid-k.txt')
report('run97 trial, 1025-4096 tokens (seed 202611289)', trial)
report('run97 trial, catalogue at 1500-4096 tokens', catalogue)
fitted = [r for r in seen + trial + catalogue if final_form(r[1])]
report('the final form (up to 2304 tokens, partial tiles) on the calls above', fitted, show=False)
report('past 2304 tokens, partial tiles', [r for r in seen + trial + catalogue if r[1] > 2304 and r[1] % 128], show=False)
report('whole 128-row tiles', [r for r in seen + trial + catalogue if r[1] % 128 == 0], show=False)
report('run98, the final form on fresh draws (seed 202611290)',
       calls('fresh-009e849/ab-coop-mid-k-fresh.json', 'fresh-009e849/picks-before-coop-mid-k-fresh.txt'))
for part in ('a', 'b', 'catalogue'):
    report(f'run99, 449-1024 tokens, set {part}: the cooperative forced beside the dispatched pingpong',
           calls(f'sweep-449-1024-009e849/sweep-c256-449-1024-{part}.json'), show=False)
