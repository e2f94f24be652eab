#include "epifuse/status.hpp"

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown status";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(epifuse::to_string(code_)) + ": " + message_;
}

const char* to_string(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kFP16: return "fp16";
    case DType::kFP32: return "fp32";
  }
  return "unknown dtype";
}

const char* to_string(Activation a) {
  switch (a) {
    case Activation::kIdentity: return "identity";
    case Activation::kReLU: return "relu";
    case Activation::kGeluTanh: return "gelu_tanh";
    case Activation::kGeluErf: return "gelu_erf";
    case Activation::kSiLU: return "silu";
    case Activation::kSigmoid: return "sigmoid";
    case Activation::kTanh: return "tanh";
    case Activation::kHardSwish: return "hardswish";
    case Activation::kLeakyReLU: return "leaky_relu";
    case Activation::kClamp: return "clamp";
  }
  return "unknown activation";
}

const char* to_string(EpilogueCoverage c) {
  switch (c) {
    case EpilogueCoverage::kCastOnly: return "cast_only";
    case EpilogueCoverage::kBiasActivation: return "bias_activation";
    case EpilogueCoverage::kFull: return "full";
    case EpilogueCoverage::kFullWithColumnReductions: return "full_with_column_reductions";
  }
  return "unknown coverage";
}

EpilogueCoverage required_coverage(const Epilogue& e) {
  if (e.has_column_reductions()) return EpilogueCoverage::kFullWithColumnReductions;
  if (e.residual || e.row_scale || e.col_scale || e.row_bias || e.has_reductions()) return EpilogueCoverage::kFull;
  if (e.alpha != 1.0f || e.col_bias || e.activation != Activation::kIdentity) return EpilogueCoverage::kBiasActivation;
  return EpilogueCoverage::kCastOnly;
}

}  // namespace epifuse
