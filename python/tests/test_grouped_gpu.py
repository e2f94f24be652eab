"""epifuse.grouped_gated_mlp on the GPU: each expert's rows against the fp64 reference of that
expert's gated MLP (one rounding), empty experts, under CUDA-graph capture with the routing changed
on the device between replays, and under torch.compile."""
import pytest
import torch

import epifuse
from conftest import requires_hopper
from reference import assert_rounded_once, gated64, random_matrix

pytestmark = requires_hopper
BF16 = torch.bfloat16


def experts(generator, E, N, K, bias):
    gates = [random_matrix((N, K), BF16, generator).cuda() for _ in range(E)]
    ups = [random_matrix((N, K), BF16, generator).cuda() for _ in range(E)]
    biases = [(random_matrix((N,), torch.float32, generator).cuda(), random_matrix((N,), torch.float32, generator).cuda())
              if bias else (None, None) for _ in range(E)]
    packed = [epifuse.pack_gate_up(g, u, gb, ub) for g, u, (gb, ub) in zip(gates, ups, biases)]
    weights = torch.stack([p.weight for p in packed])
    packed_biases = torch.stack([p.bias for p in packed]) if bias else None
    return gates, ups, biases, weights, packed_biases


def check_experts(out, x, counts, gates, ups, biases, activation):
    start = 0
    for e, n in enumerate(counts):
        if n:
            ref, acc = gated64(x[start:start + n], gates[e], ups[e], *biases[e], activation=activation)
            assert_rounded_once(out[start:start + n], ref, acc, f"expert {e} ({n} rows)")
        start += n


@pytest.mark.parametrize("counts,activation,bias,max_expert_rows", [
    ([0, 1, 37, 200, 0, 3, 129, 64], "swiglu", True, 0),   # ragged, empty experts: the unswapped kernel
    ([5, 0, 2, 1, 0, 0, 7, 1], "geglu_tanh", False, 0),    # a few rows each: the swapped kernel
    ([0, 0, 300, 0], "reglu", True, 0),                     # every row on one expert
    ([0, 1, 37, 200, 0, 3, 129, 64], "swiglu", True, 64),  # a bound two experts break: still computed
])
def test_grouped_matches_each_experts_reference(generator, counts, activation, bias, max_expert_rows):
    N, K = 1000, 520
    gates, ups, biases, weights, packed_biases = experts(generator, len(counts), N, K, bias)
    x = random_matrix((sum(counts), K), BF16, generator, K**-0.5).cuda()
    offsets = torch.tensor([0] + list(torch.tensor(counts).cumsum(0)), dtype=torch.int32, device="cuda")
    out = epifuse.grouped_gated_mlp(x, weights, offsets, packed_biases, activation, max_expert_rows=max_expert_rows)
    assert out.shape == (sum(counts), N)
    check_experts(out, x, counts, gates, ups, biases, activation)


def test_grouped_graph_follows_routing_and_compiles(generator):
    E, N, K, T = 8, 512, 256, 96
    gates, ups, biases, weights, _ = experts(generator, E, N, K, False)
    x = random_matrix((T, K), BF16, generator, K**-0.5).cuda()
    offsets = torch.zeros(E + 1, dtype=torch.int32, device="cuda")
    out = torch.empty(T, N, dtype=BF16, device="cuda")
    epifuse.grouped_gated_mlp(x, weights, offsets)  # warm up outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out.copy_(epifuse.grouped_gated_mlp(x, weights, offsets))
    for counts in ([12, 12, 12, 12, 12, 12, 12, 12], [0, 96, 0, 0, 0, 0, 0, 0], [1, 0, 30, 0, 5, 60, 0, 0]):
        offsets.copy_(torch.tensor([0] + list(torch.tensor(counts).cumsum(0)), dtype=torch.int32))
        graph.replay()
        check_experts(out, x, counts, gates, ups, biases, "swiglu")
    compiled = torch.compile(lambda a, w, o: epifuse.grouped_gated_mlp(a, w, o), fullgraph=True)
    assert torch.equal(compiled(x, weights, offsets), epifuse.grouped_gated_mlp(x, weights, offsets))
