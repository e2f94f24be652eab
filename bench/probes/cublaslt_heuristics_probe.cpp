// Probe: how far is cuBLASLt's first heuristic choice from the fastest of its top eight, and does
// an fp32 D (the delegated gated MLP's product) cost more than a bf16 one? For each shape
// (M x 2N x K, bf16 inputs, the weight transposed as epifuse's delegates call it) it times every
// returned algorithm (3 warm-up and 20 timed calls, CUDA events, operands of zeros) and prints
// one line per output type: index, µs, tile id, stages id, cluster shape id, split-K count, workspace
// bytes (the ids are cublasLt.h's enums). Under a profiler, --once runs each candidate once (one cold call timed),
// so that the profiler's kernel names follow the printed order.
//
//   epifuse-cublaslt-probe [--once] [MxNxK ...]     (N: the gated output width; default: eight random-suite shapes)
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define PROBE_CHECK(call)                                                   \
  do {                                                                      \
    if (const auto status = (call); status != 0) {                          \
      std::fprintf(stderr, "%s failed (%d)\n", #call, static_cast<int>(status)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

struct Shape {
  int M, N, K;
};

constexpr int kCandidates = 8;
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

template <class T>
T config_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written);
  return value;
}

void probe(cublasLtHandle_t handle, const Shape& s, cudaDataType_t out, void* workspace, bool once) {
  const int rows = 2 * s.N;  // the packed gate/up weight
  void *x = nullptr, *w = nullptr, *d = nullptr;
  PROBE_CHECK(cudaMalloc(&x, std::size_t{2} * s.M * s.K));
  PROBE_CHECK(cudaMalloc(&w, std::size_t{2} * rows * s.K));
  PROBE_CHECK(cudaMalloc(&d, std::size_t{4} * s.M * rows));
  PROBE_CHECK(cudaMemset(x, 0, std::size_t{2} * s.M * s.K));
  PROBE_CHECK(cudaMemset(w, 0, std::size_t{2} * rows * s.K));
  cublasLtMatmulDesc_t desc;
  PROBE_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  PROBE_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
  PROBE_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none));
  cublasLtMatrixLayout_t a, b, c;
  PROBE_CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, s.K, rows, s.K));
  PROBE_CHECK(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, s.K, s.M, s.K));
  PROBE_CHECK(cublasLtMatrixLayoutCreate(&c, out, rows, s.M, rows));
  cublasLtMatmulPreference_t preference;
  PROBE_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  PROBE_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes,
                                                   sizeof kWorkspaceBytes));
  cublasLtMatmulHeuristicResult_t results[kCandidates];
  int found = 0;
  PROBE_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c, c, preference, kCandidates, results, &found));
  cudaEvent_t start, stop;
  PROBE_CHECK(cudaEventCreate(&start));
  PROBE_CHECK(cudaEventCreate(&stop));
  std::printf("%dx%dx%d %s:", s.M, s.N, s.K, out == CUDA_R_32F ? "fp32" : "bf16");
  const float alpha = 1.0f, beta = 0.0f;
  for (int i = 0; i < found; ++i) {
    const cublasLtMatmulAlgo_t& algo = results[i].algo;
    auto run = [&] {
      PROBE_CHECK(cublasLtMatmul(handle, desc, &alpha, w, a, x, b, &beta, d, c, d, c, &algo, workspace,
                                 results[i].workspaceSize, nullptr));
    };
    const int warm_up = once ? 0 : 3, timed = once ? 1 : 20;
    for (int r = 0; r < warm_up; ++r) run();
    PROBE_CHECK(cudaEventRecord(start));
    for (int r = 0; r < timed; ++r) run();
    PROBE_CHECK(cudaEventRecord(stop));
    PROBE_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("  #%d %.1f us (tile %d, stages %d, cluster %d, split-K %d, ws %zu)", i, ms * 1000.0f / timed,
                config_attribute<int>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                config_attribute<int>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
                config_attribute<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID),
                config_attribute<int>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), results[i].workspaceSize);
  }
  std::printf("\n");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(a);
  cublasLtMatrixLayoutDestroy(b);
  cublasLtMatrixLayoutDestroy(c);
  cublasLtMatmulDescDestroy(desc);
  cudaFree(x);
  cudaFree(w);
  cudaFree(d);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  bool once = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--once") {
      once = true;
      continue;
    }
    Shape s{};
    if (std::sscanf(argv[i], "%dx%dx%d", &s.M, &s.N, &s.K) != 3) {
      std::fprintf(stderr, "usage: %s [--once] [MxNxK ...]\n", argv[0]);
      return 2;
    }
    shapes.push_back(s);
  }
  if (shapes.empty()) {
    shapes = {{487, 1088, 9024}, {446, 1088, 8064}, {1225, 320, 9280}, {1, 512, 29952},
              {255, 896, 10944}, {14, 1472, 3072},  {283, 1984, 13376}, {479, 640, 8256}};
  }
  cublasLtHandle_t handle;
  PROBE_CHECK(cublasLtCreate(&handle));
  void* workspace = nullptr;
  PROBE_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  for (const Shape& s : shapes) {
    for (cudaDataType_t out : {CUDA_R_32F, CUDA_R_16BF}) probe(handle, s, out, workspace, once);
  }
  cudaFree(workspace);
  cublasLtDestroy(handle);
  return 0;
}
