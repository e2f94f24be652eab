"""A whole MoE layer's routed experts (issue 11): epifuse.moe_mlp (permute, grouped gate/up, grouped
down, weighted combine; one op) against the torch path a model runs without it: a stable sort of
the (token, choice) pairs by expert, torch._grouped_mm on [gate; up], the Triton act·mul,
torch._grouped_mm for the down projection, the routing weights, and the unpermute and sum over k
(deterministic: no index_add atomics). The same routed tokens, interleaved.

Routing as moe_bench.py (uniform, Zipf-skewed, one hot set of k experts). Checked first on 8
tokens against an fp64 layer computed expert by expert: epifuse rounds three times (the gated
rows, the experts' rows, y), the torch path five (gate/up, act·mul, down, weighted rows, y)."""
from typing import List

import torch
import torch.nn.functional as F

import epifuse
from checks import check
from harness import time_interleaved
from moe_bench import BF16, MOE_MODELS, route_picks
from triton_act_mul import act_mul

KERNEL_EPIFUSE = "moe_mlp: sort + gather, grouped_gated_mlp, grouped_gemm, weighted combine"
KERNEL_TORCH = "argsort + gather, torch._grouped_mm [gate; up], Triton act·mul, torch._grouped_mm down, unpermute + sum"
CHECKED_TOKENS = 8


def torch_moe(x, ids, weights, w13_t, w2_t, experts: int):
    """The layer as torch ops: y [T, K]."""
    T, k = ids.shape
    flat = ids.flatten()
    order = torch.argsort(flat, stable=True)
    ends = torch.bincount(flat, minlength=experts).cumsum(0).to(torch.int32)
    h = act_mul(torch._grouped_mm(x[order // k], w13_t, offs=ends))
    rows = torch._grouped_mm(h, w2_t, offs=ends) * weights.flatten()[order, None].to(BF16)
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    return rows[inverse].view(T, k, -1).sum(1)


def _reference(x, ids, weights, w13, w2, N: int):
    """fp64 y of the first CHECKED_TOKENS tokens."""
    tokens = min(CHECKED_TOKENS, x.shape[0])
    ref = torch.zeros(tokens, x.shape[1], dtype=torch.float64, device=x.device)
    for t in range(tokens):
        for j in range(ids.shape[1]):
            e = int(ids[t, j])
            h = w13[e].double() @ x[t].double()
            ref[t] += float(weights[t, j]) * (w2[e].double() @ (F.silu(h[:N]) * h[N:]))
    return ref


def suite_moe_layer(ceil: dict, seed: int, models: List[str], tokens_list: List[int], routings: List[str]) -> List[dict]:
    rows = []
    for model in models:
        E, k, K, N = MOE_MODELS[model]
        g = torch.Generator(device="cuda").manual_seed(seed)
        w13 = torch.randn(E, 2 * N, K, device="cuda", dtype=BF16, generator=g) * K**-0.5  # [gate; up] per expert
        w2 = torch.randn(E, K, N, device="cuda", dtype=BF16, generator=g) * N**-0.5
        packed = torch.stack([epifuse.pack_gate_up(gate_up=w13[e]).weight for e in range(E)])
        w13_t, w2_t = w13.transpose(1, 2), w2.transpose(1, 2)  # each expert column-major: what _grouped_mm takes
        expert_bytes = 3 * N * K * 2
        host = torch.Generator().manual_seed(seed)
        for routing in routings:
            for T in tokens_list:
                ids = route_picks(routing, T, E, k, host).to(device="cuda", dtype=torch.int32)
                weights = torch.rand(T, k, generator=host).cuda()
                x = torch.randn(T, K, device="cuda", dtype=BF16) * K**-0.5
                impls = {
                    "epifuse": (lambda i: epifuse.moe_mlp(x, ids, weights, packed, w2), 3),
                    "torch_moe": (lambda i: torch_moe(x, ids.long(), weights, w13_t, w2_t, E), 5),
                }
                kernels = {"epifuse": KERNEL_EPIFUSE, "torch_moe": KERNEL_TORCH}
                ref = _reference(x, ids, weights, w13, w2, N)
                checks = {name: check(call(0)[:ref.shape[0]], ref, roundings) for name, (call, roundings) in impls.items()}
                times = time_interleaved({name: call for name, (call, _) in impls.items()}, rounds=10, warmup=2)
                touched = int(torch.unique(ids).numel()) * expert_bytes
                pairs = T * k
                for name in impls:
                    t = times[name]
                    gbps = touched / t.median_us / 1e3
                    rows.append({"op": "moe_layer", "impl": name, "kernel": kernels[name], "model": model, "tokens": T,
                                 "experts": E, "topk": k, "routing": routing, "M": pairs, "N": N, "K": K,
                                 "dtype": "bf16", "epilogue": "swiglu", "median_us": t.median_us, "p10_us": t.p10_us,
                                 "p90_us": t.p90_us, "samples": t.samples, "touched_weight_bytes": touched,
                                 "gbps": gbps, "pct_of_read_bw": 100.0 * gbps / ceil["read_gbps"],
                                 "tflops": 2.0 * pairs * 3 * N * K / t.median_us / 1e6, **checks[name],
                                 "vs_torch_moe": times["torch_moe"].median_us / t.median_us})
                print(f"moe_layer {model} {routing} T={T}: " +
                      ", ".join(f"{n} {t.median_us:.1f} us" for n, t in times.items()) +
                      f" ({times['torch_moe'].median_us / times['epifuse'].median_us:.2f}x)", flush=True)
                del x, ref
        del w13, w2, w13_t, w2_t, packed
        torch.cuda.empty_cache()
    return rows
