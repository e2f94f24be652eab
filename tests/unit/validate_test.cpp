// validate_gemm_args: every rule of include/epifuse/gemm.hpp gives a clear error. No GPU needed:
// validation never dereferences or launches, so the operands are fake, disjoint addresses.
#include <limits>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "epifuse/gemm.hpp"

namespace epifuse {
namespace {

template <class T = void>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

constexpr std::uintptr_t kA = 0x10000000, kB = 0x20000000, kD = 0x30000000, kC = 0x40000000, kVec = 0x50000000;

GemmArgs valid_args() {
  GemmArgs a;
  a.M = 333;
  a.N = 1000;
  a.K = 520;
  a.A = fake(kA);
  a.lda = 520;
  a.B = fake(kB);
  a.ldb = 520;
  a.D = fake(kD);
  a.ldd = 1000;
  return a;
}

void expect_error(const GemmArgs& a, StatusCode code, const std::string& needle) {
  const Status s = validate_gemm_args(a);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(needle), std::string::npos) << "message: " << s.message() << "\nexpected: " << needle;
}

TEST(Validate, AcceptsValidArguments) {
  EXPECT_TRUE(validate_gemm_args(valid_args()).ok());
  GemmArgs a = valid_args();
  a.lda = 1024;  // strided A
  a.ldd = 1024;
  a.d_dtype = DType::kFP32;
  EXPECT_TRUE(validate_gemm_args(a).ok()) << validate_gemm_args(a).to_string();
}

TEST(Validate, EmptyOutputIsANoOpEvenWithNullPointers) {
  GemmArgs a;
  a.M = 0;
  a.N = 1000;
  a.K = 520;
  EXPECT_TRUE(validate_gemm_args(a).ok());
  a.M = 7;
  a.N = 0;
  EXPECT_TRUE(validate_gemm_args(a).ok());
}

TEST(Validate, NegativeOrHugeSizes) {
  for (auto field : {&GemmArgs::M, &GemmArgs::N, &GemmArgs::K}) {
    GemmArgs a = valid_args();
    a.*field = -1;
    expect_error(a, StatusCode::kInvalidArgument, "must be >= 0, got -1");
    a.*field = std::int64_t{1} << 31;
    expect_error(a, StatusCode::kInvalidArgument, "must be < 2^31");
  }
  GemmArgs a = valid_args();
  a.K = 0;
  expect_error(a, StatusCode::kInvalidArgument, "K must be >= 1");
}

TEST(Validate, NullRequiredPointers) {
  for (auto [field, name] : {std::pair{&GemmArgs::A, "A is null"}, std::pair{&GemmArgs::B, "B is null"}}) {
    GemmArgs a = valid_args();
    a.*field = nullptr;
    expect_error(a, StatusCode::kInvalidArgument, name);
  }
  GemmArgs a = valid_args();
  a.D = nullptr;
  expect_error(a, StatusCode::kInvalidArgument, "D is null");
}

TEST(Validate, MisalignedPointers) {
  GemmArgs a = valid_args();
  a.A = fake(kA + 2);
  expect_error(a, StatusCode::kInvalidArgument, "A must be 16-byte aligned");
  a = valid_args();
  a.B = fake(kB + 8);
  expect_error(a, StatusCode::kInvalidArgument, "B must be 16-byte aligned");
  a = valid_args();
  a.D = fake(kD + 4);
  expect_error(a, StatusCode::kInvalidArgument, "D must be 16-byte aligned");
  a = valid_args();
  a.epilogue.residual = fake(kC + 2);
  a.epilogue.ldc = 1000;
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.residual must be 16-byte aligned");
  a = valid_args();
  a.epilogue.col_bias = fake<const float>(kVec + 2);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_bias must be 4-byte aligned");
}

// A column bias is fp32 or D's 16-bit type, aligned to its element, N elements long.
TEST(Validate, ColumnBiasDtype) {
  GemmArgs a = valid_args();
  a.epilogue.col_bias = fake<const void>(kVec + 2);
  a.epilogue.col_bias_dtype = DType::kBF16;
  EXPECT_TRUE(validate_gemm_args(a).ok()) << validate_gemm_args(a).to_string();
  a.epilogue.col_bias = fake<const void>(kVec + 1);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_bias must be 2-byte aligned");
  a.epilogue.col_bias = fake<const void>(kD + 2 * 1000 * 333 - 2000);  // its 1000 elements end where D ends
  expect_error(a, StatusCode::kInvalidArgument, "D overlaps epilogue.col_bias");

  const std::pair<DType, DType> unsupported[] = {{DType::kFP16, DType::kBF16},
                                                 {DType::kBF16, DType::kFP32},
                                                 {DType::kFP8E4M3, DType::kBF16}};
  for (auto [bias_type, d_type] : unsupported) {
    a = valid_args();
    a.d_dtype = d_type;
    a.ldd = 1024;
    a.epilogue.col_bias = fake<const void>(kVec);
    a.epilogue.col_bias_dtype = bias_type;
    expect_error(a, StatusCode::kNotSupported,
                 std::string("epilogue.col_bias_dtype ") + to_string(bias_type) + " with D " + to_string(d_type));
  }
  a = valid_args();
  a.epilogue.col_bias_dtype = static_cast<DType>(17);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_bias_dtype 17 is not a DType");
}

TEST(Validate, LeadingDimensions) {
  GemmArgs a = valid_args();
  a.lda = 512;
  expect_error(a, StatusCode::kInvalidArgument, "lda (512) must be >= K (520)");
  a = valid_args();
  a.lda = 524;
  expect_error(a, StatusCode::kInvalidArgument, "lda (524) must be a multiple of 8 elements (16 bytes");
  a = valid_args();
  a.ldb = 500;
  expect_error(a, StatusCode::kInvalidArgument, "ldb (500) must be >= K");
  a = valid_args();
  a.ldd = 999;
  expect_error(a, StatusCode::kInvalidArgument, "ldd (999) must be >= N (1000)");
  a = valid_args();
  a.ldd = 1004;
  expect_error(a, StatusCode::kInvalidArgument, "ldd (1004) must be a multiple of 8 elements");
  a = valid_args();
  a.d_dtype = DType::kFP32;
  a.ldd = 1004;  // 4016 bytes: fine for fp32
  EXPECT_TRUE(validate_gemm_args(a).ok());
  a = valid_args();
  a.epilogue.residual = fake(kC);
  a.epilogue.ldc = 10;
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.ldc (10) must be >= N");
}

TEST(Validate, SizesThatBreakAlignment) {
  GemmArgs a = valid_args();
  a.K = 516;
  a.lda = a.ldb = 520;
  expect_error(a, StatusCode::kInvalidArgument, "K (516) must be a multiple of 8");
  a = valid_args();
  a.N = 1001;
  a.ldd = 1008;
  expect_error(a, StatusCode::kInvalidArgument, "N (1001) must be a multiple of 8 bf16 elements (16-byte rows for TMA)");
  a.d_dtype = DType::kFP32;
  expect_error(a, StatusCode::kInvalidArgument, "N (1001) must be a multiple of 4 fp32 elements");
}

TEST(Validate, UnsupportedDtypeCombinations) {
  const std::tuple<DType, DType, DType> unsupported[] = {{DType::kBF16, DType::kBF16, DType::kFP16},
                                                         {DType::kFP16, DType::kFP16, DType::kBF16},
                                                         {DType::kFP32, DType::kFP32, DType::kFP32},
                                                         {DType::kBF16, DType::kFP16, DType::kBF16},
                                                         {DType::kFP8E4M3, DType::kFP8E4M3, DType::kBF16}};
  for (auto [a_type, b_type, d_type] : unsupported) {
    GemmArgs a = valid_args();
    a.a_dtype = a_type;
    a.b_dtype = b_type;
    a.d_dtype = d_type;
    expect_error(a, StatusCode::kNotSupported, "is not compiled");
  }
  GemmArgs a = valid_args();
  a.a_scale = fake<const float>(kVec);
  expect_error(a, StatusCode::kNotSupported, "no FP8 kernel is compiled yet");
}

TEST(Validate, OutputAliasingInputs) {
  GemmArgs a = valid_args();
  a.D = fake(kA);
  expect_error(a, StatusCode::kInvalidArgument, "D overlaps A");
  a = valid_args();
  a.D = fake(kB + 1024);  // inside B
  expect_error(a, StatusCode::kInvalidArgument, "D overlaps B");
  a = valid_args();
  a.epilogue.col_bias = fake<const float>(kD + 64);
  expect_error(a, StatusCode::kInvalidArgument, "D overlaps epilogue.col_bias");
  a = valid_args();
  a.epilogue.row_sum = fake<float>(kA + 16);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.row_sum overlaps A");
  a = valid_args();
  a.epilogue.col_sum = fake<float>(kVec);
  a.epilogue.col_amax = fake<float>(kVec + 16);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_sum overlaps epilogue.col_amax");
}

TEST(Validate, WorkspaceJoinsTheOverlapChecks) {
  GemmArgs a = valid_args();
  a.workspace = fake(kA + 4096);
  a.workspace_bytes = 1024;
  expect_error(a, StatusCode::kInvalidArgument, "the workspace overlaps A");
  a.workspace = fake(kD);
  expect_error(a, StatusCode::kInvalidArgument, "D overlaps the workspace");
  a.workspace = fake(kC);
  EXPECT_TRUE(validate_gemm_args(a).ok());
}

// TMA strides stop below 2^40 bytes; byte ranges are computed so that they cannot wrap around.
TEST(Validate, LeadingDimensionsAndExtentsAreBounded) {
  GemmArgs a = valid_args();
  a.M = 1;  // one row: A spans K elements however large lda is
  a.lda = std::int64_t{1} << 39;  // 2^40 bytes of bf16
  expect_error(a, StatusCode::kInvalidArgument, "lda (549755813888) must be below 2^40 bytes");
  a.lda = (std::int64_t{1} << 39) - 8;
  EXPECT_TRUE(validate_gemm_args(a).ok()) << validate_gemm_args(a).to_string();
  a.A = fake(0xFFFF000000000000ull);
  a.M = (std::int64_t{1} << 31) - 1;
  expect_error(a, StatusCode::kInvalidArgument, "A would extend past the end of the address space");
}

TEST(Validate, NonFiniteScalars) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (auto [field, name] : {std::pair{&Epilogue::alpha, "epilogue.alpha must be finite"},
                             std::pair{&Epilogue::beta, "epilogue.beta must be finite"},
                             std::pair{&Epilogue::leaky_slope, "epilogue.leaky_slope must be finite"}}) {
    for (float bad : {kInf, -kInf, std::numeric_limits<float>::quiet_NaN()}) {
      GemmArgs a = valid_args();
      a.epilogue.*field = bad;
      expect_error(a, StatusCode::kInvalidArgument, name);
    }
  }
}

