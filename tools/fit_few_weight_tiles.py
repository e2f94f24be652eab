#!/usr/bin/env python3
"""Fits the gated dispatch's wave model (src/dispatch/sm90/gated_mlp_heuristics.cpp, few weight
tiles) to `epifuse-bench gated --sweep` results: each kernel family's efficiency, a tile's fixed
cost in K steps (cooperative, pingpong), stream-K's cost of sharing and its fixed cost, by
coordinate descent over a grid, minimising the summed log of the fastest swept kernel's time over
the picked one's. For the compiled constants and for the fit: each shape's pick against the
reference kernel (the run's `epifuse` row: the rules' choice in the sweeps before refit/, dc20497's
model's there) and the fastest kernel; then the gain of the fit with each shape left out of its
own. Only shapes of the model's class count (449-4096 tokens, or 129-4096 with K under 1792, at
most 127 weight tiles, not delegated).

    tools/fit_few_weight_tiles.py bench/results/tuning/issue9/few-weight-tiles/{,wider/,refit/}sweep-*.json \
        bench/results/tuning/issue9/few-weight-tiles-129-448/sweep-{c2067d7,suite-5c08106}/sweep-*.json

(In sweep-suite-5c08106/ the reference kernel is 5c08106's model without the 128x32's cap, not the
rules.)
"""
import argparse
import json
import math
import random

SMS = 132
MAX_WEIGHT_TILES = 127
DELEGATION_MIN_K = 1792  # few_weight_tiles_long_k's K: from there 129-448 tokens are delegated
PREFIX = "sm90_gated_mlp_bf16_bf16_"

# kernel -> (family, tile along the weight, tile along the tokens, cluster along the
# weight, cluster along the tokens, stream-K)
KERNELS = {
    "swap_coop_128x144x64_c2x1": ("wide", 128, 144, 2, 1, False),
    "swap_coop_128x160x64_c2x1": ("wide", 128, 160, 2, 1, False),
    "swap_coop_128x176x64_c2x1": ("wide", 128, 176, 2, 1, False),
    "swap_coop_128x208x64_c2x1": ("wide", 128, 208, 2, 1, False),
    "swap_coop_128x224x64_c2x1": ("wide", 128, 224, 2, 1, False),
    "swap_pingpong_128x128x64_c1x2": ("swapped_pairs", 128, 128, 1, 2, False),
    "swap_pingpong_128x96x64_c1x2": ("swapped_pairs", 128, 96, 1, 2, False),
    "pingpong_128x128x64_c1x2": ("unswapped_pingpong", 128, 128, 2, 1, False),
    "coop_128x256x64_c1x2": ("unswapped_256", 256, 128, 2, 1, False),
    "swap_coop_128x128x64_c1x1_streamk": ("stream_k", 128, 128, 1, 1, True),
    "swap_coop_128x160x64_c2x1_streamk": ("stream_k", 128, 160, 2, 1, True),
    "swap_coop_128x224x64_c2x1_streamk": ("stream_k", 128, 224, 2, 1, True),
    "swap_coop_128x32x128_c1x1": ("swapped_32", 128, 32, 1, 1, False),
}
# Kernels that are no candidate past this many waves of their tiles (the compiled model's max_waves).
MAX_WAVES = {"swap_coop_128x32x128_c1x1": 2}
# The compiled model's one-wave rule: a kernel of the first tuple whose tiles make more than one
# wave yields to one of the second whose tiles make one.
YIELDS_PAST_ONE_WAVE = ("pingpong_128x128x64_c1x2",)
PREFERRED_IN_ONE_WAVE = ("swap_coop_128x224x64_c2x1",)
FITTED_FAMILIES = ("swapped_pairs", "unswapped_pingpong", "unswapped_256", "stream_k", "swapped_32")
# A pingpong kernel's epilogue overlaps the other warp group's K loop; a cooperative one's does not.
PINGPONG_FAMILIES = ("swapped_pairs", "unswapped_pingpong")
EFFICIENCIES = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.3]
GRID = {**{f: EFFICIENCIES for f in FITTED_FAMILIES},
        "stream_k_share": [1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5],
        "stream_k_fixed_k_steps": [0, 1000, 3000, 10000, 20000],
        "cooperative_overhead_k_steps": [0, 256, 512, 768, 1024, 1536, 2048, 3072],
        "pingpong_overhead_k_steps": [0, 256, 512, 768, 1024, 1536, 2048, 3072]}
