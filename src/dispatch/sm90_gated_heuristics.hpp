// Which compiled sm90 gated kernel runs a call.
#pragma once

#include "dispatch/sm90_gated_registry.hpp"

namespace epifuse::detail {

// For validated args with M > 0. Honours args.kernel when it names a kernel of the right dtype.
Status choose_sm90_gated(const GatedArgs& args, const Sm90GatedKernelEntry** kernel);

}  // namespace epifuse::detail
