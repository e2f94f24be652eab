// Host packing: the layout's postcondition, fused-checkpoint orders, round trips, bad arguments.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "epifuse/packing/gate_up.hpp"
#include "validate/gate_up.hpp"

namespace epifuse {
namespace {

constexpr std::int64_t N = 24, K = 16, LD = 24;

// Distinct 16-bit patterns: which row and column a value came from is readable from its bits.
std::vector<std::uint16_t> matrix(std::uint16_t tag, std::int64_t rows) {
  std::vector<std::uint16_t> m(rows * LD, 0xDEAD);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < K; ++k) m[r * LD + k] = static_cast<std::uint16_t>(tag << 12 | r << 4 | k);
  }
  return m;
}

std::vector<float> bias(float base) {
  std::vector<float> b(N);
  std::iota(b.begin(), b.end(), base);
  return b;
}

GateUpSource source(const void* gate, const void* up, const float* gb, const float* ub) {
  GateUpSource s;
  s.gate = gate;
  s.up = up;
  s.ld = LD;
  s.gate_bias = gb;
  s.up_bias = ub;
  s.N = N;
  s.K = K;
  s.dtype = DType::kBF16;
  return s;
}

TEST(GateUpPacking, PostconditionHolds) {
  const auto gate = matrix(1, N), up = matrix(2, N);
  const auto gb = bias(100.0f), ub = bias(200.0f);
  std::vector<std::uint16_t> packed(2 * N * K);
  std::vector<float> packed_bias(2 * N);
  PackedGateUp p;
  ASSERT_TRUE(pack_gate_up_host(source(gate.data(), up.data(), gb.data(), ub.data()), packed.data(),
                                packed_bias.data(), &p).ok());
  EXPECT_EQ(p.layout, GateUpLayout::kGateUpBlocks8);
  EXPECT_EQ(p.ld, K);
  EXPECT_EQ(p.N, N);
  EXPECT_EQ(p.bias, packed_bias.data());
  for (std::int64_t b = 0; b < N / 8; ++b) {
    for (std::int64_t i = 0; i < 8; ++i) {
      for (std::int64_t k = 0; k < K; ++k) {
        EXPECT_EQ(packed[(16 * b + i) * K + k], gate[(8 * b + i) * LD + k]);
        EXPECT_EQ(packed[(16 * b + 8 + i) * K + k], up[(8 * b + i) * LD + k]);
      }
      EXPECT_EQ(packed_bias[16 * b + i], gb[8 * b + i]);
      EXPECT_EQ(packed_bias[16 * b + 8 + i], ub[8 * b + i]);
      EXPECT_EQ(packed_gate_up_row(8 * b + i, false), 16 * b + i);
      EXPECT_EQ(packed_gate_up_row(8 * b + i, true), 16 * b + 8 + i);
    }
  }
}

TEST(GateUpPacking, FusedOrdersPackAlike) {
  const auto gate = matrix(1, N), up = matrix(2, N);
  std::vector<std::uint16_t> gate_up(gate), up_gate(up);
  gate_up.insert(gate_up.end(), up.begin(), up.end());
  up_gate.insert(up_gate.end(), gate.begin(), gate.end());
  std::vector<float> bias_gu = bias(0.0f), bias_ug = bias(1000.0f);
  bias_gu.insert(bias_gu.end(), bias_ug.begin(), bias_ug.end());
  std::vector<float> bias_swapped(bias_gu.begin() + N, bias_gu.end());
  bias_swapped.insert(bias_swapped.end(), bias_gu.begin(), bias_gu.begin() + N);

  std::vector<std::uint16_t> a(2 * N * K), b(2 * N * K);
  std::vector<float> ab(2 * N), bb(2 * N);
  PackedGateUp pa, pb;
  ASSERT_TRUE(pack_gate_up_host(gate_up_from_fused(gate_up.data(), bias_gu.data(), N, K, LD, DType::kBF16,
                                                   FusedGateUpOrder::kGateThenUp),
                                a.data(), ab.data(), &pa).ok());
  ASSERT_TRUE(pack_gate_up_host(gate_up_from_fused(up_gate.data(), bias_swapped.data(), N, K, LD, DType::kBF16,
                                                   FusedGateUpOrder::kUpThenGate),
                                b.data(), bb.data(), &pb).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(ab, bb);
}

TEST(GateUpPacking, UnpackInvertsPack) {
  const auto gate = matrix(3, N), up = matrix(4, N);
  const auto gb = bias(7.0f), ub = bias(-7.0f);
  std::vector<std::uint16_t> packed(2 * N * K), gate_back(N * K), up_back(N * K);
  std::vector<float> packed_bias(2 * N), gb_back(N), ub_back(N);
  PackedGateUp p;
  ASSERT_TRUE(pack_gate_up_host(source(gate.data(), up.data(), gb.data(), ub.data()), packed.data(),
                                packed_bias.data(), &p).ok());
  ASSERT_TRUE(unpack_gate_up_host(p, gate_back.data(), up_back.data(), gb_back.data(), ub_back.data()).ok());
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t k = 0; k < K; ++k) {
      EXPECT_EQ(gate_back[n * K + k], gate[n * LD + k]);
      EXPECT_EQ(up_back[n * K + k], up[n * LD + k]);
    }
  }
  EXPECT_EQ(gb_back, gb);
  EXPECT_EQ(ub_back, ub);
}

