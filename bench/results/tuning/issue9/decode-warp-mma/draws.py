"""The calls of the decode warp-mma measurements (issue 9), drawn as the issue's random suite draws
them (N, K multiples of 64 log-uniform in [256, 65536], packed weight at most 4 GB), M log-uniform
in [1, 64] or [1, 8]. The planner classifies them as the dispatch of the named commit did.

  python3 draws.py sweep PLANNER    # sweep-3ca1bee/split-shapes.txt, planner of 3ca1bee
  python3 draws.py ab PLANNER       # ab-2f1509b/cls-{a,b,c}.txt, planner of 2f1509b
  python3 draws.py fresh            # proof-9d1fa42/fresh-{b,c}.txt (no planner: the rule's classes)
"""
import json
import math
import random
import subprocess
import sys

SWAP32 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1"
CATALOGUE = "1x8192x2048 8x8192x2048 1x8192x3072 1x14336x3584 1x14336x4096 8x14336x4096 2x2560x4480 2x2432x6336"


def draw(rng, max_tokens, count, keep=lambda M, N, K: True):
    def log_uniform(a, b):
        return math.exp(rng.uniform(math.log(a), math.log(b)))
    out = []
    while len(out) < count:
        M = max(1, min(max_tokens, int(round(log_uniform(1, max_tokens + 0.49 if max_tokens == 8 else max_tokens)))))
        N = int(round(log_uniform(256, 65536) / 64)) * 64
        K = int(round(log_uniform(256, 65536) / 64)) * 64
        if N < 256 or K < 256 or 2 * N * K * 2 > 4e9 or not keep(M, N, K):
            continue
        out.append((M, N, K))
    return out


def planned(planner, calls):
    kernels = []
    for i in range(0, len(calls), 200):
        chunk = calls[i:i + 200]
        shapes = [f"{M}x{2 * N}x{K}" for M, N, K in chunk]
        doc = json.loads(subprocess.run([planner, "--op", "gated", "--gpu", "h200", "--json", "--shape", *shapes],
                                        capture_output=True, text=True, check=True).stdout)
        kernels += [row["epifuse_kernel"] for row in doc]
    return kernels


def text(calls):
    return " ".join(f"{M}x{N}x{K}" for M, N, K in calls)


def sweep(planner):
    calls = draw(random.Random(202611285), 64, 3000)
    cells, past = {}, []
    for (M, N, K), kernel in zip(calls, planned(planner, calls)):
        if kernel != SWAP32 or K >= 8192:
            continue
        tiles = math.ceil(2 * N / 128) * math.ceil(M / 32)
        if tiles <= 132:
            k_class = 0 if K < 1024 else 1 if K < 2048 else 2 if K < 4096 else 3
            cells.setdefault((min((tiles - 1) // 33, 3), k_class), []).append((M, N, K))
        elif tiles <= 264 and K >= 2048:
            past.append((M, N, K))
    pick = random.Random(7)
    chosen = []
    for (_, k_class), members in sorted(cells.items()):
        pick.shuffle(members)
        chosen += members[:1 if k_class == 0 else 4]
    pick.shuffle(past)
    print(text(chosen + past[:6]), CATALOGUE)


def ab(planner):
    rng = random.Random(202611286)
    calls = draw(rng, 8, 4000, lambda M, N, K: math.ceil(2 * N / 16) <= 528)
    classes = {}
    for call, kernel in zip(calls, planned(planner, calls)):
        c = "a" if "warpmma" in kernel else "b" if "streamk" in kernel else "c" if "delegated" in kernel else "?"
        classes.setdefault(c, []).append(call)
    for c, count in (("a", 24), ("b", 12), ("c", 12)):
        members = list(dict.fromkeys(classes[c]))
        rng.shuffle(members)
        print(f"cls-{c}:", text(members[:count]))


def fresh():
    rng = random.Random(202611287)
    stream_k, delegated = [], []
    while len(stream_k) < 12 or len(delegated) < 12:
        (M, N, K), = draw(rng, 8, 1, lambda M, N, K: math.ceil(2 * N / 16) <= 528 and K < 16384)
        if K >= 2048 and 4 * math.ceil(2 * N / 128) < 132:
            if len(delegated) < 12:
                delegated.append((M, N, K))
        elif K >= 8192 and len(stream_k) < 12:
            stream_k.append((M, N, K))
    print("fresh-b:", text(stream_k))
    print("fresh-c:", text(delegated))


if __name__ == "__main__":
    {"sweep": lambda: sweep(sys.argv[2]), "ab": lambda: ab(sys.argv[2]), "fresh": fresh}[sys.argv[1]]()
