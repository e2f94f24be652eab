#include "tests/support/error_stats.hpp"

#include <cmath>
#include <cstdio>

namespace epifuse::testing {

ErrorStats error_stats(const std::vector<double>& out, const std::vector<double>& ref) {
  ErrorStats s;
  double ref_sq = 0.0;
  for (double r : ref) ref_sq += r * r;
  const double rms = ref.empty() ? 0.0 : std::sqrt(ref_sq / static_cast<double>(ref.size()));
  double diff_sq = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++s.nonfinite;
      continue;
    }
    const double d = out[i] - ref[i];
    diff_sq += d * d;
    const double e = std::fabs(d) / (std::fabs(ref[i]) + rms);
    if (e > s.max_elem) {
      s.max_elem = e;
      s.worst = static_cast<std::int64_t>(i);
    }
  }
  s.rel_l2 = ref_sq > 0.0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  return s;
}

std::string ErrorStats::to_string() const {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "rel_l2 %.3e, max_elem %.3e (at %lld), non-finite %lld", rel_l2, max_elem,
                static_cast<long long>(worst), static_cast<long long>(nonfinite));
  return buf;
}

}  // namespace epifuse::testing
