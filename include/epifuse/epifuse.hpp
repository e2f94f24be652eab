// epifuse: epilogue-fused GEMM kernels for LLM inference on Hopper.
#pragma once

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/gate_up_packing.hpp"
#include "epifuse/gated.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"
