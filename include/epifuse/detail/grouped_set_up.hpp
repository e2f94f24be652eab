// The launch plan's group_tier that asks a grouped family's launcher for the call's setup kernel
// alone: the API enqueues it before the call's launches, which may then run on several streams
// (src/api/grouped_call.hpp).
#pragma once

namespace epifuse::detail {

inline constexpr int kGroupedSetUpOnly = -1;

}  // namespace epifuse::detail
