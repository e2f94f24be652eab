#!/usr/bin/env python3
"""GEMMs with an fp32 bias + GELU (epilogue "bias_gelu"), epifuse against cuBLASLt + the bench's
bias+GELU kernel ("cublaslt+act", the user's path: cuBLASLt cannot fuse an fp32 bias into a bf16
D), per token class (four up to 64 tokens, then 65-255, 256-1023 and from 1024): minimum,
geometric mean and points below 1.0 and 0.95, overall and per dispatched kernel. A delegated call counts by its `epifuse-delegated` row (the call as dispatched),
not by the forced `epifuse` row the bench adds for it (epifuse's own kernel on that call).

With --rule-over-sweep, for runs whose swapped 128x32 and 16-token warp-mma rows were forced by
--sweep: the ratios two dispatch rules give over those rows (132 SMs), where each finds its choice:
- 7964f1a's: the warp-mma rows as dispatched where that dispatch keeps them (at most 16 tokens,
  rules unchanged since), else the 128x32 kernel's whole tiles or CUTLASS's heuristic stream-K;
- d96a958's, src/dispatch/sm90/gemm_heuristics.cpp ("rows + shares"):
  the 16-token kernel in rows of 16 tokens on narrow weights at 17-64 tokens, and the 128x32
  kernel's split-K shares (8, 4, 2) on few long K loops;
and the best forced row of each point.

    tools/decode_bias_act_summary.py RESULTS.json[.xz] ... [--rule-over-sweep]
"""
import argparse
from collections import defaultdict

from grid_summary import geomean, load

SMS = 132
CLASSES = ((1, 8), (9, 16), (17, 32), (33, 64), (65, 255), (256, 1023), (1024, 16384))
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


def old_rule(M, N, K):
    """7964f1a's choice: "dispatched" (warp-mma), or a forced row's key."""
    if warp_mma_runs_first(M, N, K):
        return "dispatched"
    return ("streamk", 1) if swapped32_shares_k(M, N, K) else ("whole", 1)


def runs_in_token_rows(M, N, K):
    rows = ceil_div(M, 16)
    return 16 < M <= 64 and ceil_div(N, 16) * rows <= SMS and rows * N * K <= 1 << 24


def swapped32_shares(M, N, K):
    tiles, k_steps = ceil_div(N, 128) * ceil_div(M, 32), ceil_div(K, 128)
    if k_steps >= 64:
        if tiles <= 8 and k_steps >= 128:
            return 8
        if tiles <= 16 or (tiles <= 32 and k_steps >= 96):
            return 4
        if M > 32 and 2 * tiles <= SMS:
            return 2
    if tiles <= SMS or K < 4096:
        return None
    last_wave = tiles - (ceil_div(tiles, SMS) - 1) * SMS
    return 1 if 4 * last_wave < SMS else None


def new_rule(M, N, K):
    """The rows + shares rule's choice: "dispatched" where it keeps 7964f1a's warp-mma choice, or a forced row's key."""
    if M <= 16 and warp_mma_runs_first(M, N, K):
        return "dispatched"
    if 8 < M <= 16 and ceil_div(N, 16) * 8 <= 3 * SMS:  # past 64 MiB, narrow: 8 shares
        return ("rows", 8)
    if runs_in_token_rows(M, N, K):
        blocks, rows, steps = ceil_div(N, 16), ceil_div(M, 16), ceil_div(K, 64)
        ctas = {8: SMS, 4: 3 * SMS // 2, 2: 2 * SMS}
        splits = next((s for s in (8, 4, 2) if blocks * rows * s <= ctas[s] and steps >= 16 * s), 1)
        return ("rows", splits)
    shares = swapped32_shares(M, N, K)
    return ("streamk", shares) if shares else ("whole", 1)


def points(rows):
    """(model, gemm, M, N, K) -> the run's times: baseline, dispatched (and its kernel), forced rows."""
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
        elif r["impl"] == "epifuse-delegated":
            p["delegated"] = r["median_us"]
            p["delegated_kernel"] = r["kernel"]
        elif r["impl"] == "sweep" and r.get("stream_k", "heuristic") == "heuristic":
            if "swap_coop_128x32x128" in r["kernel"]:
                kind = "streamk" if r["kernel"].endswith("_streamk") else "whole"
            elif "warpmma_16x16x64" in r["kernel"]:
                kind = "rows"
            else:
                continue
            p[(kind, r.get("splits", 1))] = r["median_us"]
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
        by_class, by_kernel = defaultdict(list), defaultdict(list)
        rules = {"7964f1a's rule": defaultdict(list), "the rows + shares rule": defaultdict(list), "best forced": defaultdict(list)}
        for (_, _, M, N, K), p in points(data["rows"]).items():
            dispatched = p.get("delegated", p.get("epifuse"))
            if "baseline" not in p or dispatched is None:
                continue
            cls = next((c for c in CLASSES if c[0] <= M <= c[1]), None)
            if cls is None:
                continue
            kernel = p["delegated_kernel"] if "delegated" in p else p["kernel"]
            by_class[cls].append(p["baseline"] / dispatched)
            by_kernel[(cls, kernel)].append(p["baseline"] / dispatched)
            if args.rule_over_sweep:
                chosen = {"7964f1a's rule": old_rule(M, N, K), "the rows + shares rule": new_rule(M, N, K)}
                for name, choice in chosen.items():
                    t = p.get(choice) if choice != "dispatched" else p.get("epifuse")
                    if t is not None:
                        rules[name][cls].append(p["baseline"] / t)
                forced = [t for key, t in p.items() if isinstance(key, tuple)]
                if forced:
                    rules["best forced"][cls].append(p["baseline"] / min(forced))
        print(f"| tokens | as | {COLUMNS} |\n|---|---|{'---|' * 6}")
        for cls in CLASSES:
            if by_class[cls]:
                print(f"| {cls[0]}-{cls[1]} | dispatched in the run | {summary(by_class[cls])} |")
            for name, ratios in rules.items():
                if ratios[cls]:
                    print(f"| {cls[0]}-{cls[1]} | {name} over the forced rows | {summary(ratios[cls])} |")
        print(f"\n| tokens | kernel | {COLUMNS} |\n|---|---|{'---|' * 6}")
        for (cls, kernel), ratios in sorted(by_kernel.items()):
            print(f"| {cls[0]}-{cls[1]} | {kernel} | {summary(ratios)} |")
        print()


if __name__ == "__main__":
    main()
