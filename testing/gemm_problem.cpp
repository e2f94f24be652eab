#include "testing/gemm_problem.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "reference/numeric.hpp"
#include "testing/random.hpp"

namespace epifuse::testing {
namespace {

constexpr float kAlpha = 0.625f;
constexpr float kBeta = -0.5f;
constexpr float kSpecials[3] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN()};

// Random fp32 vector whose values are bf16-representable, so that baselines taking bf16
// vectors (cuBLASLt's bias) compute exactly the same function.
DeviceBuffer random_vector(std::int64_t length, std::uint64_t seed, float lo, float hi, std::vector<float>* host) {
  DeviceBuffer buf(static_cast<std::size_t>(length) * sizeof(float));
  fill_uniform(buf.data(), DType::kFP32, 1, length, length, seed, lo, hi);
  host->resize(length);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(host->data(), buf.data(), buf.bytes(), cudaMemcpyDeviceToHost));
  for (float& v : *host) v = reference::round_to(DType::kBF16, v);
  buf.upload(host->data(), buf.bytes());
  return buf;
}

// The vector in a 16-bit type, its host copy rounded to it (the reference reads that copy).
DeviceBuffer narrow_vector(DType type, std::vector<float>* host) {
  std::vector<std::uint8_t> bytes(host->size() * dtype_bytes(type));
  for (std::size_t i = 0; i < host->size(); ++i) {
    (*host)[i] = reference::round_to(type, (*host)[i]);
    reference::store_float(bytes.data(), type, static_cast<std::int64_t>(i), (*host)[i]);
  }
  DeviceBuffer buf(bytes.size());
  buf.upload(bytes.data(), bytes.size());
  return buf;
}

DeviceBuffer vector_output(bool wanted, std::int64_t length) {
  return wanted ? DeviceBuffer(static_cast<std::size_t>(length) * sizeof(float)) : DeviceBuffer();
}

}  // namespace

std::string EpilogueSpec::name() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : "+") + part; };
  if (alpha) add("alpha");
  if (row_scale) add("row_scale");
  if (col_scale) add("col_scale");
  if (col_bias) add(col_bias_dtype == DType::kFP32 ? std::string("col_bias") : std::string("col_bias_") + to_string(col_bias_dtype));
  if (row_bias) add("row_bias");
  if (residual == Residual::kBeforeActivation) add("residual_before");
  if (activation != Activation::kIdentity) add(to_string(activation));
  if (residual == Residual::kAfterActivation) add("residual_after");
  if (residual == Residual::kInPlace) add("residual_in_place");
  const std::pair<unsigned, const char*> reductions_named[] = {
      {kRowSum, "row_sum"}, {kRowAmax, "row_amax"}, {kColSum, "col_sum"}, {kColAmax, "col_amax"}, {kAmax, "amax"}};
  for (const auto& [flag, label] : reductions_named) {
    if (reductions & flag) add(label);
  }
  return s.empty() ? "none" : s;
}

std::string GemmCase::name() const {
  std::string s = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + "_" + to_string(input) +
                  "_" + to_string(output);
  if (lda_pad) s += "_lda+" + std::to_string(lda_pad);
  if (ldd_pad) s += "_ldd+" + std::to_string(ldd_pad);
  s += "_" + epilogue.name();
  if (!kernel.empty()) s += "_" + kernel;
  if (splits != 1) s += "_splits" + std::to_string(splits);
  if (stream_k != StreamKMode::kHeuristic) s += std::string("_") + to_string(stream_k);
  if (special_values) s += "_specials";
  return s;
}

