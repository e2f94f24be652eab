"""epifuse's torch ops against what a PyTorch user runs instead, in one process on one GPU.

  python bench/python/torch_bench.py ops   --json out.json  # gated op and whole MLP, model shapes
  python bench/python/torch_bench.py host  --json out.json  # host µs per call vs torch.mm
  python bench/python/torch_bench.py model --json out.json  # Llama-3-8B-shaped model, prefill/decode
  python bench/python/torch_bench.py moe   --json out.json  # MoE experts' grouped gate/up (moe_bench.py)
  python bench/python/torch_bench.py moe_layer --json out.json  # a whole MoE layer (moe_layer_bench.py)

Rows follow epifuse-bench's schema (README "Benchmark"); the header names the GPU, driver, commit
(EPIFUSE_COMMIT) and the ceilings measured at start. Every timed output is checked first
(checks.py); a failed check makes the run exit 1.
"""
import argparse
import json
import sys
from typing import List

import torch
import torch.nn.functional as F

import epifuse
from checks import check
from harness import ceilings, cpu_us_per_call, header, rotation_count, time_interleaved
from triton_act_mul import act_mul

# (name, hidden K, intermediate N): the MLPs of public configs.
MODELS = [("llama3-8b", 4096, 14336), ("llama3-70b", 8192, 28672), ("qwen3-4b", 2560, 9728)]
GATED_TOKENS = [1, 16, 64, 128, 200, 256, 777, 1024, 4096]
MLP_TOKENS = [1, 16, 256, 1024, 4096, 8192]
MLP_CHUNK_TOKENS = 2048  # epifuse.mlp's chunks where the MLP has more tokens: memory against time
BF16 = torch.bfloat16


def _operands(M: int, N: int, K: int, sets: int, seed: int):
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for _ in range(sets):
        x = torch.randn(M, K, device="cuda", dtype=BF16, generator=g) * K**-0.5
        gate = torch.randn(N, K, device="cuda", dtype=BF16, generator=g) * K**-0.5
        up = torch.randn(N, K, device="cuda", dtype=BF16, generator=g) * K**-0.5
        down = torch.randn(K, N, device="cuda", dtype=BF16, generator=g) * N**-0.5
        out.append({"x": x, "gate_up": torch.cat([gate, up]), "packed": epifuse.pack_gate_up(gate, up),
                    "gate": gate, "up": up, "down": down})
    return out


def _eager_gated(o):  # Hugging Face's LlamaMLP without its down projection
    return F.silu(F.linear(o["x"], o["gate"])) * F.linear(o["x"], o["up"])


def _row(op, impl, M, N, K, timing, flops, bytes_moved, ceil, extra) -> dict:
    return {"op": op, "impl": impl, "M": M, "N": N, "K": K, "dtype": "bf16", "epilogue": "swiglu",
            "median_us": timing.median_us, "p10_us": timing.p10_us, "p90_us": timing.p90_us,
            "samples": timing.samples, "tflops": flops / timing.median_us / 1e6,
            "gbps": bytes_moved / timing.median_us / 1e3,
            "pct_of_read_bw": 100.0 * bytes_moved / timing.median_us / 1e3 / ceil["read_gbps"], **extra}


def suite_ops(ceil: dict, seed: int) -> List[dict]:
    rows = []
    for model, K, N in MODELS:
        weight_bytes = 2 * N * K * 2
        for M in GATED_TOKENS:
            sets = _operands(M, N, K, rotation_count(weight_bytes + M * K * 2), seed + M)
            ref = (F.silu(sets[0]["x"].double() @ sets[0]["gate"].double().T)
                   * (sets[0]["x"].double() @ sets[0]["up"].double().T))
            impls = {
                "epifuse": (lambda i: epifuse.gated_mlp(sets[i % len(sets)]["x"], sets[i % len(sets)]["packed"]), 1,
                            "fused gate/up + act·mul, one kernel"),
                "linear+triton_act_mul": (lambda i: act_mul(F.linear(sets[i % len(sets)]["x"],
                                                                     sets[i % len(sets)]["gate_up"])), 2,
                                          "F.linear on [gate; up] + Triton act·mul"),
                "torch_eager": (lambda i: _eager_gated(sets[i % len(sets)]), 4, "F.linear x2, F.silu, mul"),
            }
            checks = {name: check(call(0), ref, roundings) for name, (call, roundings, _) in impls.items()}
            times = time_interleaved({name: call for name, (call, _, _) in impls.items()})
            flops, moved = 2.0 * M * 2 * N * K, weight_bytes + M * K * 2 + M * N * 2
            for name, (_, _, kernel) in impls.items():
                extra = {"model": model, "kernel": kernel, **checks[name],
                         "vs_linear+triton_act_mul": times["linear+triton_act_mul"].median_us / times[name].median_us,
                         "vs_torch_eager": times["torch_eager"].median_us / times[name].median_us}
                rows.append(_row("gated", name, M, N, K, times[name], flops, moved, ceil, extra))
            print(f"gated {model} M={M}: " + ", ".join(f"{n} {t.median_us:.1f} us" for n, t in times.items()),
                  flush=True)
            del sets
    return rows


