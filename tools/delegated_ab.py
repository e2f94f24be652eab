#!/usr/bin/env python3
"""GEMMs of one epilogue in two bench runs of the same shapes, build A against build B: per token
class, each run's dispatched call (the `epifuse-delegated` row where present, else `epifuse`)
against that run's baseline (geometric mean, minimum, calls under 0.95), and B's times over A's
for the baseline and for the dispatched call (above 1: A is faster). The baseline is cuBLASLt for
plain calls (epilogue "none", the default) and cuBLASLt + the bench's bias+activation kernel
("cublaslt+act") for the others. With --changed, only the calls one build delegates and the
other does not.

    tools/delegated_ab.py A.json[.xz] B.json[.xz] [--epilogue bias_gelu] [--changed]
"""
import argparse
import json
import lzma
import math

CLASSES = ((1, 8), (9, 16), (17, 32), (33, 64), (65, 1 << 30))


def load(path, epilogue, baseline):
    report = json.load(lzma.open(path, "rt") if path.endswith(".xz") else open(path))
    shapes = {}
    for r in report["rows"]:
        if r["op"] == "gemm" and r["epilogue"] == epilogue:
            impl = "baseline" if r["impl"] == baseline else r["impl"]
            shapes.setdefault((r["M"], r["N"], r["K"]), {})[impl] = r["median_us"]
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
    parser.add_argument("--epilogue", default="none")
    parser.add_argument("--changed", action="store_true")
    args = parser.parse_args()
    baseline = "cublaslt" if args.epilogue == "none" else "cublaslt+act"
    a, b = load(args.a, args.epilogue, baseline), load(args.b, args.epilogue, baseline)
    print(f"| tokens | calls | A vs its {baseline}: geomean, min, < 0.95 | B vs its {baseline} | "
          f"{baseline} B / A: geomean, min, max | dispatched B / A: geomean, min, max |")
    print("|---|---|---|---|---|---|")
    for low, high in CLASSES:
        keys = [k for k in a if k in b and low <= k[0] <= high and "baseline" in a[k] and "baseline" in b[k]]
        if args.changed:
            keys = [k for k in keys if ("epifuse-delegated" in a[k]) != ("epifuse-delegated" in b[k])]
        if not keys:
            continue
        ra = [a[k]["baseline"] / dispatched(a[k]) for k in keys]
        rb = [b[k]["baseline"] / dispatched(b[k]) for k in keys]
        base = [b[k]["baseline"] / a[k]["baseline"] for k in keys]
        ours = [dispatched(b[k]) / dispatched(a[k]) for k in keys]
        span = lambda v: f"{math.exp(sum(map(math.log, v)) / len(v)):.3f}, {min(v):.3f}, {max(v):.3f}"
        label = f"{low}-{high}" if high < 1 << 30 else f">= {low}"
        print(f"| {label} | {len(keys)} | {stats(ra)} | {stats(rb)} | {span(base)} | {span(ours)} |")


if __name__ == "__main__":
    main()
