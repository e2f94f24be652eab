// Error of an output against the fp64 reference, in the measures tolerances.hpp bounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace epifuse::testing {

struct ErrorStats {
  double rel_l2 = 0.0;         // ‖out − ref‖₂ / ‖ref‖₂
  double max_elem = 0.0;       // max |out − ref| / (|ref| + rms(ref))
  std::int64_t worst = -1;     // index of max_elem
  std::int64_t nonfinite = 0;  // NaN or Inf outputs where the reference is finite
  std::string to_string() const;
};

ErrorStats error_stats(const std::vector<double>& out, const std::vector<double>& ref);

}  // namespace epifuse::testing
