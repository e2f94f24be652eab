// epifuse: epilogue-fused GEMM kernels for LLM inference on Hopper.
#pragma once

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/moe_mlp.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "epifuse/status.hpp"
#include "epifuse/tuning.hpp"
#include "epifuse/types.hpp"
