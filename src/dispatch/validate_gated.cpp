// validate_gated_args: every rule of include/epifuse/gated.hpp, checked on the host before any
// launch, with a message naming the offending argument and its value.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>

#include "dispatch/byte_ranges.hpp"
#include "epifuse/gated.hpp"

namespace epifuse {
namespace {

Status invalid(const std::string& message) { return Status::invalid_argument("gated_mlp: " + message); }

std::string num(std::int64_t v) { return std::to_string(v); }

using detail::aligned;
using detail::matrix_range;
using detail::overlaps;

Status check_stride(const char* name, std::int64_t ld, const char* min_name, std::int64_t min) {
  if (ld < min) return invalid(std::string(name) + " (" + num(ld) + ") must be >= " + min_name + " (" + num(min) + ")");
  if (ld % 8 != 0) return invalid(std::string(name) + " (" + num(ld) + ") must be a multiple of 8 elements (16 bytes, a TMA stride rule)");
  return Status::success();
}

Status check_pointer(const char* name, const void* p) {
  if (p == nullptr) return invalid(std::string(name) + " is null");
  if (!aligned(p, 16)) return invalid(std::string(name) + " must be 16-byte aligned (TMA)");
  return Status::success();
}

}  // namespace

const char* to_string(GatedActivation a) {
  switch (a) {
    case GatedActivation::kSwiGLU: return "swiglu";
    case GatedActivation::kGeGLUTanh: return "geglu_tanh";
    case GatedActivation::kGeGLUErf: return "geglu_erf";
    case GatedActivation::kReGLU: return "reglu";
  }
  return "unknown";
}

Status validate_gated_args(const GatedArgs& args) {
  const PackedGateUp& w = args.w;
  if (w.layout != GateUpLayout::kGateUpBlocks8) {
    return invalid("the weight's layout tag (0x" + [&] {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(w.layout));
      return std::string(buf);
    }() + ") is not kGateUpBlocks8: pack it with pack_gate_up");
  }
  if (w.dtype != DType::kBF16 && w.dtype != DType::kFP16) return invalid("the weight must be bf16 or fp16");
  if (w.N <= 0 || w.N % 8 != 0) return invalid("N (" + num(w.N) + ") must be a positive multiple of 8");
  if (w.K <= 0 || w.K % 8 != 0) return invalid("K (" + num(w.K) + ") must be a positive multiple of 8");
  if (args.N != w.N) {
    return invalid("N (" + num(args.N) + ") does not match the packed weight's N (" + num(w.N) + ")");
  }
  if (args.M < 0) return invalid("M (" + num(args.M) + ") must be >= 0");
  constexpr std::int64_t kIntMax = std::numeric_limits<std::int32_t>::max();
  if (args.M > kIntMax || 2 * w.N > kIntMax || w.K > kIntMax) return invalid("M, 2N and K must be < 2^31");
  if (args.ldx > kIntMax || args.ldo > kIntMax) return invalid("ldx and ldo must be < 2^31");
  if (w.ld != w.K) return invalid("the packed weight's ld (" + num(w.ld) + ") must equal K (" + num(w.K) + ")");
  if (!(args.limit > 0.0f)) return invalid("limit must be > 0 (infinity: no clamp)");
  if (!std::isfinite(args.scale)) return invalid("scale must be finite");
  switch (args.activation) {
    case GatedActivation::kSwiGLU:
    case GatedActivation::kGeGLUTanh:
    case GatedActivation::kGeGLUErf:
    case GatedActivation::kReGLU: break;
    default: return invalid("unknown activation " + num(static_cast<int>(args.activation)));
  }
  if (Status s = check_pointer("weight", w.weight); !s.ok()) return s;
  if (w.bias != nullptr && !aligned(w.bias, 4)) return invalid("bias must be 4-byte aligned");
  if (args.M == 0) return Status::success();
  if (Status s = check_pointer("x", args.x); !s.ok()) return s;
  if (Status s = check_pointer("out", args.out); !s.ok()) return s;
  if (Status s = check_stride("ldx", args.ldx, "K", w.K); !s.ok()) return s;
  if (Status s = check_stride("ldo", args.ldo, "N", w.N); !s.ok()) return s;

  const std::size_t elem = dtype_bytes(w.dtype);
  const detail::ByteRange out = matrix_range("out", args.out, args.M, w.N, args.ldo, elem);
  if (overlaps(out, matrix_range("x", args.x, args.M, w.K, args.ldx, elem))) return invalid("out overlaps x");
  if (overlaps(out, matrix_range("weight", w.weight, 2 * w.N, w.K, w.ld, elem))) return invalid("out overlaps the weight");
  if (w.bias != nullptr && overlaps(out, detail::vector_range("bias", w.bias, 2 * w.N))) {
    return invalid("out overlaps the bias");
  }
  return Status::success();
}

}  // namespace epifuse
