// The gated-MLP accuracy table: per size, `inits` fresh random draws; the fused kernel and the
// unfused bf16 path (cuBLASLt GEMM → bf16 [M, 2N] → act·mul → bf16) against an fp64 reference
// (cuBLAS DGEMM on the same bf16 values, SwiGLU in fp64), and against each other.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/baselines/act_mul.hpp"
#include "bench/accuracy/gated_accuracy.hpp"
#include "epifuse/tuning.hpp"
#include "testing/device_buffer.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

using testing::DeviceBuffer;

constexpr int kStatsBlocks = 1024, kStatsThreads = 256;

__global__ void bf16_to_double(const __nv_bfloat16* in, double* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<double>(__bfloat162float(in[i]));
  }
}

// gate <- silu(gate)·up in fp64.
__global__ void swiglu_double(double* gate, const double* up, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const double g = gate[i];
    gate[i] = g / (1.0 + exp(-g)) * up[i];
  }
}

// Per block: max |a − b|, Σ|a − b|, Σ(a − b)², Σ b²  (b the reference side).
struct Partial {
  double max_abs, sum_abs, sum_sq, ref_sq;
};

__device__ double value(const double* p, std::int64_t i) { return p[i]; }
__device__ double value(const __nv_bfloat16* p, std::int64_t i) { return static_cast<double>(__bfloat162float(p[i])); }

template <class A, class B>
__global__ void diff_stats(const A* a, const B* b, std::int64_t n, Partial* partials) {
  Partial p{0, 0, 0, 0};
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const double x = value(a, i), r = value(b, i);
    const double d = fabs(x - r);
    p.max_abs = fmax(p.max_abs, isfinite(d) ? d : INFINITY);
    p.sum_abs += d;
    p.sum_sq += d * d;
    p.ref_sq += r * r;
  }
  __shared__ Partial shared[kStatsThreads];
  shared[threadIdx.x] = p;
  __syncthreads();
  for (int stride = kStatsThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      Partial& s = shared[threadIdx.x];
      const Partial& o = shared[threadIdx.x + stride];
      s.max_abs = fmax(s.max_abs, o.max_abs);
      s.sum_abs += o.sum_abs;
      s.sum_sq += o.sum_sq;
      s.ref_sq += o.ref_sq;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

struct Diff {
  double max_abs, mean_abs, rel_l2;
};

template <class A, class B>
Diff diff(const A* a, const B* b, std::int64_t n, DeviceBuffer& partials) {
  diff_stats<A, B><<<kStatsBlocks, kStatsThreads>>>(a, b, n, partials.as<Partial>());
  std::vector<Partial> host(kStatsBlocks);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(host.data(), partials.data(), sizeof(Partial) * kStatsBlocks, cudaMemcpyDeviceToHost));
  Partial t{0, 0, 0, 0};
  for (const Partial& p : host) {
    t.max_abs = std::max(t.max_abs, p.max_abs);
    t.sum_abs += p.sum_abs;
    t.sum_sq += p.sum_sq;
    t.ref_sq += p.ref_sq;
  }
  return {t.max_abs, t.sum_abs / static_cast<double>(n), std::sqrt(t.sum_sq / t.ref_sq)};
}

void to_double(const void* in, DeviceBuffer& out, std::int64_t n) {
  bf16_to_double<<<2048, 256>>>(static_cast<const __nv_bfloat16*>(in), out.as<double>(), n);
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(s));
}

// Running mean and standard deviation (Welford).
struct Moments {
  int n = 0;
  double mean = 0, m2 = 0;
  void add(double x) {
    ++n;
    const double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  double stddev() const { return n > 1 ? std::sqrt(m2 / (n - 1)) : 0.0; }
  nlohmann::json json() const { return {{"mean", mean}, {"std", stddev()}}; }
};

struct DiffMoments {
  Moments max_abs, mean_abs, rel_l2;
  void add(const Diff& d) {
    max_abs.add(d.max_abs);
    mean_abs.add(d.mean_abs);
    rel_l2.add(d.rel_l2);
  }
  nlohmann::json json() const {
    return {{"max_abs_diff", max_abs.json()}, {"mean_abs_diff", mean_abs.json()}, {"rel_l2_diff", rel_l2.json()}};
  }
};

}  // namespace

