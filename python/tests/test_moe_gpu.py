"""epifuse.grouped_gemm and epifuse.moe_mlp on the GPU. grouped_gemm: each expert's rows against
the fp64 reference of that expert's GEMM (one rounding). moe_mlp: y against the fp64 layer by the
rule for paths that round more than once (it rounds the gated activations, the experts' rows and
y): within 2x the eager bf16 path's error, each element judged at the size of the rows it sums.
Uniform and one-hot routing, T = 1, dropped ids, add, int64 ids and bf16 weights through the
wrapper, determinism, CUDA-graph replays following new routings written in place, torch.compile,
and the errors raised before any launch."""
import pytest
import torch

import epifuse
from conftest import requires_hopper
from reference import assert_near_unfused, assert_rounded_once, gemm64, moe64, random_matrix

pytestmark = requires_hopper
BF16 = torch.bfloat16


def offsets_of(counts):
    return torch.tensor([0] + list(torch.tensor(counts).cumsum(0)), dtype=torch.int32, device="cuda")


@pytest.mark.parametrize("counts,N,K,max_expert_rows", [
    ([0, 1, 37, 200, 0, 3, 129, 64], 264, 520, 0),  # ragged, empty experts, N and K off the tile
    ([5, 0, 2, 1, 0, 0, 7, 1], 512, 256, 0),        # a few rows each: the swapped kernel
    ([0, 0, 0, 1], 256, 384, 0),                    # T = 1
    ([0, 300] + [0] * 14, 256, 512, 0),             # one hot expert of 16
    ([0, 300] + [0] * 14, 256, 512, 8),             # a bound the hot expert breaks: still computed
])
def test_grouped_gemm_matches_each_experts_reference(generator, counts, N, K, max_expert_rows):
    weights = random_matrix((len(counts), N, K), BF16, generator).cuda()
    x = random_matrix((sum(counts), K), BF16, generator, K**-0.5).cuda()
    torch.full((sum(counts) * N,), float("nan"), device="cuda", dtype=BF16)  # a freed NaN block the output may take
    out = epifuse.grouped_gemm(x, weights, offsets_of(counts), max_expert_rows)
    assert out.shape == (sum(counts), N) and out.dtype == BF16
    start = 0
    for e, n in enumerate(counts):
        if n:
            ref, acc = gemm64(x[start:start + n], weights[e])
            assert_rounded_once(out[start:start + n], ref, acc, f"expert {e} ({n} rows)")
        start += n


class Layer:
    """E experts' bf16 weights, unpacked for the reference and as moe_mlp takes them."""

    def __init__(self, generator, E, N, K):
        self.gates = [random_matrix((N, K), BF16, generator).cuda() for _ in range(E)]
        self.ups = [random_matrix((N, K), BF16, generator).cuda() for _ in range(E)]
        self.downs = [random_matrix((K, N), BF16, generator, N**-0.5).cuda() for _ in range(E)]
        self.packed = torch.stack([epifuse.pack_gate_up(g, u).weight for g, u in zip(self.gates, self.ups)])
        self.down = torch.stack(self.downs)
        self.E, self.K = E, K

    def __call__(self, x, ids, weights, activation="swiglu", add=None):
        return epifuse.moe_mlp(x, ids, weights, self.packed, self.down, activation, add=add)

    def check(self, y, x, ids, weights, activation="swiglu", add=None, what=""):
        ref, eager, magnitude = moe64(x, ids, weights, self.gates, self.ups, self.downs, activation, add)
        assert_near_unfused(y, ref, eager, what, magnitude)


def routing(generator, T, E, k, kind):
    """(ids int32 [T, k], weights fp32 [T, k]) on the GPU. uniform: k distinct experts per token;
    one_hot: choice 0 of every token on expert 3, the others distinct among the rest; dropped:
    uniform with every fifth pair's id outside [0, E) (-1, E or 1000)."""
    ids = torch.rand(T, E, generator=generator).argsort(dim=1)[:, :k]
    if kind == "one_hot":
        others = torch.rand(T, E - 1, generator=generator).argsort(dim=1)[:, :k - 1]
        ids = torch.cat([torch.full((T, 1), 3), others + (others >= 3).long()], dim=1)
    elif kind == "dropped":
        flat = ids.flatten()
        bad = torch.tensor([-1, E, 1000])
        flat[::5] = bad[torch.arange(flat[::5].numel()) % 3]
        ids = flat.view(T, k)
    weights = 0.05 + 0.95 * torch.rand(T, k, generator=generator)
    return ids.to(torch.int32).cuda(), weights.cuda()


