// Run-time knobs of one sm90 GEMM launch. Plain C++; used by the CUTLASS-level API in
// gemm_kernel.cuh and by epifuse's own dispatch.
#pragma once

#include "epifuse/status.hpp"

namespace epifuse::sm90 {

enum class RasterOrder { kHeuristic, kAlongM, kAlongN };

struct LaunchConfig {
  int device = 0;
  int sm_count = 0;  // persistent grid size; from the device, never assumed
  RasterOrder raster = RasterOrder::kHeuristic;
  int max_swizzle = 1;  // persistent-scheduler tile swizzle: 1, 2, 4 or 8
};

// The current device's defaults (device queries are cached per device). Fails without a
// CUDA device or on one that is not sm_90.
Status default_launch_config(LaunchConfig* config);

}  // namespace epifuse::sm90
