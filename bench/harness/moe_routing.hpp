// The routings of the MoE benchmarks (the Python bench draws the same three): each of T tokens
// goes to k distinct of E experts, uniformly, Zipf-skewed (expert e drawn with weight
// 1/(e+1)^1.2, without replacement) or all to one hot set (experts 0..k-1; the others empty).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace epifuse::bench {

enum class Routing { kUniform, kZipf, kHot };
constexpr Routing kRoutings[] = {Routing::kUniform, Routing::kZipf, Routing::kHot};

inline const char* to_string(Routing r) {
  return r == Routing::kUniform ? "uniform" : r == Routing::kZipf ? "zipf" : "hot";
}

inline Routing parse_routing(const std::string& name) {
  for (Routing r : kRoutings) {
    if (name == to_string(r)) return r;
  }
  throw std::invalid_argument("unknown routing '" + name + "' (uniform, zipf, hot)");
}

// Rows per expert for T tokens routed to k of E experts each.
inline std::vector<std::int64_t> expert_rows(Routing routing, int experts, int k, std::int64_t tokens,
                                             std::uint64_t seed) {
  std::vector<std::int64_t> rows(experts, 0);
  std::mt19937_64 rng(seed);
  std::vector<double> weight(experts);
  for (std::int64_t t = 0; t < tokens; ++t) {
    if (routing == Routing::kHot) {
      for (int j = 0; j < k; ++j) ++rows[j];
      continue;
    }
    for (int e = 0; e < experts; ++e) weight[e] = routing == Routing::kZipf ? 1.0 / std::pow(e + 1.0, 1.2) : 1.0;
    for (int j = 0; j < k; ++j) {
      std::discrete_distribution<int> pick(weight.begin(), weight.end());
      const int e = pick(rng);
      ++rows[e];
      weight[e] = 0.0;
    }
  }
  return rows;
}

}  // namespace epifuse::bench