TEST(GateUpPacking, RejectsBadArgumentsWithTheirMessages) {
  const auto gate = matrix(1, N), up = matrix(2, N);
  const auto gb = bias(0.0f), ub = bias(100.0f);
  std::vector<std::uint16_t> packed(2 * N * K);
  std::vector<float> packed_bias(2 * N);
  PackedGateUp p;
  auto expect_invalid = [&](const GateUpSource& s, void* dst, float* dst_bias, const char* message) {
    const Status st = pack_gate_up_host(s, dst, dst_bias, &p);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << message;
    EXPECT_NE(st.message().find(message), std::string::npos) << "expected: " << message << "\ngot: " << st.message();
  };
  const GateUpSource s = source(gate.data(), up.data(), nullptr, nullptr);
  GateUpSource bad = s;
  bad.N = 20;
  expect_invalid(bad, packed.data(), nullptr, "N (20) must be a positive multiple of 8");
  bad = s;
  bad.N = std::int64_t{1} << 30;
  expect_invalid(bad, packed.data(), nullptr, "2N (2147483648) must be < 2^31");
  bad = s;
  bad.K = 12;
  expect_invalid(bad, packed.data(), nullptr, "K (12) must be a positive multiple of 8");
  bad = s;
  bad.ld = K - 8;
  expect_invalid(bad, packed.data(), nullptr, "ld (8) must be >= K (16)");
  bad = s;
  bad.dtype = DType::kFP32;
  expect_invalid(bad, packed.data(), nullptr, "dtype must be bf16 or fp16");
  bad = s;
  bad.up = nullptr;
  expect_invalid(bad, packed.data(), nullptr, "gate and up must be non-null");
  expect_invalid(s, nullptr, nullptr, "packed_weight is null");
  EXPECT_NE(pack_gate_up_host(s, packed.data(), nullptr, nullptr).message().find("the PackedGateUp output is null"),
            std::string::npos);
  bad = s;
  bad.gate_bias = gb.data();
  expect_invalid(bad, packed.data(), packed_bias.data(), "give both gate_bias and up_bias or neither");
  bad.up_bias = ub.data();
  expect_invalid(bad, packed.data(), nullptr, "packed_bias is null");
  expect_invalid(bad, packed.data(), reinterpret_cast<float*>(reinterpret_cast<char*>(packed_bias.data()) + 2),
                 "packed_bias must be 4-byte aligned");
  expect_invalid(bad, packed.data(), reinterpret_cast<float*>(packed.data()), "packed_weight overlaps packed_bias");
  // Biases in one arena, so that what sits next to what is known: packed_bias over the up bias.
  std::vector<float> arena(8 * N);
  bad.gate_bias = arena.data();
  bad.up_bias = arena.data() + 4 * N;
  expect_invalid(bad, packed.data(), arena.data() + 3 * N, "packed_bias overlaps up_bias");
  std::vector<std::uint16_t> in_place(gate);
  in_place.resize(2 * N * LD);
  bad = s;
  bad.gate = in_place.data();
  expect_invalid(bad, in_place.data(), nullptr, "packed_weight overlaps gate");
}

// The device copy kernel moves 16-byte vectors: its rules add alignment and 16-byte rows.
TEST(GateUpPacking, DeviceRulesAddAlignment) {
  const auto fake = [](std::uintptr_t a) { return reinterpret_cast<void*>(a); };
  GateUpSource s = source(fake(0x10000000), fake(0x20000000), nullptr, nullptr);
  PackedGateUp p;
  EXPECT_TRUE(detail::check_pack_args(s, fake(0x30000000), nullptr, &p, /*device=*/true).ok());
  s.ld = 28;  // 56 bytes: fine on the host, not for 16-byte vectors
  EXPECT_TRUE(detail::check_pack_args(s, fake(0x30000000), nullptr, &p, /*device=*/false).ok());
  EXPECT_NE(detail::check_pack_args(s, fake(0x30000000), nullptr, &p, true).message().find("ld (28) must be a multiple of 8"),
            std::string::npos);
  s.ld = LD;
  EXPECT_NE(detail::check_pack_args(s, fake(0x30000008), nullptr, &p, true).message().find("packed_weight must be 16-byte aligned"),
            std::string::npos);
}

TEST(GateUpPacking, UnpackRejectsBadArgumentsWithTheirMessages) {
  const auto gate = matrix(1, N), up = matrix(2, N);
  std::vector<std::uint16_t> packed(2 * N * K);
  std::vector<float> packed_bias(2 * N);
  const auto gb = bias(0.0f), ub = bias(100.0f);
  PackedGateUp p;
  ASSERT_TRUE(pack_gate_up_host(source(gate.data(), up.data(), gb.data(), ub.data()), packed.data(), packed_bias.data(), &p).ok());
  std::vector<std::uint16_t> g(N * K), u(N * K);
  std::vector<float> gb_back(N), ub_back(N);
  auto message = [&](const PackedGateUp& w, void* gd, void* ud, float* gbd, float* ubd) {
    return unpack_gate_up_host(w, gd, ud, gbd, ubd).message();
  };
  EXPECT_NE(message(PackedGateUp{}, g.data(), u.data(), nullptr, nullptr).find("not packed as kGateUpBlocks8"),
            std::string::npos);
  EXPECT_NE(message(p, g.data(), u.data(), nullptr, nullptr).find("gate_bias and up_bias must be non-null"),
            std::string::npos);
  EXPECT_NE(message(p, g.data(), g.data(), gb_back.data(), ub_back.data()).find("gate overlaps up"), std::string::npos);
  EXPECT_NE(message(p, g.data(), u.data(), gb_back.data(), gb_back.data()).find("gate_bias overlaps up_bias"),
            std::string::npos);
  EXPECT_NE(message(p, packed.data(), u.data(), gb_back.data(), ub_back.data()).find("gate overlaps the packed weight"),
            std::string::npos);
  EXPECT_TRUE(unpack_gate_up_host(p, g.data(), u.data(), gb_back.data(), ub_back.data()).ok());
}

}  // namespace
}  // namespace epifuse
