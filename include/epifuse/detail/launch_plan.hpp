// What one kernel launch needs beyond its arguments: the device it runs on and the scheduler's
// knobs. CUTLASS-free; dispatch fills it, the kernel assembly (sm90_assembly.cuh) reads it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/detail/group_tiers.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

struct LaunchPlan {
  int device = 0;
  int sm_count = 0;  // persistent grid size; from the device, never assumed
  RasterOrder raster = RasterOrder::kHeuristic;
  int swizzle = 1;
  int splits = 1;  // stream-K kernels: K-loop shares per tile (KernelChoice::splits)
  StreamKMode stream_k = StreamKMode::kHeuristic;
  // Gated MLP: the token rows x is padded to in the workspace (zero rows after M) so that no TMA
  // load of x runs past its last row; 0 reads x in place.
  std::int64_t padded_tokens = 0;
  // Grouped kernels: the experts this launch computes, those whose row count the call's tiers give
  // to `group_tier`; the others run as empty groups (another launch computes them).
  GroupTiers group_tiers;
  int group_tier = 0;
};

// The plan for a launch of an `arch` kernel on `stream` with default knobs, after the checks every
// launch makes: no CUDA error pending from earlier work, the stream on the current device, the
// device of that architecture (kNotSupported otherwise). Used by sm90::gemm_custom.
Status launch_plan_for_stream(cudaStream_t stream, Arch arch, LaunchPlan* plan);

// The opt-in pointer check (EPIFUSE_CHECK_POINTERS=1) over a GEMM's operands, as gemm() makes it.
Status check_gemm_pointers(const GemmArgs& args, int device);

// For a launch that needs `needed` bytes of workspace: the caller's workspace is non-null, 16-byte
// aligned and large enough (kInvalidArgument naming `op` and the sizes otherwise).
Status check_workspace(const char* op, std::size_t needed, const void* workspace, std::size_t workspace_bytes);

}  // namespace epifuse::detail
