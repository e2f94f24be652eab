#include <atomic>

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "epifuse/detail/cutlass_driver_calls.hpp"
#include "epifuse/detail/relaxed_capture.hpp"
#include "kernels/tensor_map_cache.hpp"

namespace epifuse::detail {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 resolve_encode_tiled() {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();  // ours to clear: the caller sees CUDA_ERROR_NOT_FOUND instead
    return nullptr;
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
}

std::atomic<bool> keeping{true};

}  // namespace

void keep_tensor_maps(bool keep) { keeping.store(keep, std::memory_order_relaxed); }

CUresult encode_tensor_map_tiled(CUtensorMap* tensor_map, CUtensorMapDataType data_type, cuuint32_t rank,
                                 void* global_address, const cuuint64_t* global_dim,
                                 const cuuint64_t* global_strides, const cuuint32_t* box_dim,
                                 const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                 CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                                 CUtensorMapFloatOOBfill oob_fill) {
  thread_local TensorMapCache cache;
  const std::optional<TensorMapKey> key =
      keeping.load(std::memory_order_relaxed)
          ? TensorMapKey::of(data_type, rank, global_address, global_dim, global_strides, box_dim, element_strides,
                             interleave, swizzle, l2_promotion, oob_fill)
          : std::nullopt;
  if (key) {
    if (const CUtensorMap* kept = cache.find(*key)) {
      *tensor_map = *kept;
      return CUDA_SUCCESS;
    }
  }
  // The lookup and the encode are host-only driver calls that Global-mode capture may refuse.
  const RelaxedCaptureMode relaxed;
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = resolve_encode_tiled();
  if (encode == nullptr) return CUDA_ERROR_NOT_FOUND;
  const CUresult result = encode(tensor_map, data_type, rank, global_address, global_dim, global_strides, box_dim,
                                 element_strides, interleave, swizzle, l2_promotion, oob_fill);
  if (result == CUDA_SUCCESS && key) cache.insert(*key, *tensor_map);
  return result;
}

}  // namespace epifuse::detail
