"""A swapped pingpong 128x112 2x1 (issue 9). Prints the sweep (the kernel forced beside the
dispatched call at 97-112 and 193-224 tokens) and the fresh A/B of pingpong112_pays (the dispatched
call, now that kernel, over the pingpong 128x128 or 128-token pair it replaced, forced in the same
run).  python3 summary.py"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[4] / "tools"))
from bench_calls import calls, gmean, load  # noqa: E402

PREFIX = "sm90_gated_mlp_bf16_bf16_"
P112 = PREFIX + "swap_pingpong_128x112x64_c2x1"
OLD = {False: PREFIX + "pingpong_128x128x64_c1x2", True: PREFIX + "swap_pingpong_128x128x64_c1x2"}


def takes(M, N, K, dispatched):
    """Whether c750ff7's pingpong112_pays took a call whose rules picked `dispatched` (an H200);
    c17ab20 keeps its first branch only (97-112 tokens)."""
    if K < 2048:
        return False
    if 96 < M <= 112:
        return dispatched == OLD[False] and -(-2 * N // 128) > 132
    return 192 < M <= 224 and dispatched == OLD[True]


def sweep(path):
    doc = load(path)
    assert all(r["check"] in ("pass", "skipped") for r in doc["rows"])
    print(f"## {path.parent.name}: {doc['gpu']}, {doc['commit']}, {doc['date']}")
    groups = {"taken": [], "left": []}
    for (M, N, K), g in sorted(calls(doc).items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        d = g["epifuse"]
        lt = g["cublaslt+act"]["median_us"]
        ratio = g[P112]["median_us"] / d["median_us"]
        key = "taken" if takes(M, N, K, d["kernel"]) else "left"
        groups[key].append((ratio, lt / d["median_us"], lt / g[P112]["median_us"]))
        print(f"| {M}x{N}x{K} | {d['kernel'].removeprefix(PREFIX)} | {ratio:.3f} | "
              f"{lt / d['median_us']:.3f} -> {lt / g[P112]['median_us']:.3f} | {key} |")
    for key, xs in groups.items():
        r = [x[0] for x in xs]
        print(f"\n{key}: {len(xs)} calls, 112/dispatched {gmean(r):.3f} ({min(r):.3f}-{max(r):.3f}), "
              f"vs cuBLASLt + act·mul {gmean([x[1] for x in xs]):.3f} -> {gmean([x[2] for x in xs]):.3f}")
    print()


def ab(path):
    doc = load(path)
    assert all(r["check"] in ("pass", "skipped") for r in doc["rows"])
    print(f"## {path.parent.name}: {doc['gpu']}, {doc['commit']}, {doc['date']}")
    ratios, before, after = [], [], []
    for (M, N, K), g in sorted(calls(doc).items()):
        new = g["epifuse"]
        assert new["kernel"] == P112, (M, N, K, new["kernel"])
        old = g[OLD[M > 112]]
        lt = g["cublaslt+act"]["median_us"]
        ratios.append(new["median_us"] / old["median_us"])
        before.append(lt / old["median_us"])
        after.append(lt / new["median_us"])
        print(f"| {M}x{N}x{K} | {old['kernel'].removeprefix(PREFIX)} | {ratios[-1]:.3f} | {before[-1]:.3f} -> {after[-1]:.3f} |")
    for lo, hi in ((97, 112), (193, 224)):
        idx = [i for i, (M, N, K) in enumerate(sorted(calls(doc))) if lo <= M <= hi]
        r = [ratios[i] for i in idx]
        print(f"\n{lo}-{hi} tokens: {len(idx)} calls, new/old {gmean(r):.3f} ({min(r):.3f}-{max(r):.3f}), "
              f"vs cuBLASLt + act·mul {gmean([before[i] for i in idx]):.3f} -> {gmean([after[i] for i in idx]):.3f}, "
              f"below 0.95 {sum(before[i] < 0.95 for i in idx)} -> {sum(after[i] < 0.95 for i in idx)}")
    print(f"all: {len(ratios)} calls, new/old {gmean(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), "
          f"{gmean(before):.3f} -> {gmean(after):.3f}, below 0.95 {sum(x < 0.95 for x in before)} -> "
          f"{sum(x < 0.95 for x in after)}, below 0.97 {sum(x < 0.97 for x in before)} -> {sum(x < 0.97 for x in after)}\n")


if __name__ == "__main__":
    sweep(HERE / "sweep-4176f98" / "p112-sweep.json.xz")
    for p in sorted(HERE.glob("ab-*/p112-ab.json.xz")):
        ab(p)
