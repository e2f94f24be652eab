#!/usr/bin/env python3
"""Markdown summary of an epifuse-bench results JSON: per shape, epifuse against cuBLASLt and the
unfused path, epilogue overheads, and the fastest swept kernel configurations; for the gated suite
the per-shape comparison, the targets and memory; for gated-accuracy the accuracy table.

    tools/results_summary.py bench/results/gemm-nvidia-h200.json > summary.md
"""
import json
import math
import re
import sys
from collections import defaultdict


def header(report):
    print(f"{report['gpu']}, driver {report['driver']}, {report['cuda']}, commit {report['commit'][:12]}, "
          f"{report['date']}  ")


def accuracy_table(report):
    header(report)
    print("\nmean ± std over random inits of: max |diff|, mean |diff|, relative L2 diff ‖a − b‖₂/‖b‖₂\n")
    print("| M = N = K | inits | kernel | compared | max abs diff | mean abs diff | relative diff |")
    print("|---|---|---|---|---|---|---|")
    for t in report["accuracy"]:
        for key, name in (("fused_vs_fp64", "fused vs fp64"), ("unfused_vs_fp64", "unfused bf16 vs fp64"),
                          ("fused_vs_unfused", "fused vs unfused bf16")):
            d = t[key]
            cells = " | ".join(f"{d[m]['mean']:.3e} ± {d[m]['std']:.1e}"
                               for m in ("max_abs_diff", "mean_abs_diff", "rel_l2_diff"))
            print(f"| {t['M']} | {t['inits']} | {t['kernel']} | {name} | {cells} |")


def gated_table(report, rows):
    by = defaultdict(dict)
    for r in rows:
        by[(r["M"], r["N"], r["K"])][r["impl"]] = r
    print("N is the output width; the GEMM is M × 2N × K. Times are medians in µs; ratios > 1 mean epifuse "
          "is faster, `t / GEMM` is epifuse's time over the cuBLASLt GEMM alone. Memory: activation bytes "
          "each path allocates (fused [M,N]; cuBLASLt+act [M,2N] + [M,N]; eager [M,2N] + 2·[M,N]).\n")
    print("| M | N | K | kernel (heuristic) | epifuse | cuBLASLt GEMM | cuBLASLt+act | eager | vs +act | vs eager "
          "| t / GEMM | TFLOP/s | % roofline | act kernel % copy BW | memory MB fused / +act / eager | checks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    big = []
    for key in sorted(by, key=lambda k: (k[1], k[0])):
        v = by[key]
        e, lt, la, eg, act = v["epifuse"], v["cublaslt"], v["cublaslt+act"], v["eager"], v["act_kernel"]
        if key[0] >= 256:
            big.append(la["median_us"] / e["median_us"])
        mem = " / ".join(f"{x['activation_bytes'] / 1e6:.1f}" for x in (e, la, eg))
        checks = "/".join(x["check"] for x in (e, la, eg))
        print(f"| {key[0]} | {key[1]} | {key[2]} | {re.sub(r'^sm90_gated(_mlp)?_bf16_(bf16_)?', '', e['kernel'])} | "
              f"{e['median_us']:.1f} | {lt['median_us']:.1f} | {la['median_us']:.1f} | {eg['median_us']:.1f} | "
              f"{e['vs_cublaslt+act']:.3f} | {e['vs_eager']:.3f} | {e['time_vs_cublaslt_gemm_alone']:.3f} | "
              f"{e['tflops']:.0f} | {e['pct_roofline']:.0f} | {act['pct_of_copy_bandwidth']:.0f} | {mem} | {checks} |")
    if big:
        print(f"\nGeometric mean of epifuse vs cuBLASLt+act over M ≥ 256: "
              f"{math.exp(sum(map(math.log, big)) / len(big)):.3f} ({len(big)} shapes)")


def main(path):
    with open(path) as f:
        report = json.load(f)
    if "accuracy" in report:
        accuracy_table(report)
        return
    c = report["ceilings"]
    header(report)
    print(f"ceilings: copy {c['copy_gbps']:.0f} GB/s, read {c['read_gbps']:.0f} GB/s, "
          f"bf16 GEMM {c['peak_tflops']:.0f} TFLOP/s; SM clock {report['device']['sm_clock_mhz_at_start']} MHz at "
          f"start, {report['device']['sm_clock_mhz_at_end']} MHz at end\n")

    rows = [r for r in report["rows"] if r["impl"] != "sweep"]
    if rows and rows[0]["op"] in ("gated", "elementwise"):
        gated_table(report, rows)
        rows = []
    shapes = sorted({(r["M"], r["N"], r["K"]) for r in rows})
    if not shapes:
        shapes = []
    else:
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
                ratio = r.get("vs_cublaslt", r.get("vs_cublaslt+act", float("nan")))
                print(f"| {r['M']} | {r['N']} | {r['K']} | {r['epilogue']} | {r['kernel']} | {r.get('raster', 'auto')} | "
                      f"{r.get('swizzle', 1)} | {r['median_us']:.1f} | {ratio:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
