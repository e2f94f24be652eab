#!/usr/bin/env python3
"""Prints every figure the README, docs/heuristics.md and the rule's comment quote from this directory."""
import json
import lzma
import math
import re
import tarfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "sm90_gated_mlp_bf16_bf16_"
MODELS = {(14336, 4096): "Llama-3 8B", (28672, 8192): "Llama-3 70B", (18944, 3584): "Qwen2.5-7B",
          (8192, 2048): "Llama-3.2 1B", (8192, 3072): "Llama-3.2 3B", (29568, 8192): "Qwen2.5-72B",
          (14336, 3584): "Gemma-2 9B", (17920, 5120): "Phi-3 medium", (32896, 16640): "draw 32896x16640",
          (44800, 7360): "draw 44800x7360"}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def shapes_of(docs):
    """(M, N, K) -> {'base': cuBLASLt + act·mul µs, 'ours': the dispatched call's µs, 'kernel', swept tiles}."""
    shapes = defaultdict(dict)
    for doc in docs:
        for r in doc["rows"]:
            s = shapes[(r["M"], r["N"], r["K"])]
            kernel = r["kernel"].replace(PREFIX, "")
            if r["impl"] == "cublaslt+act":
                s["base"] = r["median_us"]
            elif r["impl"] == "epifuse-delegated":
                s["ours"], s["kernel"] = r["median_us"], "delegated"
            elif r["impl"] == "epifuse" and s.get("kernel") != "delegated":
                s["ours"], s["kernel"] = r["median_us"], kernel  # a delegated call's epifuse row is forced
            elif r["impl"] == "sweep":
                s[kernel] = r["median_us"]
    return shapes


def from_tar(name, prefix):
    with tarfile.open(HERE / name) as tar:
        return [json.load(tar.extractfile(m)) for m in tar.getmembers() if m.name.lstrip("./").startswith(prefix)
                and m.name.endswith(".json")]


def timing_lines(name, build="new", marker="gated ways"):
    """The first launches' choices (EPIFUSE_DELEGATED_TUNING=log) in a run's logs."""
    with tarfile.open(HERE / name) as tar:
        for m in tar.getmembers():
            if m.name.lstrip("./").startswith(f"band-{build}") and m.name.endswith(".log"):
                for line in tar.extractfile(m).read().decode().splitlines():
                    if marker in line:
                        yield m.name.lstrip("./"), line


def span(xs):
    return f"{min(xs):.3f}-{max(xs):.3f}"


def below(xs, bound):
    return sum(x < bound for x in xs)


def sweep():
    with lzma.open(HERE / "sweep-run150/band-321-336.json.xz", "rt") as f:
        shapes = shapes_of([json.load(f)])
    tiles = {"96-token pairs": "swap_pingpong_128x96x64_c1x2", "112-token tiles": "swap_pingpong_128x112x64_c2x1",
             "176-token tiles": "swap_coop_128x176x64_c2x1", "unswapped pingpong 128": "pingpong_128x128x64_c1x2",
             "swapped 128-token pairs": "swap_pingpong_128x128x64_c1x2"}
    print("## run150: 321-336 tokens, each tiling forced, ratio to cuBLASLt + act·mul (8cc91e7's binary)")
    per_weight = defaultdict(lambda: defaultdict(list))
    for (M, N, K), s in shapes.items():
        for label, kernel in tiles.items():
            per_weight[(N, K)][label].append(s["base"] / s[kernel])
        per_weight[(N, K)]["as dispatched"].append(s["base"] / s["ours"])
    for nk in sorted(per_weight, key=lambda nk: MODELS[nk]):
        cells = ", ".join(f"{label} {span(v)}" for label, v in per_weight[nk].items())
        print(f"- {MODELS[nk]} ({nk[0]}x{nk[1]}): {cells}")
    dispatched = [s["base"] / s["ours"] for s in shapes.values()]
    best = [max(s["base"] / s["ours"], s["base"] / s[tiles["112-token tiles"]], s["base"] / s[tiles["176-token tiles"]])
            for s in shapes.values()]
    print(f"- {len(shapes)} calls: as dispatched geomean {geomean(dispatched):.3f}, min {min(dispatched):.3f}, "
          f"below 0.95 {below(dispatched, 0.95)}; best of the dispatched call, 112 and 176 {geomean(best):.3f}, "
          f"min {min(best):.3f}, below 0.95 {below(best, 0.95)}")


