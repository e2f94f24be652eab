"""epifuse.mlp on a Hopper GPU: the chunked MLP is exactly its chunks' own calls, holds at most one
chunk's intermediate, and runs under torch.compile and CUDA graphs."""
import pytest
import torch
import torch.nn.functional as F

import epifuse
from conftest import requires_hopper
from reference import random_matrix

pytestmark = requires_hopper
BF16, FP16 = torch.bfloat16, torch.float16


def mlp_case(generator, M, N, K, dtype=BF16, bias=False):
    x = random_matrix((M, K), dtype, generator, K**-0.5).cuda()
    gate, up = (random_matrix((N, K), dtype, generator).cuda() for _ in range(2))
    down = random_matrix((K, N), dtype, generator, N**-0.5).cuda()
    down_bias = random_matrix((K,), dtype, generator).cuda() if bias else None
    return x, epifuse.pack_gate_up(gate, up), down, down_bias


def chunk_by_chunk(x, packed, down, down_bias, activation, chunk_tokens):
    rows = x.reshape(-1, x.shape[-1])
    parts = [F.linear(epifuse.gated_mlp(rows[a:a + chunk_tokens], packed, activation), down, down_bias)
             for a in range(0, rows.shape[0], chunk_tokens)]
    return torch.cat(parts).view(*x.shape[:-1], down.shape[0])


@pytest.mark.parametrize("M,chunk_tokens,dtype,bias", [(777, 256, BF16, False), (1001, 1000, BF16, True),
                                                      (1000, 1000, BF16, False), (4096, 1024, FP16, True),
                                                      (130, 1, BF16, False)])
def test_chunked_mlp_is_its_chunks_calls(generator, M, chunk_tokens, dtype, bias):
    N, K = 1408, 1024
    x, packed, down, down_bias = mlp_case(generator, M, N, K, dtype, bias)
    torch.full((M * K,), float("nan"), device="cuda", dtype=dtype)  # a freed NaN block the output may take
    out = epifuse.mlp(x, packed, down, down_bias, "geglu_tanh", chunk_tokens=chunk_tokens)
    assert torch.equal(out, chunk_by_chunk(x, packed, down, down_bias, "geglu_tanh", chunk_tokens)), \
        f"{M} tokens in chunks of {chunk_tokens}"
    # Against one call: each token's row may come from another kernel (another token count), so
    # the bound is one rounding of the intermediate carried through the down projection.
    whole = epifuse.mlp(x, packed, down, down_bias, "geglu_tanh")
    torch.testing.assert_close(out, whole, rtol=2**-7, atol=2**-7 * whole.abs().max().item())


def test_chunked_mlp_keeps_batch_dims(generator):
    x, packed, down, _ = mlp_case(generator, 6 * 50, 512, 256)
    x3 = x.view(6, 50, 256)
    out = epifuse.mlp(x3, packed, down, chunk_tokens=64)
    assert out.shape == (6, 50, 256)
    assert torch.equal(out, chunk_by_chunk(x3, packed, down, None, "swiglu", 64))


def test_chunked_mlp_holds_one_chunk_of_the_intermediate(generator):
    M, N, K, chunk_tokens = 4096, 2816, 1024, 1024
    x, packed, down, _ = mlp_case(generator, M, N, K)

    def peak_bytes(chunk):
        epifuse.mlp(x, packed, down, chunk_tokens=chunk)  # cuBLAS's workspace, allocated once, not counted
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        out = epifuse.mlp(x, packed, down, chunk_tokens=chunk)
        torch.cuda.synchronize()
        del out
        return torch.cuda.max_memory_allocated() - base

    out_bytes, chunk_bytes = M * K * 2, chunk_tokens * N * 2
    whole, chunked = peak_bytes(None), peak_bytes(chunk_tokens)
    assert whole >= out_bytes + M * N * 2
    assert chunked <= out_bytes + chunk_bytes + 2**20, (chunked, out_bytes + chunk_bytes)


def test_chunked_mlp_under_compile_and_cuda_graphs(generator):
    torch._dynamo.reset()
    module = epifuse.nn.GatedMLP(512, 1408, "swiglu", chunk_tokens=64, device="cuda")
    with torch.no_grad():
        module.gate_up_weight.normal_(0, 512**-0.5)
        module.down_proj.weight.normal_(0, 1408**-0.5)
    compiled = torch.compile(module, fullgraph=True, dynamic=True)
    with torch.inference_mode():
        for tokens in (40, 129, 300):
            x = random_matrix((tokens, 512), BF16, generator).cuda()
            assert torch.equal(compiled(x), module(x)), f"compiled, {tokens} tokens"
        static_x = random_matrix((200, 512), BF16, generator).cuda()
        module(static_x)  # warm-up outside capture: cuBLAS's workspace
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = module(static_x)
        fresh = random_matrix((200, 512), BF16, generator).cuda()
        static_x.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, module(fresh))


def test_patch_passes_chunk_tokens(generator):
    class LlamaLikeMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = torch.nn.Linear(256, 704, bias=False, device="cuda", dtype=BF16)
            self.up_proj = torch.nn.Linear(256, 704, bias=False, device="cuda", dtype=BF16)
            self.down_proj = torch.nn.Linear(704, 256, bias=False, device="cuda", dtype=BF16)
            self.act_fn = torch.nn.SiLU()

        def forward(self, x):
            return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))

    model = torch.nn.ModuleDict({"mlp": LlamaLikeMLP()})
    x = random_matrix((100, 256), BF16, generator).cuda()
    with torch.inference_mode():
        eager = model["mlp"](x)
        report = epifuse.patch(model, chunk_tokens=32)
        assert [p for p, _, _ in report.patched] == ["mlp"] and model["mlp"].chunk_tokens == 32
        got = model["mlp"](x)
    torch.testing.assert_close(got, eager, rtol=2**-6, atol=2**-6 * eager.abs().max().item())
