"""The whole Llama-3 8B MLP computed in token chunks, so that the [M, N] gated output never exists
in full: time and peak memory against one call (cat: chunks joined by torch.cat; into: each
chunk's down projection written into its rows of the output). From the repository root."""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "bench/python")
import epifuse
from harness import time_interleaved
K, N = 4096, 14336
g = torch.Generator(device="cuda").manual_seed(1)
sets = []
for _ in range(3):
    gate = torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=g) * K**-0.5
    up = torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=g) * K**-0.5
    down = torch.randn(K, N, device="cuda", dtype=torch.bfloat16, generator=g) * N**-0.5
    sets.append((epifuse.pack_gate_up(gate, up), down))
def whole(x, p, d): return F.linear(epifuse.gated_mlp(x, p), d)
def cat(x, p, d, c): return torch.cat([F.linear(epifuse.gated_mlp(x[a:a + c], p), d) for a in range(0, x.shape[0], c)])
def into(x, p, d, c):
    y = x.new_empty(x.shape[0], d.shape[0])
    for a in range(0, x.shape[0], c):
        torch.mm(epifuse.gated_mlp(x[a:a + c], p), d.t(), out=y[a:a + c])
    return y
def peak(f):
    torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); b = torch.cuda.memory_allocated()
    y = f(); torch.cuda.synchronize(); r = (torch.cuda.max_memory_allocated() - b) / 2**20; del y; return r
with torch.inference_mode():
    for M in (4096, 8192, 16384):
        xs = [torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=g) * K**-0.5 for _ in range(3)]
        calls = {"whole": lambda i: whole(xs[i % 3], *sets[i % 3])}
        for c in (1024, 2048, 4096):
            if c < M:
                calls[f"cat{c}"] = lambda i, c=c: cat(xs[i % 3], *sets[i % 3], c)
                calls[f"into{c}"] = lambda i, c=c: into(xs[i % 3], *sets[i % 3], c)
        ref = calls["whole"](0)
        diffs = {n: (f(0).float() - ref.float()).abs().max().item() for n, f in calls.items()}
        print(f"M={M} max |diff| vs whole: {diffs}", flush=True)
        t = time_interleaved(calls, rounds=30)
        print(f"M={M}: " + ", ".join(f"{n} {v.median_us:.1f} us {peak(lambda: calls[n](0)):.0f} MiB" for n, v in t.items()), flush=True)
