"""What needs no GPU: schemas, shape inference on meta and fake tensors, torch.compile tracing
without a graph break, and the errors raised before any launch."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import epifuse

BF16 = torch.bfloat16


def meta(*shape, dtype=BF16):
    return torch.empty(shape, device="meta", dtype=dtype)


def test_schemas_are_registered_and_pt2_compliant():
    expected = {
        "gemm": "epifuse::gemm(Tensor x, Tensor weight, Tensor? bias=None, str activation=\"identity\", "
                "float alpha=1., Tensor? residual=None, float beta=1., ScalarType? out_dtype=None) -> Tensor",
        "gated_mlp": "epifuse::gated_mlp(Tensor x, Tensor packed_weight, Tensor? packed_bias, int layout, "
                     "str activation=\"swiglu\", float? limit=None, float scale=1.) -> Tensor",
        "grouped_gated_mlp": "epifuse::grouped_gated_mlp(Tensor x, Tensor packed_weights, Tensor? packed_biases, "
                             "Tensor expert_offsets, int layout, str activation=\"swiglu\", float? limit=None, "
                             "float scale=1., int max_expert_rows=0) -> Tensor",
        "grouped_gemm": "epifuse::grouped_gemm(Tensor x, Tensor weights, Tensor expert_offsets, "
                        "int max_expert_rows=0) -> Tensor",
        "moe_mlp": "epifuse::moe_mlp(Tensor x, Tensor topk_ids, Tensor topk_weights, Tensor packed_gate_up, "
                   "Tensor down, int layout, str activation=\"swiglu\", float? limit=None, float scale=1., "
                   "Tensor? add=None) -> Tensor",
        "pack_gate_up": "epifuse::pack_gate_up(Tensor gate, Tensor up, Tensor? gate_bias=None, "
                        "Tensor? up_bias=None) -> Tensor[]",
        "unpack_gate_up": "epifuse::unpack_gate_up(Tensor packed_weight, Tensor? packed_bias, int layout) -> Tensor[]",
    }
    for name, schema in expected.items():
        op = getattr(torch.ops.epifuse, name).default
        assert str(op._schema) == schema
        assert torch.Tag.pt2_compliant_tag in op.tags


@pytest.mark.parametrize("x_shape", [(1, 64), (7, 64), (2, 3, 64), (64,), (0, 64)])
def test_gemm_shape_inference(x_shape):
    y = epifuse.gemm(meta(*x_shape), meta(96, 64), meta(96, dtype=torch.float32), "gelu_tanh")
    assert y.shape == (*x_shape[:-1], 96) and y.dtype == BF16 and y.device.type == "meta"
    assert epifuse.gemm(meta(*x_shape), meta(96, 64), out_dtype=torch.float32).dtype == torch.float32


def test_gated_and_packing_shape_inference():
    packed = epifuse.pack_gate_up(meta(48, 64), meta(48, 64), meta(48), meta(48))
    assert packed.weight.shape == (96, 64) and packed.bias.shape == (96,) and packed.bias.dtype == torch.float32
    assert (packed.N, packed.K) == (48, 64)
    assert epifuse.gated_mlp(meta(2, 5, 64), packed).shape == (2, 5, 48)
    fused = epifuse.pack_gate_up(gate_up=meta(96, 64), order="up_gate")
    assert fused.weight.shape == (96, 64) and fused.bias is None
    gate, up, gate_bias, up_bias = epifuse.unpack_gate_up(packed)
    assert gate.shape == up.shape == (48, 64) and gate_bias.shape == up_bias.shape == (48,)


def test_grouped_shape_inference_and_trace_time_errors():
    offsets = meta(9, dtype=torch.int32)
    assert epifuse.grouped_gated_mlp(meta(37, 64), meta(8, 96, 64), offsets).shape == (37, 48)
    with pytest.raises(RuntimeError, match=r"expert_offsets must be \[E \+ 1\] = \[9\], not \[8\]"):
        epifuse.grouped_gated_mlp(meta(37, 64), meta(8, 96, 64), meta(8, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="x has 32 features but the packed weights have K = 64"):
        epifuse.grouped_gated_mlp(meta(37, 32), meta(8, 96, 64), offsets)
    x = torch.zeros(4, 64, dtype=BF16)
    with pytest.raises(ValueError, match="epifuse.grouped_gated_mlp: the tensors are on the CPU"):
        epifuse.grouped_gated_mlp(x, torch.zeros(2, 96, 64, dtype=BF16), torch.zeros(3, dtype=torch.int32))


def test_grouped_rejects_no_experts_at_trace_time():
    with pytest.raises(RuntimeError, match=r"the packed weights hold no expert \(E = 0\)"):
        epifuse.grouped_gated_mlp(meta(4, 64), meta(0, 96, 64), meta(1, dtype=torch.int32))
    with pytest.raises(RuntimeError, match=r"the weights hold no expert \(E = 0\)"):
        epifuse.grouped_gemm(meta(4, 64), meta(0, 96, 64), meta(1, dtype=torch.int32))
    with pytest.raises(RuntimeError, match=r"packed_gate_up holds no expert \(E = 0\)"):
        epifuse.moe_mlp(meta(4, 64), meta(4, 1, dtype=torch.int32), meta(4, 1, dtype=torch.float32), meta(0, 96, 64),
                        meta(0, 64, 48))


def test_grouped_gemm_shape_inference_and_trace_time_errors():
    offsets = meta(9, dtype=torch.int32)
    assert epifuse.grouped_gemm(meta(37, 64), meta(8, 96, 64), offsets).shape == (37, 96)
    with pytest.raises(RuntimeError, match=r"expert_offsets must be \[E \+ 1\] = \[9\], not \[8\]"):
        epifuse.grouped_gemm(meta(37, 64), meta(8, 96, 64), meta(8, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="x has 32 features but the weights have K = 64"):
        epifuse.grouped_gemm(meta(37, 32), meta(8, 96, 64), offsets)
    with pytest.raises(RuntimeError, match=r"the weights must be \[E, N, K\], not \[96, 64\]"):
        epifuse.grouped_gemm(meta(37, 64), meta(96, 64), offsets)
    x = torch.zeros(4, 64, dtype=BF16)
    with pytest.raises(ValueError, match="epifuse.grouped_gemm: the tensors are on the CPU"):
        epifuse.grouped_gemm(x, torch.zeros(2, 96, 64, dtype=BF16), torch.zeros(3, dtype=torch.int32))


def moe_operands(T=37, k=2, E=8, N=48, K=64, ids_dtype=torch.int32, weights_dtype=torch.float32):
    return (meta(T, K), meta(T, k, dtype=ids_dtype), meta(T, k, dtype=weights_dtype), meta(E, 2 * N, K),
            meta(E, K, N))


def test_moe_shape_inference_and_trace_time_errors():
    x, ids, weights, gate_up, down = moe_operands()
    assert epifuse.moe_mlp(x, ids, weights, gate_up, down).shape == (37, 64)
    assert epifuse.moe_mlp(x, ids, weights, gate_up, down, "geglu_tanh", 7.0, 0.5, add=meta(37, 64)).shape == (37, 64)
    hf_router = moe_operands(ids_dtype=torch.int64, weights_dtype=BF16)
    assert epifuse.moe_mlp(*hf_router).shape == (37, 64)
    with pytest.raises(RuntimeError, match=r"down must be \[E, K, N\] = \[8, 64, 48\], not \[8, 48, 64\]"):
        epifuse.moe_mlp(x, ids, weights, gate_up, meta(8, 48, 64))
    with pytest.raises(RuntimeError, match="x has 32 features but packed_gate_up has K = 64"):
        epifuse.moe_mlp(meta(37, 32), ids, weights, gate_up, down)
    with pytest.raises(RuntimeError, match=r"topk_ids must be \[T, k\] = \[37, k\], not \[36, 2\]"):
        epifuse.moe_mlp(x, meta(36, 2, dtype=torch.int32), weights, gate_up, down)
    with pytest.raises(RuntimeError, match=r"topk_weights must be \[37, 2\] like topk_ids, not \[37, 3\]"):
        epifuse.moe_mlp(x, ids, meta(37, 3, dtype=torch.float32), gate_up, down)
    with pytest.raises(RuntimeError, match=r"packed_gate_up must be \[E, 2N, K\], not \[8, 95, 64\]"):
        epifuse.moe_mlp(x, ids, weights, meta(8, 95, 64), down)
    with pytest.raises(RuntimeError, match=r"add must have the output's shape \[37, 64\], not \[37, 48\]"):
        epifuse.moe_mlp(x, ids, weights, gate_up, down, add=meta(37, 48))
    cpu = [torch.zeros(t.shape, dtype=t.dtype) for t in moe_operands()]
    with pytest.raises(ValueError, match="epifuse.moe_mlp: the tensors are on the CPU"):
        epifuse.moe_mlp(*cpu)
    cpu[0].requires_grad_(True)
    with pytest.raises(RuntimeError, match=r"epifuse.moe_mlp is inference only .* torch.no_grad\(\)"):
        epifuse.moe_mlp(*cpu)


def test_moe_traces_without_graph_breaks():
    _, _, _, gate_up, down = moe_operands()
    proj, offsets = meta(8, 32, 64), meta(9, dtype=torch.int32)

    def block(x, ids, weights):
        return epifuse.grouped_gemm(epifuse.moe_mlp(x, ids, weights, gate_up, down, add=x), proj, offsets)

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(block, fullgraph=True, backend=backend, dynamic=True)
    for tokens in (5, 17):
        x, ids, weights, _, _ = moe_operands(T=tokens, ids_dtype=torch.int64, weights_dtype=BF16)
        assert compiled(x, ids, weights).shape == (tokens, 32)
    targets = {str(n.target) for g in graphs for n in g.graph.nodes if n.op == "call_function"}
    assert {"epifuse.moe_mlp", "epifuse.grouped_gemm"} <= targets
    x, ids, weights, _, _ = moe_operands(T=9)
    assert torch._dynamo.explain(block)(x, ids, weights).graph_break_count == 0
    with torch.no_grad():
        assert torch.compile(block, fullgraph=True, backend="aot_eager")(x, ids, weights).shape == (9, 32)


def test_fake_tensor_mode_on_cuda_tensors():
    with FakeTensorMode():
        x = torch.empty(33, 256, device="cuda", dtype=BF16)
        packed = epifuse.PackedGateUp(torch.empty(256, 256, device="cuda", dtype=BF16))
        h = epifuse.gated_mlp(x, packed, "geglu_tanh")
        y = epifuse.gemm(h, torch.empty(256, 128, device="cuda", dtype=BF16), residual=x)
    assert h.shape == (33, 128) and y.shape == (33, 256) and y.device.type == "cuda"
    with FakeTensorMode():
        x = torch.empty(33, 256, device="cuda", dtype=BF16)
        ids = torch.empty(33, 2, device="cuda", dtype=torch.int64)
        weights = torch.empty(33, 2, device="cuda", dtype=BF16)
        gate_up, down = (torch.empty(8, 256, 256, device="cuda", dtype=BF16),
                         torch.empty(8, 256, 128, device="cuda", dtype=BF16))
        y = epifuse.moe_mlp(x, ids, weights, gate_up, down, add=x)
        z = epifuse.grouped_gemm(y, down.transpose(1, 2).contiguous(), torch.empty(9, device="cuda", dtype=torch.int32))
    assert y.shape == (33, 256) and z.shape == (33, 128) and y.device.type == "cuda"


def test_shape_mismatch_is_caught_at_trace_time():
    with pytest.raises(RuntimeError, match="x has 64 features but weight has in_features 32"):
        epifuse.gemm(meta(4, 64), meta(16, 32))
    with pytest.raises(RuntimeError, match="packed weight must be 2-D"):
        epifuse.gated_mlp(meta(4, 64), epifuse.PackedGateUp(meta(15, 64)))


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = epifuse.nn.GatedMLP(64, 96, "swiglu", device="meta")
        self.proj = epifuse.nn.Linear(64, 32, activation="silu", device="meta")

    def forward(self, x):
        return self.proj(self.mlp(x) + x)


def test_torch_compile_traces_without_graph_breaks():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model = _Mlp()
    compiled = torch.compile(model, fullgraph=True, backend=backend, dynamic=True)
    for tokens in (5, 17):
        assert compiled(meta(tokens, 64)).shape == (tokens, 32)
    targets = {str(n.target) for g in graphs for n in g.graph.nodes if n.op == "call_function"}
    assert {"epifuse.gated_mlp", "epifuse.gemm"} <= targets
    explanation = torch._dynamo.explain(model)(meta(9, 64))
    assert explanation.graph_break_count == 0


def test_aot_autograd_traces_the_ops():
    compiled = torch.compile(_Mlp(), fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        assert compiled(meta(3, 64)).shape == (3, 32)


def test_cpu_tensors_are_refused():
    x, w = torch.zeros(4, 64, dtype=BF16), torch.zeros(32, 64, dtype=BF16)
    with pytest.raises(ValueError, match="epifuse.gemm: the tensors are on the CPU; epifuse runs on a CUDA device"):
        epifuse.gemm(x, w)
    with pytest.raises(ValueError, match="epifuse.pack_gate_up: the tensors are on the CPU"):
        epifuse.pack_gate_up(w, w)


def test_autograd_is_refused_with_advice():
    x = torch.zeros(4, 64, dtype=BF16, requires_grad=True)
    w = torch.zeros(32, 64, dtype=BF16)
    with pytest.raises(RuntimeError, match=r"epifuse.gemm is inference only .* torch.no_grad\(\)"):
        epifuse.gemm(x, w)
    with torch.no_grad(), pytest.raises(ValueError, match="on the CPU"):
        epifuse.gemm(x, w)


def test_python_side_argument_errors():
    with pytest.raises(TypeError, match="must be a PackedGateUp"):
        epifuse.gated_mlp(meta(4, 64), meta(96, 64))
    with pytest.raises(ValueError, match="give gate and up, or gate_up"):
        epifuse.pack_gate_up(meta(8, 64))
    with pytest.raises(ValueError, match="order must be"):
        epifuse.pack_gate_up(gate_up=meta(16, 64), order="gate-up")
    with pytest.raises(ValueError, match="activation must be one of"):
        epifuse.nn.GatedMLP(64, 96, "swish", device="meta")


def test_gated_mlp_module_loads_unpacked_checkpoints_on_meta():
    module = epifuse.nn.GatedMLP(64, 96, device="meta")
    state = {"gate_proj.weight": meta(96, 64), "up_proj.weight": meta(96, 64), "down_proj.weight": meta(64, 96)}
    result = module.load_state_dict(state, assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    phi3 = {"gate_up_proj.weight": meta(192, 64), "down_proj.weight": meta(64, 96)}
    result = module.load_state_dict(phi3, assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    assert set(module.state_dict()) == {"gate_up_weight", "down_proj.weight"}


def test_patch_leaves_cpu_models_alone_and_says_why():
    class LlamaLikeMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = torch.nn.Linear(64, 96, bias=False, dtype=BF16)
            self.up_proj = torch.nn.Linear(64, 96, bias=False, dtype=BF16)
            self.down_proj = torch.nn.Linear(96, 64, bias=False, dtype=BF16)
            self.act_fn = torch.nn.SiLU()

    class QuickGeluMLP(LlamaLikeMLP):
        def __init__(self):
            super().__init__()
            self.act_fn = torch.nn.Sigmoid()

    model = torch.nn.ModuleDict({"a": LlamaLikeMLP(), "b": QuickGeluMLP()})
    report = epifuse.patch(model)
    assert report.patched == []
    assert report.skipped == [("a", "LlamaLikeMLP", "weights on cpu; epifuse runs on a CUDA device"),
                              ("b", "QuickGeluMLP", "activation Sigmoid has no epifuse gated variant")]
    assert isinstance(model["a"], LlamaLikeMLP)
    alone = LlamaLikeMLP()
    assert epifuse.patch(alone).skipped == [("", "LlamaLikeMLP", "the model itself is the MLP; patch a model that holds it")]


def test_chunked_mlp_schema_shape_inference_and_tracing():
    op = torch.ops.epifuse.gated_mlp_down_chunked.default
    assert torch.Tag.pt2_compliant_tag in op.tags
    packed = epifuse.pack_gate_up(meta(96, 64), meta(96, 64))
    down = meta(48, 96)
    for chunk_tokens in (None, 2, 1000):
        assert epifuse.mlp(meta(2, 5, 64), packed, down, chunk_tokens=chunk_tokens).shape == (2, 5, 48)
    module = epifuse.nn.GatedMLP(64, 96, device="meta", chunk_tokens=4)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(module, fullgraph=True, backend=backend, dynamic=True)
    for tokens in (3, 9, 17):
        assert compiled(meta(tokens, 64)).shape == (tokens, 64)
    targets = {str(n.target) for g in graphs for n in g.graph.nodes if n.op == "call_function"}
    assert "epifuse.gated_mlp_down_chunked" in targets
    with pytest.raises(RuntimeError, match="down_weight must be"):
        epifuse.mlp(meta(9, 64), packed, meta(48, 95), chunk_tokens=4)


def test_chunked_mlp_argument_errors():
    packed = epifuse.pack_gate_up(meta(96, 64), meta(96, 64))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="chunk_tokens must be a positive int or None"):
            epifuse.mlp(meta(9, 64), packed, meta(48, 96), chunk_tokens=bad)
    with pytest.raises(TypeError, match="must be a PackedGateUp"):
        epifuse.mlp(meta(9, 64), meta(192, 64), meta(48, 96))
    with pytest.raises(RuntimeError, match="epifuse.mlp is inference only"):
        epifuse.mlp(meta(9, 64), packed, meta(48, 96).requires_grad_(True), chunk_tokens=4)


@pytest.mark.parametrize("activation,bias_dtype,kept", [("gelu_tanh", BF16, BF16), ("silu", BF16, torch.float32),
                                                        ("gelu_tanh", torch.float32, torch.float32)])
def test_linear_from_linear_never_rounds_its_bias(activation, bias_dtype, kept):
    linear = torch.nn.Linear(8, 4, dtype=BF16)
    linear.bias = torch.nn.Parameter(torch.randn(4, dtype=bias_dtype) * 1e-3 + 1, requires_grad=False)
    module = epifuse.nn.Linear.from_linear(linear, activation)
    assert module.bias.dtype == kept
    assert torch.equal(module.bias.double(), linear.bias.double())
    assert (module.bias.data_ptr() == linear.bias.data_ptr()) == (bias_dtype == kept)
