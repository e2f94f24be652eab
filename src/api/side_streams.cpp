#include "api/side_streams.hpp"

#include <string>
#include <vector>

namespace epifuse::detail {
namespace {

struct Pool {
  int device = 0;
  int priority = 0;
  cudaStream_t streams[SideStreams::kMax] = {};
  cudaEvent_t forked = nullptr;
  cudaEvent_t done[SideStreams::kMax] = {};
};

Status failed(const char* what, cudaError_t err) {
  return Status::cuda_error(std::string(what) + ": " + cudaGetErrorString(err));
}

// Never destroyed: at thread exit the driver may already be gone.
thread_local std::vector<Pool*> pools;

Status create(int device, int priority, Pool** out) {
  auto* pool = new Pool{};
  pool->device = device;
  pool->priority = priority;
  for (int i = 0; i < SideStreams::kMax; ++i) {
    if (cudaError_t err = cudaStreamCreateWithPriority(&pool->streams[i], cudaStreamNonBlocking, priority);
        err != cudaSuccess) {
      return failed("creating a grouped call's side stream", err);
    }
    if (cudaError_t err = cudaEventCreateWithFlags(&pool->done[i], cudaEventDisableTiming); err != cudaSuccess) {
      return failed("creating a grouped call's join event", err);
    }
  }
  if (cudaError_t err = cudaEventCreateWithFlags(&pool->forked, cudaEventDisableTiming); err != cudaSuccess) {
    return failed("creating a grouped call's fork event", err);
  }
  pools.push_back(pool);
  *out = pool;
  return Status::success();
}

}  // namespace

Status fork_side_streams(cudaStream_t stream, int count, SideStreams* sides) {
  sides->count = 0;
  if (count <= 0) return Status::success();
  if (count > SideStreams::kMax) return Status::internal("a grouped call asked for more side streams than kept");
  int device = 0, priority = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return failed("reading the current device", err);
  if (cudaError_t err = cudaStreamGetPriority(stream, &priority); err != cudaSuccess) {
    return failed("reading the stream's priority", err);
  }
  Pool* pool = nullptr;
  for (Pool* p : pools) {
    if (p->device == device && p->priority == priority) pool = p;
  }
  if (pool == nullptr) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess) {
      return failed("asking whether the stream is capturing", err);
    }
    if (capture != cudaStreamCaptureStatusNone) return Status::success();
    if (Status s = create(device, priority, &pool); !s.ok()) return s;
  }
  if (cudaError_t err = cudaEventRecord(pool->forked, stream); err != cudaSuccess) {
    return failed("recording a grouped call's fork", err);
  }
  for (int i = 0; i < count; ++i) {
    if (cudaError_t err = cudaStreamWaitEvent(pool->streams[i], pool->forked, 0); err != cudaSuccess) {
      sides->count = i;
      return failed("forking a grouped call's side stream", err);
    }
    sides->streams[i] = pool->streams[i];
    sides->done[i] = pool->done[i];
  }
  sides->count = count;
  return Status::success();
}

Status join_side_streams(cudaStream_t stream, const SideStreams& sides) {
  Status first = Status::success();
  for (int i = 0; i < sides.count; ++i) {
    cudaError_t err = cudaEventRecord(sides.done[i], sides.streams[i]);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(stream, sides.done[i], 0);
    if (err != cudaSuccess && first.ok()) first = failed("joining a grouped call's side stream", err);
  }
  return first;
}

}  // namespace epifuse::detail
