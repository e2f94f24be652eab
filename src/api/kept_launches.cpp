#include "api/kept_launches.hpp"

#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <utility>
#include <vector>

namespace epifuse::detail {
namespace {

// 80 layers of four ops on two shapes (prefill and decode) and a few more; a full map drops one
// entry for each new one.
constexpr std::size_t kCapacity = 1024;

struct Hash {
  std::size_t operator()(const CallKey& key) const { return key.hash(); }
};

std::unordered_map<CallKey, KeptLaunch, Hash>& launches() {
  thread_local std::unordered_map<CallKey, KeptLaunch, Hash> kept;
  return kept;
}

thread_local std::size_t repeats = 0;

// Tags (hash | 1) of the keys met once, in sets of two by hash, the newer first: two keys that
// share a set and alternate (two layers' calls) are both kept; a third evicts the older. Held on
// the heap, only by threads that call epifuse.
constexpr std::size_t kMetSets = 2048;

std::vector<std::size_t>& met() {
  thread_local std::vector<std::size_t> tags(2 * kMetSets, 0);
  return tags;
}

std::atomic<bool> keeping{true};

}  // namespace

const KeptLaunch* find_kept_launch(const CallKey& key) {
  if (!keeping.load(std::memory_order_relaxed)) return nullptr;
  const auto& kept = launches();
  const auto it = kept.find(key);
  return it == kept.end() ? nullptr : &it->second;
}

bool seen_before(const CallKey& key) {
  if (!keeping.load(std::memory_order_relaxed)) return false;
  const std::size_t tag = key.hash() | 1;  // never an empty way's 0
  std::size_t* set = met().data() + 2 * (key.hash() % kMetSets);
  if (set[0] == tag || set[1] == tag) return true;
  set[1] = set[0];
  set[0] = tag;
  return false;
}

void keep_launch(const CallKey& key, int device, std::optional<RecordedLaunch> launch) {
  if (!launch || !keeping.load(std::memory_order_relaxed)) return;
  auto& kept = launches();
  if (kept.size() >= kCapacity && kept.find(key) == kept.end()) kept.erase(kept.begin());
  kept.insert_or_assign(key, KeptLaunch{device, std::move(*launch)});
}

cudaError_t repeat_kept_launch(const CallKey& key, const KeptLaunch& kept, cudaStream_t stream) {
  const cudaError_t err = kept.launch.launch(stream);
  if (err == cudaSuccess) {
    ++repeats;
  } else {
    launches().erase(key);
  }
  return err;
}

void keep_launches(bool keep) { keeping.store(keep, std::memory_order_relaxed); }

std::size_t kept_launch_count() { return launches().size(); }

std::size_t repeated_launch_count() { return repeats; }

void forget_kept_launches() {
  launches().clear();
  std::fill(met().begin(), met().end(), 0);
}

}  // namespace epifuse::detail