# The constants src/dispatch/sm90/gated_mlp_heuristics.cpp compiles: this tool's fit.
COMPILED = {"wide": 1.0, "swapped_pairs": 0.8, "unswapped_pingpong": 0.9, "unswapped_256": 0.5, "stream_k": 0.95,
            "swapped_32": 0.8, "stream_k_share": 1.0, "stream_k_fixed_k_steps": 3000,
            "cooperative_overhead_k_steps": 3072, "pingpong_overhead_k_steps": 2048}
START = {"wide": 1.0, "stream_k_share": 1.1, "stream_k_fixed_k_steps": 0, "cooperative_overhead_k_steps": 0,
         "pingpong_overhead_k_steps": 0, **{f: 1.0 for f in FITTED_FAMILIES}}


def ceil_div(a, b):
    return -(-a // b)


def output_tiles(kernel, M, N):
    _, weight_tile, token_tile, weight_cluster, token_cluster, _ = KERNELS[kernel]
    return (ceil_div(ceil_div(2 * N, weight_tile), weight_cluster) * weight_cluster *
            ceil_div(ceil_div(M, token_tile), token_cluster) * token_cluster)


def modeled_time(kernel, M, N, K, p, mode="heuristic"):
    family, weight_tile, token_tile, _, _, stream_k = KERNELS[kernel]
    tiles = output_tiles(kernel, M, N)
    area = weight_tile * token_tile
    overhead = p["pingpong_overhead_k_steps" if family in PINGPONG_FAMILIES else "cooperative_overhead_k_steps"]
    tile_time = area * (K + overhead) / p[family]
    # CUTLASS's stream-K scheduler: whole waves but the last two run whole tiles and the tiles of
    # those two are shared over the SMs, where a tile's K loop has more than 8 iterations (of 64)
    # and the last wave is less than half full (its heuristic mode) or not full (its StreamK mode,
    # "share_tail", which dispatch launches only where all tiles make less than one wave); else
    # every tile runs whole.
    shared = tiles < SMS if mode == "share_tail" else 2 * (tiles % SMS) < SMS
    if stream_k and tiles % SMS and shared and ceil_div(K, 64) > 8:
        whole_waves = max(tiles // SMS - 1, 0)
        shared_tiles = tiles - whole_waves * SMS
        return (whole_waves * tile_time + shared_tiles * tile_time / SMS * p["stream_k_share"] +
                p["stream_k_fixed_k_steps"] * area)
    return math.ceil(tiles / SMS) * tile_time


def launched_mode(kernel, M, N, K, p):
    """The stream-K mode dispatch launches a kernel in: share_tail where the model prices it cheaper."""
    cheaper = modeled_time(kernel, M, N, K, p, "share_tail") < modeled_time(kernel, M, N, K, p)
    return "share_tail" if KERNELS[kernel][5] and cheaper else "heuristic"


def in_class(M, N, K):
    """449-4096 tokens (129-4096 with K under DELEGATION_MIN_K) on at most MAX_WEIGHT_TILES."""
    min_tokens = 129 if K < DELEGATION_MIN_K else 449
    return min_tokens <= M <= 4096 and ceil_div(2 * N, 128) <= MAX_WEIGHT_TILES


def shapes(files):
    """(M, N, K, {(kernel, mode): speed vs cuBLASLt + act·mul}, the rules' kernel, its speed) per shape."""
    rows = {}
    for f in files:
        for r in json.load(open(f))["rows"]:
            rows.setdefault((r["M"], r["N"], r["K"]), []).append(r)
    out = []
    for (M, N, K), rs in sorted(rows.items()):
        dispatched = [r for r in rs if r["impl"] in ("epifuse", "epifuse-delegated")]
        if not in_class(M, N, K) or not dispatched or dispatched[0]["impl"] == "epifuse-delegated":
            continue
        # Speed per (kernel, stream-K mode). Sweeps before the share-tail mode timed the heuristic
        # one only; below half a wave of tiles the two modes are the same run.
        speed = {}
        for r in rs:
            kernel, _, mode = r["kernel"][len(PREFIX):].partition(" stream_k=")
            if r["impl"] != "sweep" or kernel not in KERNELS:
                continue
            speed[(kernel, mode or "heuristic")] = r["vs_cublaslt+act"]
            if not mode and 2 * output_tiles(kernel, M, N) < SMS:
                speed.setdefault((kernel, "share_tail"), r["vs_cublaslt+act"])
        rule = dispatched[0]["kernel"][len(PREFIX):]
        out.append((M, N, K, speed, rule, dispatched[0]["vs_cublaslt+act"]))
    return out


def pick(shape, p):
    """The (kernel, stream-K mode) the model launches, among those the sweep timed."""
    M, N, K, speed = shape[:4]
    launched = [(k, launched_mode(k, M, N, K, p)) for k in KERNELS
                if output_tiles(k, M, N) <= MAX_WAVES.get(k, math.inf) * SMS]
    launched = [km for km in launched if km in speed]
    cheapest = min(launched, key=lambda km: modeled_time(km[0], M, N, K, p, km[1]))
    one_wave = [km for km in launched if km[0] in PREFERRED_IN_ONE_WAVE and output_tiles(km[0], M, N) <= SMS]
    if cheapest[0] in YIELDS_PAST_ONE_WAVE and output_tiles(cheapest[0], M, N) > SMS and one_wave:
        return min(one_wave, key=lambda km: modeled_time(km[0], M, N, K, p, km[1]))
    return cheapest


def loss(data, p):
    return sum(math.log(max(s[3].values()) / s[3][pick(s, p)]) for s in data)


def descend(data, p, order, rounds):
    for _ in range(rounds):
        for key in order:
            p[key] = min(GRID[key], key=lambda v: loss(data, {**p, key: v}))
    return p


def fit(data, rounds=4, starts=12):
    """Coordinate descent from `starts` seeded random starting points and orders; the best end."""
    rng = random.Random(0)
    best = descend(data, dict(START), list(GRID), rounds)
    for _ in range(starts - 1):
        order = list(GRID)
        rng.shuffle(order)
        p = descend(data, {**START, **{k: rng.choice(v) for k, v in GRID.items()}}, order, rounds)
        if loss(data, p) < loss(data, best):
            best = p
    return best


def name(kernel_mode):
    kernel, mode = kernel_mode
    return kernel if mode == "heuristic" else f"{kernel} stream_k={mode}"


def geomean_gain(pairs):
    return math.exp(sum(math.log(new / old) for new, old in pairs) / len(pairs))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    data = shapes(args.files)
    for title, p in (("compiled", COMPILED), ("fit", fit(data))):
        print(f"{title}: {p}")
        for s in data:
            k = pick(s, p)
            best = max(s[3], key=s[3].get)
            print(f"  {s[0]}x{s[1]}x{s[2]}: rules {s[4]} {s[5]:.3f} -> model {name(k)} {s[3][k]:.3f} "
                  f"(fastest {name(best)} {s[3][best]:.3f})")
        print(f"  {len(data)} shapes; the model's kernel over the rules' (geometric mean): "
              f"{geomean_gain([(s[3][pick(s, p)], s[5]) for s in data]):.3f}")
    held_out = []
    for i, s in enumerate(data):
        q = fit(data[:i] + data[i + 1:], rounds=3, starts=4)
        held_out.append((s[3][pick(s, q)], s[5]))
    print(f"fit with each shape left out of its own: {geomean_gain(held_out):.3f}; "
          f"slower than the rules by more than 3 %: {sum(1 for new, old in held_out if new < 0.97 * old)}")


if __name__ == "__main__":
    main()
