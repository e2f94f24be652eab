// Public entry points of the grouped GEMM (api/grouped_call.hpp does the work).
#include "epifuse/grouped_gemm.hpp"

#include <vector>

#include "api/grouped_call.hpp"

namespace epifuse {

namespace detail {

std::vector<NamedPointer> operand_pointers(const GroupedGemmArgs& a) {
  std::vector<NamedPointer> pointers = operand_pointers(a.gemm);
  pointers.push_back({"expert_offsets", a.expert_offsets});
  return pointers;
}

}  // namespace detail

Status grouped_gemm_workspace_size(const GroupedGemmArgs& args, cudaStream_t stream, std::size_t* bytes) {
  return detail::grouped_workspace_bytes("grouped_gemm", args, stream, bytes);
}

Status grouped_gemm(const GroupedGemmArgs& args, cudaStream_t stream) {
  return detail::launch_grouped("grouped_gemm", args, stream);
}

}  // namespace epifuse
