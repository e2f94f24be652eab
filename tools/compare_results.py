#!/usr/bin/env python3
"""Compares two epifuse-bench results JSONs of the same suite: per shape and epilogue, epifuse's
ratio to its baseline in each run (`vs_cublaslt` for plain GEMMs, `vs_cublaslt_bias_gelu` and
`vs_cublaslt+act` for bias+GELU, `vs_cublaslt+act` for the gated MLP), the change, and whether it
is within the noise band. Prints Markdown.

    tools/compare_results.py OLD.json NEW.json [--noise 0.03]
"""
import argparse
import json
import math

RATIOS = ("vs_cublaslt", "vs_cublaslt_bias_gelu", "vs_cublaslt+act")


def ratios(path):
    with open(path) as f:
        report = json.load(f)
    out = {}
    for r in report["rows"]:
        if r["impl"] != "epifuse":
            continue
        for name in RATIOS:
            if name in r:
                out[(r["op"], r["M"], r["N"], r["K"], r["epilogue"], name)] = r[name]
    return report, out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--noise", type=float, default=0.03, help="relative change counted as noise (default 3 %%)")
    args = parser.parse_args()
    old_report, old = ratios(args.old)
    new_report, new = ratios(args.new)
    print(f"old: {old_report['gpu']}, commit {old_report['commit'][:12]}, {old_report['date']}  ")
    print(f"new: {new_report['gpu']}, commit {new_report['commit'][:12]}, {new_report['date']}\n")
    print("| op | M | N | K | epilogue | ratio | old | new | change | |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    changes = []
    for key in sorted(set(old) & set(new)):
        op, M, N, K, epilogue, name = key
        change = new[key] / old[key] - 1.0
        changes.append(change)
        flag = "" if abs(change) <= args.noise else "outside noise"
        print(f"| {op} | {M} | {N} | {K} | {epilogue} | {name} | {old[key]:.3f} | {new[key]:.3f} | "
              f"{100 * change:+.1f} % | {flag} |")
    if changes:
        geomean = math.exp(sum(math.log1p(c) for c in changes) / len(changes)) - 1.0
        outside = sum(abs(c) > args.noise for c in changes)
        print(f"\n{len(changes)} ratios compared; geometric mean change {100 * geomean:+.2f} %; "
              f"{outside} outside ±{100 * args.noise:.0f} %; largest {100 * max(changes, key=abs):+.1f} %.")
    missing = sorted(set(old) ^ set(new))
    if missing:
        print(f"\n{len(missing)} ratios in only one of the runs.")


if __name__ == "__main__":
    main()
