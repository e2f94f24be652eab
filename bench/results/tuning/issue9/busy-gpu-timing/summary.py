#!/usr/bin/env python3
"""Prints every figure the README, docs/heuristics.md and the rules' comments quote from this directory."""
import json
import lzma
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
PREFIX = "sm90_gated_mlp_bf16_bf16_"
BANDS = [(353, 576), (577, 768), (769, 1023)]


def read(name):
    for path, opener in ((HERE / name, open), (HERE / (name + ".xz"), lzma.open)):
        if path.exists():
            with opener(path, "rt") as f:
                return f.read()
    raise FileNotFoundError(name)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def span(xs):
    return f"{min(xs):.3f}-{max(xs):.3f}" if xs else "-"


def ratios(xs):
    return (f"geomean {geomean(xs):.3f}, min {min(xs):.3f}, below 0.97 {sum(x < 0.97 for x in xs)}, "
            f"below 0.95 {sum(x < 0.95 for x in xs)}")


def short(kernel):
    return kernel.replace(PREFIX, "")


def calls(doc):
    """(model, M, N, K) -> {'base', 'ours', 'kernel', 'rules', 'forced': {kernel: us}}."""
    out = defaultdict(lambda: {"forced": {}})
    for r in doc["rows"]:
        if r["op"] != "gated":
            continue
        c = out[(r.get("model") or "draw", r["M"], r["N"], r["K"])]
        if r["impl"] == "cublaslt+act":
            c["base"] = r["median_us"]
        elif r["impl"] in ("epifuse", "epifuse-delegated") and "ours" not in c:  # the dispatched row comes first
            c["ours"], c["kernel"], c["rules"] = r["median_us"], r["kernel"], r.get("rules_kernel")
        elif r["impl"] in ("epifuse", "sweep"):  # a delegated call's forced epifuse row, or the sweep
            c["forced"][r["kernel"]] = min(c["forced"].get(r["kernel"], math.inf), r["median_us"])
    return {k: c for k, c in out.items() if "base" in c and "ours" in c}


def rules_us(c):
    """The rules' pick's time in the same process: its forced row (the same knobs where the sweep ran them)."""
    if c["rules"] is None:
        return None
    if c["rules"] in c["forced"]:
        return c["forced"][c["rules"]]
    base = c["rules"].split()[0]
    return c["forced"].get(base)


def dispatched_against_forced(cs):
    """The dispatched row's time over the same kernel's forced sweep row, per MLP."""
    per = defaultdict(list)
    for k, c in cs.items():
        if c["kernel"] in c["forced"]:
            per[k[0]].append(c["ours"] / c["forced"][c["kernel"]])
    print("- the dispatched row over the same kernel forced in the sweep (median, range):")
    for model, xs in sorted(per.items()):
        xs.sort()
        print(f"  {model}: {xs[len(xs) // 2]:.3f} ({span(xs)}), {len(xs)} calls")


def timed_lines(log):
    """shape 'MxNxK' -> (ways {name: us}, kept, host ms) from the first launches' log lines."""
    out, shape = {}, None
    for line in log.splitlines():
        if m := re.match(r"\[gated\] shape \d+/\d+: (\S+)", line):
            shape = m.group(1)
        elif "gated ways:" in line and shape:
            ways = {short(n): float(us) for n, us in re.findall(r"(the rules' fused kernel|delegated|sm90\S+) ([\d.]+) us", line)}
            kept = re.search(r"keeps (.+?); the choice took ([\d.]+) ms", line)
            out[shape] = (ways, kept.group(1), float(kept.group(2)))
    return out


def judge(label, docs, logs):
    cs = {}
    for d in docs:
        cs.update(calls(d))
    timed = {}
    for log in logs:
        timed.update(timed_lines(log))
    print(f"\n## {label}: {len(cs)} calls")
    moved = [(k, c) for k, c in cs.items() if c["kernel"] != c["rules"]]
    t = [c["ours"] / rules_us(c) for _, c in moved if rules_us(c)]
    print(f"- {len(moved)} ran another way than the rules' pick; the {len(t)} whose rules' pick ran beside them took "
          f"{geomean(t):.3f}x its time ({span(t)}), above 1.03x: {sum(x > 1.03 for x in t)}")
    for lo, hi in BANDS:
        band = [(k, c) for k, c in moved if lo <= k[1] <= hi and rules_us(c)]
        t = [c["ours"] / rules_us(c) for _, c in band]
        if not t:
            continue
        print(f"- {lo}-{hi} tokens: {len(t)} moved, {geomean(t):.3f}x the rules' pick's time in the same process "
              f"({span(t)}), above 1.03x: {sum(x > 1.03 for x in t)}")
        for rule in sorted({c['rules'] for _, c in band}):
            tr = [c["ours"] / rules_us(c) for _, c in band if c["rules"] == rule]
            print(f"  rules' {short(rule)}: {len(tr)} calls, {geomean(tr):.3f}x ({span(tr)})")
    judged = [(k, c) for k, c in cs.items() if rules_us(c)]
    ours = [c["base"] / c["ours"] for _, c in judged]
    rules = [c["base"] / rules_us(c) for _, c in judged]
    print(f"- against cuBLASLt + act·mul, {len(judged)} calls whose rules' pick was forced beside them:")
    print(f"  as dispatched: {ratios(ours)}")
    print(f"  the rules' pick: {ratios(rules)}")
    for lo, hi in BANDS:
        o = [c["base"] / c["ours"] for k, c in judged if lo <= k[1] <= hi]
        r = [c["base"] / rules_us(c) for k, c in judged if lo <= k[1] <= hi]
        if o:
            print(f"  {lo}-{hi}: dispatched {ratios(o)}; rules {ratios(r)}")
    host = [v[2] for v in timed.values()]
    if host:
        host.sort()
        print(f"- host time of a choice: median {host[len(host) // 2]:.1f} ms, {host[0]:.1f}-{host[-1]:.1f} ms "
              f"({len(host)} first launches)")
    return cs, timed


