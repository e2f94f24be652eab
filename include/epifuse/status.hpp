// Status: the result of every public call. Carries a code and a readable message.
#pragma once

#include <string>
#include <utility>

namespace epifuse {

enum class StatusCode {
  kOk,
  kInvalidArgument,  // the arguments break a documented rule; nothing was launched
  kNotSupported,     // valid request that no compiled kernel serves (dtype combination, device)
  kCudaError,        // the CUDA runtime or a launch failed
  kInternal,         // a CUTLASS call refused arguments validation accepted: a bug in epifuse
};

const char* to_string(StatusCode code);

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
  // "invalid argument: lda (100) is not a multiple of 8 elements (16 bytes)"
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace epifuse
