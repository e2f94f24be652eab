// Argument rules shared by the host and device pack/unpack functions.
#pragma once

#include <cstdint>

#include "epifuse/gate_up_packing.hpp"

namespace epifuse::detail {

// Checks `src` and the destinations of a pack (kInvalidArgument with a message otherwise).
// `device` adds the 16-byte alignment rules of the vectorized copy kernel.
Status check_pack_args(const GateUpSource& src, const void* packed_weight, const float* packed_bias, bool device);

// Checks a packed weight and the destinations of an unpack.
Status check_unpack_args(const PackedGateUp& packed, const void* gate, const void* up, const float* gate_bias,
                         const float* up_bias, bool device);

// The PackedGateUp describing what a pack of `src` into (packed_weight, packed_bias) wrote.
PackedGateUp packed_description(const GateUpSource& src, const void* packed_weight, const float* packed_bias);

}  // namespace epifuse::detail
