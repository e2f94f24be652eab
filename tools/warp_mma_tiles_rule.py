#!/usr/bin/env python3
"""The 16-token warp-mma GEMM kernel's CTA shapes at 9-16 tokens, from epifuse-warp-mma-tiles-probe
logs: per point the best time of CTAs of one block (8 warps, 2 steps in flight) and of two blocks
(8 or 4 warps, one step), each over its K-loop shares, and what two rules pick among them:
- "one block": every call on CTAs of one block, shares as dispatch gave them before (the most of
  8, 4, 2 whose CTAs fit in 3 x SMs, at least 16 K steps of 64 each);
- "rule": src/kernels/sm90/warp_mma_gemm_rules.hpp and gemm_heuristics.cpp (two_token_tiles): two
  blocks from 24 MiB and 64 blocks, their shares within the cluster caps (8: SMs CTAs, 4: 1.5 x SMs,
  2: 2 x SMs), 8 shares of 4-warp CTAs where the caps leave 2 on at most SMs / 2 CTAs.
Each rule's time over the best of the three CTA shapes at that point (1.0 = the best).

    tools/warp_mma_tiles_rule.py PROBE.log[.xz] ... [--points]
"""
import argparse
import lzma
import math
import re

SMS = 132
ONE = "w8 u2 g1 t2"
WIDE_PAIRS = "w8 u1 g2 t2"
PAIRS = "w4 u1 g2 t2"
SHAPES = (ONE, WIDE_PAIRS, PAIRS)


def parse(path):
    points, current = {}, None
    for line in (lzma.open(path, "rt") if path.endswith(".xz") else open(path)):
        m = re.match(r"M=(\d+) N=(\d+) K=(\d+) weight", line)
        if m:
            current = tuple(int(g) for g in m.groups())
            points[current] = {}
            continue
        m = re.match(r"\s+([\d.]+) us\s+[\d.]+ %\s+(w\d u\d g\d t\d).*?splits (\d)", line)
        if m and current and not line.lstrip().startswith("best") and " rows" not in line:
            if m.group(2) in SHAPES:
                points[current][(m.group(2), int(m.group(3)))] = float(m.group(1))
    return points


def cluster_ctas(splits):
    return SMS if splits == 8 else 3 * SMS // 2 if splits == 4 else 2 * SMS


def one_block(N, K):
    blocks, steps = -(-N // 16), -(-K // 64)
    for splits in (8, 4, 2):
        if blocks * splits <= 3 * SMS and steps >= 16 * splits:
            return ONE, splits
    return ONE, 1


def rule(N, K):
    blocks, steps = -(-N // 16), -(-K // 64)
    if blocks < 64 or N * K < 3 << 22:
        return one_block(N, K)
    ctas, shares = -(-blocks // 2), 1
    for splits in (8, 4, 2):
        if ctas * splits <= cluster_ctas(splits) and steps >= 16 * splits:
            shares = splits
            break
    if shares == 2 and 2 * ctas <= SMS and steps >= 16 * 8:
        shares = 8
    return (WIDE_PAIRS if ctas * shares <= 2 * SMS else PAIRS), shares


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--points", action="store_true", help="print every point")
    args = parser.parse_args()
    points = {}
    for path in args.logs:
        points.update(parse(path))  # a later log's point replaces an earlier one's
    ratios = {"one block": [], "rule": []}
    for (M, N, K), times in sorted(points.items(), key=lambda kv: (kv[0][1] * kv[0][2], kv[0])):
        best = min(times.values())
        best_of = {shape: min((t for (s, _), t in times.items() if s == shape), default=math.nan) for shape in SHAPES}
        picks = {"one block": one_block(N, K), "rule": rule(N, K)}
        for name, pick in picks.items():
            ratios[name].append(times[pick] / best)
        if args.points:
            pairs = min(best_of[WIDE_PAIRS], best_of[PAIRS])
            print(f"{M:3d} x {N:5d} x {K:5d} {2 * N * K / 1e6:6.1f} MB  two blocks / one block (best shares of each) "
                  f"{pairs / best_of[ONE]:.3f}  8 / 4 warps {best_of[WIDE_PAIRS] / best_of[PAIRS]:.3f}  "
                  f"rule {picks['rule'][0]} x{picks['rule'][1]} {times[picks['rule']] / best:.3f}  "
                  f"one block x{picks['one block'][1]} {times[picks['one block']] / best:.3f}")
    print(f"{len(points)} points; time over the best CTA shape and share count of each point:")
    for name, values in ratios.items():
        print(f"  {name:9s}: geometric mean {geomean(values):.3f}, worst {max(values):.3f}")


if __name__ == "__main__":
    main()
