// name(KernelKey): the only place a kernel's name is made; a forced kernel's token limit.
#include "epifuse/kernel_key.hpp"

#include <limits>

#include "epifuse/tuning.hpp"

namespace epifuse {
namespace {

const char* arch_name(Arch arch) {
  switch (arch) {
    case Arch::kSm90: return "sm90";
  }
  return "unknown_arch";
}

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::kCooperative: return "coop";
    case Schedule::kPingpong: return "pingpong";
    case Schedule::kWarpMma: return "warpmma";
  }
  return "unknown_schedule";
}

const char* epilogue_name(EpilogueCoverage e) {
  switch (e) {
    case EpilogueCoverage::kCastOnly: return "cast";
    case EpilogueCoverage::kBiasActivation: return "biasact";
    case EpilogueCoverage::kFull: return "full";
    case EpilogueCoverage::kFullWithColumnReductions: return "colreduce";
    case EpilogueCoverage::kGatedPair: return "gated";
  }
  return "unknown_epilogue";
}

// The epilogue and C operand an op's kernels usually have: names mention only departures from them.
struct OpUsual {
  EpilogueCoverage epilogue;
  bool has_c;
};

OpUsual usual(Op op) {
  switch (op) {
    case Op::kGemm: return {EpilogueCoverage::kFull, true};
    case Op::kGatedMlp: return {EpilogueCoverage::kGatedPair, false};
  }
  return {EpilogueCoverage::kFull, false};
}

}  // namespace

std::string name(const KernelKey& k) {
  std::string s = std::string(arch_name(k.arch)) + "_" + to_string(k.op) + "_" + to_string(k.a);
  if (k.b != k.a) s += std::string("x") + to_string(k.b);
  s += std::string("_") + to_string(k.d) + "_";
  if (k.swap_ab) s += "swap_";
  s += std::string(schedule_name(k.schedule)) + "_" + std::to_string(k.tile.m) + "x" + std::to_string(k.tile.n) + "x" +
       std::to_string(k.tile.k) + "_c" + std::to_string(k.cluster.m) + "x" + std::to_string(k.cluster.n);
  const OpUsual u = usual(k.op);
  if (k.epilogue != u.epilogue) s += std::string("_") + epilogue_name(k.epilogue);
  if (k.has_c != u.has_c) s += k.has_c ? "_c" : "_noc";
  switch (k.grouping) {
    case Grouping::kNone: break;
    case Grouping::kGrouped: s += "_grouped"; break;
  }
  switch (k.decomposition) {
    case Decomposition::kDataParallel: break;
    case Decomposition::kStreamK: s += "_streamk"; break;
  }
  return s;
}

std::int64_t max_tokens(const KernelKey& key) {
  if (key.schedule != Schedule::kWarpMma) return std::numeric_limits<std::int64_t>::max();
  return key.op == Op::kGemm && key.tile.n == 16 ? 64 : key.tile.n;
}

std::string to_string(const KernelChoice& choice) {
  std::string s = name(choice.key);
  if (choice.raster != RasterOrder::kHeuristic) s += std::string(" raster=") + to_string(choice.raster);
  if (choice.swizzle != 1) s += " swizzle=" + std::to_string(choice.swizzle);
  if (choice.splits != 1) s += " splits=" + std::to_string(choice.splits);
  if (choice.stream_k != StreamKMode::kHeuristic) s += std::string(" stream_k=") + to_string(choice.stream_k);
  return s;
}

}  // namespace epifuse