// An empty problem writes only the requested reductions over what is not empty: those are
// checked, the operands it never reads are not.
TEST(Validate, EmptyProblemChecksTheReductionsItWrites) {
  GemmArgs a;
  a.M = 0;
  a.N = 1000;
  a.K = 520;
  a.epilogue.col_sum = fake<float>(kVec);
  a.epilogue.col_amax = fake<float>(kVec + 16);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_sum overlaps epilogue.col_amax");
  a.epilogue.col_amax = fake<float>(kVec + 2 + 8192);
  expect_error(a, StatusCode::kInvalidArgument, "epilogue.col_amax must be 4-byte aligned");
  a.epilogue.col_amax = fake<float>(kVec + 8192);
  a.epilogue.row_sum = fake<float>(kVec);  // [M] = [0]: not written, so it may sit anywhere
  EXPECT_TRUE(validate_gemm_args(a).ok()) << validate_gemm_args(a).to_string();
}

TEST(Validate, ResidualMayBeDButNotOverlapIt) {
  GemmArgs a = valid_args();
  a.epilogue.residual = a.D;
  a.epilogue.ldc = a.ldd;
  EXPECT_TRUE(validate_gemm_args(a).ok()) << "in-place residual must be allowed";
  a.epilogue.residual = fake(kD + 2000);
  expect_error(a, StatusCode::kInvalidArgument, "C (residual) overlaps D");
  a.epilogue.residual = a.D;
  a.epilogue.ldc = a.ldd + 8;
  expect_error(a, StatusCode::kInvalidArgument, "C (residual) overlaps D");
}

TEST(Validate, EpilogueValues) {
  GemmArgs a = valid_args();
  a.epilogue.activation = Activation::kClamp;
  a.epilogue.clamp_lo = 1.0f;
  a.epilogue.clamp_hi = -1.0f;
  expect_error(a, StatusCode::kInvalidArgument, "clamp_lo (1.000000) must be <= clamp_hi");
  a = valid_args();
  a.epilogue.activation = static_cast<Activation>(42);
  expect_error(a, StatusCode::kInvalidArgument, "activation 42 is not an Activation");
}

TEST(Validate, MessagesNameTheCall) {
  GemmArgs a = valid_args();
  a.A = nullptr;
  EXPECT_EQ(validate_gemm_args(a).to_string(), "invalid argument: gemm: A is null");
}

}  // namespace
}  // namespace epifuse
