#include "epifuse/detail/kernel_launch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace epifuse::detail {
namespace {

thread_local LaunchRecording* recording = nullptr;

}  // namespace

cudaError_t launch_kernel_params(const cudaLaunchConfig_t& config, const void* function,
                                 std::initializer_list<KernelParam> params) {
  void* addresses[16];
  if (params.size() > sizeof(addresses) / sizeof(addresses[0])) return cudaErrorInvalidValue;
  std::size_t i = 0;
  for (const KernelParam& p : params) addresses[i++] = const_cast<void*>(p.bytes);
  const cudaError_t err = cudaLaunchKernelExC(&config, function, addresses);
  if (err == cudaSuccess && recording != nullptr) recording->record(config, function, params);
  return err;
}

RecordedLaunch::RecordedLaunch(const cudaLaunchConfig_t& config, const void* function,
                               std::initializer_list<KernelParam> params)
    : function_(function), param_count_(params.size()) {
  config_.gridDim = config.gridDim;
  config_.blockDim = config.blockDim;
  config_.dynamicSmemBytes = config.dynamicSmemBytes;
  config_.numAttrs = config.numAttrs;
  std::copy(config.attrs, config.attrs + config.numAttrs, attributes_);
  std::size_t chunks = 0, i = 0;
  for (const KernelParam& p : params) {
    offsets_[i++] = chunks * sizeof(Chunk);
    chunks += (p.size + sizeof(Chunk) - 1) / sizeof(Chunk);
  }
  params_.resize(chunks);
  i = 0;
  for (const KernelParam& p : params) {
    std::memcpy(reinterpret_cast<unsigned char*>(params_.data()) + offsets_[i++], p.bytes, p.size);
  }
}

cudaError_t RecordedLaunch::launch(cudaStream_t stream) const {
  void* addresses[kMaxParams];
  for (std::size_t i = 0; i < param_count_; ++i) {
    addresses[i] = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(params_.data())) + offsets_[i];
  }
  cudaLaunchConfig_t config = config_;
  config.stream = stream;
  config.attrs = const_cast<cudaLaunchAttribute*>(attributes_);
  return cudaLaunchKernelExC(&config, function_, addresses);
}

LaunchRecording::LaunchRecording() : outer_(recording) { recording = this; }

LaunchRecording::~LaunchRecording() { recording = outer_; }

void LaunchRecording::record(const cudaLaunchConfig_t& config, const void* function,
                             std::initializer_list<KernelParam> params) {
  ++launches_;
  if (RecordedLaunch::fits(params.size(), config.numAttrs)) {
    last_.emplace(config, function, params);
  } else {
    ++launches_;  // a launch that cannot be repeated: never the only one
  }
}

std::optional<RecordedLaunch> LaunchRecording::take_only() {
  if (launches_ != 1) return std::nullopt;
  return std::move(last_);
}

}  // namespace epifuse::detail
