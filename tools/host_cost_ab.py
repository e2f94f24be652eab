#!/usr/bin/env python3
"""Host cost of two builds measured in turn (`epifuse-bench host-cost`, one JSON per run): per row,
each run's median CPU µs per call and the median over runs, then each call's ratio to cuBLASLt's
own call in the same run (the host's speed drifts between runs by up to 20 %; the ratio takes that
out) and its excess over the same run's empty kernel launch.

    tools/host_cost_ab.py bench/results/host-cost/rounds-10 --builds new old
"""
import argparse
import glob
import json
import os
import statistics

CUBLASLT = ("gemm", "1x4096x4096", "cublaslt")
EMPTY_LAUNCH = ("gated", "1x14336x4096 empty_kernel_launch", "part: empty_kernel_launch")


def runs(folder, build):
    files = glob.glob(os.path.join(folder, f"host-cost-{build}-*.json"))
    files.sort(key=lambda f: int(f.rsplit("-", 1)[1].split(".")[0]))
    return [{(r["op"], r["shape"], r["impl"]): r["cpu_us_median"] for r in json.load(open(f))["host_cost"]}
            for f in files]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--builds", nargs="+", default=["new", "old"])
    args = parser.parse_args()
    by_build = {b: runs(args.folder, b) for b in args.builds}
    keys = []
    for b in args.builds:
        for run in by_build[b]:
            keys += [k for k in run if k not in keys]
    print(f"{'op':14s} {'shape':38s} " + " ".join(f"{b + ' median':>12s}" for b in args.builds))
    for key in keys:
        cells = []
        for b in args.builds:
            values = [run[key] for run in by_build[b] if key in run]
            cells.append(f"{statistics.median(values):12.2f}" if values else f"{'-':>12s}")
        impl = "" if key[2] == "epifuse" or key[2].startswith("part: ") else f" [{key[2]}]"
        print(f"{key[0]:14s} {key[1] + impl:38s} " + " ".join(cells))
    for key in keys:
        if key[2] not in ("epifuse", "epifuse-delegated"):
            continue
        cells = []
        for b in args.builds:
            pairs = [run for run in by_build[b] if key in run and CUBLASLT in run and EMPTY_LAUNCH in run]
            if not pairs:
                cells.append(f"{b}: -")
                continue
            ratio = statistics.median(run[key] / run[CUBLASLT] for run in pairs)
            excess = statistics.median(run[key] - run[EMPTY_LAUNCH] for run in pairs)
            cells.append(f"{b}: {ratio:.3f}x cuBLASLt's call, {excess:+.2f} us over an empty launch")
        print(f"{key[0]} {key[1]}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
