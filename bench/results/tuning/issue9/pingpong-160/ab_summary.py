#!/usr/bin/env python3
"""The swapped pingpong 128x160 2x1: on an H200 the sweep beside the dispatched kernel (run103,
7d673b6) split by what the rule of aff8362 takes and the rule's fresh A/B (run104); on an H100 the
sweep at db34467 (run106) split by what 8750e70 takes there and its fresh A/B (run107).
Run from this folder: python3 ab_summary.py"""
import json
import math

PINGPONG160 = 'sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1'
PREFIX = 'sm90_gated_mlp_bf16_bf16_'


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def shapes(json_file):
    by_shape = {}
    for r in json.load(open(json_file))['rows']:
        by_shape.setdefault((r['M'], r['N'], r['K']), []).append(r)
    return by_shape


def step_rows(kernel, M):
    """Rows the dispatched 128-row or 160-row tiling computes (the swapped 128-token pair in pairs)."""
    step = 256 if 'swap_pingpong_128x128' in kernel else 160 if '128x160' in kernel else 128
    return -(-M // step) * step


def rule_takes(M, N, K, kernel, hbm3=False):
    if not (257 <= M <= 4096 and 2048 <= K <= 8192 and -(-2 * N // 128) > 127):
        return False
    if not ('pingpong_128x128' in kernel or 'swap_coop_128x160' in kernel):
        return False
    rows, rows160 = step_rows(kernel, M), -(-M // 160) * 160
    return rows160 < rows or (rows160 == rows and (hbm3 or K < 5120))


def report(label, calls):
    t = [new / old for _, old, new, _ in calls]
    before = [base / old for _, old, _, base in calls]
    after = [base / new for _, _, new, base in calls]
    print(f"{label}: n={len(calls)} time {geomean(t):.3f} ({min(t):.3f}-{max(t):.3f}); vs cuBLASLt + act·mul "
          f"{geomean(before):.3f} -> {geomean(after):.3f}; below .95 {sum(x < .95 for x in before)} -> "
          f"{sum(x < .95 for x in after)}; faster >3% {sum(x < .97 for x in t)}, slower >3% {sum(x > 1.03 for x in t)}")


def sweep(files, hbm3=False):
    taken, not_taken = [], []
    for f in files:
        for (M, N, K), rows in shapes(f).items():
            base = next(r['median_us'] for r in rows if r['impl'] == 'cublaslt+act')
            dispatched = next(r for r in rows if r['impl'] == 'epifuse')
            p160 = next(r['median_us'] for r in rows if r['impl'] == 'sweep' and r['kernel'] == PINGPONG160)
            call = (f"{M}x{N}x{K} {dispatched['kernel'][len(PREFIX):]}", dispatched['median_us'], p160, base)
            (taken if rule_takes(M, N, K, dispatched['kernel'], hbm3) else not_taken).append(call)
    return taken, not_taken


taken, not_taken = sweep(['sweep-7d673b6/sweep-p160-catalogue.json', 'sweep-7d673b6/sweep-p160-draws.json'])
for s, old, new, base in sorted(taken, key=lambda c: c[2] / c[1]):
    print(f"  {s:55s} time {new / old:.3f}  {base / old:.3f} -> {base / new:.3f}")
report('run103 sweep, where the rule takes the call (in sample)', taken)
report('run103 sweep, where it does not (forced)', not_taken)

def fresh_ab(folder, picks, groups):
    old_kernel = dict(l.split() for l in open(f'{folder}/{picks}'))
    calls = []
    for group in groups:
        for (M, N, K), rows in shapes(f'{folder}/{group}.json').items():
            s = f"{M}x{N}x{K}"
            base = next(r['median_us'] for r in rows if r['impl'] == 'cublaslt+act')
            dispatched = next(r for r in rows if r['impl'] == 'epifuse')
            assert dispatched['kernel'] == PINGPONG160, s
            old = next(r['median_us'] for r in rows if r['impl'] == 'sweep' and r['kernel'] == old_kernel[s]
                       and not r.get('stream_k'))
            calls.append((f"{s} {old_kernel[s][len(PREFIX):]}", old, dispatched['median_us'], base))
    for s, old, new, base in sorted(calls, key=lambda c: c[2] / c[1]):
        print(f"  {s:55s} time {new / old:.3f}  {base / old:.3f} -> {base / new:.3f}")
    return calls


report('run104 (H200), aff8362 on 30 fresh draws it changes (seed 202611301), the old kernel forced',
       fresh_ab('ab-aff8362', 'picks-before-p160-fresh.txt', ('ab-p160-unswapped', 'ab-p160-pair', 'ab-p160-coop160')))
taken, not_taken = sweep(['h100-sweep-db34467/sweep-p160-h100-catalogue.json',
                          'h100-sweep-db34467/sweep-p160-h100-draws.json'], hbm3=True)
for s, old, new, base in sorted(taken, key=lambda c: c[2] / c[1]):
    print(f"  {s:55s} time {new / old:.3f}  {base / old:.3f} -> {base / new:.3f}")
report('run106 (H100) sweep, where 8750e70 takes the call (in sample)', taken)
report('run106 (H100) sweep, where it does not (forced)', not_taken)
report('run107 (H100), 8750e70 on 18 fresh draws it changes (seed 202611303), the old kernel forced',
       fresh_ab('h100-ab-8750e70', 'picks-before-p160-h100.txt',
                ('ab-p160-h100-unswapped', 'ab-p160-h100-pair', 'ab-p160-h100-coop160')))
