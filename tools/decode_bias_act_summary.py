#!/usr/bin/env python3
"""Few-token GEMMs with an fp32 bias + GELU (epilogue "bias_gelu"), epifuse against cuBLASLt + the
bench's bias+GELU kernel ("cublaslt+act", the user's path: cuBLASLt cannot fuse an fp32 bias into a
bf16 D), per token class: minimum, geometric mean and points below 1.0 and 0.95, overall and per
dispatched kernel.

With --rule-over-sweep, for runs made before dispatch chose the swapped 128x32 kernel (its rows
forced by --sweep): the ratio dispatch at 7964f1a would give, taking the warp-mma rows as
dispatched where that dispatch keeps them and the forced 128x32 row (whole tiles or stream-K, as
src/dispatch/sm90/gemm_heuristics.cpp picks for 132 SMs) elsewhere.

    tools/decode_bias_act_summary.py RESULTS.json[.xz] ... [--rule-over-sweep]
"""
import argparse
from collections import defaultdict

from grid_summary import geomean, load

SMS = 132
CLASSES = ((1, 8), (9, 16), (17, 32), (33, 64))
COLUMNS = "points | min | geomean | max | < 1.0 | < 0.95"


def ceil_div(a, b):
    return (a + b - 1) // b


def warp_mma_runs_first(M, N, K):
    blocks = ceil_div(N, 16)
    if M <= 8:
        return blocks <= 4 * SMS
    return M <= 16 and blocks <= 2 * SMS and N * K <= 1 << 25


def swapped32_shares_k(M, N, K):
    weight_tiles = ceil_div(N, 128)
    if K >= 8192 and 3 * weight_tiles <= SMS:
        return True
    tiles = weight_tiles * ceil_div(M, 32)
    if tiles <= SMS or K < 4096:
        return False
    last_wave = tiles - (ceil_div(tiles, SMS) - 1) * SMS
    return 4 * last_wave < SMS


def points(rows):
    """(model, gemm, M, N, K) -> the run's times: baseline, dispatched (and its kernel), forced 128x32."""
    out = defaultdict(dict)
    for r in rows:
        if r.get("epilogue") != "bias_gelu":
            continue
        p = out[(r.get("model", ""), r.get("gemm", ""), r["M"], r["N"], r["K"])]
        if r["impl"] == "cublaslt+act":
            p["baseline"] = r["median_us"]
        elif r["impl"] == "epifuse":
            p["epifuse"] = r["median_us"]
            p["kernel"] = r["kernel"].split(" ")[0]
        elif (r["impl"] == "sweep" and "swap_coop_128x32x128" in r["kernel"] and r.get("splits", 1) == 1 and
              r.get("stream_k", "heuristic") == "heuristic"):
            p["streamk" if r["kernel"].endswith("_streamk") else "whole"] = r["median_us"]
    return out


def summary(ratios):
    below = sum(x < 1 for x in ratios), sum(x < 0.95 for x in ratios)
    return f"{len(ratios)} | {min(ratios):.3f} | {geomean(ratios):.3f} | {max(ratios):.3f} | {below[0]} | {below[1]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--rule-over-sweep", action="store_true")
    args = parser.parse_args()
    for path in args.results:
        data = load(path)
        print(f"## {path}\n\n{data.get('gpu')}, commit {data.get('commit')}\n")
        by_class, by_kernel, rule = defaultdict(list), defaultdict(list), defaultdict(list)
        for (_, _, M, N, K), p in points(data["rows"]).items():
            if "baseline" not in p or "epifuse" not in p:
                continue
            cls = next(c for c in CLASSES if c[0] <= M <= c[1]) if M <= 64 else None
            if cls is None:
                continue
            by_class[cls].append(p["baseline"] / p["epifuse"])
            by_kernel[(cls, p["kernel"])].append(p["baseline"] / p["epifuse"])
            if args.rule_over_sweep:
                if warp_mma_runs_first(M, N, K):
                    t = p["epifuse"]
                else:
                    t = p.get("streamk" if swapped32_shares_k(M, N, K) else "whole")
                if t is not None:
                    rule[cls].append(p["baseline"] / t)
        print(f"| tokens | as | {COLUMNS} |\n|---|---|{'---|' * 6}")
        for cls in CLASSES:
            if by_class[cls]:
                print(f"| {cls[0]}-{cls[1]} | dispatched in the run | {summary(by_class[cls])} |")
            if rule[cls]:
                print(f"| {cls[0]}-{cls[1]} | 7964f1a's rule over the forced rows | {summary(rule[cls])} |")
        print(f"\n| tokens | kernel | {COLUMNS} |\n|---|---|{'---|' * 6}")
        for (cls, kernel), ratios in sorted(by_kernel.items()):
            print(f"| {cls[0]}-{cls[1]} | {kernel} | {summary(ratios)} |")
        print()


if __name__ == "__main__":
    main()
