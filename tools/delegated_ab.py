#!/usr/bin/env python3
"""Plain GEMMs (epilogue "none") of two bench runs of the same shapes, build A against build B: per
token class, each run's dispatched call (the `epifuse-delegated` row where present, else `epifuse`)
against that run's cuBLASLt baseline (geometric mean, minimum, calls under 0.95), and B's times
over A's for the baseline and for the dispatched call (above 1: A is faster).

    tools/delegated_ab.py A.json[.xz] B.json[.xz]
"""
import argparse
import json
import lzma
import math

CLASSES = ((1, 8), (9, 16), (17, 32), (33, 64), (65, 1 << 30))


def load(path):
    report = json.load(lzma.open(path, "rt") if path.endswith(".xz") else open(path))
    shapes = {}
    for r in report["rows"]:
        if r["op"] == "gemm" and r["epilogue"] == "none":
            shapes.setdefault((r["M"], r["N"], r["K"]), {})[r["impl"]] = r["median_us"]
    return shapes


def dispatched(row):
    return row.get("epifuse-delegated", row.get("epifuse"))


def stats(values):
    mean = math.exp(sum(map(math.log, values)) / len(values))
    return f"{mean:.3f}, {min(values):.3f}, {sum(v < 0.95 for v in values)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    args = parser.parse_args()
    a, b = load(args.a), load(args.b)
    print("| tokens | calls | A vs its cuBLASLt: geomean, min, < 0.95 | B vs its cuBLASLt | "
          "cuBLASLt B / A: geomean, min, max | dispatched B / A: geomean, min, max |")
    print("|---|---|---|---|---|---|")
    for low, high in CLASSES:
        keys = [k for k in a if k in b and low <= k[0] <= high and "cublaslt" in a[k] and "cublaslt" in b[k]]
        if not keys:
            continue
        ra = [a[k]["cublaslt"] / dispatched(a[k]) for k in keys]
        rb = [b[k]["cublaslt"] / dispatched(b[k]) for k in keys]
        base = [b[k]["cublaslt"] / a[k]["cublaslt"] for k in keys]
        ours = [dispatched(b[k]) / dispatched(a[k]) for k in keys]
        span = lambda v: f"{math.exp(sum(map(math.log, v)) / len(v)):.3f}, {min(v):.3f}, {max(v):.3f}"
        label = f"{low}-{high}" if high < 1 << 30 else f">= {low}"
        print(f"| {label} | {len(keys)} | {stats(ra)} | {stats(rb)} | {span(base)} | {span(ours)} |")


if __name__ == "__main__":
    main()
