#!/usr/bin/env python3
"""Plain decode GEMMs (M <= 8, no epilogue) on epifuse's own kernel against cuBLASLt, from bench
JSONs that hold both rows per shape (the forced `epifuse` row and `cublaslt`, cuBLASLt's fastest of
its top four): per class of N and K the number of points, the geometric mean and range of
cuBLASLt's time over the own kernel's, and what the rule of gemm_heuristics.cpp (delegates())
keeps on the own kernel. A shape timed in several runs counts once per run.

    tools/narrow_decode_rule.py RESULTS.json[.xz] ...
"""
import argparse
import bisect
import json
import lzma
import math

N_EDGES = [255, 1023, 2048, 4096, 8192, 16384]
K_EDGES = [1024, 1535, 2047, 4096, 8192, 16384, 32768]


def load(path):
    return json.load(lzma.open(path, "rt") if path.endswith(".xz") else open(path))


def points(paths):
    for path in paths:
        by_shape = {}
        for r in load(path)["rows"]:
            if r.get("op") == "gemm" and r.get("epilogue") == "none" and r["M"] <= 8:
                by_shape.setdefault((r["M"], r["N"], r["K"]), {})[r["impl"]] = r["median_us"]
        for (m, n, k), rows in by_shape.items():
            if "cublaslt" in rows and "epifuse" in rows:
                yield m, n, k, rows["cublaslt"] / rows["epifuse"]


def own_kernel_runs(m, n, k):
    narrower = 256 <= n < 1024 and k >= 1536
    narrow = 1024 <= n <= 2048 and k >= 2048 and (n <= 2032 or k >= 4096)
    return m <= 8 and k <= 8192 and (narrower or narrow)


def label(edges, i):
    low = edges[i - 1] + 1 if i > 0 else 1
    return f"{low}-{edges[i]}" if i < len(edges) else f">{edges[-1]}"


def summary(ratios):
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return f"{len(ratios):4d} {mean:6.3f} {min(ratios):6.3f} {max(ratios):6.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    pts = list(points(args.results))
    classes = {}
    for m, n, k, ratio in pts:
        classes.setdefault((bisect.bisect_left(N_EDGES, n), bisect.bisect_left(K_EDGES, k)), []).append(ratio)
    print("cuBLASLt time / own kernel time at 1-8 tokens (points, geometric mean, min, max)")
    print(f"{'N':>12} {'K':>12} {'pts':>4} {'mean':>6} {'min':>6} {'max':>6}")
    for (ni, ki), ratios in sorted(classes.items()):
        print(f"{label(N_EDGES, ni):>12} {label(K_EDGES, ki):>12} {summary(ratios)}")
    kept = [r for m, n, k, r in pts if own_kernel_runs(m, n, k)]
    narrower = [r for m, n, k, r in pts if own_kernel_runs(m, n, k) and n < 1024]
    shapes = {(m, n, k) for m, n, k, _ in pts if own_kernel_runs(m, n, k) and n < 1024}
    print(f"the rule's own-kernel calls: {summary(kept)}")
    print(f"  of which N 256-1023: {summary(narrower)} ({len(shapes)} shapes)")


if __name__ == "__main__":
    main()
