#!/usr/bin/env python3
"""Markdown summary of epifuse-bench grid and random runs (--grid, --random) against the issue's
targets: per op and token class the minimum, geometric mean and share of points below 1.0 and
0.97 of the baseline; decode rows' % of the streaming-read bandwidth; CUTLASS example 113 rows
(impl "cutlass_ex113") beside epifuse at the same shape. With --plot DIR, one PNG per results
file: epifuse's ratio against M, one line per model GEMM.

    tools/grid_summary.py bench/results/grid/gated-grid.json bench/results/grid/gemm-grid.json [--plot DIR]
"""
import argparse
import json
import lzma
import math
import os
from collections import defaultdict

# (op, epilogue) -> (the ratio field of epifuse's row, what it is against)
RATIOS = {
    ("gated", "swiglu"): ("vs_cublaslt+act", "cuBLASLt + act·mul"),
    ("gemm", "none"): ("vs_cublaslt", "cuBLASLt"),
    ("gemm", "bias_gelu"): ("vs_cublaslt_bias_gelu", "cuBLASLt BIAS+GELU epilogue"),
    ("gemm", "bias_bf16_gelu"): ("vs_cublaslt_bias_gelu", "cuBLASLt BIAS+GELU epilogue"),
}
OURS = ("epifuse", "epifuse-delegated")
DECODE_WEIGHT_BYTES = 32e6


def load(path):
    """A results JSON, plain or xz-compressed (.json.xz: the larger committed runs)."""
    with (lzma.open if path.endswith(".xz") else open)(path, "rt") as f:
        return json.load(f)


def token_class(m):
    return "M < 256" if m < 256 else "M >= 256"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def weight_bytes(row):
    return (2.0 if row["op"] == "gated" else 1.0) * 2.0 * row["N"] * row["K"]


def summarize(path):
    report = load(path)
    rows = report["rows"]
    print(f"## {os.path.basename(path)}\n")
    print(f"{report['gpu']}, driver {report['driver']}, {report['cuda']}, commit {report['commit'][:12]}, "
          f"{report['date']}; read bandwidth {report['ceilings']['read_gbps']:.0f} GB/s\n")
    classes = defaultdict(list)  # (suite, op, epilogue, class, impl) -> [(ratio, row)]
    dispatched = {}  # (suite, op, epilogue, M, N, K) -> the row of what the public call runs
    for r in rows:
        key = (r["op"], r["epilogue"])
        if r["impl"] not in OURS or key not in RATIOS or RATIOS[key][0] not in r:
            continue
        classes[(r.get("suite", "shapes"), *key, token_class(r["M"]), r["impl"])].append((r[RATIOS[key][0]], r))
        shape = (r.get("suite", "shapes"), *key, r["M"], r["N"], r["K"])
        if shape not in dispatched or r["impl"] == "epifuse-delegated":
            dispatched[shape] = r
    # "as dispatched": per shape the delegated row where the call is delegated, else epifuse's.
    for (suite, op, epilogue, m, _, _), r in dispatched.items():
        classes[(suite, op, epilogue, token_class(m), "as dispatched")].append((r[RATIOS[(op, epilogue)][0]], r))
    print("| suite | op | epilogue | against | tokens | impl | points | min | at (M×N×K) | geomean | < 1.0 | < 0.97 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(classes):
        suite, op, epilogue, cls, impl = key
        pts = classes[key]
        ratios = [p[0] for p in pts]
        worst = min(pts, key=lambda p: p[0])[1]
        print(f"| {suite} | {op} | {epilogue} | {RATIOS[(op, epilogue)][1]} | {cls} | {impl} | {len(pts)} | "
              f"{min(ratios):.3f} | {worst['M']}×{worst['N']}×{worst['K']} | {geomean(ratios):.3f} | "
              f"{sum(v < 1.0 for v in ratios)} | {sum(v < 0.97 for v in ratios)} |")
    calls = defaultdict(set)  # (suite, op, epilogue) -> shapes; a delegated call also has an "epifuse" row
    delegated = defaultdict(set)
    for r in rows:
        if r["impl"] in OURS and (r["op"], r["epilogue"]) in RATIOS:
            key = (r.get("suite", "shapes"), r["op"], r["epilogue"])
            calls[key].add((r["M"], r["N"], r["K"]))
            if r["impl"] == "epifuse-delegated":
                delegated[key].add((r["M"], r["N"], r["K"]))
    for key in sorted(delegated):
        print(f"\nDelegated to cuBLASLt ({' '.join(key)}): {len(delegated[key])} of {len(calls[key])} calls "
              f"({100.0 * len(delegated[key]) / len(calls[key]):.0f} %); their \"epifuse\" rows are epifuse's own kernel, forced.")
    # One row per call, as dispatched: a delegated call's forced "epifuse" row is not what it runs.
    decode = [r for r in dispatched.values() if r["M"] <= 16 and weight_bytes(r) >= DECODE_WEIGHT_BYTES
              and "pct_of_read_bw" in r and r["epilogue"] in ("none", "swiglu")]
    if decode:
        pcts = [r["pct_of_read_bw"] for r in decode]
        worst = min(decode, key=lambda r: r["pct_of_read_bw"])
        print(f"\nDecode (M <= 16, weight >= 32 MB, as dispatched): {len(decode)} calls, % of read bandwidth min {min(pcts):.1f} "
              f"(at {worst['M']}×{worst['N']}×{worst['K']}), median {sorted(pcts)[len(pcts) // 2]:.1f}, "
              f"{sum(p < 90 for p in pcts)} below 90.")
    ex113 = {(r["M"], r["N"], r["K"]): r for r in rows if r["impl"] == "cutlass_ex113"}
    if ex113:
        print("\n| M×N×K | epifuse µs | cutlass_ex113 µs | epifuse speed-up |\n|---|---|---|---|")
        for r in rows:
            if r["impl"] in OURS and r["op"] == "gated" and (r["M"], r["N"], r["K"]) in ex113:
                e = ex113[(r["M"], r["N"], r["K"])]
                print(f"| {r['M']}×{r['N']}×{r['K']} | {r['median_us']:.1f} | {e['median_us']:.1f} | "
                      f"{e['median_us'] / r['median_us']:.3f} |")
    print()


def plot(path, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    report = load(path)
    series = defaultdict(list)
    for r in report["rows"]:
        key = (r["op"], r["epilogue"])
        if r["impl"] in OURS and key in RATIOS and RATIOS[key][0] in r and r.get("suite") == "grid":
            label = f"{r.get('model', '?')} {r.get('gemm', '')} {r['epilogue']}".strip()
            if r["impl"] != "epifuse":
                label += f" ({r['impl']})"
            series[label].append((r["M"], r[RATIOS[key][0]]))
    if not series:
        return
    fig, ax = plt.subplots(figsize=(11, 6))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", linewidth=0.8, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.97, color="red", linewidth=0.8, linestyle="--")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("M (tokens)")
    ax.set_ylabel("epifuse speed-up over the baseline")
    ax.set_title(f"{os.path.basename(path)}: {report['gpu']}, commit {report['commit'][:8]}")
    ax.legend(fontsize=6, ncol=2)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + "-ratio-vs-m.png")
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--plot", metavar="DIR")
    args = parser.parse_args()
    for path in args.results:
        summarize(path)
        if args.plot:
            plot(path, args.plot)


if __name__ == "__main__":
    main()