def probe(log):
    """The timing-regime probe: per case and regime, the median over its three repeats of each tiling's ratio."""
    ratios = defaultdict(list)
    for line in log.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        for name, ratio in re.findall(r"(\S+) [\d.]+ us \(([\d.]+)\)", line):
            ratios[(parts[0], parts[1], name)].append(float(ratio))
    print("\n## run160: the timing-regime probe (ratio to the case's first tiling; min-max of three repeats)")
    for (shape, regime, name), xs in ratios.items():
        if xs != [1.0] * len(xs):
            print(f"- {shape} {regime}: {name} {min(xs):.3f}-{max(xs):.3f}")


def clocks(csv):
    samples = [(int(m), float(w)) for m, w in re.findall(r", (\d+) MHz, ([\d.]+) W", csv)]
    loaded = [m for m, w in samples if w > 200]
    print(f"- SM clock sampled every 50 ms beside the probe: {max(m for m, _ in samples)} MHz at most; "
          f"{min(loaded)}-{max(loaded)} MHz in the {len(loaded)} samples over 200 W")


def fidelity(cs, timed):
    """The first launch's timed median over the bench's time for the same kernel, per kernel."""
    per = defaultdict(list)
    for (model, M, N, K), c in cs.items():
        ways = timed.get(f"{M}x{N}x{K}")
        if not ways:
            continue
        for name, us in ways[0].items():
            kernel = c["rules"] if name == "the rules' fused kernel" else PREFIX + name
            bench = c["forced"].get(kernel)
            if bench:
                per[short(kernel).split()[0]].append(us / bench)
    print("- the first launch's timed median over the bench's median, per kernel (median, p10-p90):")
    for k, xs in sorted(per.items()):
        xs.sort()
        print(f"  {k}: {xs[len(xs) // 2]:.3f} ({xs[len(xs) // 10]:.3f}-{xs[9 * len(xs) // 10]:.3f}), {len(xs)} calls")


def before():
    """run158 of the forty-fifth session: the first launch's timing without the warm-up, the same measure."""
    old = HERE.parent / "timed-577-768" / "in-process-run158"
    with lzma.open(old / "wide-grid.json.xz", "rt") as f:
        cs = calls(json.load(f))
    with lzma.open(old / "wide-grid.log.xz", "rt") as f:
        timed = timed_lines(f.read())
    for c in cs.values():
        c["rules"] = c["kernel"]  # that build's rows name no rules' pick: the kept rules' way ran as dispatched
    kept_rules = {s: w for s, w in timed.items() if w[1] == "the rules' fused kernel"}
    print("\n## without the warm-up (../timed-577-768/in-process-run158/, wide grid)")
    fidelity({k: c for k, c in cs.items() if f"{k[1]}x{k[2]}x{k[3]}" in kept_rules}, kept_rules)


def grid_as_dispatched():
    print("\n## run163: the catalogue MLPs' full grid at 270-1023 tokens as dispatched (no sweep rows)")
    new = calls(json.loads(read("run163/grid-270-1023.json")))
    xs = [c["base"] / c["ours"] for c in new.values()]
    print(f"- {len(xs)} calls: {ratios(xs)}, delegated {sum('delegated' in c['kernel'] for c in new.values())}")
    for lo, hi in ((270, 320), (321, 352), (353, 576), (577, 768), (769, 1023)):
        b = [c["base"] / c["ours"] for k, c in new.items() if lo <= k[1] <= hi]
        print(f"  {lo}-{hi}: {len(b)} calls, {ratios(b)}")
    timed = timed_lines(read("run163/grid-270-1023.log"))
    for lo, hi in ((270, 320), (321, 352), (353, 1023), (321, 1023)):
        host = sorted(w[2] for s, w in timed.items() if lo <= int(s.split("x")[0]) <= hi)
        print(f"- host time of a choice at {lo}-{hi} tokens: median {host[len(host) // 2]:.1f} ms, "
              f"{host[0]:.1f}-{host[-1]:.1f} ms ({len(host)} first launches)")
    for model in sorted({k[0] for k in new}):
        b = [c["base"] / c["ours"] for k, c in new.items() if k[0] == model and 270 <= k[1] <= 320]
        print(f"  270-320 tokens, {model}: {span(b)}, below 0.97 {sum(x < 0.97 for x in b)} of {len(b)}")
    old = {}
    for g in (1, 2):
        with lzma.open(HERE.parent / "timed-577-768" / "grid-270-900-run155" / f"grid-270-900-{g}.json.xz", "rt") as f:
            old.update(calls(json.load(f)))
    keys = sorted(set(new) & set(old))
    print(f"- against 3d7f9f2's run155 (checked, another process; spread up to 10 % per call), {len(keys)} common calls:")
    for lo, hi in ((270, 900), (270, 320), (321, 352), (353, 576), (577, 768), (769, 900)):
        ks = [k for k in keys if lo <= k[1] <= hi]
        print(f"  {lo}-{hi}, {len(ks)}: 3d7f9f2 {ratios([old[k]['base'] / old[k]['ours'] for k in ks])}; "
              f"new {ratios([new[k]['base'] / new[k]['ours'] for k in ks])}")


