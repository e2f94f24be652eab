#include "tests/gpu/gpu_test.hpp"

#include <cstdio>
#include <functional>

#include "tests/support/random.hpp"

namespace epifuse::testing {

std::uint64_t case_seed(const GemmCase& c) { return derive_seed(run_seed(), std::hash<std::string>{}(c.name())); }

void expect_case_passes(const GemmCase& c) {
  GemmProblem problem(c, case_seed(c));
  const CheckReport report = run_and_check(problem);
  std::printf("[case] %-70s %-48s rel_l2 %.2e (unfused %.2e) max_elem %.2e rows %lld %s\n", c.name().c_str(),
              report.kernel.c_str(), report.fused.rel_l2, report.unfused.rel_l2, report.fused.max_elem,
              static_cast<long long>(report.rows_checked), report.passed ? "pass" : "FAIL");
  EXPECT_TRUE(report.passed) << report.text;
}

std::string param_name(const ::testing::TestParamInfo<GemmCase>& info) {
  std::string name = info.param.name();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace epifuse::testing
