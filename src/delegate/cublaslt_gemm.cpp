// cuBLASLt sees epifuse's row-major D[M,N] = A[M,K]·B[N,K]ᵀ as the column-major Dᵀ (N×M) =
// op(B) · A with B read as K×N (ld ldb) transposed and A as K×M (ld lda): its "A" is our B.
#include "delegate/cublaslt_gemm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "delegate/candidate_timing.hpp"
#include "epifuse/detail/relaxed_capture.hpp"

namespace epifuse::detail {
namespace {

constexpr std::size_t kAlignmentCap = 256;  // cuBLASLt's default assumption for every pointer

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::kBF16: return CUDA_R_16BF;
    case DType::kFP16: return CUDA_R_16F;
    case DType::kFP32: return CUDA_R_32F;
    default: return CUDA_R_32F;
  }
}

std::uint32_t alignment_of(const void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  if (address == 0) return kAlignmentCap;
  return static_cast<std::uint32_t>(std::min<std::uintptr_t>(kAlignmentCap, address & (~address + 1)));
}

cublasLtEpilogue_t lt_epilogue(const Epilogue& e) {
  const bool bias = e.col_bias != nullptr;
  switch (e.activation) {
    case Activation::kReLU: return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    case Activation::kGeluTanh: return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    default: return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

// One handle per device for the process's lifetime (destroying it at exit races CUDA's teardown).
cublasLtHandle_t handle_for(int device) {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = handles.find(device); it != handles.end()) return it->second;
  RelaxedCaptureMode relaxed;
  cublasLtHandle_t handle = nullptr;
  if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  handles.emplace(device, handle);
  return handle;
}

// The matmul descriptor and the four layouts of a call, in stack storage.
struct LtCall {
  cublasLtMatmulDescOpaque_t desc;
  cublasLtMatrixLayoutOpaque_t a, b, c, d;
};

cublasStatus_t describe(const GemmArgs& args, LtCall* call) {
  const Epilogue& e = args.epilogue;
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue = lt_epilogue(e);
  const cudaDataType_t in = cuda_type(args.a_dtype), out = cuda_type(args.d_dtype);
  const auto rows = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  cublasStatus_t s = cublasLtMatmulDescInit(&call->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulDescSetAttribute(&call->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));
  }
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulDescSetAttribute(&call->desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof(none));
  }
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasLtMatmulDescSetAttribute(&call->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  }
  if (s == CUBLAS_STATUS_SUCCESS && e.col_bias != nullptr) {
    const std::int32_t bias_type = cuda_type(e.col_bias_dtype);
    s = cublasLtMatmulDescSetAttribute(&call->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type));
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulDescSetAttribute(&call->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &e.col_bias, sizeof(e.col_bias));
    }
  }
  const std::int64_t ldc = e.residual != nullptr ? e.ldc : args.ldd;
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutInit(&call->a, in, rows(args.K), rows(args.N), args.ldb);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutInit(&call->b, in, rows(args.K), rows(args.M), args.lda);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutInit(&call->c, out, rows(args.N), rows(args.M), ldc);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutInit(&call->d, out, rows(args.N), rows(args.M), args.ldd);
  return s;
}

DelegatedPlanKey plan_key(const GemmArgs& args, int device, std::size_t max_workspace_bytes) {
  const Epilogue& e = args.epilogue;
  return {device,
          args.M,
          args.N,
          args.K,
          args.lda,
          args.ldb,
          args.ldd,
          e.residual != nullptr ? e.ldc : -1,
          static_cast<std::int64_t>(args.a_dtype),
          static_cast<std::int64_t>(args.d_dtype),
          static_cast<std::int64_t>(lt_epilogue(e)),
          static_cast<std::int64_t>(e.col_bias_dtype),
          e.residual == args.D,
          alignment_of(args.A),
          alignment_of(args.B),
          alignment_of(e.residual),
          alignment_of(args.D),
          alignment_of(e.col_bias),
          static_cast<std::int64_t>(max_workspace_bytes)};
}

