// Judging an output against its fp64 reference by the rules of tolerances.hpp: the one-rounding
// rule for epifuse's fused kernels, the looser rule for baselines. CPU only, so the CPU tests can
// show the rule rejecting emulated broken kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epifuse/types.hpp"

namespace epifuse::testing {

// How an output is judged: as a fused kernel (one rounding) or as a baseline that may round more
// than once.
enum class Judge { kFused, kBaseline };

// The distance between `x` and the next representable value of `dtype` away from zero (subnormals
// included): the unit an output of that dtype is rounded to.
double ulp(DType dtype, double x);

// A reference value rounded to `dtype` (round to nearest even), as a kernel storing it would.
double rounded(DType dtype, double x);

struct Accuracy {
  bool passed = false;
  double rel_l2 = 0;          // ‖out − ref‖ / ‖ref‖ over the elements whose reference is finite
  double allowed_rel_l2 = 0;
  double rounded_rel_l2 = 0;  // fused rule: the once-rounded reference's own ‖RN(ref) − ref‖ / ‖ref‖
  double worst_elem = 0;      // fused: max |out − ref| / its bound (≤ 1 passes); baseline: the
  double allowed_elem = 0;    //   largest |out − ref| / (|ref| + rms(ref)), against allowed_elem
  std::int64_t worst = -1;    // index of worst_elem
  std::int64_t nonfinite = 0;          // non-finite outputs where the reference is finite
  std::int64_t special_mismatch = 0;   // outputs that are not the reference's NaN or ±inf
  std::string to_string() const;       // one line of figures
  std::string failures() const;        // one line per broken rule, empty when passed
};

// epifuse's kernels: one rounding to `dtype` of fp32 math over a K-long reduction. Accumulator
// errors are taken at |ref| + rms(ref), right for an epilogue whose gain is about 1
// (tolerances.hpp); `error_scale`, per element, raises that where the epilogue's gain is larger.
Accuracy judge_fused(const std::vector<double>& out, const std::vector<double>& ref, DType dtype, std::int64_t K,
                     const std::vector<double>* error_scale = nullptr);

// Baselines and multi-rounding paths: within kUnfusedFactor × `unfused_rel_l2` (the eager
// same-precision path's error) + noise and the ceilings; `elem_factor` scales the elementwise
// ceiling (2 for paths with two or three roundings).
Accuracy judge_baseline(const std::vector<double>& out, const std::vector<double>& ref, double unfused_rel_l2,
                        DType dtype, double elem_factor = 1.0);

// ‖a − ref‖ / ‖ref‖ over the finite reference elements.
double rel_l2(const std::vector<double>& a, const std::vector<double>& ref);

}  // namespace epifuse::testing