def _mlp_impls(sets, compiled, M):
    def pick(i):
        return sets[i % len(sets)]

    chunked = {}
    if M > MLP_CHUNK_TOKENS:
        chunked[f"epifuse_chunks{MLP_CHUNK_TOKENS}"] = (
            lambda i: epifuse.mlp(pick(i)["x"], pick(i)["packed"], pick(i)["down"], chunk_tokens=MLP_CHUNK_TOKENS),
            2, f"epifuse.mlp in chunks of {MLP_CHUNK_TOKENS} tokens (gated_mlp + torch.mm into the output's rows)")
    return {
        "epifuse": (lambda i: F.linear(epifuse.gated_mlp(pick(i)["x"], pick(i)["packed"]), pick(i)["down"]), 2,
                    "epifuse gated_mlp + F.linear down"),
        **chunked,
        "linear+triton_act_mul": (lambda i: F.linear(act_mul(F.linear(pick(i)["x"], pick(i)["gate_up"])),
                                                     pick(i)["down"]), 3, "F.linear [gate; up] + Triton act·mul + F.linear"),
        "torch_eager": (lambda i: F.linear(_eager_gated(pick(i)), pick(i)["down"]), 5, "Hugging Face LlamaMLP math"),
        "torch_compile": (lambda i: compiled(pick(i)["x"], pick(i)["gate"], pick(i)["up"], pick(i)["down"]), 5,
                          "torch.compile max-autotune-no-cudagraphs of the eager MLP"),
    }


def _unfused_mlp(x, gate, up, down):
    return F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down)


def _peak_activation_mb(call) -> float:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = call(0)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out
    return peak / 2**20


def suite_mlp(ceil: dict, seed: int, models: List[str], tokens: List[int]) -> List[dict]:
    rows = []
    compiled = torch.compile(_unfused_mlp, mode="max-autotune-no-cudagraphs", dynamic=False)
    for model, K, N in MODELS:
        if model not in models:
            continue
        weight_bytes = 3 * N * K * 2
        for M in tokens:
            sets = _operands(M, N, K, rotation_count(weight_bytes), seed + M)
            o = sets[0]
            ref = _unfused_mlp(o["x"].double(), o["gate"].double(), o["up"].double(), o["down"].double())
            impls = _mlp_impls(sets, compiled, M)
            checks = {name: check(call(0), ref, roundings) for name, (call, roundings, _) in impls.items()}
            peaks = {name: _peak_activation_mb(call) for name, (call, _, _) in impls.items()}
            times = time_interleaved({name: call for name, (call, _, _) in impls.items()}, rounds=30)
            flops, moved = 2.0 * M * 3 * N * K, weight_bytes + 2 * M * K * 2
            for name, (_, _, kernel) in impls.items():
                extra = {"model": model, "kernel": kernel, **checks[name], "peak_act_mem_mb": peaks[name],
                         "vs_torch_compile": times["torch_compile"].median_us / times[name].median_us,
                         "vs_torch_eager": times["torch_eager"].median_us / times[name].median_us}
                extra["intermediate"] = N
                rows.append(_row("mlp", name, M, K, K, times[name], flops, moved, ceil, extra))
            print(f"mlp {model} M={M}: " + ", ".join(f"{n} {t.median_us:.1f} us ({peaks[n]:.0f} MiB)"
                                                      for n, t in times.items()), flush=True)
            del sets
    return rows


