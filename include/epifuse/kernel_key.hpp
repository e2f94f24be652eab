// What identifies a compiled kernel: a typed key with one field per property. The kernel table
// (cmake/kernels_sm90.cmake) has one row per kernel; the build generates each kernel and the C++
// table of their keys from it. Dispatch returns keys, callers force kernels by key, and name()
// is the only place a kernel's name is made. New variants (grouped GEMM, split-K, FP8, another
// architecture) are new values of these fields and new rows, not new code paths.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

enum class Op : std::uint8_t {
  kGemm,      // gemm.hpp
  kGatedMlp,  // gated_mlp.hpp
};

enum class Arch : std::uint8_t {
  kSm90,  // Hopper, compiled for sm_90a
};

enum class Schedule : std::uint8_t {
  kCooperative,  // two consumer warpgroups share each tile (tile M >= 128)
  kPingpong,     // each consumer warpgroup owns a tile; one's epilogue overlaps the other's mainloop
  kWarpMma,      // warps run mma.sync on weight rows loaded straight into registers (no TMA, no
                 // shared-memory staging): a few tokens, where the weight read is the whole cost;
                 // swapped, tile = 16 weight rows x 8 tokens x 64-element k steps per warp
};

// How a launch covers its problems.
enum class Grouping : std::uint8_t {
  kNone,     // one problem
  kGrouped,  // one GEMM per group (a MoE layer's experts) over its run of rows, group sizes on the device
};

// How work is split over CTAs. kStreamK runs CUTLASS's sm90 stream-K scheduler: whole tiles where
// they fill the GPU's waves, otherwise K-loop shares of tiles reduced through the workspace
// (split-K being its even special case); KernelChoice::stream_k says where the shares start.
enum class Decomposition : std::uint8_t { kDataParallel, kStreamK };

struct TileShape {
  int m = 0, n = 0, k = 0;
};

struct ClusterShape {
  int m = 1, n = 1;
};

struct KernelKey {
  Op op = Op::kGemm;
  Arch arch = Arch::kSm90;
  // Element types: A the activations (GEMM A, gated x), B the weight, D the output.
  DType a = DType::kBF16;
  DType b = DType::kBF16;
  DType d = DType::kBF16;
  Schedule schedule = Schedule::kCooperative;
  TileShape tile;        // CTA tile of the GEMM actually run (M and N exchanged when swap_ab)
  ClusterShape cluster;
  bool swap_ab = false;  // runs Dᵀ = B·Aᵀ: the weight on wgmma's 64-row side, few tokens on its N side
  EpilogueCoverage epilogue = EpilogueCoverage::kFull;
  bool has_c = false;    // compiled with a C (residual) operand
  Grouping grouping = Grouping::kNone;
  Decomposition decomposition = Decomposition::kDataParallel;
};

inline auto fields(const KernelKey& k) {
  return std::tie(k.op, k.arch, k.a, k.b, k.d, k.schedule, k.tile.m, k.tile.n, k.tile.k, k.cluster.m, k.cluster.n,
                  k.swap_ab, k.epilogue, k.has_c, k.grouping, k.decomposition);
}
inline bool operator==(const KernelKey& x, const KernelKey& y) { return fields(x) == fields(y); }
inline bool operator!=(const KernelKey& x, const KernelKey& y) { return !(x == y); }

// The kernel's name, e.g. "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_cast_noc" or
// "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1". Distinct keys have distinct names.
std::string name(const KernelKey& key);

constexpr const char* to_string(Op op) {
  switch (op) {
    case Op::kGemm: return "gemm";
    case Op::kGatedMlp: return "gated_mlp";
  }
  return "unknown op";
}

// Tile order of the persistent scheduler.
enum class RasterOrder : std::uint8_t { kHeuristic, kAlongM, kAlongN };

constexpr const char* to_string(RasterOrder r) {
  switch (r) {
    case RasterOrder::kHeuristic: return "heuristic";
    case RasterOrder::kAlongM: return "along_m";
    case RasterOrder::kAlongN: return "along_n";
  }
  return "unknown raster order";
}

// How a stream-K kernel with splits 1 decomposes its tiles.
enum class StreamKMode : std::uint8_t {
  kHeuristic,  // CUTLASS's heuristic: where the last wave of tiles is at least half full, every
               // tile runs whole; else the tiles of the last two waves share K loops over the SMs
  kShareTail,  // CUTLASS's StreamK mode: the last two waves' tiles (all tiles of at most two waves)
               // share K loops over the SMs whenever the last wave is not full
};

constexpr const char* to_string(StreamKMode m) {
  switch (m) {
    case StreamKMode::kHeuristic: return "heuristic";
    case StreamKMode::kShareTail: return "share_tail";
  }
  return "unknown stream-K mode";
}

// What runs a call: a compiled kernel and its launch knobs. Dispatch chooses one; a caller may
// force one (tuning.hpp lists the compiled kernels).
struct KernelChoice {
  KernelKey key;
  RasterOrder raster = RasterOrder::kHeuristic;
  int swizzle = 1;  // persistent-scheduler tile swizzle: 1, 2, 4 or 8
  // Stream-K kernels: > 1 splits every tile's K loop into this many even shares (split-K); 1
  // leaves the decomposition to the stream-K mode below. Warp-mma kernels: the CTAs of a
  // cluster that share each block of weight rows' K loop (1, 2, 4 or 8).
  int splits = 1;
  StreamKMode stream_k = StreamKMode::kHeuristic;  // stream-K kernels with splits 1 only
};

// The key's name, then the knobs that differ from the defaults:
// "<name> raster=along_m swizzle=4 splits=4" or "<name> stream_k=share_tail".
std::string to_string(const KernelChoice& choice);

}  // namespace epifuse
