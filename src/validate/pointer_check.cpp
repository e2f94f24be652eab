#include "validate/pointer_check.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

bool pointer_check_enabled() {
  const char* v = std::getenv("EPIFUSE_CHECK_POINTERS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

Status check_device_pointers(const char* op, const std::vector<NamedPointer>& pointers, int device) {
  for (const auto& [name, ptr] : pointers) {
    if (ptr == nullptr) continue;
    cudaPointerAttributes attributes{};
    if (cudaError_t err = cudaPointerGetAttributes(&attributes, ptr); err != cudaSuccess) {
      cudaGetLastError();
      return Status::invalid_argument(std::string(op) + ": " + name + " is not memory CUDA knows (" +
                                      cudaGetErrorName(err) + ")");
    }
    const std::string where = std::string(op) + ": " + name + " (EPIFUSE_CHECK_POINTERS) ";
    switch (attributes.type) {
      case cudaMemoryTypeManaged: break;
      case cudaMemoryTypeDevice:
        if (attributes.device != device) {
          return Status::invalid_argument(where + "is memory of device " + std::to_string(attributes.device) +
                                          "; the kernel runs on device " + std::to_string(device));
        }
        break;
      case cudaMemoryTypeHost: return Status::invalid_argument(where + "is pinned host memory, not device memory");
      case cudaMemoryTypeUnregistered: return Status::invalid_argument(where + "is host memory, not device memory");
    }
  }
  return Status::success();
}

}  // namespace epifuse::detail