@pytest.mark.parametrize("T,E,k,K,N,activation,kind,add", [
    (37, 8, 2, 512, 256, "swiglu", "uniform", False),
    (1, 8, 2, 512, 256, "swiglu", "uniform", False),         # decode: T = 1
    (130, 16, 4, 256, 384, "geglu_tanh", "uniform", True),   # a shared expert's output added
    (90, 8, 1, 512, 256, "swiglu", "one_hot", False),        # every token on expert 3
    (64, 8, 2, 512, 256, "swiglu", "one_hot", False),        # expert 3 hot, the rest spread
    (61, 8, 2, 256, 512, "reglu", "dropped", True),          # ids outside [0, E) add nothing
])
def test_moe_mlp_matches_the_layer(generator, T, E, k, K, N, activation, kind, add):
    layer = Layer(generator, E, N, K)
    x = random_matrix((T, K), BF16, generator, K**-0.5).cuda()
    ids, weights = routing(generator, T, E, k, kind)
    shared = random_matrix((T, K), BF16, generator, 0.5).cuda() if add else None
    torch.full((T * K,), float("nan"), device="cuda", dtype=BF16)  # a freed NaN block y may take
    y = layer(x, ids, weights, activation, shared)
    assert y.shape == (T, K) and y.dtype == BF16
    layer.check(y, x, ids, weights, activation, shared, f"T={T} E={E} k={k} {kind}")
    assert torch.equal(y, layer(x, ids, weights, activation, shared)), "the same inputs gave other bits"


def test_moe_wrapper_takes_a_hf_routers_int64_ids_and_bf16_weights(generator):
    layer = Layer(generator, 8, 256, 512)
    x = random_matrix((45, 512), BF16, generator, 512**-0.5).cuda()
    ids, weights = routing(generator, 45, 8, 2, "uniform")
    weights = weights.to(BF16).float()  # exact in bf16, so both calls read the same weights
    y = layer(x, ids, weights)
    assert torch.equal(layer(x, ids.long(), weights.to(BF16)), y)
    # int64 ids beyond int32's range stay out of range (dropped), not wrapped onto an expert.
    far, near = ids.long(), ids.clone()
    far[0, 0], far[1, 1] = 2**32 + 1, -(2**32) + 2
    near[0, 0], near[1, 1] = -1, -1
    assert torch.equal(layer(x, far, weights), layer(x, near, weights))


def test_moe_graph_follows_routing_written_in_place(generator):
    T, E, k = 45, 8, 2
    layer = Layer(generator, E, 256, 512)
    x = random_matrix((T, 512), BF16, generator, 512**-0.5).cuda()
    ids, weights = routing(generator, T, E, k, "uniform")
    layer(x, ids, weights)  # warm up outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = layer(x, ids, weights)
    for kind in ("one_hot", "dropped", "uniform"):
        new_ids, new_weights = routing(generator, T, E, k, kind)
        ids.copy_(new_ids)
        weights.copy_(new_weights)
        graph.replay()
        layer.check(y, x, ids, weights, what=f"replay, {kind} routing")
        assert torch.equal(y, layer(x, ids, weights)), f"replay, {kind} routing: not the eager call's bits"


def test_moe_under_torch_compile(generator):
    torch._dynamo.reset()
    layer = Layer(generator, 8, 256, 512)

    def block(x, ids, weights, shared):
        return epifuse.moe_mlp(x, ids, weights, layer.packed, layer.down, add=shared)

    compiled = torch.compile(block, fullgraph=True)
    for T in (7, 40):
        x = random_matrix((T, 512), BF16, generator, 512**-0.5).cuda()
        ids, weights = routing(generator, T, 8, 2, "uniform")
        shared = random_matrix((T, 512), BF16, generator, 0.5).cuda()
        args = (x, ids.long(), weights.to(BF16), shared)
        assert torch.equal(compiled(*args), block(*args)), f"compiled, {T} tokens"


def test_errors_before_any_launch(generator):
    layer = Layer(generator, 4, 256, 512)
    x = random_matrix((9, 512), BF16, generator).cuda()
    ids, weights = routing(generator, 9, 4, 2, "uniform")
    none = torch.zeros(1, dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match=r"epifuse.moe_mlp: packed_gate_up holds no expert \(E = 0\)"):
        epifuse.moe_mlp(x, ids, weights, layer.packed[:0], layer.down[:0])
    with pytest.raises(ValueError, match=r"epifuse.grouped_gemm: the weights hold no expert \(E = 0\)"):
        epifuse.grouped_gemm(x, layer.down[:0], none)
    with pytest.raises(ValueError, match=r"epifuse.grouped_gated_mlp: the packed weights hold no expert \(E = 0\)"):
        epifuse.grouped_gated_mlp(x, layer.packed[:0], none)
    with pytest.raises(TypeError, match="down has dtype"):
        epifuse.moe_mlp(x, ids, weights, layer.packed, layer.down.half())
    with pytest.raises(ValueError, match=r"down must be a contiguous \[E, K, N\] = \[4, 512, 256\]"):
        epifuse.moe_mlp(x, ids, weights, layer.packed, layer.down.transpose(1, 2))
    with pytest.raises(ValueError, match=r"k \(5\) must be in \[1, experts = 4\]"):
        wide = torch.zeros(9, 5, dtype=torch.int32, device="cuda")
        epifuse.moe_mlp(x, wide, torch.ones(9, 5, device="cuda"), layer.packed, layer.down)
    with pytest.raises(TypeError, match="topk_ids has dtype"):
        torch.ops.epifuse.moe_mlp(x, ids.long(), weights, layer.packed, layer.down, epifuse.GATE_UP_BLOCKS8,
                                  "swiglu", None, 1.0, None)
    assert epifuse.moe_mlp(x[:0], ids[:0], weights[:0], layer.packed, layer.down).shape == (0, 512)