def fused_or_delegated():
    print("\n## run164: 17-352 tokens (every second base count), 428b31c's library and the warm-up everywhere, in turn")
    runs = {b: calls(json.loads(read(f"run164/grid-17-352-{b}.json"))) for b in ("old", "new")}
    for b, cs in runs.items():
        timed = timed_lines(read(f"run164/grid-17-352-{b}.log"))
        print(f"- {b}: {len(cs)} calls, {ratios([c['base'] / c['ours'] for c in cs.values()])}, "
              f"delegated {sum('delegated' in c['kernel'] for c in cs.values())}, first launches timed {len(timed)}")
    old, new = runs["old"], runs["new"]
    for lo, hi in ((17, 352), (17, 320), (321, 352)):
        keys = [k for k in set(old) & set(new) if lo <= k[1] <= hi]
        moved = [new[k]["ours"] / old[k]["ours"] for k in keys if new[k]["kernel"] != old[k]["kernel"]]
        same = [new[k]["ours"] / old[k]["ours"] for k in keys if new[k]["kernel"] == old[k]["kernel"]]
        print(f"- {lo}-{hi} tokens: {len(moved)} of {len(keys)} calls ran another way with the warm-up: "
              f"{geomean(moved):.3f}x the time ({span(moved)}); the others {geomean(same):.3f}x ({span(same)}), "
              f"the spread between processes; delegated {sum('delegated' in old[k]['kernel'] for k in keys)} -> "
              f"{sum('delegated' in new[k]['kernel'] for k in keys)}")


def proof():
    print("\n## run162: the GPU proof of the measured build (warm-up wherever a gated call times)")
    lines = read("run162/proof.txt").splitlines()
    print("- " + "; ".join(l.strip() for l in lines if "PASSED" in l or "exit" in l or "pass" in l))
    print("- memcheck: " + [l for l in read("run162/memcheck.log").splitlines() if "ERROR SUMMARY" in l][0])
    print("- pytest: " + read("run162/pytest.log").splitlines()[-1])
    rows = [r for r in json.loads(read("run162/random-checked.json"))["rows"] if r["op"] == "gated"]
    ours = [r for r in rows if r["impl"] in ("epifuse", "epifuse-delegated")]
    draws = {(r["M"], r["N"], r["K"]) for r in ours}
    print(f"- checked random draws at 17-1023 tokens (seed 20261292, cut by the call's time limit): {len(draws)} draws, "
          f"{sum(r['check'] == 'pass' for r in ours)} of {len(ours)} epifuse rows pass")


def proof_final():
    print("\n## run165: the final build (the warm-up only where tilings are timed)")
    print("- unit: " + read("run165/unit.log").splitlines()[-1].strip())
    print("- GatedPaths: " + "; ".join(l.strip() for l in read("run165/gated-paths.log").splitlines() if "OK ]" in l or "PASSED" in l))
    print("- memcheck: " + [l for l in read("run165/memcheck.log").splitlines() if "ERROR SUMMARY" in l][0])
    for line in read("run165/two-shapes.log").splitlines():
        if "gated ways" in line:
            print("- " + short(line))


def main():
    print("# busy-GPU timing (100 ms warm-up), seven tilings at 353-1023 tokens")
    probe(read("run160/probe.log"))
    clocks(read("run160/clocks.csv"))
    before()
    grid = [json.loads(read(f"run161/grid-{h}.json")) for h in (1, 2)]
    cs, timed = judge("run161 grid 353-1023 (8 catalogue MLPs)", grid, [read(f"run161/grid-{h}.log") for h in (1, 2)])
    fidelity(cs, timed)
    dispatched_against_forced(cs)
    cs, timed = judge("run161 random draws at 353-1023 (seed 20261291)", [json.loads(read("run161/random.json"))],
                      [read("run161/random.log")])
    fidelity(cs, timed)
    grid_as_dispatched()
    fused_or_delegated()
    proof()
    proof_final()


if __name__ == "__main__":
    main()
