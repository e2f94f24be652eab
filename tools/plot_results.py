#!/usr/bin/env python3
"""PNG plots of an epifuse-bench results JSON (gemm or gated): per model (N, K), TFLOP/s against M
for every implementation, epifuse's speed-up against M, and a roofline chart (measured ceilings)
with every measured point.

    tools/plot_results.py bench/results/gated-nvidia-h200.json --out docs/plots
(scripts/plot.sh installs the pinned matplotlib and runs this.)
"""
import argparse
import json
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODELS = {(14336, 4096): "Llama-3 8B", (28672, 8192): "Llama-3 70B", (53248, 16384): "Llama-3 405B"}
BASELINES = ("cublaslt", "cublaslt+act", "eager")
RATIOS = (("vs_cublaslt+act", "vs cuBLASLt + act·mul"), ("vs_eager", "vs eager"),
          ("vs_cublaslt", "vs cuBLASLt"), ("vs_cublaslt_bias_gelu", "vs cuBLASLt bias+GELU"))


def load(path):
    with open(path) as f:
        report = json.load(f)
    if "rows" not in report or "ceilings" not in report:
        raise SystemExit(f"{path}: not an epifuse-bench results JSON (no rows or ceilings)")
    return report


def main_rows(report):
    """The rows to plot: one epilogue per shape (gated: swiglu; gemm: none and bias_gelu)."""
    return [r for r in report["rows"]
            if r["impl"] in ("epifuse",) + BASELINES and r["op"] in ("gemm", "gated") and r.get("epilogue") in
            ("none", "swiglu", "bias_gelu")]


def model_name(n, k):
    return MODELS.get((n, k), f"N={n}, K={k}")


def plot_per_model(report, groups, ylabel, reference_line, filename, out):
    """One panel per model (N, K): a line against M for each series in groups[(N, K)][label]."""
    fig, axes = plt.subplots(1, max(len(groups), 1), figsize=(5 * max(len(groups), 1), 4), squeeze=False)
    for ax, (key, series) in zip(axes[0], sorted(groups.items())):
        for label, points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.axhline(reference_line["y"], color="gray", lw=1, ls=reference_line.get("ls", "-"),
                   label=reference_line.get("label"))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("M (tokens)")
        ax.set_ylabel(ylabel)
        ax.set_title(model_name(*key))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{report['gpu']}, commit {report['commit'][:10]}")
    fig.tight_layout()
    path = os.path.join(out, filename)
    fig.savefig(path, dpi=120)
    return path


def plot_throughput(report, rows, out):
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        label = r["impl"] if r["op"] == "gated" else f"{r['impl']} ({r['epilogue']})"
        groups[(r["N"], r["K"])][label].append((r["M"], r["tflops"]))
    peak = {"y": report["ceilings"]["peak_tflops"], "ls": "--", "label": "cuBLASLt peak (measured)"}
    return plot_per_model(report, groups, "TFLOP/s", peak, "tflops_vs_m.png", out)


def plot_speedup(report, rows, out):
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["impl"] != "epifuse":
            continue
        for key, label in RATIOS:
            if key in r:
                suffix = "" if r["op"] == "gated" else f" ({r['epilogue']})"
                groups[(r["N"], r["K"])][label + suffix].append((r["M"], r[key]))
    return plot_per_model(report, groups, "speed-up of epifuse (x)", {"y": 1.0}, "speedup_vs_m.png", out)


def plot_roofline(report, rows, out):
    peak = report["ceilings"]["peak_tflops"]
    bw = report["ceilings"]["copy_gbps"]
    fig, ax = plt.subplots(figsize=(7, 5))
    ai_lo, ai_hi = 0.5, 1e4
    ridge = peak * 1e12 / (bw * 1e9)
    ax.plot([ai_lo, ridge, ai_hi], [ai_lo * bw / 1e3, peak, peak], color="black", lw=1.5,
            label=f"roofline: {bw:.0f} GB/s copy, {peak:.0f} TFLOP/s (measured)")
    markers = {"epifuse": "o", "cublaslt": "s", "cublaslt+act": "^", "eager": "v"}
    for impl, marker in markers.items():
        # A row's arithmetic intensity is its FLOPs over its own minimum bytes: tflops / gbps.
        pts = [(r["tflops"] * 1e3 / r["gbps"], r["tflops"]) for r in rows if r["impl"] == impl and r["gbps"] > 0]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=18, label=impl, alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / minimum byte)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{report['gpu']}: every measured shape against the roofline")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "roofline.png")
    fig.savefig(path, dpi=120)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="an epifuse-bench results JSON")
    parser.add_argument("--out", default=None, help="output folder (default: <json without .json>-plots)")
    args = parser.parse_args()
    report = load(args.json)
    out = args.out or os.path.splitext(args.json)[0] + "-plots"
    os.makedirs(out, exist_ok=True)
    rows = main_rows(report)
    if not rows:
        raise SystemExit(f"{args.json}: no epifuse or baseline rows to plot")
    for path in (plot_throughput(report, rows, out), plot_speedup(report, rows, out), plot_roofline(report, rows, out)):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
