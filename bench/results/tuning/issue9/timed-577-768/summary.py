#!/usr/bin/env python3
"""Prints every figure the README, docs/heuristics.md and the rule's comment quote from this directory."""
import json
import lzma
import math
import re
import tarfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "sm90_gated_mlp_bf16_bf16_"
PAIRS = "swap_pingpong_128x128x64_c1x2"
ALTERNATIVE = "swap_pingpong_128x112x64_c2x1"  # the first of the four in a first launch's log line
BANDS = [(353, 576), (577, 768), (769, 1023)]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def span(xs):
    return f"{min(xs):.3f}-{max(xs):.3f}"


def below(xs, bound):
    return sum(x < bound for x in xs)


def ratios(xs):
    return f"geomean {geomean(xs):.3f}, min {min(xs):.3f}, below 0.97 {below(xs, 0.97)}, below 0.95 {below(xs, 0.95)}"


def shapes_of(docs):
    """(model, M, N, K) -> {'base': cuBLASLt + act·mul µs, 'ours': the dispatched call's µs, 'kernel', forced tiles}."""
    shapes = defaultdict(dict)
    for doc in docs:
        for r in doc["rows"]:
            if r["op"] != "gated":
                continue
            s = shapes[(r.get("model") or "draw", r["M"], r["N"], r["K"])]
            kernel = r["kernel"].replace(PREFIX, "")
            if r["impl"] == "cublaslt+act":
                s["base"] = r["median_us"]
            elif r["impl"] == "epifuse-delegated":
                s["ours"], s["kernel"] = r["median_us"], "delegated"
            elif r["impl"] == "epifuse" and s.get("kernel") != "delegated":
                s["ours"], s["kernel"] = r["median_us"], kernel  # a delegated call's epifuse row is forced
            elif r["impl"] == "sweep":
                s[kernel] = min(s.get(kernel, math.inf), r["median_us"])  # the fastest stream-K mode
    return {k: s for k, s in shapes.items() if "base" in s and "ours" in s}


def xz_json(path):
    with lzma.open(HERE / path, "rt") as f:
        return json.load(f)


def xz_lines(path):
    with lzma.open(HERE / path, "rt") as f:
        return f.read().splitlines()


def tar_json(name, pattern):
    with tarfile.open(HERE / name) as tar:
        return [json.load(tar.extractfile(m)) for m in tar.getmembers() if re.fullmatch(pattern, m.name.lstrip("./"))]


def timed_shapes(lines):
    """Shapes ('MxNxK') whose first launch timed the four tilings beside the rules' pick."""
    timed, shape = set(), None
    for line in lines:
        if m := re.match(r"\[gated\] shape \d+/\d+: (\S+)", line):
            shape = m.group(1)
        if "gated ways" in line and ALTERNATIVE in line:
            timed.add(shape)
    return timed


def grid_run155():
    print("## run155 (3d7f9f2): b504733's GatedPaths tests, then the full grid at 270-900 tokens")
    for log in ("gated-paths-tests.log", "gated-paths-memcheck.log"):
        lines = (HERE / "grid-270-900-run155" / log).read_text().splitlines()
        print(f"- {log}: " + "; ".join(l.strip() for l in lines if "PASSED" in l or "ERROR SUMMARY" in l))
    shapes = shapes_of(xz_json(f"grid-270-900-run155/grid-270-900-{g}.json.xz") for g in (1, 2))
    r = [s["base"] / s["ours"] for s in shapes.values()]
    models = sorted({k[0] for k in shapes})
    print(f"- {len(r)} calls on {', '.join(models)} (the runs' time limit cut the other three): {ratios(r)}, "
          f"delegated {sum(s['kernel'] == 'delegated' for s in shapes.values())}")
    pairs = [s["base"] / s["ours"] for k, s in shapes.items() if s["kernel"] == PAIRS and 642 <= k[1] <= 697]
    print(f"- the swapped 128-token pairs at 642-697 tokens: {len(pairs)} calls, {span(pairs)}")
    for lo, hi in ((273, 300), (403, 407), (642, 646), (693, 697), (809, 813)):
        xs = [s["base"] / s["ours"] for k, s in shapes.items() if lo <= k[1] <= hi]
        qwen = [s["base"] / s["ours"] for k, s in shapes.items() if lo <= k[1] <= hi and k[0] == "qwen2.5-7b"]
        print(f"- {lo}-{hi} tokens: {span(xs)}, below 0.97 {below(xs, 0.97)} of {len(xs)}; Qwen2.5-7B {span(qwen)}")
    xs = [s["base"] / s["ours"] for k, s in shapes.items() if 642 <= k[1] <= 697]
    print(f"- 642-697 tokens: below 0.97 {below(xs, 0.97)} of {len(xs)}")


def sweep_run156():
    print("\n## run156 (3d7f9f2): the tilings forced beside the dispatched call (checks off)")
    shapes = shapes_of([xz_json("sweep-run156/sweep-273-812.json.xz")])
    for k in sorted(shapes, key=lambda k: (k[1], k[2])):
        s = shapes[k]
        forced = sorted(((s["base"] / v, name) for name, v in s.items() if name not in ("base", "ours", "kernel")),
                        reverse=True)
        best = ", ".join(f"{name} {x:.3f}" for x, name in forced[:3])
        print(f"- {k[1]}x{k[2]}x{k[3]}: dispatched {s['kernel']} {s['base'] / s['ours']:.3f}; fastest {best}")


