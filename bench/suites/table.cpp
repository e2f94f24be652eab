#include "bench/suites/suite.hpp"

namespace epifuse::bench {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> table = {gemm_suite(), gated_mlp_suite(), moe_suite()};
  return table;
}

}  // namespace epifuse::bench
