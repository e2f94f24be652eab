// Status: the result of every public call. Carries a code and a readable message.
#pragma once

#include <string>
#include <utility>

namespace epifuse {

enum class StatusCode {
  kOk,
  kInvalidArgument,  // the arguments break a documented rule; nothing was launched
  kNotSupported,     // a valid request that no compiled kernel serves (dtype combination, device)
  kCudaError,        // the CUDA runtime or a launch failed; the message carries CUDA's cause
  kInternal,         // a CUTLASS call refused arguments validation accepted: a bug in epifuse
};

constexpr const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown status";
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status success() { return {}; }
  static Status invalid_argument(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
  }
  static Status not_supported(std::string message) {
    return {StatusCode::kNotSupported, std::move(message)};
  }
  static Status cuda_error(std::string message) { return {StatusCode::kCudaError, std::move(message)}; }
  static Status internal(std::string message) { return {StatusCode::kInternal, std::move(message)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: gemm: lda (100) must be a multiple of 8 elements (16 bytes, a TMA stride rule)"
  std::string to_string() const { return ok() ? "ok" : std::string(epifuse::to_string(code_)) + ": " + message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace epifuse