DelegatedPlan heuristic(const GemmArgs& args, int device, cublasLtHandle_t handle, std::size_t max_workspace_bytes) {
  DelegatedPlan plan;
  LtCall call;
  if (describe(args, &call) != CUBLAS_STATUS_SUCCESS) return plan;
  cublasLtMatmulPreferenceOpaque_t preference;
  if (cublasLtMatmulPreferenceInit(&preference) != CUBLAS_STATUS_SUCCESS) return plan;
  const std::uint64_t workspace = max_workspace_bytes;
  // cuBLASLt's "A" is our B (the weight), its "B" our A.
  const std::pair<cublasLtMatmulPreferenceAttributes_t, std::uint32_t> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(args.B)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(args.A)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
       alignment_of(args.epilogue.residual != nullptr ? args.epilogue.residual : args.D)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(args.D)}};
  if (cublasLtMatmulPreferenceSetAttribute(&preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                           sizeof(workspace)) != CUBLAS_STATUS_SUCCESS) {
    return plan;
  }
  for (const auto& [attribute, bytes] : alignments) {
    if (cublasLtMatmulPreferenceSetAttribute(&preference, attribute, &bytes, sizeof(bytes)) != CUBLAS_STATUS_SUCCESS) {
      return plan;
    }
  }
  std::array<cublasLtMatmulHeuristicResult_t, kDelegatedCandidates> results{};
  int found = 0;
  if (cublasLtMatmulAlgoGetHeuristic(handle, &call.desc, &call.a, &call.b, &call.c, &call.d, &preference,
                                     kDelegatedCandidates, results.data(), &found) != CUBLAS_STATUS_SUCCESS) {
    return plan;
  }
  for (int i = 0; i < found; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    plan.candidates[plan.candidate_count++] = {results[i].algo, results[i].workspaceSize};
  }
  plan.found = plan.candidate_count > 0;
  plan.device = device;
  plan.chosen = plan.candidate_count == 1 ? 0 : -1;
  return plan;
}

std::mutex& plans_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<DelegatedPlanKey, DelegatedPlan>& plans() {
  static std::map<DelegatedPlanKey, DelegatedPlan> cache;
  return cache;
}

// EPIFUSE_DELEGATED_TUNING as the process started, read once.
const std::string& tuning_setting() {
  static const std::string setting = [] {
    const char* value = std::getenv("EPIFUSE_DELEGATED_TUNING");
    return std::string(value != nullptr ? value : "");
  }();
  return setting;
}

std::atomic<bool>& tuning_flag() {
  static std::atomic<bool> on{tuning_setting() != "0" && tuning_setting() != "off"};
  return on;
}

int config_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  int value = 0;
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written);
  return value;
}

void log_choice(const GemmArgs& args, const DelegatedPlan& plan, const CandidateTimes& times, double host_ms) {
  std::string line = "[epifuse] delegated " + std::to_string(args.M) + "x" + std::to_string(args.N) + "x" +
                     std::to_string(args.K) + ":";
  for (int i = 0; i < plan.candidate_count; ++i) {
    const cublasLtMatmulAlgo_t& algo = plan.candidates[i].algo;
    const double us = i < static_cast<int>(times.median_us.size()) ? times.median_us[i] : 0.0;
    line += " #" + std::to_string(i) + " " + std::to_string(us) + " us (tile id " +
            std::to_string(config_attribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)) + ", split-K " +
            std::to_string(config_attribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)) + ", workspace " +
            std::to_string(plan.candidates[i].workspace_bytes) + ")";
  }
  std::fprintf(stderr, "%s; keeps #%d; the choice took %.2f ms\n", line.c_str(), times.pick, host_ms);
}

cublasStatus_t matmul(const GemmArgs& args, cublasLtHandle_t handle, const DelegatedCandidate& candidate,
                      std::size_t workspace_bytes, cudaStream_t stream) {
  LtCall call;
  if (const cublasStatus_t s = describe(args, &call); s != CUBLAS_STATUS_SUCCESS) return s;
  const Epilogue& e = args.epilogue;
  const float alpha = e.alpha;
  const float beta = e.residual != nullptr ? e.beta : 0.0f;
  const void* c = e.residual != nullptr ? e.residual : args.D;
  void* workspace = workspace_bytes > 0 ? aligned_delegated_workspace(args.workspace) : nullptr;
  return cublasLtMatmul(handle, &call.desc, &alpha, args.B, &call.a, args.A, &call.b, &beta, c, &call.c, args.D,
                        &call.d, &candidate.algo, workspace, workspace_bytes, stream);
}

