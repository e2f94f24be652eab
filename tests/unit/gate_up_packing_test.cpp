// Host packing: the layout's postcondition, fused-checkpoint orders, round trips, bad arguments.
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "epifuse/gate_up_packing.hpp"

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

TEST(GateUpPacking, RejectsBadArguments) {
  const auto gate = matrix(1, N), up = matrix(2, N);
  const auto gb = bias(0.0f);
  std::vector<std::uint16_t> packed(2 * N * K);
  std::vector<float> packed_bias(2 * N);
  PackedGateUp p;
  auto expect_invalid = [&](GateUpSource s, void* dst, float* dst_bias, const char* what) {
    const Status st = pack_gate_up_host(s, dst, dst_bias, &p);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what;
    EXPECT_FALSE(st.message().empty()) << what;
  };
  GateUpSource s = source(gate.data(), up.data(), nullptr, nullptr);
  GateUpSource bad = s;
  bad.N = 20;
  expect_invalid(bad, packed.data(), nullptr, "N not a multiple of 8");
  bad = s;
  bad.K = 12;
  expect_invalid(bad, packed.data(), nullptr, "K not a multiple of 8");
  bad = s;
  bad.ld = K - 8;
  expect_invalid(bad, packed.data(), nullptr, "ld < K");
  bad = s;
  bad.dtype = DType::kFP32;
  expect_invalid(bad, packed.data(), nullptr, "fp32 weights");
  bad = s;
  bad.up = nullptr;
  expect_invalid(bad, packed.data(), nullptr, "null up");
  expect_invalid(s, nullptr, nullptr, "null destination");
  bad = s;
  bad.gate_bias = gb.data();
  expect_invalid(bad, packed.data(), packed_bias.data(), "one bias only");
  bad.up_bias = gb.data();
  expect_invalid(bad, packed.data(), nullptr, "biases without packed_bias");
  std::vector<std::uint16_t> in_place(gate);
  in_place.resize(2 * N * LD);
  bad = s;
  bad.gate = in_place.data();
  expect_invalid(bad, in_place.data(), nullptr, "packing in place");

  PackedGateUp unpacked;
  std::vector<std::uint16_t> g(N * K), u(N * K);
  EXPECT_EQ(unpack_gate_up_host(unpacked, g.data(), u.data(), nullptr, nullptr).code(), StatusCode::kInvalidArgument)
      << "unpacking a weight without the layout tag";
}

}  // namespace
}  // namespace epifuse
