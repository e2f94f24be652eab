// A call's key (api/call_key.hpp): equal arguments give equal keys and hashes, and a change to
// any one field, the forced kernel's knobs or the tuning switch gives another key.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "api/call_key.hpp"

namespace epifuse::detail {
namespace {

const void* address(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

GatedMlpArgs gated_args() {
  GatedMlpArgs a;
  a.M = 5;
  a.N = 1024;
  a.x = address(0x7f0000000000);
  a.ldx = 512;
  a.w.weight = address(0x7f0000100000);
  a.w.ld = 512;
  a.w.N = 1024;
  a.w.K = 512;
  a.w.layout = GateUpLayout::kGateUpBlocks8;
  a.out = const_cast<void*>(address(0x7f0000200000));
  a.ldo = 1024;
  return a;
}

GemmArgs gemm_args() {
  GemmArgs a;
  a.M = 5;
  a.N = 4096;
  a.K = 1024;
  a.A = address(0x7f0000000000);
  a.lda = 1024;
  a.B = address(0x7f0000100000);
  a.ldb = 1024;
  a.D = const_cast<void*>(address(0x7f0000200000));
  a.ldd = 4096;
  return a;
}

KernelChoice some_choice() {
  KernelChoice c;
  c.key.op = Op::kGatedMlp;
  c.key.tile = {128, 32, 128};
  c.key.swap_ab = true;
  c.key.epilogue = EpilogueCoverage::kGatedPair;
  return c;
}

template <class Args>
using Change = std::pair<std::string, std::function<void(Args&)>>;

// Every change gives a key unlike the base's and unlike every other change's.
template <class Args>
void expect_every_change_tells_keys_apart(const Args& base, const std::vector<Change<Args>>& changes) {
  std::vector<std::pair<std::string, CallKey>> keys = {{"base", CallKey::of(base, true)}};
  for (const auto& [what, change] : changes) {
    Args changed = base;
    change(changed);
    keys.emplace_back(what, CallKey::of(changed, true));
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i + 1; j < keys.size(); ++j) {
      EXPECT_FALSE(keys[i].second == keys[j].second) << keys[i].first << " and " << keys[j].first;
    }
  }
}

TEST(CallKey, EqualArgumentsGiveEqualKeysAndHashes) {
  GatedMlpArgs a = gated_args(), b = gated_args();
  a.kernel = some_choice();
  b.kernel = some_choice();
  EXPECT_TRUE(CallKey::of(a, true) == CallKey::of(b, true));
  EXPECT_EQ(CallKey::of(a, true).hash(), CallKey::of(b, true).hash());
  EXPECT_TRUE(CallKey::of(gemm_args(), false) == CallKey::of(gemm_args(), false));
  EXPECT_FALSE(CallKey::of(a, true) == CallKey::of(a, false)) << "the tuning switch";
  EXPECT_FALSE(CallKey::of(GatedMlpArgs{}, true) == CallKey::of(GemmArgs{}, true)) << "the op";
}

TEST(CallKey, EveryGatedFieldTellsKeysApart) {
  using C = Change<GatedMlpArgs>;
  std::vector<C> changes = {
      {"M", [](GatedMlpArgs& a) { a.M = 6; }},
      {"N", [](GatedMlpArgs& a) { a.N = 1032; }},
      {"x_dtype", [](GatedMlpArgs& a) { a.x_dtype = DType::kFP16; }},
      {"x", [](GatedMlpArgs& a) { a.x = address(0x7f0000000010); }},
      {"ldx", [](GatedMlpArgs& a) { a.ldx = 520; }},
      {"w.weight", [](GatedMlpArgs& a) { a.w.weight = address(0x7f0000100010); }},
      {"w.ld", [](GatedMlpArgs& a) { a.w.ld = 520; }},
      {"w.bias", [](GatedMlpArgs& a) { a.w.bias = static_cast<const float*>(address(0x7f0000300000)); }},
      {"w.N", [](GatedMlpArgs& a) { a.w.N = 1040; }},
      {"w.K", [](GatedMlpArgs& a) { a.w.K = 504; }},
      {"w.dtype", [](GatedMlpArgs& a) { a.w.dtype = DType::kFP16; }},
      {"w.layout", [](GatedMlpArgs& a) { a.w.layout = GateUpLayout::kUnpacked; }},
      {"out_dtype", [](GatedMlpArgs& a) { a.out_dtype = DType::kFP16; }},
      {"out", [](GatedMlpArgs& a) { a.out = const_cast<void*>(address(0x7f0000200010)); }},
      {"ldo", [](GatedMlpArgs& a) { a.ldo = 1048; }},
      {"activation", [](GatedMlpArgs& a) { a.activation = GatedActivation::kGeGLUTanh; }},
      {"limit", [](GatedMlpArgs& a) { a.limit = 7.0f; }},
      {"scale", [](GatedMlpArgs& a) { a.scale = 0.5f; }},
      {"workspace", [](GatedMlpArgs& a) { a.workspace = const_cast<void*>(address(0x7f0000400000)); }},
      {"workspace_bytes", [](GatedMlpArgs& a) { a.workspace_bytes = 256; }},
      {"kernel", [](GatedMlpArgs& a) { a.kernel = some_choice(); }},
  };
  // Each field of a forced kernel's key and knobs.
  using K = KernelChoice;
  const std::vector<std::pair<std::string, std::function<void(K&)>>> choice_changes = {
      {"op", [](K& k) { k.key.op = Op::kGemm; }},
      {"arch", [](K& k) { k.key.arch = static_cast<Arch>(1); }},
      {"a", [](K& k) { k.key.a = DType::kFP16; }},
      {"b", [](K& k) { k.key.b = DType::kFP16; }},
      {"d", [](K& k) { k.key.d = DType::kFP16; }},
      {"schedule", [](K& k) { k.key.schedule = Schedule::kPingpong; }},
      {"tile.m", [](K& k) { k.key.tile.m = 64; }},
      {"tile.n", [](K& k) { k.key.tile.n = 16; }},
      {"tile.k", [](K& k) { k.key.tile.k = 64; }},
      {"cluster.m", [](K& k) { k.key.cluster.m = 2; }},
      {"cluster.n", [](K& k) { k.key.cluster.n = 2; }},
      {"swap_ab", [](K& k) { k.key.swap_ab = false; }},
      {"epilogue", [](K& k) { k.key.epilogue = EpilogueCoverage::kFull; }},
      {"has_c", [](K& k) { k.key.has_c = true; }},
      {"grouping", [](K& k) { k.key.grouping = Grouping::kGrouped; }},
      {"decomposition", [](K& k) { k.key.decomposition = Decomposition::kStreamK; }},
      {"raster", [](K& k) { k.raster = RasterOrder::kAlongM; }},
      {"swizzle", [](K& k) { k.swizzle = 2; }},
      {"splits", [](K& k) { k.splits = 2; }},
      {"stream_k", [](K& k) { k.stream_k = StreamKMode::kShareTail; }},
  };
  for (const auto& [what, change] : choice_changes) {
    changes.emplace_back("kernel " + what, [change](GatedMlpArgs& a) {
      a.kernel = some_choice();
      change(*a.kernel);
    });
  }
  expect_every_change_tells_keys_apart(gated_args(), changes);
}

TEST(CallKey, EveryGemmFieldTellsKeysApart) {
  using C = Change<GemmArgs>;
  const auto f = [](std::uintptr_t a) { return static_cast<float*>(const_cast<void*>(address(a))); };
  const std::vector<C> changes = {
      {"M", [](GemmArgs& a) { a.M = 6; }},
      {"N", [](GemmArgs& a) { a.N = 4104; }},
      {"K", [](GemmArgs& a) { a.K = 1032; }},
      {"a_dtype", [](GemmArgs& a) { a.a_dtype = DType::kFP16; }},
      {"b_dtype", [](GemmArgs& a) { a.b_dtype = DType::kFP16; }},
      {"d_dtype", [](GemmArgs& a) { a.d_dtype = DType::kFP32; }},
      {"A", [](GemmArgs& a) { a.A = address(0x7f0000000010); }},
      {"lda", [](GemmArgs& a) { a.lda = 1040; }},
      {"B", [](GemmArgs& a) { a.B = address(0x7f0000100010); }},
      {"ldb", [](GemmArgs& a) { a.ldb = 1040; }},
      {"D", [](GemmArgs& a) { a.D = const_cast<void*>(address(0x7f0000200010)); }},
      {"ldd", [](GemmArgs& a) { a.ldd = 4112; }},
      {"a_scale", [f](GemmArgs& a) { a.a_scale = f(0x7f0000500000); }},
      {"b_scale", [f](GemmArgs& a) { a.b_scale = f(0x7f0000500010); }},
      {"alpha", [](GemmArgs& a) { a.epilogue.alpha = 0.625f; }},
      {"row_scale", [f](GemmArgs& a) { a.epilogue.row_scale = f(0x7f0000600000); }},
      {"col_scale", [f](GemmArgs& a) { a.epilogue.col_scale = f(0x7f0000600010); }},
      {"col_bias", [f](GemmArgs& a) { a.epilogue.col_bias = f(0x7f0000600020); }},
      {"col_bias_dtype", [](GemmArgs& a) { a.epilogue.col_bias_dtype = DType::kBF16; }},
      {"row_bias", [f](GemmArgs& a) { a.epilogue.row_bias = f(0x7f0000600030); }},
      {"activation", [](GemmArgs& a) { a.epilogue.activation = Activation::kGeluTanh; }},
      {"leaky_slope", [](GemmArgs& a) { a.epilogue.leaky_slope = 0.2f; }},
      {"clamp_lo", [](GemmArgs& a) { a.epilogue.clamp_lo = -1.0f; }},
      {"clamp_hi", [](GemmArgs& a) { a.epilogue.clamp_hi = 1.0f; }},
      {"residual", [](GemmArgs& a) { a.epilogue.residual = address(0x7f0000700000); }},
      {"ldc", [](GemmArgs& a) { a.epilogue.ldc = 4096; }},
      {"beta", [](GemmArgs& a) { a.epilogue.beta = -0.5f; }},
      {"residual_order", [](GemmArgs& a) { a.epilogue.residual_order = ResidualOrder::kBeforeActivation; }},
      {"row_sum", [f](GemmArgs& a) { a.epilogue.row_sum = f(0x7f0000800000); }},
      {"row_amax", [f](GemmArgs& a) { a.epilogue.row_amax = f(0x7f0000800010); }},
      {"col_sum", [f](GemmArgs& a) { a.epilogue.col_sum = f(0x7f0000800020); }},
      {"col_amax", [f](GemmArgs& a) { a.epilogue.col_amax = f(0x7f0000800030); }},
      {"amax", [f](GemmArgs& a) { a.epilogue.amax = f(0x7f0000800040); }},
      {"workspace", [](GemmArgs& a) { a.workspace = const_cast<void*>(address(0x7f0000400000)); }},
      {"workspace_bytes", [](GemmArgs& a) { a.workspace_bytes = 256; }},
      {"kernel", [](GemmArgs& a) { a.kernel = some_choice(); }},
  };
  expect_every_change_tells_keys_apart(gemm_args(), changes);
}

}  // namespace
}  // namespace epifuse::detail