void run_gated_accuracy(const std::vector<std::int64_t>& sizes, int inits, nlohmann::json* out) {
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  const std::uint64_t seed = testing::run_seed();
  *out = nlohmann::json::array();
  for (std::int64_t S : sizes) {
    const std::int64_t n = S * S;
    DeviceBuffer x(n * 2, 0), concatenated(2 * n * 2, 0), packed(2 * n * 2, 0), fused(n * 2, 0), h(2 * n * 2, 0),
        unfused(n * 2, 0), x64(n * 8, 0), w64(n * 8, 0), gate64(n * 8, 0), up64(n * 8, 0),
        partials(sizeof(Partial) * kStatsBlocks, 0);
    CublasLtGemm lt(S, 2 * S, S, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    DiffMoments fused_vs_fp64, unfused_vs_fp64, fused_vs_unfused;
    std::string kernel;
    for (int init = 0; init < inits; ++init) {
      const std::uint64_t s = testing::derive_seed(seed, static_cast<std::uint64_t>(S) * 1000 + init);
      const float w_scale = 3.0f / std::sqrt(static_cast<float>(S));
      void* gate = concatenated.data();
      void* up = concatenated.as<char>() + n * 2;
      testing::fill_uniform(x.data(), DType::kBF16, S, S, S, testing::derive_seed(s, 1), -1.0f, 1.0f);
      testing::fill_uniform(gate, DType::kBF16, S, S, S, testing::derive_seed(s, 2), -w_scale, w_scale);
      testing::fill_uniform(up, DType::kBF16, S, S, S, testing::derive_seed(s, 3), -w_scale, w_scale);

      GatedMlpArgs args;
      args.M = S;
      args.N = S;
      args.x = x.data();
      args.ldx = S;
      args.out = fused.data();
      args.ldo = S;
      GateUpSource src = gate_up_from_fused(concatenated.data(), nullptr, S, S, S, DType::kBF16,
                                            FusedGateUpOrder::kGateThenUp);
      if (Status st = pack_gate_up(src, packed.data(), nullptr, &args.w, nullptr); !st.ok()) throw std::runtime_error(st.to_string());
      if (init == 0) {
        lt.autotune(x.data(), concatenated.data(), h.data(), nullptr);
        std::optional<KernelChoice> choice;
        if (Status st = selected_kernel(args, nullptr, &choice); !st.ok()) throw std::runtime_error(st.to_string());
        kernel = to_string(*choice);
      }
      fused.poison();
      unfused.poison();
      if (Status st = gated_mlp(args, nullptr); !st.ok()) throw std::runtime_error(st.to_string());
      lt.run(x.data(), concatenated.data(), h.data(), nullptr, nullptr);
      act_mul(h.data(), 2 * S, unfused.data(), S, S, S, DType::kBF16, GatedActivation::kSwiGLU, nullptr);

      // fp64: G = x·gateᵀ, U = x·upᵀ (column-major [N, M] = row-major [M, N]), then silu(G)·U.
      const double one = 1.0, zero = 0.0;
      to_double(x.data(), x64, n);
      to_double(gate, w64, n);
      check_cublas(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, S, S, S, &one, w64.as<double>(), S, x64.as<double>(), S,
                               &zero, gate64.as<double>(), S), "cublasDgemm");
      to_double(up, w64, n);
      check_cublas(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, S, S, S, &one, w64.as<double>(), S, x64.as<double>(), S,
                               &zero, up64.as<double>(), S), "cublasDgemm");
      swiglu_double<<<2048, 256>>>(gate64.as<double>(), up64.as<double>(), n);
      EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());

      const auto* f = fused.as<__nv_bfloat16>();
      const auto* u = unfused.as<__nv_bfloat16>();
      fused_vs_fp64.add(diff(f, gate64.as<double>(), n, partials));
      unfused_vs_fp64.add(diff(u, gate64.as<double>(), n, partials));
      fused_vs_unfused.add(diff(f, u, n, partials));
    }
    std::fprintf(stderr, "[accuracy] %lld^3 x %d: fused vs fp64 max %.3e mean %.3e rel %.3e; unfused max %.3e mean %.3e rel %.3e\n",
                 static_cast<long long>(S), inits, fused_vs_fp64.max_abs.mean, fused_vs_fp64.mean_abs.mean,
                 fused_vs_fp64.rel_l2.mean, unfused_vs_fp64.max_abs.mean, unfused_vs_fp64.mean_abs.mean,
                 unfused_vs_fp64.rel_l2.mean);
    out->push_back({{"M", S}, {"N", S}, {"K", S}, {"inits", inits}, {"activation", "swiglu"}, {"dtype", "bf16"},
                    {"kernel", kernel}, {"unfused_path", "cuBLASLt " + lt.algo_description() + " -> bf16 -> act_mul"},
                    {"fused_vs_fp64", fused_vs_fp64.json()}, {"unfused_vs_fp64", unfused_vs_fp64.json()},
                    {"fused_vs_unfused", fused_vs_unfused.json()}});
  }
  cublasDestroy(handle);
}

}  // namespace epifuse::bench
