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

// Per key: the way that timed fastest.
std::map<GatedPathKey, GatedRun>& remembered_paths() {
  static std::map<GatedPathKey, GatedRun> cache;
  return cache;
}

std::int64_t address_mod_16(const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p) % 16); }

GatedPathKey path_key(const GatedMlpArgs& args, int device, bool delegated_found) {
  return {device,
          args.M,
          args.N,
          args.w.K,
          args.ldx,
          args.w.ld,
          args.ldo,
          static_cast<std::int64_t>(args.x_dtype),
          static_cast<std::int64_t>(args.w.dtype),
          static_cast<std::int64_t>(args.out_dtype),
          static_cast<std::int64_t>(args.activation),
          args.w.bias != nullptr,
          address_mod_16(args.x),
          address_mod_16(args.w.weight),
          address_mod_16(args.out),
          address_mod_16(args.w.bias),
          delegated_found};
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

GatedRun GatedPaths::run() const {
  if (remembered && delegated_tuning_enabled() && (!remembered_run.delegated || delegated.found())) {
    return remembered_run;
  }
  return {rule_delegates && delegated.found(), std::nullopt};
}

GatedPaths gated_paths(const GatedMlpArgs& args, const DeviceCaps& caps, std::size_t usable_bytes, bool query) {
  GatedPaths paths;
  if (args.kernel) return paths;
  paths.rule_delegates = gated_delegation_pays(args, caps, compiled_keys());
  const bool tuning = delegated_tuning_enabled();
  if (tuning) paths.alternatives = gated_timed_alternatives(args, caps, compiled_keys());
  if (paths.rule_delegates || (tuning && (!query || query_makes_room(args, caps)))) {
    paths.delegated = plan_delegated_gated(args, caps.device, usable_bytes);
  }
  if (!paths.has_choice()) return paths;
  paths.key = path_key(args, caps.device, paths.delegated.found());
  std::lock_guard<std::mutex> lock(paths_mutex());
  if (auto it = remembered_paths().find(paths.key); it != remembered_paths().end()) {
    paths.remembered = true;
    paths.remembered_run = it->second;
  }
  return paths;
}

bool times_gated_paths(const GatedPaths& paths, cudaStream_t stream) {
  return paths.has_choice() && !paths.remembered && delegated_tuning_enabled() && !stream_capturing(stream);
}

namespace {

std::string way_name(const GatedRun& way) {
  if (way.delegated) return "delegated";
  return way.kernel ? to_string(*way.kernel) : "the rules' fused kernel";
}

}  // namespace

void time_gated_paths(GatedPaths* paths, const std::function<Status(const GatedRun&, cudaStream_t)>& run,
                      cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  // The rule's way first, so that a tie keeps it.
  std::vector<GatedRun> ways{paths->run()};
  if (paths->delegated.found()) ways.push_back({!ways[0].delegated, std::nullopt});
  for (const KernelChoice& k : paths->alternatives) ways.push_back({false, k});
  // The delegated path's first run chooses its cuBLASLt candidate (timed itself, the host waiting),
  // which must not happen behind the timing's closed gate.
  if (paths->delegated.found() && !run({true, std::nullopt}, stream).ok()) return;
  // The warm-up only where tilings are timed: there the idle GPU's boost clock ranked them unlike a
  // busy one. Where only the fused kernel and the delegated path are timed (17-320 tokens on the
  // catalogue MLPs), the warm-up changed the way at 32 of 392 grid calls for no gain (1.000x the
  // time without it) and cost each first launch about 100 ms
  // (bench/results/tuning/issue9/busy-gpu-timing/).
  const double warmup_ms = paths->alternatives.empty() ? 0.0 : kBusyWarmupMs;
  const CandidateTimes times = time_candidates(
      static_cast<int>(ways.size()), [&](int i, cudaStream_t s) { return run(ways[i], s).ok(); }, stream,
      warmup_ms);
  const GatedRun fastest = times.pick >= 0 ? ways[times.pick] : ways[0];
  {
    // The first thread to time a key decides for all, so that every thread runs (and keeps) one way.
    std::lock_guard<std::mutex> lock(paths_mutex());
    paths->remembered = true;
    paths->remembered_run = remembered_paths().try_emplace(paths->key, fastest).first->second;
  }
  if (delegated_tuning_logged() && times.median_us.size() == ways.size()) {
    const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string line = "[epifuse] gated ways:";
    for (std::size_t i = 0; i < ways.size(); ++i) {
      line += (i == 0 ? " " : ", ") + way_name(ways[i]) + " " + std::to_string(times.median_us[i]) + " us";
    }
    std::fprintf(stderr, "%s; keeps %s; the choice took %.2f ms\n", line.c_str(),
                 way_name(paths->remembered_run).c_str(), host_ms);
  }
}

}  // namespace epifuse::detail
