// The argument rules of gate/up packing (include/epifuse/packing/gate_up.hpp), shared by the host
// and device pack and unpack functions.
#pragma once

#include "epifuse/packing/gate_up.hpp"

namespace epifuse::detail {

// `device` adds the rules of the device copy kernel: 16-byte aligned weights, 16-byte rows.
Status check_pack_args(const GateUpSource& src, const void* packed_weight, const float* packed_bias,
                       const PackedGateUp* packed, bool device);

Status check_unpack_args(const PackedGateUp& packed, const void* gate, const void* up, const float* gate_bias,
                         const float* up_bias, bool device);

}  // namespace epifuse::detail
