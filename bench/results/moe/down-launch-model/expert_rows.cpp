// Rows per expert as epifuse-grouped-probe draws them (bench/harness/moe_routing.hpp, seed 1234 on,
// one per routing and token count, in the probe's order):
//   g++ -O2 -std=c++17 -I../../../.. expert_rows.cpp -o expert_rows && ./expert_rows 8 2 256 1024 4096
#include <cstdio>
#include <cstdlib>

#include "bench/harness/moe_routing.hpp"

int main(int argc, char** argv) {
  const int experts = std::atoi(argv[1]), k = std::atoi(argv[2]);
  std::uint64_t seed = 1234;
  for (auto routing : epifuse::bench::kRoutings) {
    for (int i = 3; i < argc; ++i) {
      const int tokens = std::atoi(argv[i]);
      const auto rows = epifuse::bench::expert_rows(routing, experts, k, tokens, seed++);
      std::printf("%s %d", epifuse::bench::to_string(routing), tokens);
      for (auto r : rows) std::printf(" %lld", static_cast<long long>(r));
      std::printf("\n");
    }
  }
}