// The candidate a plan's first launch keeps (see run_delegated_gemm in the header).
int choose_candidate(const GemmArgs& args, const DelegatedPlan& plan, cublasLtHandle_t handle, cudaStream_t stream) {
  const bool in_place = args.epilogue.residual == args.D && args.epilogue.beta != 0.0f;
  RelaxedCaptureMode relaxed;
  if (!tuning_flag().load() || in_place || stream_capturing(stream)) return 0;
  const std::size_t workspace_bytes = plan.workspace_bytes();
  const auto start = std::chrono::steady_clock::now();
  const CandidateTimes times = time_candidates(
      plan.candidate_count,
      [&](int i, cudaStream_t s) {
        return matmul(args, handle, plan.candidates[i], workspace_bytes, s) == CUBLAS_STATUS_SUCCESS;
      },
      stream);
  if (delegated_tuning_logged()) {
    log_choice(args, plan, times,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return times.pick >= 0 ? times.pick : 0;
}

}  // namespace

bool cublaslt_expresses(const GemmArgs& args) {
  const Epilogue& e = args.epilogue;
  if (args.kernel || args.a_scale != nullptr || args.b_scale != nullptr) return false;
  if (args.a_dtype != args.b_dtype || (args.a_dtype != DType::kBF16 && args.a_dtype != DType::kFP16)) return false;
  if (args.d_dtype != args.a_dtype && args.d_dtype != DType::kFP32) return false;
  if (e.row_scale || e.col_scale || e.row_bias || e.has_reductions()) return false;
  // cuBLASLt's epilogue may read its bias in 16-byte vectors (not documented; the conservative
  // assumption), so a bias off 16 bytes runs epifuse's kernels.
  if (e.col_bias != nullptr && alignment_of(e.col_bias) < 16) return false;
  if (e.activation != Activation::kIdentity && e.activation != Activation::kReLU &&
      e.activation != Activation::kGeluTanh) {
    return false;
  }
  if (e.residual != nullptr) {
    // cuBLASLt adds beta·C before its activation; in place it reads C at D's layout.
    if (e.activation != Activation::kIdentity && e.residual_order != ResidualOrder::kBeforeActivation) return false;
    if (e.residual == args.D && e.ldc != args.ldd) return false;
  }
  return true;
}

std::size_t usable_delegated_workspace(const void* workspace, std::size_t bytes) {
  if (workspace == nullptr) return 0;
  const auto start = reinterpret_cast<std::uintptr_t>(workspace);
  const std::uintptr_t skip = (kDelegatedWorkspaceAlignment - start % kDelegatedWorkspaceAlignment) %
                              kDelegatedWorkspaceAlignment;
  return bytes > skip ? bytes - skip : 0;
}

std::size_t usable_delegated_workspace(const GemmArgs& args) {
  return usable_delegated_workspace(args.workspace, args.workspace_bytes);
}

void* aligned_delegated_workspace(void* workspace) {
  const auto start = reinterpret_cast<std::uintptr_t>(workspace);
  return reinterpret_cast<void*>((start + kDelegatedWorkspaceAlignment - 1) / kDelegatedWorkspaceAlignment *
                                 kDelegatedWorkspaceAlignment);
}

std::size_t DelegatedPlan::workspace_bytes() const {
  if (chosen >= 0) return candidates[chosen].workspace_bytes;
  std::size_t most = 0;
  for (int i = 0; i < candidate_count; ++i) most = std::max(most, candidates[i].workspace_bytes);
  return most;
}

bool delegated_tuning_enabled() { return tuning_flag().load(); }

bool delegated_tuning_logged() {
  static const bool log = tuning_setting() == "log";
  return log;
}

void set_delegated_tuning_enabled(bool enabled) { tuning_flag().store(enabled); }

DelegatedPlan plan_delegated_gemm(const GemmArgs& args, int device, std::size_t max_workspace_bytes) {
  const DelegatedPlanKey key = plan_key(args, device, max_workspace_bytes);
  {
    std::lock_guard<std::mutex> lock(plans_mutex());
    if (auto it = plans().find(key); it != plans().end()) return it->second;
  }
  const cublasLtHandle_t handle = handle_for(device);
  if (handle == nullptr) return {};
  DelegatedPlan plan;
  {
    RelaxedCaptureMode relaxed;
    plan = heuristic(args, device, handle, max_workspace_bytes);
  }
  plan.key = key;
  std::lock_guard<std::mutex> lock(plans_mutex());
  return plans().emplace(key, plan).first->second;
}

DelegatedPlan plan_delegated_product(const GemmArgs& product, std::size_t product_bytes, int device,
                                     std::size_t usable_bytes) {
  if (usable_bytes < product_bytes || !cublaslt_expresses(product)) return {};
  return plan_delegated_gemm(product, device, std::min(usable_bytes - product_bytes, kDelegatedWorkspaceCap));
}

Status run_delegated_gemm(const GemmArgs& args, const DelegatedPlan& plan, cudaStream_t stream) {
  const cublasLtHandle_t handle = handle_for(plan.device);
  if (handle == nullptr) return Status::internal("gemm: cuBLASLt refused a call it had planned");
  int chosen = plan.chosen;
  if (chosen < 0) {
    chosen = choose_candidate(args, plan, handle, stream);
    std::lock_guard<std::mutex> lock(plans_mutex());
    plans()[plan.key].chosen = chosen;
  }
  const DelegatedCandidate& candidate = plan.candidates[chosen];
  const cublasStatus_t s = matmul(args, handle, candidate, candidate.workspace_bytes, stream);
  if (s == CUBLAS_STATUS_SUCCESS) return Status::success();
  return Status::cuda_error(std::string("gemm: cuBLASLt matmul failed: ") + cublasLtGetStatusName(s) + " (" +
                            cublasLtGetStatusString(s) + ")");
}

}  // namespace epifuse::detail
