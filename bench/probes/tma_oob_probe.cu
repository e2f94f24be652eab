// Probe: does a TMA load whose box runs past the tensor's last row cost more than one inside it?
// The GEMM mainloops load the token operand as boxes of [128 rows, 64 columns] bf16 with a 128-byte
// swizzle; when M is not a multiple of 128 the last token tile's boxes are partly out of bounds
// (TMA fills those rows with zeros). Every CTA here streams such boxes from x[M, 4096] through a
// 4-stage mbarrier ring and does nothing else; x is a few MB, so L2 serves it. Each case streams the
// same number of boxes: only the out-of-bounds share differs. Prints one JSON object per case.
//
//   epifuse-tma-oob-probe [ctas=264] [reps=64]
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kStages = 4;
constexpr int kBoxRows = 128;
constexpr int kBoxCols = 64;
constexpr int kK = 4096;
constexpr int kBoxBytes = kBoxRows * kBoxCols * 2;

__device__ std::uint32_t smem_address(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

__device__ void wait_phase(std::uint32_t barrier, std::uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n wait:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait;\n}\n" ::"r"(barrier), "r"(parity));
}

// One thread issues every load: `boxes` boxes at row `row0`, walking K.
__global__ void __launch_bounds__(32) stream_boxes(const __grid_constant__ CUtensorMap map, int row0, int boxes) {
  extern __shared__ __align__(1024) unsigned char stage_bytes[];
  __shared__ __align__(8) std::uint64_t full[kStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(&full[s])));
  }
  asm volatile("fence.mbarrier_init.release.cluster;");
  for (int i = 0; i < boxes; ++i) {
    const int s = i % kStages;
    const std::uint32_t barrier = smem_address(&full[s]);
    if (i >= kStages) wait_phase(barrier, ((i / kStages) - 1) & 1);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(kBoxBytes));
    const int column = (i % (kK / kBoxCols)) * kBoxCols;
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_address(stage_bytes + s * kBoxBytes)),
        "l"(&map), "r"(column), "r"(row0), "r"(barrier)
        : "memory");
  }
  for (int i = boxes - kStages; i < boxes; ++i) {
    if (i >= 0) wait_phase(smem_address(&full[i % kStages]), (i / kStages) & 1);
  }
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

CUtensorMap token_map(PFN_cuTensorMapEncodeTiled_v12000 encode, const void* x, int M) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {kK, static_cast<cuuint64_t>(M)};
  const cuuint64_t strides[1] = {kK * 2};
  const cuuint32_t box[2] = {kBoxCols, kBoxRows};
  const cuuint32_t element_strides[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(x), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed for M = %d\n", M);
    std::exit(1);
  }
  return map;
}

}  // namespace

int main(int argc, char** argv) {
  const int ctas = argc > 1 ? std::atoi(argv[1]) : 264;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 64;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("{\"skipped\": \"no CUDA device\"}\n");
    return 0;
  }
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found),
        "driver entry point");
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  const int smem = kStages * kBoxBytes + 1024;
  check(cudaFuncSetAttribute(stream_boxes, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem attribute");

  struct Case {
    int M, row0;
  };
  const Case cases[] = {{128, 0}, {127, 0}, {104, 0}, {64, 0}, {8, 0}, {1, 0},
                        {256, 128}, {232, 128}, {200, 128}, {129, 128}, {128, 128}};
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const int boxes = reps * (kK / kBoxCols);
  for (const Case& c : cases) {
    void* x = nullptr;
    check(cudaMalloc(&x, static_cast<std::size_t>(c.M) * kK * 2), "cudaMalloc");
    check(cudaMemset(x, 0x3c, static_cast<std::size_t>(c.M) * kK * 2), "cudaMemset");
    const CUtensorMap map = token_map(encode, x, c.M);
    float best_ms = 1e30f;
    for (int trial = 0; trial < 7; ++trial) {
      check(cudaEventRecord(start), "record");
      stream_boxes<<<ctas, 32, smem>>>(map, c.row0, boxes);
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      if (trial > 0 && ms < best_ms) best_ms = ms;
    }
    const int valid_rows = c.M - c.row0 < 0 ? 0 : (c.M - c.row0 > kBoxRows ? kBoxRows : c.M - c.row0);
    const double box_ns = best_ms * 1e6 / boxes;
    const double tbps = static_cast<double>(ctas) * boxes * kBoxBytes / (best_ms * 1e-3) / 1e12;
    std::printf("{\"M\": %d, \"row0\": %d, \"valid_rows_in_box\": %d, \"ctas\": %d, \"boxes_per_cta\": %d, "
                "\"best_ms\": %.4f, \"ns_per_box_per_cta\": %.1f, \"smem_fill_TBps\": %.2f}\n",
                c.M, c.row0, valid_rows, ctas, boxes, best_ms, box_ns, tbps);
    check(cudaFree(x), "cudaFree");
  }
  return 0;
}
