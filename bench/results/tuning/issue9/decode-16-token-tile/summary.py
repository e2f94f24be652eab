#!/usr/bin/env python3
"""Prints every figure the README and docs/heuristics.md quote from this directory's runs."""
import json
import lzma
import statistics
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SWAP = "sm90_gated_mlp_bf16_bf16_swap_"


def load(name):
    path = HERE / name
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt") as f:
        return json.load(f)


def by_shape(doc):
    shapes = defaultdict(dict)
    for r in doc["rows"]:
        shapes[(r["M"], r["N"], r["K"])][(r["impl"], r["kernel"])] = r
    return shapes


def swept(rows, tile):
    return rows[("sweep", SWAP + tile)]["median_us"]


def ours(rows):
    """The dispatched row: the delegated one where the call was delegated."""
    for (impl, _), r in rows.items():
        if impl == "epifuse-delegated":
            return r
    return next(r for (impl, _), r in rows.items() if impl == "epifuse")


def ratio_range(name, doc, tile, against="coop_128x32x128_c1x1"):
    ratios = [swept(rows, tile) / swept(rows, against) for rows in by_shape(doc).values()]
    print(f"{name}: {tile} over {against}, {len(ratios)} calls: {min(ratios):.3f}-{max(ratios):.3f}x, "
          f"geometric mean {statistics.geometric_mean(ratios):.3f}")


def failed_checks(doc):
    return [r for r in doc["rows"] if r.get("check") not in ("pass", "skipped")]


def main():
    runs = {name: load(name) for name in ("sweep-run144/decode-sweep.json.xz", "sweep-run145/decode-sweep-k256.json",
                                          "sweep-run146/decode-by-tokens.json.xz")}
    for name, doc in runs.items():
        print(f"{name}: {doc['gpu']}, driver {doc['driver']}, {len(failed_checks(doc))} failed checks")
    ratio_range("run144", runs["sweep-run144/decode-sweep.json.xz"], "pingpong_128x32x128_c1x1")
    ratio_range("run144", runs["sweep-run144/decode-sweep.json.xz"], "pingpong_64x32x128_c1x1")
    ratio_range("run145", runs["sweep-run145/decode-sweep-k256.json"], "coop_128x32x256_c1x1")
    ratio_range("run145", runs["sweep-run145/decode-sweep-k256.json"], "pingpong_64x32x256_c1x1")
    tokens = runs["sweep-run146/decode-by-tokens.json.xz"]
    ratio_range("run146", tokens, "coop_128x16x128_c1x1")
    print("run146 by token count (us), 128x32 | 128x16 at 1, 2, 4, 8, 16 tokens:")
    per_weight = defaultdict(dict)
    for (M, N, K), rows in by_shape(tokens).items():
        per_weight[(N, K)][M] = rows
    for (N, K), by_m in per_weight.items():
        old = [swept(by_m[m], "coop_128x32x128_c1x1") for m in sorted(by_m)]
        new = [swept(by_m[m], "coop_128x16x128_c1x1") for m in sorted(by_m)]
        print(f"  {N}x{K}: " + " ".join(f"{t:.1f}" for t in old) + " | " + " ".join(f"{t:.1f}" for t in new) +
              f"   one token over eight: {old[0] / old[3]:.3f} | {new[0] / new[3]:.3f}")

    new, old = load("ab-run147/random-m16-new.json"), load("ab-run147/random-m16-old.json")
    print(f"run147: {len(failed_checks(new))} + {len(failed_checks(old))} failed checks")
    new_rows, old_rows = by_shape(new), by_shape(old)
    changed = []
    for shape in sorted(new_rows):
        a, b = ours(new_rows[shape]), ours(old_rows[shape])
        if "128x16x128" in a["kernel"]:
            changed.append((a["median_us"] / b["median_us"], shape, a, b))
    times = [c[0] for c in changed]
    print(f"run147: {len(new_rows)} draws of at most 16 tokens, {len(changed)} on the 128x16: "
          f"{min(times):.3f}-{max(times):.3f}x the old dispatch's time, geometric mean {statistics.geometric_mean(times):.3f}")
    for t, shape, a, b in changed:
        print(f"  {shape}: {b['median_us']:.1f} -> {a['median_us']:.1f} us ({t:.3f}x), of cuBLASLt + act·mul "
              f"{b['vs_cublaslt+act']:.3f} -> {a['vs_cublaslt+act']:.3f}, read bandwidth {b['pct_of_read_bw']:.0f} -> "
              f"{a['pct_of_read_bw']:.0f} %")

    for p in (1, 2, 3):
        rows = by_shape(load(f"repeat-run149/repeat-{p}.json"))
        for shape, r in sorted(rows.items()):
            base = r[next(k for k in r if k[0] == "cublaslt+act")]["median_us"]
            print(f"run149 process {p} {shape}: 128x32 {swept(r, 'coop_128x32x128_c1x1'):.1f}, 128x16 "
                  f"{swept(r, 'coop_128x16x128_c1x1'):.1f}, dispatched {ours(r)['median_us']:.1f}, cuBLASLt + act·mul {base:.1f} us")


if __name__ == "__main__":
    main()
