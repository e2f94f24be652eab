// Public entry points of the grouped gated MLP (api/grouped_call.hpp does the work).
#include "epifuse/grouped_gated_mlp.hpp"

#include <vector>

#include "api/grouped_call.hpp"

namespace epifuse {

namespace detail {

std::vector<NamedPointer> operand_pointers(const GroupedGatedMlpArgs& a) {
  std::vector<NamedPointer> pointers = operand_pointers(a.gated);
  pointers.push_back({"expert_offsets", a.expert_offsets});
  return pointers;
}

}  // namespace detail

Status grouped_gated_mlp_workspace_size(const GroupedGatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  return detail::grouped_workspace_bytes("grouped_gated_mlp", args, stream, bytes);
}

Status grouped_gated_mlp(const GroupedGatedMlpArgs& args, cudaStream_t stream) {
  return detail::launch_grouped("grouped_gated_mlp", args, stream);
}

}  // namespace epifuse