def ab(folder, label):
    new = shapes_of(from_tar(f"{folder}/band.tar.xz", "band-new"))
    old = shapes_of(from_tar(f"{folder}/band.tar.xz", "band-old"))
    keys = sorted(k for k in new if k in old)
    print(f"\n## {folder}: {label}, new against 8cc91e7 (old), ratio to cuBLASLt + act·mul, time new/old")
    r_old = [old[k]["base"] / old[k]["ours"] for k in keys]
    r_new = [new[k]["base"] / new[k]["ours"] for k in keys]
    print(f"- {len(keys)} calls: old geomean {geomean(r_old):.3f} min {min(r_old):.3f} below 0.95 {below(r_old, 0.95)} "
          f"below 0.97 {below(r_old, 0.97)}; new {geomean(r_new):.3f} min {min(r_new):.3f} "
          f"below 0.95 {below(r_new, 0.95)} below 0.97 {below(r_new, 0.97)}")
    per_weight = defaultdict(list)
    for k in keys:
        per_weight[(k[1], k[2])].append(new[k]["base"] / new[k]["ours"])
    print("- new, per weight: " + "; ".join(f"{MODELS[nk]} {span(v)}" for nk, v in sorted(per_weight.items())))
    by_kept = defaultdict(list)
    for k in keys:
        kept = new[k]["kernel"]
        tag = kept if kept in ("swap_coop_128x176x64_c2x1", "swap_pingpong_128x112x64_c2x1") else "unchanged"
        by_kept[tag].append(k)
    lines = [line for _, line in timing_lines(f"{folder}/band.tar.xz")]
    fused_only = [float(re.search(r"took ([0-9.]+) ms", l).group(1)) for l in lines if "delegated" not in l]
    print(f"- first launches: {len(lines)} timed; without a delegated path the choice took {span(fused_only)} ms")
    for l in lines:
        if "keeps " + PREFIX + "swap_pingpong_128x112" in l:
            times = [float(t) for t in re.findall(r"([0-9.]+) us", l)]
            print(f"    kept the 112-token tiles: the rules' pick {times[0]:.1f} us, 112-token {times[1]:.1f} us "
                  f"({1 - times[1] / times[0]:.1%} faster)")
    for tag, ks in sorted(by_kept.items()):
        times = [new[k]["ours"] / old[k]["ours"] for k in ks]
        before = [old[k]["base"] / old[k]["ours"] for k in ks]
        after = [new[k]["base"] / new[k]["ours"] for k in ks]
        print(f"- kept {tag}: {len(ks)} calls, time {geomean(times):.3f} ({span(times)}), ratio {geomean(before):.3f} "
              f"-> {geomean(after):.3f}")
        if tag != "unchanged":
            for k in ks:
                print(f"    {k[0]}x{k[1]}x{k[2]} ({MODELS[(k[1], k[2])]}): old {old[k]['kernel']} "
                      f"{old[k]['base'] / old[k]['ours']:.3f} -> {new[k]['base'] / new[k]['ours']:.3f}, "
                      f"time {new[k]['ours'] / old[k]['ours']:.3f}")


def random_draws():
    print("\n## random-run154: 24 fresh draws at 321-352 tokens (seed 20261241), dd9b7ec (new) and 8cc91e7 (old) in "
          "turn, two passes")
    for n in (1, 2):
        new = shapes_of(from_tar("random-run154/band.tar.xz", f"band-new-{n}"))
        old = shapes_of(from_tar("random-run154/band.tar.xz", f"band-old-{n}"))
        keys = sorted(k for k in new if k in old)
        r_old = [old[k]["base"] / old[k]["ours"] for k in keys]
        r_new = [new[k]["base"] / new[k]["ours"] for k in keys]
        print(f"- pass {n}, {len(keys)} draws: old geomean {geomean(r_old):.3f} min {min(r_old):.3f} below 0.95 "
              f"{below(r_old, 0.95)}; new {geomean(r_new):.3f} min {min(r_new):.3f} below 0.95 {below(r_new, 0.95)}")
        for k in keys:
            if new[k]["kernel"] != old[k]["kernel"]:
                print(f"    {k[0]}x{k[1]}x{k[2]}: old {old[k]['kernel']} -> new {new[k]['kernel']}, "
                      f"time {new[k]['ours'] / old[k]['ours']:.3f}")
    print("- the first launches of 348x10432x15616 (the GEMM 348x20864x15616): cuBLASLt's candidates for the "
          "product alone, then the gated call's ways")
    with tarfile.open(HERE / "random-run154/band.tar.xz") as tar:
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            if not m.name.endswith(".log"):
                continue
            lines = tar.extractfile(m).read().decode().splitlines()
            for i, line in enumerate(lines[:-1]):
                if "delegated 348x20864x15616" in line:
                    product = re.search(r"#0 ([0-9.]+) us", line).group(1)
                    print(f"    {m.name.lstrip('./')}: product #0 {float(product):.1f} us; "
                          f"{lines[i + 1].replace(PREFIX, '')[:150]}")

if __name__ == "__main__":
    sweep()
    ab("first-build-run151", "first build (112- and 176-token tiles timed)")
    ab("ab-run152", "the committed rule (176-token tiles timed)")
    random_draws()
