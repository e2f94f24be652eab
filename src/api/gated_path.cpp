#include "api/gated_path.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "delegate/candidate_timing.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/select.hpp"

namespace epifuse::detail {
namespace {

std::mutex& paths_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Per key: whether the delegated path timed faster.
std::map<GatedPathKey, bool>& remembered_paths() {
  static std::map<GatedPathKey, bool> cache;
  return cache;
}

std::int64_t address_mod_16(const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % 16); }

GatedPathKey path_key(const GatedMlpArgs& args, const DelegatedGatedPlan& delegated) {
  GatedPathKey key{};
  std::size_t i = 0;
  for (std::int64_t v : delegated.product.key) key[i++] = v;
  key[i++] = args.ldo;
  key[i++] = static_cast<std::int64_t>(args.out_dtype);
  key[i++] = static_cast<std::int64_t>(args.activation);
  key[i++] = args.w.bias != nullptr;
  key[i++] = address_mod_16(args.out);
  key[i++] = address_mod_16(args.w.bias);
  return key;
}

std::size_t product_bytes(const GatedMlpArgs& args) {
  return static_cast<std::size_t>(args.M) * static_cast<std::size_t>(2 * args.N) * sizeof(float);
}

std::size_t x_bytes(const GatedMlpArgs& args) {
  return static_cast<std::size_t>(args.M) * static_cast<std::size_t>(args.w.K) * dtype_bytes(args.x_dtype);
}

std::size_t weight_bytes(const GatedMlpArgs& args) {
  return static_cast<std::size_t>(2 * args.w.N) * static_cast<std::size_t>(args.w.K) * dtype_bytes(args.w.dtype);
}

bool query_makes_room(const GatedMlpArgs& args, const DeviceCaps& caps) {
  const std::size_t product = product_bytes(args), weight = weight_bytes(args);
  const bool weight_share = args.M >= kTimedProductMinTokens && weight > static_cast<std::size_t>(caps.l2_bytes) &&
                            product <= weight / kTimedProductWeightShare;
  return product <= kTimedProductMaxBytes && (product <= x_bytes(args) || weight_share);
}

}  // namespace

bool GatedPaths::runs_delegated() const {
  if (!delegated.found()) return false;
  if (remembered && delegated_tuning_enabled()) return remembered_delegates;
  return rule_delegates;
}

GatedPaths gated_paths(const GatedMlpArgs& args, const DeviceCaps& caps, std::size_t usable_bytes, bool query) {
  GatedPaths paths;
  if (args.kernel) return paths;
  paths.rule_delegates = gated_delegation_pays(args, caps, compiled_keys());
  const bool timed = delegated_tuning_enabled() && (!query || query_makes_room(args, caps));
  if (!paths.rule_delegates && !timed) return paths;
  paths.delegated = plan_delegated_gated(args, caps.device, usable_bytes);
  if (!paths.delegated.found()) return paths;
  paths.key = path_key(args, paths.delegated);
  std::lock_guard<std::mutex> lock(paths_mutex());
  if (auto it = remembered_paths().find(paths.key); it != remembered_paths().end()) {
    paths.remembered = true;
    paths.remembered_delegates = it->second;
  }
  return paths;
}

bool times_gated_paths(const GatedPaths& paths, cudaStream_t stream) {
  return paths.delegated.found() && !paths.remembered && delegated_tuning_enabled() && !stream_capturing(stream);
}

void time_gated_paths(GatedPaths* paths, const std::function<Status(bool, cudaStream_t)>& run, cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  // The delegated path's first run chooses its cuBLASLt candidate (timed itself, the host waiting),
  // which must not happen behind the timing's closed gate.
  if (!run(true, stream).ok()) return;
  // Candidate 0 is the rule's path, so that a tie keeps it.
  auto delegated_candidate = [&](int i) { return (i == 0) == paths->rule_delegates; };
  const CandidateTimes times = time_candidates(
      2, [&](int i, cudaStream_t s) { return run(delegated_candidate(i), s).ok(); }, stream);
  const bool delegates = times.pick >= 0 ? delegated_candidate(times.pick) : paths->rule_delegates;
  if (delegated_tuning_logged() && times.median_us.size() == 2) {
    const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const int fused = delegated_candidate(0) ? 1 : 0;
    std::fprintf(stderr, "[epifuse] gated path: fused %.2f us, delegated %.2f us; keeps %s; the choice took %.2f ms\n",
                 times.median_us[fused], times.median_us[1 - fused], delegates ? "delegated" : "fused", host_ms);
  }
  paths->remembered = true;
  paths->remembered_delegates = delegates;
  std::lock_guard<std::mutex> lock(paths_mutex());
  remembered_paths()[paths->key] = delegates;
}

}  // namespace epifuse::detail