GemmProblem::GemmProblem(const GemmCase& c, std::uint64_t seed) : case_(c), seed_(seed) {
  const std::size_t in_bytes = dtype_bytes(c.input);
  const std::size_t out_bytes = dtype_bytes(c.output);
  const std::int64_t lda = c.K + c.lda_pad;
  const std::int64_t ldd = c.N + c.ldd_pad;
  const EpilogueSpec& spec = c.epilogue;

  // acc = Σ_k a·b has unit variance: a ~ U(-1, 1), b ~ U(-3/√K, 3/√K).
  a_ = DeviceBuffer(static_cast<std::size_t>(c.M * lda) * in_bytes);
  b_ = DeviceBuffer(static_cast<std::size_t>(c.N * c.K) * in_bytes);
  d_ = DeviceBuffer(static_cast<std::size_t>(c.M * ldd) * out_bytes);
  const float b_scale = 3.0f / std::sqrt(static_cast<float>(std::max<std::int64_t>(c.K, 1)));
  fill_uniform(a_.data(), c.input, c.M, c.K, lda, derive_seed(seed, 1), -1.0f, 1.0f);
  fill_uniform(b_.data(), c.input, c.N, c.K, c.K, derive_seed(seed, 2), -b_scale, b_scale);

  args_.M = c.M;
  args_.N = c.N;
  args_.K = c.K;
  args_.a_dtype = c.input;
  args_.b_dtype = c.input;
  args_.d_dtype = c.output;
  args_.A = a_.data();
  args_.lda = lda;
  args_.B = b_.data();
  args_.ldb = c.K;
  args_.D = d_.data();
  args_.ldd = ldd;
  if (!c.kernel.empty()) {
    const std::optional<KernelKey> key = find_kernel(c.kernel);
    if (!key) throw std::runtime_error("no compiled kernel named " + c.kernel);
    args_.kernel = KernelChoice{*key};
    args_.kernel->stream_k = c.stream_k;
    args_.kernel->splits = c.splits;
  }

  Epilogue& e = args_.epilogue;
  if (spec.alpha) e.alpha = kAlpha;
  if (spec.row_scale) e.row_scale = (row_scale_ = random_vector(c.M, derive_seed(seed, 4), 0.5f, 1.5f, &host_row_scale_)).as<float>();
  if (spec.col_scale) e.col_scale = (col_scale_ = random_vector(c.N, derive_seed(seed, 5), 0.5f, 1.5f, &host_col_scale_)).as<float>();
  if (spec.col_bias) {
    col_bias_ = random_vector(c.N, derive_seed(seed, 6), -1.0f, 1.0f, &host_col_bias_);
    if (c.special_values) {
      for (int i = 0; i < 3 && i < c.N; ++i) host_col_bias_[i] = kSpecials[i];
      col_bias_.upload(host_col_bias_.data(), col_bias_.bytes());
    }
    if (spec.col_bias_dtype != DType::kFP32) col_bias_ = narrow_vector(spec.col_bias_dtype, &host_col_bias_);
    e.col_bias = col_bias_.data();
    e.col_bias_dtype = spec.col_bias_dtype;
  }
  if (spec.row_bias) e.row_bias = (row_bias_ = random_vector(c.M, derive_seed(seed, 7), -0.5f, 0.5f, &host_row_bias_)).as<float>();
  e.activation = spec.activation;
  e.leaky_slope = 0.1f;
  e.clamp_lo = -0.5f;
  e.clamp_hi = 0.75f;
  if (spec.residual != Residual::kNone) {
    c_ = DeviceBuffer(d_.bytes());
    fill_uniform(c_.data(), c.output, c.M, c.N, ldd, derive_seed(seed, 3), -1.0f, 1.0f);
    if (c.special_values) {
      std::vector<std::uint8_t> bytes = c_.download();
      for (int i = 0; i < 3; ++i) reference::store_float(bytes.data(), c.output, i * ldd + 3 + i, kSpecials[i]);
      c_.upload(bytes.data(), bytes.size());
    }
    host_residual_ = c_.download();
    e.residual = spec.residual == Residual::kInPlace ? d_.data() : c_.data();
    e.ldc = ldd;
    e.beta = kBeta;
    e.residual_order =
        spec.residual == Residual::kBeforeActivation ? ResidualOrder::kBeforeActivation : ResidualOrder::kAfterActivation;
  }
  row_sum_ = vector_output(spec.reductions & kRowSum, c.M);
  row_amax_ = vector_output(spec.reductions & kRowAmax, c.M);
  col_sum_ = vector_output(spec.reductions & kColSum, c.N);
  col_amax_ = vector_output(spec.reductions & kColAmax, c.N);
  amax_ = vector_output(spec.reductions & kAmax, 1);
  e.row_sum = row_sum_.as<float>();
  e.row_amax = row_amax_.as<float>();
  e.col_sum = col_sum_.as<float>();
  e.col_amax = col_amax_.as<float>();
  e.amax = amax_.as<float>();

  std::size_t workspace_bytes = 0;
  if (Status s = gemm_workspace_size(args_, nullptr, &workspace_bytes); !s.ok()) {
    throw std::runtime_error("gemm_workspace_size: " + s.to_string());
  }
  if (workspace_bytes > 0) {
    workspace_ = DeviceBuffer(workspace_bytes);
    args_.workspace = workspace_.data();
    args_.workspace_bytes = workspace_bytes;
  }
  poison_outputs();
}

std::uint8_t GemmProblem::poison_byte() const { return case_.special_values ? kFinitePoisonByte : kPoisonByte; }

void GemmProblem::drop_workspace() {
  workspace_ = DeviceBuffer();
  args_.workspace = nullptr;
  args_.workspace_bytes = 0;
}

void GemmProblem::poison_outputs() {
  d_.poison(poison_byte());
  if (case_.epilogue.residual == Residual::kInPlace) {
    EPIFUSE_CHECK_CUDA(cudaMemcpy(d_.data(), c_.data(), d_.bytes(), cudaMemcpyDeviceToDevice));
  }
  for (DeviceBuffer* b : {&row_sum_, &row_amax_, &col_sum_, &col_amax_, &amax_, &workspace_}) {
    if (b->data()) b->poison();
  }
}

std::vector<const DeviceBuffer*> GemmProblem::outputs() const {
  std::vector<const DeviceBuffer*> out = {&d_};
  for (const DeviceBuffer* b : {&row_sum_, &row_amax_, &col_sum_, &col_amax_, &amax_, &workspace_}) {
    if (b->data()) out.push_back(b);
  }
  return out;
}

std::uint64_t GemmProblem::inputs_fingerprint() const {
  std::uint64_t h = 0;
  int i = 0;
  for (const DeviceBuffer* b : {&a_, &b_, &row_scale_, &col_scale_, &col_bias_, &row_bias_, &c_}) {
    ++i;
    if (b == &c_ && case_.epilogue.residual == Residual::kInPlace) continue;
    if (b->data()) h ^= derive_seed(b->fingerprint(), i);
  }
  return h;
}

const DeviceBuffer* GemmProblem::reduction(unsigned flag) const {
  switch (flag) {
    case kRowSum: return &row_sum_;
    case kRowAmax: return &row_amax_;
    case kColSum: return &col_sum_;
    case kColAmax: return &col_amax_;
    case kAmax: return &amax_;
  }
  return nullptr;
}

}  // namespace epifuse::testing
