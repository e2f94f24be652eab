#include "testing/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reference/numeric.hpp"
#include "testing/tolerances.hpp"

namespace epifuse::testing {
namespace {

struct Format {
  int precision;     // significand bits, the implicit one included
  int min_exponent;  // of the smallest normal number
};

Format format_of(DType dtype) {
  switch (dtype) {
    case DType::kBF16: return {8, -126};
    case DType::kFP16: return {11, -14};
    case DType::kFP32: return {24, -126};
    case DType::kFP8E4M3: return {4, -6};
    case DType::kFP8E5M2: return {3, -14};
  }
  return {24, -126};
}

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

// Elements whose reference is NaN or ±inf must be exactly that; they take no part in the figures.
bool same_special(double out, double ref) {
  if (std::isnan(ref)) return std::isnan(out);
  return out == ref;
}

double finite_rms(const std::vector<double>& ref) {
  double sq = 0;
  std::int64_t n = 0;
  for (double r : ref) {
    if (std::isfinite(r)) {
      sq += r * r;
      ++n;
    }
  }
  return n ? std::sqrt(sq / static_cast<double>(n)) : 0.0;
}

// Counts specials, non-finite outputs and the L2 figure; `elem_ratio(i)` is each finite element's
// figure of merit, the largest of which becomes worst_elem.
template <class ElemRatio>
void measure(const std::vector<double>& out, const std::vector<double>& ref, ElemRatio elem_ratio, Accuracy* a) {
  double diff_sq = 0, ref_sq = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(ref[i])) {
      a->special_mismatch += !same_special(out[i], ref[i]);
      continue;
    }
    if (!std::isfinite(out[i])) {
      ++a->nonfinite;
      continue;
    }
    const double d = out[i] - ref[i];
    diff_sq += d * d;
    ref_sq += ref[i] * ref[i];
    const double r = elem_ratio(i);
    if (r > a->worst_elem) {
      a->worst_elem = r;
      a->worst = static_cast<std::int64_t>(i);
    }
  }
  a->rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
}

void conclude(Accuracy* a) {
  a->passed = a->nonfinite == 0 && a->special_mismatch == 0 && a->rel_l2 <= a->allowed_rel_l2 &&
              a->worst_elem <= a->allowed_elem;
}

}  // namespace

double ulp(DType dtype, double x) {
  const Format f = format_of(dtype);
  int exponent = f.min_exponent + 1;  // zero: the subnormal step
  if (x != 0.0) std::frexp(std::fabs(x), &exponent);  // |x| = m · 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0, std::max(exponent - 1, f.min_exponent) - (f.precision - 1));
}

double rounded(DType dtype, double x) { return reference::round_to(dtype, x); }

double rel_l2(const std::vector<double>& a, const std::vector<double>& ref) {
  double diff_sq = 0, ref_sq = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(ref[i])) continue;
    const double d = a[i] - ref[i];
    diff_sq += d * d;
    ref_sq += ref[i] * ref[i];
  }
  return ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
}

Accuracy judge_fused(const std::vector<double>& out, const std::vector<double>& ref, DType dtype, std::int64_t K,
                     const std::vector<double>* error_scale) {
  Accuracy a;
  const double rms = finite_rms(ref);
  const double allowance = fp32_allowance(K);
  measure(out, ref, [&](std::size_t i) {
    const double own = std::fabs(ref[i]) + rms;
    const double scale = error_scale ? std::max((*error_scale)[i], own) : own;
    const double bound = kUlps * ulp(dtype, ref[i]) + allowance * scale;
    return std::fabs(out[i] - ref[i]) / bound;
  }, &a);
  std::vector<double> once(ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) once[i] = std::isfinite(ref[i]) ? rounded(dtype, ref[i]) : ref[i];
  a.rounded_rel_l2 = rel_l2(once, ref);
  a.allowed_rel_l2 = kL2Factor * a.rounded_rel_l2 + fp32_l2_allowance(K);
  a.allowed_elem = 1.0;
  conclude(&a);
  return a;
}

Accuracy judge_baseline(const std::vector<double>& out, const std::vector<double>& ref, double unfused_rel_l2,
                        DType dtype, double elem_factor) {
  Accuracy a;
  const Tolerance tol = baseline_tolerance(dtype);
  const double rms = finite_rms(ref);
  measure(out, ref, [&](std::size_t i) { return std::fabs(out[i] - ref[i]) / (std::fabs(ref[i]) + rms); }, &a);
  a.allowed_rel_l2 = std::min(tol.rel_l2, kUnfusedFactor * unfused_rel_l2 + tol.noise);
  a.allowed_elem = elem_factor * tol.elem;
  conclude(&a);
  return a;
}

std::string Accuracy::to_string() const {
  std::string s = fmt("rel_l2 %.3e (allowed %.3e", rel_l2, allowed_rel_l2);
  if (rounded_rel_l2 > 0) s += fmt("; once-rounded reference %.3e", rounded_rel_l2);
  s += fmt("), worst element %.3g of %.3g", worst_elem, allowed_elem);
  if (nonfinite) s += fmt(", %.0f non-finite", static_cast<double>(nonfinite));
  if (special_mismatch) s += fmt(", %.0f NaN/inf mismatches", static_cast<double>(special_mismatch));
  return s;
}

std::string Accuracy::failures() const {
  std::string s;
  if (nonfinite) s += fmt("  FAIL: %.0f outputs non-finite (unwritten NaN poison?) where the reference is finite\n",
                          static_cast<double>(nonfinite));
  if (special_mismatch) s += fmt("  FAIL: %.0f outputs differ from the reference's NaN or inf\n",
                                 static_cast<double>(special_mismatch));
  if (rel_l2 > allowed_rel_l2) s += fmt("  FAIL: rel_l2 %.3e > allowed %.3e\n", rel_l2, allowed_rel_l2);
  if (worst_elem > allowed_elem) {
    s += fmt("  FAIL: element %.0f off by %.3g, allowed %.3g\n", static_cast<double>(worst), worst_elem, allowed_elem);
  }
  return s;
}

}  // namespace epifuse::testing
