"""epifuse's torch ops on a Hopper GPU: results against the fp64 reference under the
once-rounding rule, packing, errors, torch.compile, CUDA graphs and opcheck."""
import pytest
import torch

import epifuse
from conftest import requires_hopper
from reference import assert_rounded_once, gated64, gemm64, random_matrix

pytestmark = requires_hopper
BF16, FP16 = torch.bfloat16, torch.float16


def poison_allocator(numel: int) -> None:
    """Leaves a freed block of NaNs in torch's caching allocator, which the next op's output of
    that size takes, so that an element the kernel does not write shows up as NaN."""
    torch.full((numel,), float("nan"), device="cuda", dtype=torch.float32)


def cuda(t):
    return t.to("cuda")


def gemm_case(generator, M, N, K, dtype=BF16, bias=True):
    x = cuda(random_matrix((M, K), dtype, generator, K**-0.5))
    w = cuda(random_matrix((N, K), dtype, generator))
    b = cuda(random_matrix((N,), torch.float32, generator)) if bias else None
    return x, w, b


@pytest.mark.parametrize("M,N,K", [(1, 256, 512), (7, 4096, 1024), (129, 1000, 264), (777, 2048, 4096),
                                   (4096, 512, 2048)])
@pytest.mark.parametrize("activation", ["identity", "gelu_tanh", "silu"])
def test_gemm_matches_reference(generator, M, N, K, activation):
    x, w, b = gemm_case(generator, M, N, K)
    poison_allocator(M * N)
    y = epifuse.gemm(x, w, b, activation)
    ref, acc = gemm64(x, w, b, activation)
    assert_rounded_once(y, ref, acc, f"gemm {M}x{N}x{K} {activation}")


@pytest.mark.parametrize("activation", epifuse.GEMM_ACTIVATIONS)
def test_every_gemm_activation_in_fp32_output(generator, activation):
    # fp32 output: half an ulp is small enough that GELU tanh vs erf, a wrong slope or a missing
    # term fails the rule.
    x, w, b = gemm_case(generator, 37, 384, 320)
    y = epifuse.gemm(x, w, b, activation, alpha=0.75, out_dtype=torch.float32)
    ref, acc = gemm64(x, w, b, activation, alpha=0.75)
    assert y.dtype == torch.float32
    assert_rounded_once(y, ref, acc, f"gemm fp32 out {activation}")


def test_gemm_residual_batch_dims_views_and_fp16(generator):
    x, w, b = gemm_case(generator, 6 * 11, 640, 512, dtype=FP16)
    x3 = x.view(6, 11, 512)
    residual = cuda(random_matrix((6, 11, 640), FP16, generator))
    y = epifuse.gemm(x3, w, b.half(), "relu", alpha=1.5, residual=residual, beta=-0.5)
    ref, acc = gemm64(x3, w, b.half(), "relu", alpha=1.5, residual=residual, beta=-0.5)
    assert y.shape == (6, 11, 640) and y.dtype == FP16
    assert_rounded_once(y, ref, acc, "gemm fp16 residual")
    wide = cuda(random_matrix((33, 1024), BF16, generator, 512**-0.5))
    view = wide[:, 256:768]  # row stride 1024, K 512: read in place
    w16 = w.to(BF16)
    y = epifuse.gemm(view, w16)
    ref, acc = gemm64(view, w16)
    assert_rounded_once(y, ref, acc, "gemm strided view")


@pytest.mark.parametrize("M", [1, 3, 64, 65, 200, 777, 1024])
@pytest.mark.parametrize("activation", epifuse.GATED_ACTIVATIONS)
def test_gated_mlp_matches_reference(generator, M, activation):
    N, K = 1408, 1024
    x = cuda(random_matrix((M, K), BF16, generator, K**-0.5))
    gate, up = cuda(random_matrix((N, K), BF16, generator)), cuda(random_matrix((N, K), BF16, generator))
    packed = epifuse.pack_gate_up(gate, up)
    poison_allocator(M * N)
    out = epifuse.gated_mlp(x, packed, activation)
    ref, acc = gated64(x, gate, up, activation=activation)
    assert_rounded_once(out, ref, acc, f"gated {M}x{N}x{K} {activation}")


