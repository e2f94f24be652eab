// Links the installed library and calls its API: the compiled kernels, a rejected call, and a
// valid call, which runs on a Hopper GPU and says why not elsewhere.
#include <cstdio>

#include <epifuse/epifuse.hpp>

int main() {
  const std::vector<epifuse::KernelKey> kernels = epifuse::compiled_kernels(epifuse::Op::kGemm);
  std::printf("epifuse: %zu GEMM kernels, e.g. %s\n", kernels.size(),
              kernels.empty() ? "none" : epifuse::name(kernels.front()).c_str());

  epifuse::GemmArgs bad;
  bad.M = -1;
  const epifuse::Status rejected = epifuse::gemm(bad, nullptr);
  std::printf("M = -1: %s\n", rejected.to_string().c_str());
  if (rejected.code() != epifuse::StatusCode::kInvalidArgument || kernels.empty()) return 1;

  const epifuse::Status empty = epifuse::gemm(epifuse::GemmArgs{}, nullptr);
  std::printf("empty GEMM: %s\n", empty.to_string().c_str());
  return empty.ok() ? 0 : 1;
}
