"""The grouped gate/up GEMM of a MoE layer's experts (issue 11): epifuse.grouped_gated_mlp against
torch._grouped_mm on [gate; up] + the Triton act·mul, the same routed rows, interleaved.

Tokens are routed to k distinct of E experts (seeded): uniform, Zipf-skewed (expert e with weight
1/(e+1)^1.2) or one hot set (every token on experts 0..k-1); rows are sorted by expert, and the
int32 offsets live on the GPU. Every output is checked first on up to 8 non-empty experts against
an fp64 reference (checks.py): epifuse rounds once, the torch path twice ([T, 2N], then out)."""
from typing import List

import torch
import torch.nn.functional as F

import epifuse
from checks import check
from harness import time_interleaved
from triton_act_mul import act_mul

# (name, experts E, top-k, hidden K, expert intermediate N): routed experts of public configs.
MOE_MODELS = {"deepseek-v3": (256, 8, 7168, 2048), "qwen2-57b-a14b": (64, 8, 3584, 2560), "mixtral-8x7b": (8, 2, 4096, 14336)}
MOE_TOKENS = [1, 8, 64, 256, 1024, 4096]
ROUTINGS = ["uniform", "zipf", "hot"]
BF16 = torch.bfloat16
KERNEL_EPIFUSE = ("grouped_gated_mlp (max_expert_rows = T): swapped 128x32x128 over experts of <= 64 rows, the "
                  "others on the tile that pads them least (unswapped 128x256x64 1x2, swapped 128x160 / 128x208 2x1)")
KERNEL_TORCH = "torch._grouped_mm on [gate; up] + Triton act·mul"


def route_picks(routing: str, tokens: int, experts: int, k: int, generator: torch.Generator) -> torch.Tensor:
    """[tokens, k] distinct expert ids per token."""
    if routing == "hot":
        return torch.arange(k).expand(tokens, k).contiguous()
    weights = torch.ones(experts) if routing == "uniform" else 1.0 / torch.arange(1, experts + 1).double() ** 1.2
    return torch.multinomial(weights.expand(tokens, experts), k, replacement=False, generator=generator)


def route_counts(routing: str, tokens: int, experts: int, k: int, generator: torch.Generator) -> torch.Tensor:
    """Rows per expert when each token picks k distinct experts."""
    return torch.bincount(route_picks(routing, tokens, experts, k, generator).flatten(), minlength=experts)


def _weights(E: int, N: int, K: int, seed: int):
    g = torch.Generator(device="cuda").manual_seed(seed)
    w13 = torch.randn(E, 2 * N, K, device="cuda", dtype=BF16, generator=g) * K**-0.5  # [gate; up] per expert
    packed = torch.stack([epifuse.pack_gate_up(gate_up=w13[e]).weight for e in range(E)])
    return w13, packed


def _reference(x, w13, counts, N, experts_checked: int = 8):
    """fp64 [rows, N] of the first `experts_checked` non-empty experts, and their row mask."""
    mask = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
    ref = torch.zeros(x.shape[0], N, dtype=torch.float64, device=x.device)
    start, done = 0, 0
    for e, n in enumerate(counts.tolist()):
        if n and done < experts_checked:
            h = x[start:start + n].double() @ w13[e].double().T
            ref[start:start + n] = F.silu(h[:, :N]) * h[:, N:]
            mask[start:start + n] = True
            done += 1
        start += n
    return ref, mask


def suite_moe(ceil: dict, seed: int, models: List[str], tokens_list: List[int], routings: List[str]) -> List[dict]:
    rows = []
    for model in models:
        E, k, K, N = MOE_MODELS[model]
        w13, packed = _weights(E, N, K, seed)
        w13_t = w13.transpose(1, 2)  # [E, K, 2N], each expert column-major: what torch._grouped_mm takes
        expert_bytes = 2 * N * K * 2
        g = torch.Generator().manual_seed(seed)
        for routing in routings:
            for T in tokens_list:
                counts = route_counts(routing, T, E, k, g)
                rows_total = int(counts.sum())
                ends = counts.cumsum(0).to(torch.int32).cuda()
                offsets = torch.cat([torch.zeros(1, dtype=torch.int32, device="cuda"), ends])
                x = torch.randn(rows_total, K, device="cuda", dtype=BF16) * K**-0.5
                impls = {
                    # An engine knows T, which bounds each expert's rows (k distinct experts per token).
                    "epifuse": (lambda i: epifuse.grouped_gated_mlp(x, packed, offsets, max_expert_rows=T), 1),
                    "torch_grouped_mm+act": (lambda i: act_mul(torch._grouped_mm(x, w13_t, offs=ends)), 2),
                }
                kernels = {"epifuse": KERNEL_EPIFUSE, "torch_grouped_mm+act": KERNEL_TORCH}
                ref, mask = _reference(x, w13, counts, N)
                checks = {name: check(call(0)[mask], ref[mask], roundings) for name, (call, roundings) in impls.items()}
                times = time_interleaved({name: call for name, (call, _) in impls.items()}, rounds=20, warmup=3)
                touched = int((counts > 0).sum()) * expert_bytes
                for name in impls:
                    t = times[name]
                    gbps = touched / t.median_us / 1e3
                    rows.append({"op": "moe_gated", "impl": name, "kernel": kernels[name], "model": model, "tokens": T, "rows": rows_total,
                                 "experts": E, "topk": k, "routing": routing, "M": rows_total, "N": N, "K": K,
                                 "dtype": "bf16", "epilogue": "swiglu", "median_us": t.median_us, "p10_us": t.p10_us,
                                 "p90_us": t.p90_us, "samples": t.samples, "touched_weight_bytes": touched,
                                 "gbps": gbps, "pct_of_read_bw": 100.0 * gbps / ceil["read_gbps"],
                                 "tflops": 2.0 * rows_total * 2 * N * K / t.median_us / 1e6, **checks[name],
                                 "vs_torch_grouped_mm+act": times["torch_grouped_mm+act"].median_us / t.median_us})
                print(f"moe_gated {model} {routing} T={T} rows={rows_total}: " +
                      ", ".join(f"{n} {t.median_us:.1f} us" for n, t in times.items()) +
                      f" ({times['torch_grouped_mm+act'].median_us / times['epifuse'].median_us:.2f}x)", flush=True)
                del x, ref
        del w13, w13_t, packed
        torch.cuda.empty_cache()
    return rows