def ab_run157():
    print("\n## run157: the first build (four tilings timed at 353-1023 tokens) and 3d7f9f2, in turn, one process each")
    for label, pattern in (("grid", r"grid-.*-{}\.json"), ("random (seed 20261242)", r"random-{}\.json")):
        new = shapes_of(tar_json("ab-run157/ab.tar.xz", pattern.format("new")))
        old = shapes_of(tar_json("ab-run157/ab.tar.xz", pattern.format("old")))
        keys = sorted(set(new) & set(old))
        changed = [new[k]["ours"] / old[k]["ours"] for k in keys if new[k]["kernel"] != old[k]["kernel"]]
        print(f"- {label}, {len(keys)} calls: old {ratios([old[k]['base'] / old[k]['ours'] for k in keys])}; "
              f"new {ratios([new[k]['base'] / new[k]['ours'] for k in keys])}")
        if changed:
            print(f"  {len(changed)} ran another way: {geomean(changed):.3f}x the old time ({span(changed)})")


def wide_in_process():
    print("\n## run158, the first build: the dispatched call against the rules' kernel forced in the same process")
    old = shapes_of(tar_json("ab-run157/ab.tar.xz", r"grid-.*-old\.json"))  # 3d7f9f2's picks: the rules'
    wide = shapes_of([xz_json("in-process-run158/wide-grid.json.xz")])
    rows = []
    for k, s in wide.items():
        rule = old.get(k, {}).get("kernel")
        if rule is None or rule == "delegated" or rule not in s:
            continue
        rows.append((k, s["ours"] / s[rule], s["kernel"] != rule, rule))
    print(f"- {len(rows)} of {len(wide)} calls whose rules run a fused kernel")
    for lo, hi in BANDS:
        changed = [(k, t, rule) for k, t, moved, rule in rows if moved and lo <= k[1] <= hi]
        t = [x for _, x, _ in changed]
        print(f"- {lo}-{hi} tokens: {len(changed)} kept another tiling, {geomean(t):.3f}x the rules' time "
              f"({span(t)}), above 1.03x: {sum(x > 1.03 for x in t)}")
        for rule in sorted({r for _, _, r in changed}):
            tr = [x for _, x, r in changed if r == rule]
            tokens = sorted({k[1] for k, _, r in changed if r == rule})
            print(f"  rules' {rule}: {len(tr)} calls at {tokens[0]}-{tokens[-1]} tokens, {span(tr)}")


def final_in_process():
    print("\n## run158, the committed rule (25ee914's library): against the 128-token pairs forced in the same process")
    for label, name in (("grid 577-768", "final-grid"), ("random 577-768 (seed 20261243)", "final-random")):
        shapes = shapes_of([xz_json(f"in-process-run158/{name}.json.xz")])
        timed = timed_shapes(xz_lines(f"in-process-run158/{name}.log.xz"))
        ours, rules, kept = [], [], []
        for k, s in shapes.items():
            ours.append(s["base"] / s["ours"])
            in_band = f"{k[1]}x{k[2]}x{k[3]}" in timed
            rules.append(s["base"] / s[PAIRS] if in_band and s["kernel"] != "delegated" else ours[-1])
            if in_band and s["kernel"] not in (PAIRS, "delegated"):
                kept.append(s["ours"] / s[PAIRS])
        print(f"- {label}: {len(shapes)} calls, {len(timed)} timed the four; {len(kept)} kept one of them, "
              f"{geomean(kept):.3f}x the pairs' time ({span(kept)}), above 1.03x: {sum(x > 1.03 for x in kept)}")
        print(f"  against cuBLASLt + act·mul: as dispatched {ratios(ours)}; the rules' pick {ratios(rules)}")
    took = [float(m.group(1)) for line in xz_lines("in-process-run158/final-grid.log.xz")
            if ALTERNATIVE in line and (m := re.search(r"the choice took ([\d.]+) ms", line))]
    print(f"- host time of the grid's choices among five ways: {min(took):.2f}-{max(took):.2f} ms")
    checked = shapes_of([xz_json("in-process-run158/final-checked.json.xz")])
    checks = [r["check"] for r in xz_json("in-process-run158/final-checked.json.xz")["rows"]
              if r["impl"] in ("epifuse", "epifuse-delegated")]
    print(f"- checked run, {len(checked)} calls: {checks.count('pass')} epifuse rows pass, "
          f"{len(checks) - checks.count('pass')} do not")


def proof_run159():
    print("\n## run159 (25ee914): the GPU proof")
    for line in (HERE / "proof-run159/proof.txt").read_text().splitlines():
        if line.startswith("==") and "exit" in line or "PASSED" in line or "SKIPPED" in line:
            print(f"- {line}")
    memcheck = (HERE / "proof-run159/memcheck.log").read_text().splitlines()
    print("- memcheck GatedPaths.*: " + "; ".join(l.strip() for l in memcheck if "PASSED" in l or "ERROR SUMMARY" in l))


if __name__ == "__main__":
    grid_run155()
    sweep_run156()
    ab_run157()
    wide_in_process()
    final_in_process()
    proof_run159()