def suite_host() -> List[dict]:
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(1, 256, device="cuda", dtype=BF16, generator=g)
    w = torch.randn(256, 256, device="cuda", dtype=BF16, generator=g)
    packed = epifuse.pack_gate_up(w[:128], w[128:])
    bias = w[0].float()
    wt = w.t()
    calls = {
        ("gemm", "torch.mm"): lambda: torch.mm(x, wt),
        ("gemm", "F.linear"): lambda: F.linear(x, w),
        ("gemm", "epifuse"): lambda: epifuse.gemm(x, w),
        ("gemm+bias+gelu", "epifuse"): lambda: epifuse.gemm(x, w, bias, "gelu_tanh"),
        ("gated", "epifuse"): lambda: epifuse.gated_mlp(x, packed),
        ("gated", "F.linear+triton_act_mul"): lambda: act_mul(F.linear(x, w)),
        ("gated", "torch_eager"): lambda: F.silu(F.linear(x, w[:128])) * F.linear(x, w[128:]),
    }
    rows = []
    with torch.inference_mode():
        for (op, impl), call in calls.items():
            stats = cpu_us_per_call(call)
            rows.append({"op": op, "impl": impl, "M": 1, "N": 256, "K": 256, **stats})
            print(f"host {op} {impl}: {stats['cpu_us_median']:.2f} us/call", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", choices=["ops", "mlp", "host", "model", "moe", "moe_layer"])
    parser.add_argument("--json", required=True)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--models", default="llama3-8b", help="mlp suite: comma-separated MODELS names")
    parser.add_argument("--tokens", default=",".join(map(str, MLP_TOKENS)), help="mlp suite: token counts")
    parser.add_argument("--moe-models", default="deepseek-v3,qwen2-57b-a14b,mixtral-8x7b", help="moe suite: models")
    parser.add_argument("--moe-tokens", default="1,8,64,256,1024,4096", help="moe suites: token counts")
    parser.add_argument("--moe-routings", default="uniform,zipf,hot", help="moe suites: routings")
    parser.add_argument("--phase", default="prefill,decode", help="model suite: prefill, decode or both")
    parser.add_argument("--compile-mode", default="max-autotune-no-cudagraphs", help="model suite: torch.compile mode")
    parser.add_argument("--decode-compiled", action="store_true", help="model suite: also the compiled models' decode")
    parser.add_argument("--decode-budget-s", type=float, default=1e9, help="model suite: start no decode batch after this")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("torch_bench: no CUDA device on this machine; nothing to time")
        return 0
    report = header(" ".join(sys.argv))
    with torch.inference_mode():
        report["ceilings"] = ceilings()
    print(f"ceilings: {report['ceilings']}", flush=True)
    with torch.inference_mode():
        if args.suite == "ops":
            report["rows"] = suite_ops(report["ceilings"], args.seed)
        elif args.suite == "mlp":
            report["rows"] = suite_mlp(report["ceilings"], args.seed, args.models.split(","),
                                       [int(t) for t in args.tokens.split(",")])
        elif args.suite in ("moe", "moe_layer"):
            from moe_bench import suite_moe
            from moe_layer_bench import suite_moe_layer
            suite = suite_moe if args.suite == "moe" else suite_moe_layer
            report["rows"] = suite(report["ceilings"], args.seed, args.moe_models.split(","),
                                   [int(t) for t in args.moe_tokens.split(",")], args.moe_routings.split(","))
        elif args.suite == "host":
            report["host_cost"] = suite_host()
    if args.suite == "model":
        from model_bench import suite_model
        report["rows"] = suite_model(args.phase.split(","), args.compile_mode, args.decode_compiled,
                                     args.decode_budget_s)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=1)
    failed = [r for r in report.get("rows", []) if r.get("check") == "fail"]
    for r in failed:
        print(f"FAILED CHECK: {r['op']} {r['impl']} M={r['M']} N={r['N']} K={r['K']}: rel_l2 {r['rel_l2']:.3g} > "
              f"{r['rel_l2_bound']:.3g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
