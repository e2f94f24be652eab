"""Shape and dtype of every op's output without running it: what torch.compile, meta tensors and
FakeTensorMode see. The checks here are the ones a shape alone can answer; the rest run with the op."""
import torch


def _check(condition, op: str, message: str) -> None:
    torch._check(condition, lambda: f"{op}: {message}")


@torch.library.register_fake("epifuse::gemm")
def _gemm(x, weight, bias=None, activation="identity", alpha=1.0, residual=None, beta=1.0, out_dtype=None):
    _check(weight.dim() == 2, "epifuse.gemm", f"weight must be 2-D [out_features, in_features], not {list(weight.shape)}")
    _check(x.shape[-1] == weight.shape[1], "epifuse.gemm",
           f"x has {x.shape[-1]} features but weight has in_features {weight.shape[1]}")
    return x.new_empty((*x.shape[:-1], weight.shape[0]), dtype=out_dtype if out_dtype is not None else x.dtype)


@torch.library.register_fake("epifuse::gated_mlp")
def _gated_mlp(x, packed_weight, packed_bias, layout, activation="swiglu", limit=None, scale=1.0):
    _check(packed_weight.dim() == 2 and packed_weight.shape[0] % 2 == 0, "epifuse.gated_mlp",
           f"the packed weight must be 2-D [2N, K], not {list(packed_weight.shape)}")
    _check(x.shape[-1] == packed_weight.shape[1], "epifuse.gated_mlp",
           f"x has {x.shape[-1]} features but the packed weight has K = {packed_weight.shape[1]}")
    return x.new_empty((*x.shape[:-1], packed_weight.shape[0] // 2))


@torch.library.register_fake("epifuse::grouped_gated_mlp")
def _grouped_gated_mlp(x, packed_weights, packed_biases, expert_offsets, layout, activation="swiglu", limit=None,
                       scale=1.0, max_expert_rows=0):
    op = "epifuse.grouped_gated_mlp"
    _check(x.dim() == 2, op, f"x must be 2-D [T, K], not {list(x.shape)}")
    _check(packed_weights.dim() == 3 and packed_weights.shape[1] % 2 == 0, op,
           f"the packed weights must be [E, 2N, K], not {list(packed_weights.shape)}")
    _check(packed_weights.shape[0] >= 1, op, "the packed weights hold no expert (E = 0); give at least one")
    _check(x.shape[1] == packed_weights.shape[2], op,
           f"x has {x.shape[1]} features but the packed weights have K = {packed_weights.shape[2]}")
    _check(expert_offsets.dim() == 1 and expert_offsets.shape[0] == packed_weights.shape[0] + 1, op,
           f"expert_offsets must be [E + 1] = [{packed_weights.shape[0] + 1}], not {list(expert_offsets.shape)}")
    return x.new_empty((x.shape[0], packed_weights.shape[1] // 2))


@torch.library.register_fake("epifuse::grouped_gemm")
def _grouped_gemm(x, weights, expert_offsets, max_expert_rows=0):
    op = "epifuse.grouped_gemm"
    _check(x.dim() == 2, op, f"x must be 2-D [T, K], not {list(x.shape)}")
    _check(weights.dim() == 3, op, f"the weights must be [E, N, K], not {list(weights.shape)}")
    _check(weights.shape[0] >= 1, op, "the weights hold no expert (E = 0); give at least one")
    _check(x.shape[1] == weights.shape[2], op,
           f"x has {x.shape[1]} features but the weights have K = {weights.shape[2]}")
    _check(expert_offsets.dim() == 1 and expert_offsets.shape[0] == weights.shape[0] + 1, op,
           f"expert_offsets must be [E + 1] = [{weights.shape[0] + 1}], not {list(expert_offsets.shape)}")
    return x.new_empty((x.shape[0], weights.shape[1]))


@torch.library.register_fake("epifuse::moe_mlp")
def _moe_mlp(x, topk_ids, topk_weights, packed_gate_up, down, layout, activation="swiglu", limit=None, scale=1.0,
             add=None):
    op = "epifuse.moe_mlp"
    _check(x.dim() == 2, op, f"x must be 2-D [T, K], not {list(x.shape)}")
    _check(topk_ids.dim() == 2 and topk_ids.shape[0] == x.shape[0], op,
           f"topk_ids must be [T, k] = [{x.shape[0]}, k], not {list(topk_ids.shape)}")
    _check(topk_weights.shape == topk_ids.shape, op,
           f"topk_weights must be {list(topk_ids.shape)} like topk_ids, not {list(topk_weights.shape)}")
    _check(packed_gate_up.dim() == 3 and packed_gate_up.shape[1] % 2 == 0, op,
           f"packed_gate_up must be [E, 2N, K], not {list(packed_gate_up.shape)}")
    E, N, K = packed_gate_up.shape[0], packed_gate_up.shape[1] // 2, packed_gate_up.shape[2]
    _check(E >= 1, op, "packed_gate_up holds no expert (E = 0); give at least one")
    _check(x.shape[1] == K, op, f"x has {x.shape[1]} features but packed_gate_up has K = {K}")
    _check(down.dim() == 3 and tuple(down.shape) == (E, K, N), op,
           f"down must be [E, K, N] = [{E}, {K}, {N}], not {list(down.shape)}")
    if add is not None:
        _check(tuple(add.shape) == (x.shape[0], K), op,
               f"add must have the output's shape [{x.shape[0]}, {K}], not {list(add.shape)}")
    return x.new_empty((x.shape[0], K))


@torch.library.register_fake("epifuse::pack_gate_up")
def _pack_gate_up(gate, up, gate_bias=None, up_bias=None):
    n, k = gate.shape
    packed = [gate.new_empty((2 * n, k))]
    if gate_bias is not None:
        packed.append(gate.new_empty((2 * n,), dtype=torch.float32))
    return packed


@torch.library.register_fake("epifuse::unpack_gate_up")
def _unpack_gate_up(packed_weight, packed_bias, layout):
    n, k = packed_weight.shape[0] // 2, packed_weight.shape[1]
    parts = [packed_weight.new_empty((n, k)), packed_weight.new_empty((n, k))]
    if packed_bias is not None:
        parts += [packed_weight.new_empty((n,), dtype=torch.float32) for _ in range(2)]
    return parts
