"""Decode share-tail (issue 9): the swapped 128x32 kernel forced whole, stream-K and share-tail
beside the dispatched call. Prints, per call, each forced kernel's time over the dispatched call's
and the ratios to cuBLASLt + act·mul; then, for the A/B folders, the dispatched (new) call over the
forced whole tiles (the old choice).  python3 summary.py"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[4] / "tools"))
from bench_calls import calls, gmean, load  # noqa: E402

SMS = 132
WHOLE = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1"


def tiles(M, N):
    return -(-2 * N // 128) * -(-M // 32)


def fill(t):
    return t / (-(-t // SMS) * SMS)


def sweep(path):
    doc = load(path)
    assert all(r["check"] in ("pass", "skipped") for r in doc["rows"])
    print(f"## {path.parent.name}: {doc['gpu']}, {doc['commit']}, {doc['date']}")
    print("| call | tiles | fill | dispatched | whole | stream-K | share-tail | vs cuBLASLt + act·mul: dispatched -> share-tail |")
    print("|---|---|---|---|---|---|---|---|")
    for (M, N, K), g in sorted(calls(doc).items(), key=lambda kv: (tiles(kv[0][0], kv[0][1]), kv[0][2])):
        t = tiles(M, N)
        d = g["epifuse"]["median_us"]
        lt = g["cublaslt+act"]["median_us"]
        w = g[WHOLE]["median_us"]
        sk = g[WHOLE + "_streamk"]["median_us"]
        st = g[WHOLE + "_streamk stream_k=share_tail"]["median_us"]
        print(f"| {M}x{N}x{K} | {t} | {fill(t):.3f} | {g['epifuse']['kernel'].replace(WHOLE, 'k32')} | "
              f"{w / d:.3f} | {sk / d:.3f} | {st / d:.3f} | {lt / d:.3f} -> {lt / st:.3f} |")


def ab(path):
    doc = load(path)
    assert all(r["check"] in ("pass", "skipped") for r in doc["rows"])
    print(f"## {path.parent.name}: {doc['gpu']}, {doc['commit']}, {doc['date']}")
    print("| call | tiles | fill | dispatched | new / old (whole) | vs cuBLASLt + act·mul: old -> new | % of read bw: old -> new |")
    print("|---|---|---|---|---|---|---|")
    ratios, before, after = [], [], []
    for (M, N, K), g in sorted(calls(doc).items(), key=lambda kv: (tiles(kv[0][0], kv[0][1]), kv[0][2])):
        t = tiles(M, N)
        new = g["epifuse"]
        old = g[WHOLE]
        lt = g["cublaslt+act"]["median_us"]
        ratios.append(new["median_us"] / old["median_us"])
        before.append(lt / old["median_us"])
        after.append(lt / new["median_us"])
        print(f"| {M}x{N}x{K} | {t} | {fill(t):.3f} | {new['kernel'].replace(WHOLE, 'k32')} | {ratios[-1]:.3f} | "
              f"{before[-1]:.3f} -> {after[-1]:.3f} | {old['pct_of_read_bw']:.1f} -> {new['pct_of_read_bw']:.1f} |")
    print(f"\n{len(ratios)} calls: new/old geometric mean {gmean(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}); "
          f"vs cuBLASLt + act·mul {gmean(before):.3f} -> {gmean(after):.3f}; below 0.95 "
          f"{sum(x < 0.95 for x in before)} -> {sum(x < 0.95 for x in after)}, below 0.97 "
          f"{sum(x < 0.97 for x in before)} -> {sum(x < 0.97 for x in after)}\n")


if __name__ == "__main__":
    sweep(HERE / "sweep-d9fe2ae" / "decode-sweep.json.xz")
    for p in sorted(HERE.glob("ab-*/decode-ab*.json*")):
        ab(p)