def test_gated_mlp_bias_limit_scale_fp16_and_fused_checkpoints(generator):
    M, N, K = 300, 512, 768
    x = cuda(random_matrix((2, M // 2, K), FP16, generator, K**-0.5))
    gate, up = cuda(random_matrix((N, K), FP16, generator)), cuda(random_matrix((N, K), FP16, generator))
    gate_bias, up_bias = (cuda(random_matrix((N,), FP16, generator)) for _ in range(2))
    for order, fused, fused_bias in (("gate_up", torch.cat([gate, up]), torch.cat([gate_bias, up_bias])),
                                     ("up_gate", torch.cat([up, gate]), torch.cat([up_bias, gate_bias]))):
        packed = epifuse.pack_gate_up(gate_up=fused, gate_up_bias=fused_bias, order=order)
        out = epifuse.gated_mlp(x, packed, "swiglu", limit=1.5, scale=0.5)
        ref, acc = gated64(x, gate, up, gate_bias, up_bias, "swiglu", limit=1.5, scale=0.5)
        assert out.shape == (2, M // 2, N)
        assert_rounded_once(out, ref, acc, f"gated fp16 bias limit scale ({order})")


def test_delegated_gated_shape(generator):
    # A narrow weight with a long K: dispatch runs cuBLASLt's product and epifuse's act·mul.
    M, N, K = 48, 512, 8192
    x = cuda(random_matrix((M, K), BF16, generator, K**-0.5))
    gate, up = cuda(random_matrix((N, K), BF16, generator)), cuda(random_matrix((N, K), BF16, generator))
    out = epifuse.gated_mlp(x, epifuse.pack_gate_up(gate, up), "geglu_tanh")
    ref, acc = gated64(x, gate, up, activation="geglu_tanh")
    assert_rounded_once(out, ref, acc, "gated delegated shape")


def test_pack_unpack_round_trip_is_exact(generator):
    gate, up = cuda(random_matrix((64, 128), BF16, generator)), cuda(random_matrix((64, 128), BF16, generator))
    gate_bias, up_bias = cuda(random_matrix((64,), BF16, generator)), cuda(random_matrix((64,), BF16, generator))
    packed = epifuse.pack_gate_up(gate, up, gate_bias, up_bias)
    assert torch.equal(packed.weight[8:16], up[:8]) and torch.equal(packed.weight[16:24], gate[8:16])
    g, u, gb, ub = epifuse.unpack_gate_up(packed)
    assert torch.equal(g, gate) and torch.equal(u, up)
    assert torch.equal(gb, gate_bias.float()) and torch.equal(ub, up_bias.float())


def test_bad_input_raises_the_status_message(generator):
    x, w, _ = gemm_case(generator, 16, 256, 512, bias=False)
    packed = epifuse.pack_gate_up(w, w)
    cases = [
        (lambda: epifuse.gemm(x.float(), w.float()), NotImplementedError, "not supported"),
        (lambda: epifuse.gemm(x.to(torch.float8_e4m3fn), w), TypeError, "epifuse takes bfloat16, float16 or float32"),
        (lambda: epifuse.gemm(x, w[:, :256]), ValueError, "x has 512 features but weight has in_features 256"),
        (lambda: epifuse.gemm(x.t(), w[:, :16]), ValueError, "is not a row-major matrix view"),
        (lambda: epifuse.gemm(x[:, 1:], w[:, 1:]), ValueError, "invalid argument: gemm"),
        (lambda: epifuse.gemm(x, w.cpu()), ValueError, "weight is on cpu but the call runs on cuda:0"),
        (lambda: epifuse.gemm(x, w, activation="swish"), ValueError, "unknown activation 'swish'"),
        (lambda: epifuse.gemm(x, w, residual=torch.zeros(16, 256, device="cuda", dtype=FP16)), TypeError,
         "residual has dtype"),
        (lambda: epifuse.gemm(x, w, alpha=float("inf")), ValueError, "alpha"),
        (lambda: epifuse.gated_mlp(x, epifuse.PackedGateUp(torch.cat([w, w]), layout=0)), ValueError, "layout"),
        (lambda: epifuse.gated_mlp(x.half(), packed), NotImplementedError, "x fp16, weight bf16, out fp16 is not compiled"),
        (lambda: epifuse.gated_mlp(x, packed, "silu"), ValueError, "unknown activation 'silu'"),
        (lambda: epifuse.gated_mlp(x, packed, limit=-1.0), ValueError, "limit"),
        (lambda: epifuse.pack_gate_up(w, w[:, :256]), ValueError, "one shape"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_a_call_the_rules_reject_launches_no_bias_conversion(generator):
    x, w, _ = gemm_case(generator, 16, 256, 512, bias=False)
    bias16 = cuda(random_matrix((256,), BF16, generator))
    packed = epifuse.pack_gate_up(w[:128], w[128:])
    with_bf16_bias = epifuse.PackedGateUp(packed.weight, bias16, packed.layout)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        with pytest.raises(ValueError, match="invalid argument: gemm"):
            epifuse.gemm(x[:, 1:], w[:, 1:], bias16)  # x and the weight 2 bytes off 16-byte alignment
        with pytest.raises(ValueError, match="limit"):
            epifuse.gated_mlp(x, with_bf16_bias, limit=-1.0)
        torch.cuda.synchronize()
    launched = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    assert launched == [], launched


@pytest.mark.parametrize("activation", ["gelu_tanh", "silu"])  # cuBLASLt's epilogue; epifuse's kernel
def test_a_bias_in_the_output_dtype_is_read_as_is(generator, activation):
    x, w, _ = gemm_case(generator, 333, 1000, 512)
    b = cuda(random_matrix((1000,), BF16, generator))
    poison_allocator(333 * 1000)
    y = epifuse.gemm(x, w, b, activation)
    ref, acc = gemm64(x, w, b, activation)
    assert_rounded_once(y, ref, acc, f"gemm bf16 bias {activation}")
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        epifuse.gemm(x, w, b, activation)
        torch.cuda.synchronize()
    launched = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    assert launched and not any("at::native" in name for name in launched), launched


def test_autograd_inputs_are_refused_and_no_grad_runs(generator):
    x, w, b = gemm_case(generator, 8, 256, 256)
    x.requires_grad_(True)
    with pytest.raises(RuntimeError, match="inference only"):
        epifuse.gemm(x, w, b)
    with torch.no_grad():
        assert epifuse.gemm(x, w, b).shape == (8, 256)
    with torch.inference_mode():
        assert epifuse.gemm(x, w, b).shape == (8, 256)


def test_runs_on_the_current_stream(generator):
    x, w, b = gemm_case(generator, 512, 4096, 4096)
    expected = epifuse.gemm(x, w, b, "silu")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        y = epifuse.gemm(x, w, b, "silu")
        same = torch.equal(y, expected)  # ordered after the GEMM on the same stream
    assert same


def test_opcheck():
    g = torch.Generator().manual_seed(0)
    x = cuda(random_matrix((33, 256), BF16, g, 1 / 16))
    w = cuda(random_matrix((128, 256), BF16, g))
    b = cuda(random_matrix((128,), torch.float32, g))
    packed = epifuse.pack_gate_up(w[:64], w[64:])
    torch.library.opcheck(torch.ops.epifuse.gemm.default, (x, w, b, "gelu_tanh", 1.0, None, 1.0, None))
    torch.library.opcheck(torch.ops.epifuse.gated_mlp.default, (x, packed.weight, None, packed.layout, "swiglu",
                                                                None, 1.0))
    torch.library.opcheck(torch.ops.epifuse.pack_gate_up.default, (w[:64], w[64:], None, None))


class _Block(torch.nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.mlp = epifuse.nn.GatedMLP(hidden, intermediate, "swiglu", device="cuda")
        self.out = epifuse.nn.Linear(hidden, hidden, activation="gelu_tanh", device="cuda")
        with torch.no_grad():
            self.mlp.gate_up_weight.normal_(0, hidden**-0.5)
            self.mlp.down_proj.weight.normal_(0, intermediate**-0.5)

    def forward(self, x):
        return self.out(self.mlp(x), residual=x)


@pytest.mark.parametrize("mode", ["default", "max-autotune-no-cudagraphs", "reduce-overhead"])
def test_torch_compile_fullgraph_matches_eager(generator, mode):
    torch._dynamo.reset()
    block = _Block(512, 1408)
    compiled = torch.compile(block, fullgraph=True, mode=mode)
    with torch.inference_mode():
        for tokens in (1, 40, 300):
            x = cuda(random_matrix((tokens, 512), BF16, generator))
            for _ in range(3):  # reduce-overhead records a graph after warm-up calls
                got = compiled(x)
            if mode.startswith("max-autotune"):
                # Inductor may pick its own GEMM for the down projection (F.linear), which rounds
                # differently; epifuse's ops are the same calls. One bf16 rounding (2^-8) of the
                # down projection's output carries through the next GEMM into absolute errors of
                # that order of the output's scale, so elements near zero get an absolute bound.
                want = block(x)
                torch.testing.assert_close(got, want, rtol=2**-7, atol=2**-7 * want.abs().max().item(),
                                           msg=lambda m: f"{mode}, {tokens} tokens: {m}")
            else:
                assert torch.equal(got, block(x)), f"{mode}, {tokens} tokens"


def test_cuda_graph_capture_and_replay(generator):
    N, K = 2816, 1024
    gate, up = cuda(random_matrix((N, K), BF16, generator)), cuda(random_matrix((N, K), BF16, generator))
    packed = epifuse.pack_gate_up(gate, up)
    w = cuda(random_matrix((K, N), BF16, generator))
    static_x = cuda(random_matrix((77, K), BF16, generator, K**-0.5))

    def step(x):
        return epifuse.gemm(epifuse.gated_mlp(x, packed, "swiglu"), w, residual=x)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # the first call of these shapes in this process, inside capture
        static_y = step(static_x)
    for _ in range(2):
        fresh = cuda(random_matrix((77, K), BF16, generator, K**-0.5))
        static_x.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, step(fresh))
