"""Decode on the warp-mma kernel (issue 9). Prints the sweep (the swapped 128x32 kernel and the
warp-mma kernel forced beside the dispatched call, whole and in split-K shares), the A/B at 2f1509b
and the fresh draws at 9d1fa42 (the dispatched call over the kernel it replaced, forced in the same
run, or over cuBLASLt + act·mul where the call was delegated), and the random suite against its
runs at c17ab20 and 26eb188 (separate runs).  python3 summary.py"""
import math
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[4] / "tools"))
from bench_calls import calls, gmean, load  # noqa: E402

SMS = 132
PREFIX = "sm90_gated_mlp_bf16_bf16_swap_"
WHOLE = PREFIX + "coop_128x32x128_c1x1"
STREAM_K = WHOLE + "_streamk"
WARP_MMA = PREFIX + "warpmma_16x8x64_c1x1"


def blocks(N):
    return -(-2 * N // 16)


def decode_splits(rows, K):
    """src/dispatch/sm90/gemm_heuristics.cpp, decode_splits."""
    b, steps = -(-rows // 16), -(-K // 64)
    for s in (8, 4, 2):
        one_wave = b * s <= 2 * SMS if s == 2 else 10 * b * s <= 17 * SMS
        min_steps = 32 * s if s > 2 else (32 if b < 128 else 64)
        if one_wave and steps >= min_steps:
            return s
    return 2 if 4 * SMS < b <= 5 * SMS and steps >= 64 else 1


def knob(kernel, splits):
    return kernel if splits == 1 else f"{kernel} splits={splits}"


def checked(path):
    """Every epifuse row passed its check; a baseline's failed check is printed."""
    doc = load(path)
    print(f"## {path.parent.name}/{path.name}: {doc['gpu']}, {doc['commit']}, {doc['date']}")
    for r in doc["rows"]:
        if r["check"] not in ("pass", "skipped"):
            assert not r["impl"].startswith("epifuse") and r["impl"] != "sweep", (path, r)
            print(f"(baseline check {r['check']}: {r['impl']} at {r['M']}x{r['N']}x{r['K']})")
    return doc


def line(label, ratios, before, after):
    print(f"{label}: {len(ratios)} calls, time {gmean(ratios):.3f}x ({min(ratios):.3f}-{max(ratios):.3f}, slower at "
          f"{sum(x > 1 for x in ratios)}); "
          f"vs cuBLASLt + act·mul {gmean(before):.3f} (min {min(before):.3f}) -> {gmean(after):.3f} "
          f"(min {min(after):.3f}); below 0.95 {sum(x < 0.95 for x in before)} -> {sum(x < 0.95 for x in after)}")


def sweep(path):
    doc = checked(path)
    print("| call | blocks | K | 128x32 whole | its best split / whole | warp-mma / whole | best warp-mma split |"
          " vs cuBLASLt + act·mul: 128x32 -> warp-mma |")
    print("|---|---|---|---|---|---|---|---|")
    inside, past, split_k = [], [], []
    for (M, N, K), g in sorted(calls(doc).items(), key=lambda kv: (blocks(kv[0][1]), kv[0][2])):
        whole = g[WHOLE]["median_us"]
        lt = g["cublaslt+act"]["median_us"]
        shares = {s: g[knob(STREAM_K, s)]["median_us"] for s in (2, 3, 4, 8)}
        split_k.append(min(shares.values()) / whole)
        row = f"| {M}x{N}x{K} | {blocks(N)} | {K} | {whole:.1f} us | {split_k[-1]:.3f} |"
        if WARP_MMA in g:
            mma = {s: g[knob(WARP_MMA, s)]["median_us"] for s in (1, 2, 4, 8)}
            (inside if blocks(N) <= 4 * SMS else past).append(mma[1] / whole)
            best = min(mma, key=mma.get)
            row += f" {mma[1] / whole:.3f} | {best} | {lt / whole:.3f} -> {lt / mma[1]:.3f} |"
        else:
            row += " | | |"
        print(row)
    print(f"\nwarp-mma / whole 128x32 within one wave of singles ({len(inside)} calls): {min(inside):.3f}-"
          f"{max(inside):.3f}, slower at {sum(x > 1 for x in inside)}; past it ({len(past)}): "
          f"{min(past):.3f}-{max(past):.3f}; the 128x32 kernel's best split-K share over its whole tiles: "
          f"{min(split_k):.3f}-{max(split_k):.3f}\n")


def replaced(path, old_of):
    """The dispatched call over the old choice (old_of: its time from a call's rows)."""
    doc = checked(path)
    ratios, before, after = [], [], []
    for (M, N, K), g in sorted(calls(doc).items()):
        new = g["epifuse"]
        lt = g["cublaslt+act"]["median_us"]
        old = old_of(g, N, K)
        ratios.append(new["median_us"] / old)
        before.append(lt / old)
        after.append(lt / new["median_us"])
        print(f"| {M}x{N}x{K} | {blocks(N)} | {new['kernel'].replace(PREFIX, '')} | {ratios[-1]:.3f} | "
              f"{before[-1]:.3f} -> {after[-1]:.3f} |")
    line("\n" + path.stem, ratios, before, after)
    print()


def in_shares(g, N, K):
    return g[knob(WARP_MMA, decode_splits(2 * N, K))]["median_us"]


def random_suite(path, earlier):
    def ratios(doc):
        out = {}
        for call, g in calls(doc).items():
            ours = g.get("epifuse-delegated") or g["epifuse"]
            out[call] = (ours["kernel"], g["cublaslt+act"]["median_us"] / ours["median_us"])
        return out
    now, then = ratios(checked(path)), ratios(load(earlier))
    print(f"against {earlier.parent.name}/{earlier.name} ({load(earlier)['commit']})")
    changed = [c for c in now if now[c][0] != then[c][0]]
    for c in sorted(changed):
        print(f"| {'x'.join(map(str, c))} | {then[c][0].replace(PREFIX, '')} {then[c][1]:.3f} -> "
              f"{now[c][0].replace(PREFIX, '')} {now[c][1]:.3f} |")
    for label, keys in (("all", list(now)), ("changed", changed)):
        b, a = [then[c][1] for c in keys], [now[c][1] for c in keys]
        print(f"{label}: {len(keys)} draws, {gmean(b):.3f} (min {min(b):.3f}, below 0.95 {sum(x < 0.95 for x in b)}) -> "
              f"{gmean(a):.3f} (min {min(a):.3f}, below 0.95 {sum(x < 0.95 for x in a)})")
    print()


if __name__ == "__main__":
    sweep(HERE / "sweep-3ca1bee" / "split-sweep.json.xz")
    ab = HERE / "ab-2f1509b"
    print("| call | blocks | dispatched | new / old | vs cuBLASLt + act·mul: old -> new |\n|---|---|---|---|---|")
    replaced(ab / "class-a.json.xz", lambda g, N, K: g[WHOLE]["median_us"])
    replaced(ab / "class-a-eager.json.xz", lambda g, N, K: g[WHOLE]["median_us"])
    # At 2f1509b these calls still ran the stream-K twin or were delegated: the warp-mma kernel in
    # decode_splits's shares (forced) over them, as 9d1fa42 dispatches it.
    for name in ("class-b", "class-c"):
        doc = checked(ab / f"{name}.json.xz")
        ratios, before, after = [], [], []
        for (M, N, K), g in sorted(calls(doc).items()):
            old = (g.get("epifuse-delegated") or g["epifuse"])["median_us"]
            lt = g["cublaslt+act"]["median_us"]
            new = in_shares(g, N, K)
            ratios.append(new / old)
            before.append(lt / old)
            after.append(lt / new)
            print(f"| {M}x{N}x{K} | {blocks(N)} | K {K} | {ratios[-1]:.3f} | {before[-1]:.3f} -> {after[-1]:.3f} |")
        for label, keep in (("K < 16384", lambda k: k < 16384), ("K >= 16384", lambda k: k >= 16384)):
            idx = [i for i, (M, N, K) in enumerate(sorted(calls(doc))) if keep(K)]
            if idx:
                line(f"{name}, {label}", [ratios[i] for i in idx], [before[i] for i in idx], [after[i] for i in idx])
        print()
    proof = HERE / "proof-9d1fa42"
    replaced(proof / "fresh-b.json.xz", lambda g, N, K: g[STREAM_K]["median_us"])
    # Delegated before: cuBLASLt + act·mul stands for the old path (the delegated one ran 0.965-1.004
    # of it at the class-c and random-suite draws).
    replaced(proof / "fresh-c.json.xz", lambda g, N, K: g["cublaslt+act"]["median_us"])
    issue9 = HERE.parent
    random_suite(proof / "gated-random-seed202611302-m64.json.xz",
                 issue9 / "decode-share-tail" / "random-m64-c17ab20" / "gated-random-seed202611302-m64.json.xz")
    random_suite(HERE / "random-9d1fa42" / "gated-random-seed202611302.json.xz",
                 issue9 / "pingpong-160" / "random-26eb188" / "gated-random-seed202611302.json.xz")
