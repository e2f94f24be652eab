#!/usr/bin/env python3
"""Markdown summary of an epifuse-bench results JSON: per shape, epifuse against cuBLASLt and the
unfused path, epilogue overheads, and the fastest swept kernel configurations.

    tools/results_summary.py bench/results/gemm-nvidia-h200.json > summary.md
"""
import json
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        report = json.load(f)
    c = report["ceilings"]
    print(f"{report['gpu']}, driver {report['driver']}, {report['cuda']}, commit {report['commit'][:12]}, "
          f"{report['date']}  ")
    print(f"ceilings: copy {c['copy_gbps']:.0f} GB/s, read {c['read_gbps']:.0f} GB/s, "
          f"bf16 GEMM {c['peak_tflops']:.0f} TFLOP/s; SM clock {report['device']['sm_clock_mhz_at_start']} MHz at "
          f"start, {report['device']['sm_clock_mhz_at_end']} MHz at end\n")

    rows = [r for r in report["rows"] if r["impl"] != "sweep"]
    shapes = sorted({(r["M"], r["N"], r["K"]) for r in rows})
    print("| M | N | K | epilogue | impl | kernel | median us | TFLOP/s | % roofline | check | ratios |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratio_keys = ("vs_cublaslt", "vs_cublaslt_bias_gelu", "vs_cublaslt+act", "overhead_vs_plain_pct",
                  "cost_vs_narrow_tree_pct", "pct_of_copy_bandwidth")
    for shape in shapes:
        for r in rows:
            if (r["M"], r["N"], r["K"]) != shape:
                continue
            ratios = ", ".join(f"{k} {r[k]:.3f}" for k in ratio_keys if k in r)
            print(f"| {r['M']} | {r['N']} | {r['K']} | {r['epilogue']} | {r['impl']} | {r['kernel'][:48]} | "
                  f"{r['median_us']:.1f} | {r['tflops']:.0f} | {r['pct_roofline']:.1f} | {r['check']} | {ratios} |")

    sweep = [r for r in report["rows"] if r["impl"] == "sweep"]
    if sweep:
        print("\nFastest swept configurations per shape and epilogue (default raster unless named):\n")
        print("| M | N | K | epilogue | kernel | raster | swizzle | median us | vs cuBLASLt |")
        print("|---|---|---|---|---|---|---|---|---|")
        groups = defaultdict(list)
        for r in sweep:
            groups[(r["M"], r["N"], r["K"], r["epilogue"])].append(r)
        for key in sorted(groups):
            for r in sorted(groups[key], key=lambda r: r["median_us"])[:3]:
                print(f"| {r['M']} | {r['N']} | {r['K']} | {r['epilogue']} | {r['kernel']} | {r['raster']} | "
                      f"{r['swizzle']} | {r['median_us']:.1f} | {r['vs_cublaslt']:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
