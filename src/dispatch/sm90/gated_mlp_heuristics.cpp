// Kernel choice for the sm90 fused gated MLP, by the number of tokens M, how many padded rows
// each token tiling computes, and how well the tiles fill the SMs (docs/heuristics.md has the
// measurements: sweeps of every bf16 gated kernel over odd and even M on three models and on
// narrow-N random shapes, bench/results/tuning/issue9/):
//   M <= 8, bf16, off HBM3, K < 16384, the packed weight's blocks of 16 rows within one wave of
//              four per SM -> the warp-mma kernel in K-loop shares, ahead of the delegation too
//              (warp_mma_fits_one_wave)
//   M <= 64    -> swapped 128x32: packed weight rows on wgmma's 64-row side, the few tokens on
//                 its N side; off HBM3 at up to 16 tokens, where it runs whole tiles, a swapped
//                 128x16 (sixteen_token_tile_pays)
//   M <= 256 with few weight tiles (fewer 128-row weight tiles times 128-token tiles than half
//              the SMs) -> the same swapped 128x32, whose 32-token tiles fill more SMs
//   M <= 80    -> swapped cooperative 128x80, cluster 2x1 along the weight
//   M <= 96    -> swapped cooperative 128x96, cluster 2x1, but the stream-K kernel below where its
//                 rule holds
//   M <= 128   -> pingpong 128x128, cluster 1x2; the swapped 128x128 stream-K past one wave of
//                 weight tiles whose last wave holds under a fifth of the SMs, K >= 4096
//   449 <= M <= 4096 (129 <= M with K < 1792) with at most 127 packed-weight tiles of 128 rows,
//              outside the delegation rule's shapes -> the kernel a wave model finds cheapest (below);
//              the unswapped pingpong past one wave yields to 224-token tiles in one; the same
//              model at 129-1024 tokens with K < 1024 on any weight (on wider ones at most two
//              144-token tiles and one 208)
//   M > 2048 with a packed weight of 2 GB or more (Llama-405B class)
//              -> cooperative 128x256, cluster 1x2
//   M <= 4096  -> the tiling that computes the fewest rows:
//                 swapped 144- to 224-token tiles (one of 144, 160, 176, 208 or 224 tokens up to
//                 224, two of 144 for 257-288, two of 160 for 289-320, two of 224 for 385-448, five
//                 of 160 for 769-800) while the weight tiles make at most 3.4 waves, cooperative,
//                 cluster 2x1 along the weight; 144, 176 and 208 only where whole tiles are chosen
//                 and twice their CTAs would not fit in one wave; past 3.4 waves two of 144, and
//                 with K >= 2048 whole tiles, one of 144 or 208 or two of 160 or 224 tokens, where
//                 they pad least, but at 129-144 tokens with K >= 8192 where one of 144 keeps the
//                 SMs under 92 % busy, the 160-token stream-K kernel sharing its tail;
//                 stream-K for one tile past one wave where the last fills below
//                 80 % or K >= 8192, for two where K >= 8192 and the last wave is below 80 %
//                 full or (160 and 224) once the weight tiles outnumber the SMs, for five where whole tiles
//                 fill their last wave below 95 %; else, ties in this order (K >= 1024; a shorter
//                 K loop takes the unswapped tiles where they compute no more rows):
//                 swapped pingpong 128x128, cluster 1x2 along the tokens (an even number of
//                 128-token tiles; each weight tile is multicast to the pair, so memory streams it
//                 half as often);
//                 swapped pingpong 128x96, cluster 1x2 (an even number of 96-token tiles; up to
//                 640 tokens, as far as it was swept);
//                 unswapped 128-row tiles (any number), pingpong 128x128 1x2
//   M > 4096   -> pingpong 128x128, cluster 1x2; off HBM3, narrow weights with K >= 32768 within
//                 10 waves on the wave model's cheapest kernel; where the pingpong's cluster pads
//                 an odd count of weight tiles by 4 % or more, the swapped pingpong 128x128 1x2
//                 (many_tokens_configuration)
// On an H100 (HBM3), more than 1024 tokens with K >= 5120: the cooperative 128x256 1x2 wherever
// the above picks a pingpong 128x128, on weights of 32 MiB or more that it pads little, walking
// along the tokens where their tiles outnumber the weight's clusters twice (cooperative_on_hbm3);
// with K of 2048-5119 and a partial 128-row tile up to 4096 tokens, the swapped cooperative 160- or
// 224-token tiles where they compute no more rows than that pingpong (swapped_tiles_on_hbm3), and
// where they would compute more, up to 2304 tokens, the cooperative 128x256 1x2
// (cooperative_mid_k_on_hbm3). At 257-4096 tokens with K of 2048-8192 on more than 127 weight
// tiles, the swapped pingpong 128x160 2x1 where 160-token tiles compute fewer rows than the
// pingpong 128x128 or cooperative 160-token tiles picked above, or as many (off HBM3 only with
// K < 5120; pingpong160_pays). Off HBM3 with K >= 2048, the swapped pingpong 128x112 2x1 at 97-112
// tokens past one wave of weight tiles where the pingpong 128x128 is picked (pingpong112_pays).
// Stream-K: the swapped 128x32 (M <= 256) below half a wave at K >= 8192, and past one wave where
// the last is below half full, the waves below 85 % full and K >= 2048 (whole_or_stream_k); a
// swapped cooperative 128x128 (M > 256) stream-K kernel where whole tiles would fill their last
// wave of SMs below 80 % and K is at least 8192 (narrow N: 0.28-0.93x became 0.50-1.03x).
// A stream-K kernel whose tiles make less than one wave launches in the share-tail mode where the
// wave model prices sharing them all below running them whole (stream_k_mode below); so does the
// 160-token one at 129-144 tokens past 3.4 waves of weight tiles (shares_the_160_tail), and, on
// HBM3e at up to 64 tokens, the 128x32 one past one wave where the last is at least half full, the
// waves below 92 % full and K >= 8192 (shares_past_one_wave).
// Delegated to cuBLASLt + act·mul (src/delegate/cublaslt_gated.hpp): narrow weights with K of
// 2048 or more, where fewer 128x128 tiles than SMs are the whole problem and the fused kernels
// ran at 0.33-0.97x of cuBLASLt + act·mul at 46 of the 50 random draws the rule selects
// (bench/results/grid/gated-random.json; the other four 0.98-1.04x):
// up to 64 tokens when the packed weight has fewer 128-row tiles than a quarter of the SMs (except
// where the warp-mma kernel runs: warp_mma_fits_one_wave),
// beyond when its tiles times the 128-token tiles are at most three quarters of the SMs; and
// (bf16) 129-4096 tokens on at most 127 weight tiles with K >= 1792, up to 8 waves of 128x128
// tiles (on HBM3e from 1024 tokens 2.5; few_weight_tiles_long_k).
// Short K loops (0.80-1.45x) and wider weights stay fused; docs/heuristics.md lists the wide,
// wave-quantized shapes that still lose.
// A cluster of 2 along M pads an odd t to even, and the padded tile costs a whole one; worse,
// its CTAs run ahead of the others, which breaks the L2 reuse of weight tiles: at 777x28672x8192
// the 2x1 kernel read 3.2 GB from DRAM for a 0.94 GB weight (ncu), 1.24x the time of M = 1024.
// Past one wave of the warp-mma kernel's singles its CTAs queue: it took 0.95-1.27x the swapped
// 128x32 kernel's time at 544-1888 blocks (tuning/issue9/decode-warp-mma/, the sweep), so it runs
// only within that wave.
// An element type compiled with fewer kernels (fp16) falls back to its swapped 128x64 kernel
// (M <= 64) or its cooperative 128x256 1x2 kernel.
#include <algorithm>
#include <cstddef>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kSwapped32StreamK = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true,
                                             Decomposition::kStreamK};
constexpr Configuration kSwapped128StreamK = {Schedule::kCooperative, {128, 128, 64}, {1, 1}, true,
                                              Decomposition::kStreamK};
constexpr Configuration kSwapped16 = {Schedule::kCooperative, {128, 16, 128}, {1, 1}, true};
constexpr Configuration kSwapped64 = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kSwappedPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, true};
constexpr Configuration kSwappedPingpong96 = {Schedule::kPingpong, {128, 96, 64}, {1, 2}, true};
// 144- to 224-token tiles, a 2x1 cluster along the weight (x multicast); 160 and 224 with stream-K twins.
constexpr Configuration kSwapped160 = {Schedule::kCooperative, {128, 160, 64}, {2, 1}, true};
constexpr Configuration kSwapped160StreamK = {Schedule::kCooperative, {128, 160, 64}, {2, 1}, true,
                                              Decomposition::kStreamK};
constexpr Configuration kSwapped224 = {Schedule::kCooperative, {128, 224, 64}, {2, 1}, true};
constexpr Configuration kSwapped224StreamK = {Schedule::kCooperative, {128, 224, 64}, {2, 1}, true,
                                              Decomposition::kStreamK};
constexpr Configuration kSwappedPingpong160 = {Schedule::kPingpong, {128, 160, 64}, {2, 1}, true};
constexpr Configuration kSwappedPingpong112 = {Schedule::kPingpong, {128, 112, 64}, {2, 1}, true};
constexpr Configuration kSwapped144 = {Schedule::kCooperative, {128, 144, 64}, {2, 1}, true};
constexpr Configuration kSwapped176 = {Schedule::kCooperative, {128, 176, 64}, {2, 1}, true};
constexpr Configuration kSwapped208 = {Schedule::kCooperative, {128, 208, 64}, {2, 1}, true};
// 65-96 tokens past the 128x32 rule's weights: one swapped 80- or 96-token tile per weight tile
// (cooperative, a 2x1 cluster along the weight multicasting x), where the 128-token tile computes
// 33-97 % more rows than the call has. On the catalogue MLPs the pingpong read the weight at 54-84 %
// of the read bandwidth (f60880c's sweep); why the padded rows cost time was not measured apart.
// H200, each kernel swept beside the dispatched one at 65-96 tokens on nine catalogue MLPs (30
// points; bench/results/tuning/issue9/tiles-80-96/): the 80-token tile took 0.85-0.94x the
// pingpong 128x128 1x2's time at 65-80 tokens, the 96-token one 0.90-0.95x at 81-96 (0.93-0.95x
// on Llama-3 70B and Qwen2.5-72B); on Phi-3 medium, where the swapped 128x128 stream-K kernel
// shares the last wave, 0.97-0.98x (80) and 1.00x (96), so that rule keeps 81-96 tokens. On 36
// fresh draws of the branch the calls took 0.90x the time (0.82-1.01x; an H100 0.95x), 0.97 ->
// 1.07 of cuBLASLt + act·mul.
constexpr Configuration kSwapped80 = {Schedule::kCooperative, {128, 80, 64}, {2, 1}, true};
constexpr Configuration kSwapped96 = {Schedule::kCooperative, {128, 96, 64}, {2, 1}, true};
constexpr Configuration kPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, false};
constexpr Configuration kCooperative1x2 = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};

// A configuration's output tiles over the call, each cluster's CTAs counted (CUTLASS pads the tile
// grid to whole clusters).
std::int64_t output_tiles(const Configuration& c, const GatedMlpArgs& args) {
  const std::int64_t weight_tile = c.swap_ab ? c.tile.m : c.tile.n;
  const std::int64_t token_tile = c.swap_ab ? c.tile.n : c.tile.m;
  const std::int64_t weight_cluster = c.swap_ab ? c.cluster.m : c.cluster.n;
  const std::int64_t token_cluster = c.swap_ab ? c.cluster.n : c.cluster.m;
  return ceil_div(ceil_div(2 * args.w.N, weight_tile), weight_cluster) * weight_cluster *
         ceil_div(ceil_div(args.M, token_tile), token_cluster) * token_cluster;
}

// Few weight tiles at 449-4096 tokens (129-4096 with K < 1792): no tiling rule below was tuned
// there (every catalogue MLP has 128 weight tiles or more), and how the tiles fill the SMs' waves
// decides. Each kernel's time is modelled as its waves of whole tiles times a tile's multiply-adds,
// plus a fixed cost per tile in K steps (smaller for a pingpong kernel, whose epilogue overlaps the
// other warp group's K loop), over its family's efficiency; a stream-K kernel as CUTLASS's
// scheduler shares its last two waves' tiles (below), plus a fixed cost of 3,000 K steps of one
// tile. The constants were fitted to every compiled kernel swept over 141 such shapes
// (tools/fit_few_weight_tiles.py, bench/results/tuning/issue9/few-weight-tiles/refit/); on 32
// shapes drawn afterwards where it changed the kernel b50726b chose (a 48-tile model, the rules
// beyond), the call ran 1.075x as fast (geometric mean; 19 faster, 4 slower by more than 3 %). The
// cooperative 128x256 1x2 fitted too slow to be chosen.
// Beside its modelled time, a kernel may take part in one rule on waves (cheapest_modeled).
enum class OneWaveRule { kNone, kYieldsPastOneWave, kPreferredInOneWave };
struct ModeledKernel {
  Configuration config;
  double efficiency;
  double max_waves = 0;  // > 0: no candidate past this many waves of its tiles
  OneWaveRule one_wave_rule = OneWaveRule::kNone;
};
constexpr double kStreamKEfficiency = 0.95;
// The swapped 128x32 only within two waves of its tiles. Past them the model still priced it
// cheapest at 12 shapes of 129-448 tokens on 45-88 weight tiles (3.2-5.0 waves), where it ran
// 0.67-0.94 of cuBLASLt + act·mul and the rules' kernels 0.87-1.03 (H200,
// bench/results/tuning/issue9/few-weight-tiles-129-448/sweep-suite-5c08106/). Within two waves it
// ran within 2 % of the fastest swept kernel at 55 of the 60 swept shapes where the model picks it.
// The cap also changes calls past 448 tokens: four fresh draws of 580-604 tokens went from 0.66-0.88
// to 0.94-1.02 (cap-736392b/ there).
// The unswapped pingpong past one wave of its tiles yields to the 224-token kernel where that one's
// tiles make one wave (of the wide kernels it has the fewest token tiles). The model priced the
// pingpong cheaper at 6 swept shapes where that held, 5 of them 419-438 tokens on 45-50 weight tiles
// (4 token tiles, 1.4-1.5 waves), where it ran 0.76-0.88 of cuBLASLt + act·mul and two 224-token
// tiles 0.91-0.98. On 67 shapes drawn where the rule changes the kernel the call took 0.930x the time
// (0.81-1.02x; H100 0.927x) and those below 0.95 went from 22 to 4 (H200,
// bench/results/tuning/issue9/few-weight-tiles-129-448/one-wave-rule/). Not the 208-token kernel,
// though it pads less: its tile costs about 400 K steps more, and where the rule would take it
// (36 shapes) it took 1.01-1.07x the 224-token kernel's time.
constexpr ModeledKernel kFewWeightTileKernels[] = {
    {kSwapped144, 1.0},
    {kSwapped160, 1.0},
    {kSwapped176, 1.0},
    {kSwapped208, 1.0},
    {kSwapped224, 1.0, 0, OneWaveRule::kPreferredInOneWave},
    {kSwappedPingpong1x2, 0.8},
    {kSwappedPingpong96, 0.8},
    {kPingpong1x2, 0.9, 0, OneWaveRule::kYieldsPastOneWave},
    {kSwapped128StreamK, kStreamKEfficiency},
    {kSwapped160StreamK, kStreamKEfficiency},
    {kSwapped224StreamK, kStreamKEfficiency},
    {kSwapped32, 0.8, 2}};
constexpr std::int64_t kFewWeightTiles = 127;
constexpr std::int64_t kModelMinTokens = 449;
constexpr std::int64_t kModelMaxTokens = 4096;
// The model, its constants unchanged, also at 129-448 tokens with K under 1792 (with a longer K
// such calls are delegated, few_weight_tiles_long_k below; no call there was timed fused). H200,
// every compiled kernel swept at 72 such shapes (48 with the worst random draws, 24 drawn apart;
// bench/results/tuning/issue9/few-weight-tiles-129-448/): the model's kernel 1.090x and 1.127x as
// fast as the rules' (geometric means; the fastest swept 1.096x and 1.137x), below 0.95 of cuBLASLt
// + act·mul at 34 -> 10 of the 72; 396x1280x1280 0.64 -> 0.91, 423x320x1408 0.52 -> 1.06. Of the 38
// shapes whose kernel changed, 31 ran faster by more than 3 % and 2 slower: 421x3200x1152 (0.98 ->
// 0.84; the one-wave rule above took it to 0.99 in a later A/B) and 372x6528x1152 (1.05 -> 0.99).
constexpr std::int64_t kShortKModelMinTokens = 129;
// The model also at 449-1024 tokens with K >= 16384 on 128-768 weight tiles, where the rules below
// take the 128-token pairs (narrower weights take the model above, or are delegated). H200, every
// compiled kernel swept at 504-1004 tokens on 160-704 weight tiles
// (bench/results/tuning/issue9/long-k-449-1024/), against cuBLASLt + act·mul, the rules' kernel ->
// the model's: with K >= 16384 faster at all four (688x10240x35264 0.89 -> 1.04 on
// 176-token tiles, 596x12160x32000 0.91 -> 0.96, 946x30592x28800 0.98 -> 1.04, 688x8768x26816 0.92
// -> 0.95-0.97); with K 12608-14784 mixed (935x45568x13056 0.96 -> 1.00, 1004x45056x13056 1.04 ->
// 1.03, 504x17984x14784 1.08-1.10 -> 1.06). On 12 fresh draws of the class (forced pairs beside
// it, two passes) the model's kernel took 0.80-0.96x the pairs' time at the eight with 144-511
// weight tiles (696x27968x23104 0.99-1.02x) and 0.89-1.07x at the four with 832-938 (Llama-3 405B
// at 500 and 1000 tokens 1.03x and 1.05-1.07x), so weights of more than 768 tiles keep the rules.
// With that cap, on 18 draws it changes (16 fresh; H200, two passes): 0.942x the time (0.75-1.04x,
// slower at three on the 128x128 stream-K kernel), 0.932 -> 0.990 of cuBLASLt + act·mul.
// Not on an H100's HBM3: there the model's kernels took 0.53-1.51x the pairs' time on those draws
// (144-token tiles over 16-44 waves 1.23-1.51x).
constexpr std::int64_t kLongKModelMaxTokens = 1024;
constexpr std::int64_t kLongKModelMinK = 16384;
constexpr std::int64_t kLongKModelMaxWeightTiles = 768;
// The model also at 129-1024 tokens with K under 1024 on wider weights, where the rules below take
// the tiling that computes the fewest rows. A short K loop leaves each tile's fixed cost a large
// share of its time, the cost the model prices and the rules do not: the cooperative 144- to
// 224-token tiles lost to the pingpongs, whose epilogue overlaps a K loop, where they saved few rows.
// H200 (bench/results/tuning/issue9/short-k-model/): at 45 shapes of 149-798 tokens on 148-977
// weight tiles with K 256-960, kernels swept, the rules' kernel ran 0.988 of cuBLASLt + act·mul
// (geometric mean; 16 below 0.95), the model's 1.027 (12). On 30 fresh draws where it changes the
// kernel (the old one forced beside it, two passes) the call took 0.959x the time (0.78-1.15x),
// 0.998 -> 1.041 (below 0.95: 9 -> 7); slower by more than 3 % at six: two 208-token tiles at
// 390x41024x768 (1.15x), three of 144 at 395x19072x640 (1.06x), and the pingpong for one or two
// 224-, 160- or 144-token tiles with K of 704-832 (1.03-1.13x).
constexpr std::int64_t kShortKAnyWeightModelMaxK = 1023;
constexpr std::int64_t kShortKAnyWeightModelMaxTokens = 1024;
constexpr double kCooperativeTileKSteps = 3072;
constexpr double kPingpongTileKSteps = 2048;
constexpr double kStreamKShareCost = 1.0;
constexpr double kStreamKFixedKSteps = 3000;

// Whether CUTLASS's stream-K scheduler in its heuristic mode shares any tiles: only where the last
// wave of `tiles` is not full and less than half full (tile_scheduler_params.h, get_num_sk_tiles).
bool heuristic_mode_shares(std::int64_t tiles, std::int64_t sm_count) {
  const std::int64_t last_wave = tiles % sm_count;
  return last_wave != 0 && 2 * last_wave < sm_count;
}

double modeled_time(const ModeledKernel& k, const GatedMlpArgs& args, std::int64_t sm_count, StreamKMode mode) {
  const Configuration& c = k.config;
  const std::int64_t tiles = output_tiles(c, args);
  const double tile_area = static_cast<double>(c.tile.m * c.tile.n);
  const double tile_k_steps = c.schedule == Schedule::kPingpong ? kPingpongTileKSteps : kCooperativeTileKSteps;
  const double tile_time = tile_area * (static_cast<double>(args.w.K) + tile_k_steps) / k.efficiency;
  // CUTLASS's stream-K scheduler runs whole tiles but in the last two waves and shares those two
  // waves' tiles over the SMs, where a tile's K loop has more than 8 iterations and the last wave
  // is less than half full (its heuristic mode) or not full (its StreamK mode, kShareTail); else
  // every tile runs whole. The model prices kShareTail within one wave only, where stream_k_mode
  // weighs it; the rules that launch it past one wave (shares_the_160_tail, shares_past_one_wave)
  // do not use this price.
  const bool shared = mode == StreamKMode::kShareTail ? tiles % sm_count != 0 && tiles < sm_count
                                                      : heuristic_mode_shares(tiles, sm_count);
  if (c.decomposition == Decomposition::kStreamK && shared && ceil_div(args.w.K, c.tile.k) > 8) {
    const std::int64_t whole_waves = std::max<std::int64_t>(tiles / sm_count - 1, 0);
    const std::int64_t shared_tiles = tiles - whole_waves * sm_count;
    return static_cast<double>(whole_waves) * tile_time +
           static_cast<double>(shared_tiles) * tile_time / static_cast<double>(sm_count) * kStreamKShareCost +
           kStreamKFixedKSteps * tile_area;
  }
  return static_cast<double>(ceil_div(tiles, sm_count)) * tile_time;
}

bool shares_the_160_tail(const GatedMlpArgs& args, std::int64_t sm_count);

// The stream-K mode a stream-K kernel launches in: kShareTail where its tiles make less than one
// wave and sharing them all is modelled cheaper than CUTLASS's heuristic mode, which runs tiles
// that fill half the SMs or more whole. Measured (bench/results/tuning/issue9/stream-k-mode/ and
// stream-k-share-tail/), StreamK mode over the heuristic mode at 66-119 tiles: 1.16-1.82x for
// 224-token tiles, as modelled; 0.89-1.37x for 160; 0.89-1.10x for 128x128 near a full wave, where
// the model's price is a coin toss; mixed past one wave, where it mispredicts. Every stream-K
// kernel dispatch chooses is priced at the model's stream-K efficiency; the 160-token one takes the
// share-tail mode wherever shares_the_160_tail (below) chose it, and choose() launches the 128x32
// one in it wherever shares_past_one_wave did.
StreamKMode stream_k_mode(const Configuration& c, const GatedMlpArgs& args, std::int64_t sm_count) {
  if (c.decomposition != Decomposition::kStreamK) return StreamKMode::kHeuristic;
  if (c.tile.n == 160 && shares_the_160_tail(args, sm_count)) return StreamKMode::kShareTail;
  const ModeledKernel k{c, kStreamKEfficiency};
  return modeled_time(k, args, sm_count, StreamKMode::kShareTail) < modeled_time(k, args, sm_count, StreamKMode::kHeuristic)
             ? StreamKMode::kShareTail
             : StreamKMode::kHeuristic;
}

// Of `kernels`, those `allowed` admits are the candidates.
template <std::size_t kCount, typename Allowed>
Configuration cheapest_modeled(const GatedMlpArgs& args, std::int64_t sm_count, const ModeledKernel (&kernels)[kCount],
                               Allowed&& allowed) {
  const auto time = [&](const ModeledKernel& k) {
    return modeled_time(k, args, sm_count, stream_k_mode(k.config, args, sm_count));
  };
  const auto candidate = [&](const ModeledKernel& k) {
    const double tiles = static_cast<double>(output_tiles(k.config, args));
    return (k.max_waves <= 0 || tiles <= k.max_waves * static_cast<double>(sm_count)) && allowed(k.config);
  };
  const auto cheapest = [&](auto&& admits) {
    const ModeledKernel* best = nullptr;
    double best_time = 0;
    for (const ModeledKernel& k : kernels) {
      if (!candidate(k) || !admits(k)) continue;
      if (const double t = time(k); !best || t < best_time) {
        best = &k;
        best_time = t;
      }
    }
    return best;
  };
  // Every table holds kernels without max_waves that every caller allows, so some kernel is
  // always a candidate.
  const ModeledKernel* best = cheapest([](const ModeledKernel&) { return true; });
  if (best->one_wave_rule == OneWaveRule::kYieldsPastOneWave && output_tiles(best->config, args) > sm_count) {
    const ModeledKernel* one_wave = cheapest([&](const ModeledKernel& k) {
      return k.one_wave_rule == OneWaveRule::kPreferredInOneWave && output_tiles(k.config, args) <= sm_count;
    });
    if (one_wave) return one_wave->config;
  }
  return best->config;
}

template <std::size_t kCount>
Configuration cheapest_modeled(const GatedMlpArgs& args, std::int64_t sm_count, const ModeledKernel (&kernels)[kCount]) {
  return cheapest_modeled(args, sm_count, kernels, [](const Configuration&) { return true; });
}

constexpr std::int64_t kDelegationMinK = 2048;

// Narrow weights with K of 2048 or more, whose tiles are the whole problem (the header's rule).
bool narrow_long_k(const GatedMlpArgs& args, std::int64_t sm_count) {
  if (args.w.K < kDelegationMinK) return false;
  const std::int64_t weight_tiles = ceil_div(2 * args.w.N, 128);
  if (args.M <= 64) return 4 * weight_tiles < sm_count;
  return 4 * weight_tiles * ceil_div(args.M, 128) <= 3 * sm_count;
}

// 129-4096 tokens on a weight of at most kFewWeightTiles 128-row tiles, K >= 1792, and at most 8
// waves of 128x128 tiles (on HBM3e from 1024 tokens 2.5 waves). A trial that delegated every call past 64
// tokens on such weights (H100, 78 random shapes, each call's fused kernel forced beside it;
// bench/results/tuning/issue9/few-weight-tiles-delegated/) ran the 46 calls of 129-4096 tokens
// with K >= 1792 at 0.959 of cuBLASLt + act·mul delegated (min 0.879) and 0.833 fused (min
// 0.474), the delegated path faster at 37. With K below 1792 the fused kernels won 15 of 19 (1.050
// against 0.892), and at 65-128 tokens 8 of 13 (1.021 against 0.978). On 40 fresh shapes of the
// class: 0.964 against 0.873, faster at 25; the fused kernels won every call past 8 waves (six, over
// both sets: 0.84-0.97x for the delegated path), so those stay fused. On an H200, from 1024 tokens
// (88 calls of the class, 40 of them fresh draws, each delegated beside its fused kernel;
// bench/results/tuning/issue9/few-weight-tiles-delegated/h200-1024-4096/): delegated 0.977 (min
// 0.876), fused 0.937 (min 0.656), the delegated path faster at 53. It lost where the tiles make
// more waves: past 2.5 waves the fused kernels won 21 of 31 (2981x2688x1920 1.120 against 0.876),
// within them the delegated path 43 of 57 (1070x320x5568 1.033 against 0.669). With that cap the 88
// calls ran 0.994 (min 0.846, 12 below 0.95; all fused 40, all delegated 22).
// Bf16 only: fp16 was not measured.
constexpr std::int64_t kFewWeightTilesDelegationMinTokens = 129;
constexpr std::int64_t kFewWeightTilesDelegationMaxTokens = 4096;
constexpr std::int64_t kFewWeightTilesDelegationMinK = 1792;
constexpr double kFewWeightTilesDelegationMaxWaves = 8;
constexpr std::int64_t kFewWeightTilesDelegationHbm3eWaveCapFromTokens = 1024;
constexpr double kFewWeightTilesDelegationHbm3eMaxWaves = 2.5;

bool few_weight_tiles_long_k(const GatedMlpArgs& args, const DeviceCaps& caps) {
  // The 8-wave cap throughout on the H100's HBM3, where it was measured.
  const double max_waves = !has_hbm3(caps) && args.M >= kFewWeightTilesDelegationHbm3eWaveCapFromTokens
                               ? kFewWeightTilesDelegationHbm3eMaxWaves
                               : kFewWeightTilesDelegationMaxWaves;
  const std::int64_t weight_tiles = ceil_div(2 * args.w.N, 128);
  const double tiles = static_cast<double>(weight_tiles * ceil_div(args.M, 128));
  return args.w.dtype == DType::kBF16 && args.M >= kFewWeightTilesDelegationMinTokens &&
         args.M <= kFewWeightTilesDelegationMaxTokens && weight_tiles <= kFewWeightTiles &&
         args.w.K >= kFewWeightTilesDelegationMinK && tiles <= max_waves * static_cast<double>(caps.sm_count);
}

// The shapes delegated to cuBLASLt + act·mul (when the workspace holds the product).
bool in_delegation_region(const GatedMlpArgs& args, const DeviceCaps& caps) {
  return narrow_long_k(args, caps.sm_count) || few_weight_tiles_long_k(args, caps);
}

constexpr double kLargeWeightBytes = 2e9;
constexpr std::int64_t kStreamKMinK = 8192;
constexpr double kStreamKBelowWaveFill = 0.8;
constexpr double kFiveTilesStreamKBelowWaveFill = 0.95;
// The swapped 128-token pair only from this K: below it the unswapped tiles ran faster where both
// were timed (past 4096 tokens and at ties below; why was not measured).
constexpr std::int64_t kSwappedPairMinK = 1024;
constexpr std::int64_t kManyWavesTilesMinK = 2048;

// The share of the SMs that whole tiles keep busy over their waves.
double wave_fill(std::int64_t tiles, std::int64_t sm_count) {
  return static_cast<double>(tiles) / static_cast<double>(ceil_div(tiles, sm_count) * sm_count);
}

// At 129-144 tokens past 3.4 waves of weight tiles, with K >= 8192 and one 144-token tile per
// weight tile keeping the SMs under 92 % busy over its waves (wave_fill), the 160-token stream-K
// kernel in the share-tail mode: H200, every 144- and 160-token kernel swept at 14 shapes
// (bench/results/tuning/issue9/tail-160-129-144/), against cuBLASLt + act·mul, the 144-token tile
// -> it: Qwen2.5-72B at 129-144 tokens (462 weight tiles, 88 % busy) 0.907-0.933 -> 0.926-0.959,
// Llama-3 405B at 131-144 (832, 90 %) 0.907-0.915 -> 0.942-0.949, 142x45056x10240 0.928 -> 0.959,
// 130x36352x12288 0.897 -> 0.940; the heuristic mode ran 0.85-0.96. Not at 134x64512x9216 (1008
// tiles, 95 %: 0.939 against 0.965), nor with K of 4096-7168 (0.93-0.96 against 1.00-1.03 at four
// shapes). On 13 shapes timed afterwards (10 fresh draws, 3 catalogue), the old rule in the same
// run: 0.936-0.995x its time (H200); on an H100 1.000-1.054 of cuBLASLt + act·mul where the
// 144-token tile ran 0.980-1.043.
constexpr double kTail160BelowWaveFill = 0.92;

bool shares_the_160_tail(const GatedMlpArgs& args, std::int64_t sm_count) {
  const std::int64_t weight_tiles = ceil_div(2 * args.w.N, 128);
  return args.M > 128 && args.M <= 144 && args.w.K >= kStreamKMinK && 5 * weight_tiles > 17 * sm_count &&
         wave_fill(weight_tiles, sm_count) < kTail160BelowWaveFill;
}

constexpr std::int64_t kPastOneWaveStreamKMinK = 2048;
constexpr double kPastOneWaveStreamKBelowWaveFill = 0.85;

// The swapped 128x32 tiles whole, or its stream-K twin. CUTLASS's heuristic mode shares tiles only
// where the last wave is less than half full (else it runs every tile whole, on a kernel slower
// than the whole-tile one): at 44 shapes of few tokens whose 66-131 tiles make one wave at least
// half full, whole tiles ran 1.127x as fast (0.98-1.37x) as the stream-K kernel, and 1.065x
// (0.93-1.23x) as fast as it in its share-tail mode
// (bench/results/tuning/issue9/stream-k-share-tail/few-tokens*.json). Below one wave: stream-K
// where K >= 8192 (below half a wave it ran 1.04x as fast as whole tiles, 11 shapes, 0.91-1.35x).
// Past one wave: stream-K where CUTLASS shares the last two waves, whole tiles fill their waves
// below 85 % and K >= 2048. Decode on Qwen2.5-7B and Phi-3 medium (296 and 280 tiles): stream-K
// 1.04-1.09x as fast on an H200, 1.01-1.07x on an H100; Llama-3 70B (448 tiles, 84.8 % full)
// 1.02-1.03x on the H200, within 1.2 % on the H100, where Llama-3 8B and Gemma-2 9B at 33-64 tokens
// (448 tiles) ran 0.98-1.00x; 224 tiles with a last wave of 92 stay whole where K < 8192 or on HBM3
// (the stream-K kernel would run them whole in its heuristic mode; shares_past_one_wave below takes
// the rest). bench/results/tuning/issue9/decode-stream-k/.
// Past one wave with the last at least half full, where the heuristic mode runs every tile whole:
// on HBM3e at up to 64 tokens with K >= 8192 and whole tiles filling their waves below 92 %, the
// stream-K twin in the share-tail mode (the last two waves' tiles share their K loops over the SMs;
// choose() sets the mode). A decode call reads its weight at the speed of the SMs that stream it,
// and a last wave of 66-110 of 132 SMs leaves the rest idle. H200, the 128x32 kernel forced whole,
// stream-K and share-tail at 59 calls of 1-57 tokens (bench/results/tuning/issue9/
// decode-share-tail/): at the 15 calls of 199-462 tiles this takes, share-tail took 0.87-1.01x the
// time of whole tiles (1x12736x62080 0.870x, 0.879 -> 1.007 of cuBLASLt + act·mul); with K of
// 576-5376 it took 0.99-1.08x (Llama-3 8B decode, 224 tiles at K 4096, 1.07x), and at fills of
// 0.94-0.99 1.00-1.04x. On 26 fresh draws it changes, 0.964x the time (0.83-1.03x), 0.982 ->
// 1.018. Not measured on HBM3.
constexpr double kSharePastOneWaveBelowWaveFill = 0.92;

constexpr std::int64_t kSharePastOneWaveMaxTokens = 64;  // measured up to 63

bool shares_past_one_wave(const GatedMlpArgs& args, std::int64_t tiles, const DeviceCaps& caps) {
  return !has_hbm3(caps) && args.M <= kSharePastOneWaveMaxTokens && tiles > caps.sm_count &&
         !heuristic_mode_shares(tiles, caps.sm_count) && args.w.K >= kStreamKMinK &&
         wave_fill(tiles, caps.sm_count) < kSharePastOneWaveBelowWaveFill;
}

// The 128x32 stream-K twin that shares_past_one_wave chose, which launches in the share-tail mode.
bool swapped32_shares_past_one_wave(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  return same_configuration(c, kSwapped32StreamK) && shares_past_one_wave(args, output_tiles(c, args), caps);
}

Configuration whole_or_stream_k(const GatedMlpArgs& args, std::int64_t tiles, const DeviceCaps& caps,
                                const Configuration& whole, const Configuration& stream_k) {
  const std::int64_t sm_count = caps.sm_count;
  if (shares_past_one_wave(args, tiles, caps)) return stream_k;
  if (!heuristic_mode_shares(tiles, sm_count)) return whole;
  if (tiles < sm_count) return args.w.K >= kStreamKMinK ? stream_k : whole;
  return args.w.K >= kPastOneWaveStreamKMinK && wave_fill(tiles, sm_count) < kPastOneWaveStreamKBelowWaveFill
             ? stream_k
             : whole;
}

constexpr std::int64_t kOneTokenTileStreamKMinK = 4096;
constexpr double kOneTokenTileStreamKBelowLastWave = 0.2;

// 65-128 tokens (one 128-token tile) on more weight tiles than SMs: the swapped 128x128 stream-K
// kernel where the last wave of whole tiles holds under a fifth of the SMs and K >= 4096. On an
// H100 (bench/results/tuning/issue9/one-token-tile-stream-k/): Phi-3 medium (280 tiles, a last
// wave of 16) 0.93-0.98x -> 0.95-1.00x cuBLASLt + act·mul at all 12 points of 69-121 tokens,
// 110x8832x13376 (138 tiles, last 6) 0.80x -> 0.95x; shorter K lost (Qwen2.5-7B, 296 tiles, last
// 32, K 3584: 0.97-0.99x of whole tiles; 123x9088x1600, last 10: 0.93x), and so did fuller last
// waves (Llama-3 70B, last 52 of 132: 0.99x).
bool one_token_tile_shares_its_last_wave(const GatedMlpArgs& args, std::int64_t weight_tiles, std::int64_t sm_count) {
  if (weight_tiles <= sm_count || args.w.K < kOneTokenTileStreamKMinK) return false;
  const std::int64_t last_wave = weight_tiles - (ceil_div(weight_tiles, sm_count) - 1) * sm_count;
  return static_cast<double>(last_wave) < kOneTokenTileStreamKBelowLastWave * static_cast<double>(sm_count);
}

// Bytes of the packed [2N, K] gate/up weight.
double packed_weight_bytes(const GatedMlpArgs& args) {
  return 2.0 * static_cast<double>(args.w.N) * static_cast<double>(args.w.K) * static_cast<double>(dtype_bytes(args.w.dtype));
}

// Rows a tiling of `tile` tokens computes, with `pair` tiles per cluster along the tokens.
std::int64_t padded_rows(std::int64_t M, std::int64_t tile, std::int64_t pair) {
  return ceil_div(ceil_div(M, tile), pair) * pair * tile;
}

// More than 4096 tokens, where the pingpong 128x128 1x2 ran every call the rules above leave. On an
// H200, 49 random draws of 4097-16384 tokens with the large-M kernels swept beside it (seed
// 20261127, bench/results/tuning/issue9/many-tokens/) ran it at 0.69-1.45x cuBLASLt + act·mul
// (eight below 0.95; nine of the calls as dispatched), and two classes lost to kernels already
// compiled:
// - Narrow weights (at most 32 tiles of 128 rows) with K >= 32768, whose few long tiles fill their
//   waves badly: the wave model's cheapest among the kernels swept there (6933x256x56512 0.86x ->
//   1.00x on whole 224-token tiles, 6688x640x49728 0.90x -> 1.07x on the 160-token stream-K kernel).
//   At K 27264 (5368x1408) the model's 224-token tiles lost 5 %. Up to 10 waves of 128x128 tiles:
//   on 13 draws of the class (seed 20261129) its kernels took 0.77-0.95x the pingpong's time at six
//   of the nine within 10 waves (1.00-1.01x at three), and at 14-20 waves 0.68x once and 1.01-1.33x
//   three times (the swapped 128x128 stream-K kernel at 11882x1472x54592: 461 TFLOP/s where the
//   pingpong ran 620). Not on an H100, where the cooperative 128x256 1x2 runs most of these calls
//   (cooperative_on_hbm3): the model's kernels took 0.91-1.64x its time at seven draws (and 0.94x
//   the pingpong's at 14344x128x41792, a 21 MB weight).
// - An odd count of weight tiles, which the unswapped kernel's 1x2 cluster along the weight pads
//   with a whole column of tiles, where the swapped pingpong 128x128 1x2 pads the tokens less:
//   taken where the unswapped kernel computes 4 % more tiles (13706x320x1024 1.13x -> 1.38x,
//   11922x704x6912 0.87x -> 1.07x, 15440x1088x3776 0.99x -> 1.12x, 7916x960x1536 1.09x -> 1.17x),
//   not with K under 1024 (kSwappedPairMinK; 4592x1728x320: 0.94x against 1.19x). On an H100 the
//   cooperative rule below still takes weights of 32 MiB or more.
// On draws made after the rules, each build timed twice in one device call: the odd counts' calls
// took 0.60-1.00x the old time at 17 of 17 on an H200 (0.87x -> 1.05x cuBLASLt + act·mul on
// geometric mean) and 0.63-0.84x at 10 of 10 on an H100; the model's, within 10 waves, 0.92x on
// geometric mean at 12 on an H200 (0.91x -> 0.99x; one 3.6 % slower).
constexpr ModeledKernel kManyTokenKernels[] = {
    {kPingpong1x2, 0.9},      {kSwappedPingpong1x2, 0.8},  {kSwapped160, 1.0},
    {kSwapped224, 1.0},       {kSwapped128StreamK, kStreamKEfficiency}, {kSwapped160StreamK, kStreamKEfficiency},
    {kSwapped224StreamK, kStreamKEfficiency}};
constexpr std::int64_t kManyTokensModelMinK = 32768;
constexpr std::int64_t kManyTokensModelMaxWeightTiles = 32;
constexpr std::int64_t kManyTokensModelMaxWaves = 10;
constexpr double kSwappedPairMinTileRatio = 1.04;

Configuration many_tokens_configuration(const GatedMlpArgs& args, const DeviceCaps& caps) {
  const std::int64_t sm_count = caps.sm_count;
  const std::int64_t weight_tiles = ceil_div(2 * args.w.N, 128);
  if (!has_hbm3(caps) && args.w.K >= kManyTokensModelMinK && weight_tiles <= kManyTokensModelMaxWeightTiles &&
      weight_tiles * ceil_div(args.M, 128) <= kManyTokensModelMaxWaves * sm_count) {
    return cheapest_modeled(args, sm_count, kManyTokenKernels);
  }
  const double unswapped_tiles = static_cast<double>(output_tiles(kPingpong1x2, args));
  const double swapped_tiles = static_cast<double>(output_tiles(kSwappedPingpong1x2, args));
  if (args.w.K >= kSwappedPairMinK && unswapped_tiles >= kSwappedPairMinTileRatio * swapped_tiles) {
    return kSwappedPingpong1x2;
  }
  return kPingpong1x2;
}

Configuration configuration_for(const GatedMlpArgs& args, const DeviceCaps& caps) {
  const std::int64_t sm_count = caps.sm_count;
  const double weight_bytes = packed_weight_bytes(args);
  const std::int64_t weight_tiles = ceil_div(2 * args.w.N, 128);
  const bool few_weight_tiles = 2 * weight_tiles * ceil_div(args.M, 128) < sm_count;
  if (args.M <= 64 || (args.M <= 256 && few_weight_tiles)) {
    return whole_or_stream_k(args, weight_tiles * ceil_div(args.M, 32), caps, kSwapped32, kSwapped32StreamK);
  }
  // Not on narrow_long_k's weights: a call there short of the product's workspace keeps the rules
  // below (the model, fitted without those shapes, picked kernels 0.33-0.46x cuBLASLt + act·mul at
  // some). The calls few_weight_tiles_long_k delegates keep the model as their fused kernel from
  // 449 tokens, the rules below that (no fused call of 129-448 tokens with K >= 1792 was timed).
  const std::int64_t model_min_tokens =
      args.w.K < kFewWeightTilesDelegationMinK ? kShortKModelMinTokens : kModelMinTokens;
  const bool few_weight_tiles_model = args.M >= model_min_tokens && args.M <= kModelMaxTokens &&
                                      weight_tiles <= kFewWeightTiles && !narrow_long_k(args, sm_count);
  const bool long_k_model = !has_hbm3(caps) && args.M >= kModelMinTokens && args.M <= kLongKModelMaxTokens &&
                            args.w.K >= kLongKModelMinK && weight_tiles > kFewWeightTiles &&
                            weight_tiles <= kLongKModelMaxWeightTiles;
  const bool short_k_model = args.M >= kShortKModelMinTokens && args.M <= kShortKAnyWeightModelMaxTokens &&
                             args.w.K <= kShortKAnyWeightModelMaxK;
  if (few_weight_tiles_model || long_k_model) return cheapest_modeled(args, sm_count, kFewWeightTileKernels);
  if (short_k_model) {
    // On the wider weights the 144-token tile only within two token tiles and the 208-token one
    // within one, as the rules below take them: at 385-448 tokens the model's three of 144 or two
    // of 208 ran 0.88-0.94 of cuBLASLt + act·mul at four shapes where the unswapped pingpong ran
    // 0.91-1.02 (H200). On 12 fresh draws the caps change, an H100 took 0.997x the time (0.91-1.11x),
    // an H200 0.943x (0.83-1.11x).
    const auto as_the_rules_take_them = [&](const Configuration& c) {
      const bool tile144 = c.swap_ab && c.tile.n == 144;
      const bool tile208 = c.swap_ab && c.tile.n == 208;
      return !(tile144 && ceil_div(args.M, 144) > 2) && !(tile208 && ceil_div(args.M, 208) > 1);
    };
    return cheapest_modeled(args, sm_count, kFewWeightTileKernels, as_the_rules_take_them);
  }
  if (args.M > 256 && args.w.K >= kStreamKMinK &&
      wave_fill(weight_tiles * ceil_div(args.M, 128), sm_count) < kStreamKBelowWaveFill) {
    return kSwapped128StreamK;
  }
  if (args.M <= 128) {
    if (args.M <= kSwapped80.tile.n) return kSwapped80;
    const bool stream_k = one_token_tile_shares_its_last_wave(args, weight_tiles, sm_count);
    if (args.M <= kSwapped96.tile.n && !stream_k) return kSwapped96;
    return stream_k ? kSwapped128StreamK : kPingpong1x2;
  }
  if (args.M > 2048 && weight_bytes >= kLargeWeightBytes) return kCooperative1x2;
  if (args.M > kModelMaxTokens) return many_tokens_configuration(args, caps);
  constexpr std::int64_t kNever = std::int64_t{1} << 40;
  const std::int64_t swapped = padded_rows(args.M, 128, 2);
  const std::int64_t unswapped = padded_rows(args.M, 128, 1);
  // Swept up to 641 tokens only; beyond, the tilings pad within a few percent of each other.
  const std::int64_t swapped96 = args.M <= 640 ? padded_rows(args.M, 96, 2) : kNever;
  // Swapped 160- or 224-token tiles (one, two, or five of 160) while the weight's 128-row tiles make
  // at most 3.4 waves: Llama-3 70B (448 tiles on 132 SMs) ran faster on them, Qwen2.5-72B (462) and
  // wider weights faster on the pairs. Two 224-token tiles at 385-433 tokens, x padded: 0.84-1.07x on
  // five catalogue MLPs where the 128-token pair ran 0.79-1.04x on three of them. Five 160-token
  // tiles at 769-800 tokens (800 rows where 128-row tiles compute 896): 0.95-1.09x against
  // 0.91-1.02x for the pingpong 128x128 and 0.90-0.96x for the cooperative 128x256 on three; three
  // of them at 449-480 ran even with the 128-token pair, which keeps those counts.
  // Past 3.4 waves, with K >= 2048, whole token tiles (no stream-K) run where one of 144 or 208
  // tokens or two of 160 or 224 pad least (two of 144 at any K, below): H200, every kernel swept on
  // 136-440 tokens over 462-832 weight tiles (bench/results/tuning/issue9/wide-257-288/), against
  // cuBLASLt + act·mul, the pairs chosen before -> the whole tiles: 140x40960x4096 0.92 -> 1.03
  // (144), 141x29568x8192 0.92 -> 0.94 (144), 136x53248x8192 0.87 -> 0.91 (144), 200x40960x4096
  // 0.85 -> 0.95 (208), 300x29568x8192 0.81 -> 0.93 (160), 310x40960x4096 0.86 -> 0.98 (160),
  // 400x29568x8192 0.82 -> 0.94 (224), 440x36864x3072 0.92 -> 1.00 (224); the stream-K twins of the
  // two-tile ones ran 0.90-0.95 (at 136-141 tokens with K 8192 the 160-token stream-K kernel ran
  // 0.96-0.97: shares_the_160_tail takes it there). The pairs stay at 161-176 tokens
  // (170x36864x4096: 1.02 against 0.91 on one 176-token tile) and 209-224 (one 224-token tile took
  // 0.99-1.02x their time on Qwen2.5-72B and a fresh draw at 216 tokens); 145-160 tokens and five
  // tiles were not swept. Only from K 2048:
  // on 17 shapes drawn afterwards (H200, the pairs in the same run) whole tiles took 0.86-0.98x the
  // time at 10 of the 11 with K >= 2048 (1.02x at 216x29568x8192) and 0.94-1.07x at the 6 with K of
  // 1024-1664 (405x45184x1152: 1.07x).
  const bool few_waves = 5 * weight_tiles <= 17 * sm_count;
  const bool many_waves_tiles = !few_waves && args.w.K >= kManyWavesTilesMinK;
  const bool tiles160_pay = few_waves ? args.M <= 320 || (args.M > 768 && args.M <= 800)
                                      : many_waves_tiles && args.M > 288 && args.M <= 320;
  const std::int64_t tiles160 = tiles160_pay ? padded_rows(args.M, 160, 1) : kNever;
  const bool tiles224_pay = few_waves ? args.M <= 448 : many_waves_tiles && args.M > 384 && args.M <= 448;
  const std::int64_t tiles224 = tiles224_pay ? padded_rows(args.M, 224, 1) : kNever;
  // Whole tiles only (no stream-K twins), where they compute fewer rows and the count needs no
  // stream-K: one or two of 144 tokens (129-144, 257-288), one of 176 (161-176) or 208 (193-208).
  // Swept on five catalogue MLPs (bench/results/tuning/issue9/tiles-144-176-208/): two of 144 were
  // the fastest swept kernel at all 13 points of 257-288 tokens (0.84-1.00x against 0.82-0.95x for
  // the kernels chosen before); one tile of 144/176/208 beat the 160/224 tiles and the 96-token
  // pair by 2-7 % on Llama-3 8B and Llama-3.2 1B and lost to the stream-K kernels wherever those
  // are chosen. Two of 176 or 208 won on Llama-3 70B only (321-416 tokens), so they are not taken.
  // Two of 144 also past 3.4 waves of weight tiles: at 258-264 tokens on 501-832 weight tiles (H200,
  // random draws of seed 20261202 and Llama-3 405B's MLP, every kernel swept,
  // bench/results/tuning/issue9/wide-257-288/) they ran 0.89-0.95x cuBLASLt + act·mul where the
  // 96-token pair ran 0.75-0.81x.
  const std::int64_t tiles144 =
      (few_waves || args.M > 256 || many_waves_tiles) && args.M <= 288 ? padded_rows(args.M, 144, 1) : kNever;
  const std::int64_t tiles176 = few_waves && args.M <= 176 ? 176 : kNever;
  const std::int64_t tiles208 = (few_waves || (many_waves_tiles && args.M > 192)) && args.M <= 208 ? 208 : kNever;
  if (shares_the_160_tail(args, sm_count)) return kSwapped160StreamK;
  const std::int64_t pairs = std::min({swapped, unswapped, swapped96});
  const std::int64_t twinned = std::min(tiles160, tiles224);
  const std::int64_t whole_only = std::min({tiles144, tiles176, tiles208});
  // One token tile: stream-K past one wave where the last is short or K is long (Llama-3 70B, 85 %
  // full), whole tiles within one wave. Two: stream-K once the weight alone fills the SMs, or
  // where K is long and the last wave below 80 % full (random draws 267x5632x13056 and
  // 279x5056x17216: 0.82 and 0.88x, whole tiles 0.63 and 0.61x); two of 144 only for the latter
  // (whole 144-token tiles beat the 160-token stream-K kernel on the catalogue MLPs). Five: stream-K
  // where whole tiles fill their last wave below 95 % (Llama-3 8B 94 %, Qwen2.5-7B 93 %: stream-K
  // even or up to 4 % faster; Llama-3 70B 99.8 %: whole tiles 5-8 % faster).
  const auto stream_k_for = [&](std::int64_t token_tiles, bool once_the_weight_fills_the_sms) {
    const double fill = wave_fill(weight_tiles * token_tiles, sm_count);
    bool stream_k = false;
    if (token_tiles == 1) {
      stream_k = weight_tiles > sm_count && (fill < kStreamKBelowWaveFill || args.w.K >= kStreamKMinK);
    } else if (token_tiles == 2) {
      stream_k = (weight_tiles > sm_count && once_the_weight_fills_the_sms) ||
                 (args.w.K >= kStreamKMinK && fill < kStreamKBelowWaveFill);
    } else {
      stream_k = fill < kFiveTilesStreamKBelowWaveFill;
    }
    return stream_k;
  };
  // Whole tiles also need twice their CTAs to overflow one wave: else a tiling with more, smaller
  // token tiles runs them in the same wave and finishes sooner (random draws, 57fbe8b against
  // bfd40e1, bench/results/grid/: 175x3712x17536, 58 weight tiles, one 176-token tile 0.67x where
  // the 96-token pair ran 0.96x; 196x3200x256, one 208-token tile 0.87x where 224 ran 0.95x; with
  // K < 1792 such calls now take the wave model).
  const auto overflow_one_wave = [&](std::int64_t token_tiles) { return 2 * weight_tiles * token_tiles > sm_count; };
  if (whole_only < std::min(twinned, pairs)) {
    const std::int64_t tile = whole_only == tiles144 ? 144 : whole_only == tiles176 ? 176 : 208;
    if (overflow_one_wave(whole_only / tile) &&
        (many_waves_tiles || !stream_k_for(whole_only / tile, /*once_the_weight_fills_the_sms=*/false))) {
      return tile == 144 ? kSwapped144 : tile == 176 ? kSwapped176 : kSwapped208;
    }
  }
  if (twinned < pairs) {
    const bool use160 = tiles160 < tiles224;
    const std::int64_t token_tiles = use160 ? tiles160 / 160 : tiles224 / 224;
    const bool stream_k = !many_waves_tiles && stream_k_for(token_tiles, /*once_the_weight_fills_the_sms=*/true);
    if (use160) return stream_k ? kSwapped160StreamK : kSwapped160;
    return stream_k ? kSwapped224StreamK : kSwapped224;
  }
  // With K under 1024 a tie goes to the unswapped tiles (H200, 1414x10304x320 and 1492x14400x320:
  // the unswapped pingpong 1.10x and 1.26x cuBLASLt + act·mul, the swapped pair 0.82x and 0.93x;
  // bench/results/tuning/issue9/wide-257-288/). Why the swapped pair loses there was not measured.
  const bool short_k_tie = args.w.K < kSwappedPairMinK && unswapped <= swapped;
  if (swapped <= std::min(unswapped, swapped96) && !short_k_tie) return kSwappedPingpong1x2;
  // Ties (321-384 tokens: 384 rows each) go to the 96-token pairs: 0.82-1.14 against 0.76-1.09
  // at 333-384 tokens on five catalogue MLPs. Unswapped tiles: the pingpong, also where the last of
  // seven is at most half full (801-832 tokens, x padded: 0.94-1.09x on five catalogue MLPs, the
  // cooperative 128x256 0.81-1.02x).
  if (unswapped < swapped96) return kPingpong1x2;
  return kSwappedPingpong96;
}

// Up to 8 tokens, bf16, off HBM3, with K < 16384, where the packed weight's blocks of 16 rows fit
// one wave of the warp-mma kernel's singles (four CTAs per SM): the warp-mma kernel, in the K-loop
// shares the GEMM's decode rule gives such blocks (decode_splits), ahead of the swapped 128x32
// kernel and of the delegation. Its tiles, at most half a wave of 128-row tiles, stream the weight
// through as many SMs as they are; the warp-mma kernel spreads it over all of them. H200, CUDA
// graphs, the replaced kernel forced beside it (bench/results/tuning/issue9/decode-warp-mma/):
// - over the 128x32 kernel's whole tiles (K < 8192): 0.77-1.03x their time at 15 swept calls
//   (2x2560x4480 0.859 -> 0.981 of cuBLASLt + act·mul, 2x2432x6336 0.894 -> 1.062), and 0.72-1.03x
//   at 24 fresh draws (geometric mean 0.915, slower at two; without graphs 0.838), 1.046 -> 1.143
//   of cuBLASLt + act·mul. Past that wave (544-1888 blocks) it took 0.95-1.27x.
// - over the stream-K twin (K >= 8192): 0.91-0.98x at 4 draws with K < 16384, 0.97-1.09x at 8
//   beyond (slower at 7); 12 fresh draws under 16384 0.92-1.00x, 0.967 -> 1.012.
// - over the delegation: 0.64-0.99x at 8 draws with K < 16384, 0.93-1.05x at 4 beyond (slower at
//   3); 12 fresh draws under 16384 1.000 -> 1.252 of cuBLASLt + act·mul (min 1.022).
// The shares decode_splits gives were the warp-mma kernel's fastest at every delegated draw;
// split-K shares of the 128x32 kernel took 0.93-1.59x its whole tiles' time (K < 8192).
constexpr std::int64_t kWarpMmaMaxTokens = 8;
constexpr std::int64_t kWarpMmaSinglesPerSm = 4;
constexpr std::int64_t kWarpMmaMaxK = 16383;

// Of `candidates`, the dense gated kernel of configuration `c` for the call's element types.
const KernelKey* compiled_for(const GatedMlpArgs& args, const std::vector<KernelKey>& candidates,
                              const Configuration& c) {
  for (const KernelKey& k : candidates) {
    if (k.op == Op::kGatedMlp && k.grouping == Grouping::kNone && k.a == args.x_dtype && k.b == args.w.dtype &&
        k.d == args.out_dtype && has_configuration(k, c)) {
      return &k;
    }
  }
  return nullptr;
}

// The compiled warp-mma kernel where its rule holds, else null.
const KernelKey* warp_mma_fits_one_wave(const GatedMlpArgs& args, const DeviceCaps& caps,
                                        const std::vector<KernelKey>& candidates) {
  const bool fits = !has_hbm3(caps) && args.w.dtype == DType::kBF16 && args.M <= kWarpMmaMaxTokens &&
                    args.w.K <= kWarpMmaMaxK && ceil_div(2 * args.w.N, 16) <= kWarpMmaSinglesPerSm * caps.sm_count;
  return fits ? compiled_for(args, candidates, kWarpMmaSingles) : nullptr;
}

}  // namespace

bool delegates(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates) {
  return !args.kernel && in_delegation_region(args, caps) && warp_mma_fits_one_wave(args, caps, candidates) == nullptr;
}

// The HBM3 rules below replace only this pick of the rules above.
bool data_parallel_pingpong128(const Configuration& c) {
  return c.schedule == Schedule::kPingpong && c.tile.n == 128 && c.decomposition == Decomposition::kDataParallel;
}

constexpr std::int64_t kHbm3LongK = 5120;
constexpr std::int64_t kHbm3LongKMinTokens = 1025;
constexpr double kHbm3LongKMinWeightBytes = 32.0 * 1024 * 1024;
constexpr double kHbm3LongKMaxPaddedWeightRows = 1.15;

// On an H100 (HBM3), calls of more than 1024 tokens with K >= min_k run on the cooperative 128x256
// 1x2 where the rules above pick a pingpong 128x128 1x2. choose() asks with min_k = kHbm3LongK;
// what follows is that rule's evidence (cooperative_mid_k_on_hbm3 below asks with a shorter K for a
// narrower class, with its own). The GPU runs at its power limit there,
// and the pingpong kernel moves far more bytes through DRAM: at 3153x12992x28544 it read 30.9 GB
// for 1.66 GB of operands (ncu, L2 hit rate 33 %), 432 TFLOP/s where cuBLASLt ran 755. At the 19
// swept shapes this rule changes (bench/results/tuning/issue9/hbm3-long-k/) the pingpong kernels
// ran 0.54-1.03x cuBLASLt + act·mul, the cooperative one at its default knobs 0.89-1.07x; with the
// refinements below, 40 fresh draws of the pingpong's shapes went from 0.727x to 0.874x (geometric
// mean) and catalogue MLPs at 1025-16384 tokens from 0.854x to 0.980x. K = 4096 keeps the pingpong
// (at 16384 tokens, 16384x14336x4096: 0.95x against 0.69x), and so do 1024 tokens (Phi-3 medium, Qwen2.5-72B: 1.10x
// and 1.03x against 1.01x and 0.98x). An H200, whose HBM3e reads 1.4x as fast, ran such calls at
// 0.96-1.07x on the pingpong kernel.
// Not on a weight under 32 MiB, most of which L2 holds (8000 tokens, K 12288: N 384 and 640 ran
// 0.75x and 0.86x on the cooperative kernel, 1.07x and 1.02x on the pingpong), nor where its
// 512-row clusters pad the weight's rows 15 % more than the pingpong's 256 (8900x320x37824, 48 MB:
// 0.40x against 0.53x).
bool cooperative_on_hbm3(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps, std::int64_t min_k) {
  if (!data_parallel_pingpong128(c) || !has_hbm3(caps) || args.M < kHbm3LongKMinTokens || args.w.K < min_k) return false;
  const double weight_bytes = packed_weight_bytes(args);
  const double cooperative_rows = static_cast<double>(padded_rows(2 * args.w.N, 256, 2));
  const double pingpong_rows = static_cast<double>(padded_rows(2 * args.w.N, 128, 2));
  return weight_bytes >= kHbm3LongKMinWeightBytes && cooperative_rows <= kHbm3LongKMaxPaddedWeightRows * pingpong_rows;
}

// On an H100, 1025-4096 tokens that leave a 128-row tile partial, with K of 2048-5119 on a weight
// of 32 MiB or more: the swapped cooperative 160- or 224-token tiles (a 2x1 cluster along the
// weight), whichever computes fewer rows, where the rules above pick a pingpong 128x128 1x2 that
// computes as many rows or more. On 18 random draws of two fresh seeds that this changes (H100,
// bench/results/tuning/issue9/hbm3-swapped-tiles/) they took 0.952x the pingpong's time (0.874-1.026x)
// and 11 of the 18 below 0.95x cuBLASLt + act·mul became 4; on 20 fresh draws 0.974x (0.88-1.07x),
// 0.947 -> 0.973, below 0.95 at 10 -> 7. The form was fitted on the 36 draws of two earlier forms
// (the 18 above are those it takes), where
// tiles that compute more rows than the pingpong's took up to 1.18x its time, K under 2048 up to
// 1.17x, and 449-1024 tokens 1.01-1.16x at 6 of 6 draws of the second seed; whole 128-row tiles keep
// the pingpong (2048x14336x4096: 1.050x cuBLASLt + act·mul against 0.961x on 160-token tiles).
constexpr std::int64_t kHbm3SwappedTilesMaxTokens = 4096;
constexpr std::int64_t kHbm3SwappedTilesMinK = 2048;

Configuration fewer_rows_of_160_or_224(std::int64_t tokens) {
  return ceil_div(tokens, 160) * 160 <= ceil_div(tokens, 224) * 224 ? kSwapped160 : kSwapped224;
}

bool swapped_tiles_on_hbm3(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  if (!data_parallel_pingpong128(c) || !has_hbm3(caps) || args.M < kHbm3LongKMinTokens ||
      args.M > kHbm3SwappedTilesMaxTokens || args.M % 128 == 0 || args.w.K < kHbm3SwappedTilesMinK ||
      args.w.K >= kHbm3LongK || packed_weight_bytes(args) < kHbm3LongKMinWeightBytes) {
    return false;
  }
  // The swapped pingpong pairs its 128-token tiles along the tokens.
  const std::int64_t pingpong_step = c.swap_ab ? 256 : 128;
  const Configuration swapped = fewer_rows_of_160_or_224(args.M);
  return ceil_div(args.M, swapped.tile.n) * swapped.tile.n <= ceil_div(args.M, pingpong_step) * pingpong_step;
}

// On an H100, 1025-2304 tokens with K of 2048-5119 that leave a 128-row tile partial, on a weight of
// 32 MiB or more, where the pingpong 128x128 1x2 stays (swapped_tiles_on_hbm3 declined: the swapped
// tiles would compute more rows): the cooperative 128x256 1x2, at its default raster. H100,
// bench/results/tuning/issue9/hbm3-cooperative-mid-k/, the pingpong forced beside it: fitted on 23
// calls (13 draws of two seeds; Llama-3.2 1B/3B, Llama-3 8B, Qwen2.5-7B and Gemma-2 9B at 1500 and
// 1504 tokens), 0.929x the pingpong's time (0.84-1.07x); on 22 fresh draws 0.926x (0.81-1.08x),
// 0.951 -> 1.026 of cuBLASLt + act·mul, below 0.95 at 9 -> 1. Past 2304 tokens it took 0.85-1.12x
// (0.994x, slower by more than 3 % at 7 of 21); on whole 128-row tiles 0.95-1.13x (1.037x, slower
// by more than 3 % at 9 of 16; 2048x14336x4096 1.10x); at 449-1024 tokens 1.04-1.08x (geometric means
// of three sets of 20 calls).
// The 32 MiB floor and the weight-padding bound come with cooperative_on_hbm3; no call of this class
// was measured under the floor, and with K under 5120 such weights pad at most 8 %, inside the bound.
constexpr std::int64_t kHbm3CooperativeMidKMaxTokens = 2304;
constexpr std::int64_t kHbm3CooperativeMidKMinK = 2048;

bool cooperative_mid_k_on_hbm3(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  return args.M <= kHbm3CooperativeMidKMaxTokens && args.M % 128 != 0 && args.w.K < kHbm3LongK &&
         cooperative_on_hbm3(c, args, caps, kHbm3CooperativeMidKMinK);
}

// 257-4096 tokens with K of 2048-8192 on more than 127 weight tiles (the wave model's weights keep
// its pick): the swapped pingpong 128x160 2x1 (cuBLASLt's own kernel at 594x14336x4096 is such a
// tile, nvjet_sm90_tst_128x160_64x5_2x1_v_bz_TNT) where the rules above (the HBM3 ones included)
// pick a pingpong 128x128 or the cooperative 160-token tiles and 160-token tiles compute fewer
// rows, or as many (off HBM3 only with K under 5120). H200, swept beside the dispatched kernel on
// the catalogue's 594-598, 944-948 and 1500-1504 tokens (8 MLPs) and 43 random draws of 257-4096
// tokens (bench/results/tuning/issue9/pingpong-160/): at the 44 calls the rule takes it took 0.955x
// the time (0.89-1.02x), 0.984 -> 1.031 of cuBLASLt + act·mul (594x18944x3584 0.877 -> 0.953,
// 944x8192x3072 0.973 -> 1.056, 293x49344x2368 0.874 -> 0.980 on two cooperative 160-token tiles);
// as many rows with K >= 5120 0.95-1.05x (594x28672x8192 1.05x), more rows up to 1.27x. On 30 fresh
// draws it changes: 0.973x (0.86-1.07x), 1.014 -> 1.042, below 0.95 at 6 -> 4.
// H100, the same catalogue points below 1000 tokens and those 30 draws, swept
// (pingpong-160/h100-sweep-db34467/): where this takes the call 0.932x the time (54 calls,
// 0.82-1.02x), 0.941 -> 1.010; as many rows with K >= 5120 0.87-0.96x at the six catalogue points
// (594-598 tokens, Llama-3 70B, Qwen2.5-72B, Phi-3 medium), so an H100 takes those ties too; the
// swapped_tiles_on_hbm3 pick (cooperative 160-token tiles, as many rows) 0.82-1.02x at 12 draws. On
// 18 fresh draws it changes on an H100 (h100-ab-8750e70/): 0.926x (0.84-1.25x), 0.941 -> 1.016,
// below 0.95 at 8 -> 2; 2305x51584x4864 took 1.25x (cooperative 160-token tiles before).
constexpr std::int64_t kPingpong160MinTokens = 257;
constexpr std::int64_t kPingpong160MaxTokens = 4096;
constexpr std::int64_t kPingpong160MinK = 2048;
constexpr std::int64_t kPingpong160MaxK = 8192;
constexpr std::int64_t kPingpong160TieMaxK = 5120;

bool pingpong160_pays(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  if (args.M < kPingpong160MinTokens || args.M > kPingpong160MaxTokens || args.w.K < kPingpong160MinK ||
      args.w.K > kPingpong160MaxK || ceil_div(2 * args.w.N, 128) <= kFewWeightTiles) {
    return false;
  }
  const bool cooperative160 = c.swap_ab && c.schedule == Schedule::kCooperative && c.tile.n == 160;
  if (!data_parallel_pingpong128(c) && !cooperative160) return false;
  const std::int64_t step = c.swap_ab ? c.tile.n * c.cluster.n : c.tile.m * c.cluster.m;
  const std::int64_t rows = ceil_div(args.M, step) * step;
  const std::int64_t rows160 = ceil_div(args.M, 160) * 160;
  return rows160 < rows || (rows160 == rows && (has_hbm3(caps) || args.w.K < kPingpong160TieMaxK));
}

// A swapped pingpong 128x112 2x1 (cuBLASLt runs pingpong tiles of 104 tokens at 104 and 200
// tokens; 104 is not a multiple of 16): one 112-token tile at 97-112 tokens off HBM3, with K >= 2048,
// past one wave of weight tiles, where the rules pick the unswapped pingpong 128x128 (128 rows).
// H200, swept beside the dispatched call (bench/results/tuning/issue9/pingpong-112/): 0.956-1.003x
// its time on the five catalogue MLPs of 224-462 weight tiles and 0.960-0.982x at five draws of
// 195-591; Llama-3.2 1B/3B (128 tiles, one wave) 1.00-1.03x; K of 256-832 1.07-1.30x. On 16 fresh
// draws of the class 0.979x (0.957-1.004x), 0.972 -> 0.992 of cuBLASLt + act·mul. Two 112-token
// tiles at 193-224 tokens against the 128-token pair were mixed (10 fresh draws: 0.93-1.09x, 0.998x
// on geometric mean; slower at 210-212 tokens and with K past 8192), and lost to the 208- or
// 224-token tiles the rules pick elsewhere there (1.00-1.38x), so only one tile is taken.
constexpr std::int64_t kPingpong112MinK = 2048;

bool pingpong112_pays(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  return !has_hbm3(caps) && args.M > 96 && args.M <= 112 && args.w.K >= kPingpong112MinK &&
         data_parallel_pingpong128(c) && !c.swap_ab && ceil_div(2 * args.w.N, 128) > caps.sm_count;
}

// A swapped cooperative 128x16 at up to 16 tokens where the rules run the swapped 128x32 whole.
// H200, both forced at 1, 2, 4, 8 and 16 tokens on five weights (three catalogue MLPs, two random
// draws; bench/results/tuning/issue9/decode-16-token-tile/): the 16-token tile took 0.89-0.99x the
// 128x32's time at all 25 calls, 0.957x on geometric mean; Llama-3 8B at one token 64.9 -> 58.5 µs,
// 91 % of the read bandwidth. The 128x32 ran one token 2-10 % slower than eight; the 16-token tile
// did not (not profiled). Not measured on HBM3, nor where the stream-K twin runs.
bool sixteen_token_tile_pays(const Configuration& c, const GatedMlpArgs& args, const DeviceCaps& caps) {
  return same_configuration(c, kSwapped32) && !has_hbm3(caps) && args.M <= kSwapped16.tile.n;
}

// CUTLASS's heuristic walks the tiles along the weight once the token tiles outnumber the weight's
// clusters, so each row of token tiles reads the whole weight again. Where the token tiles are at
// least twice the clusters (and there are 8 clusters or more, so the swizzle pads the grid little),
// the cooperative kernel walks along the tokens in groups of 4 clusters: 16329x14784x19904
// 0.52x -> 0.96x cuBLASLt + act·mul, 14104x12352x13696 0.67x -> 0.93x, 10239x6208x46720 0.72x ->
// 0.82x, 12000x4096x8192 0.95x -> 1.00x. Fewer token tiles lost with it (8192x28672x8192: 1.03x
// -> 1.02x, 6225x10560x20096 0.98x -> 0.93x).
constexpr std::int64_t kAlongTokensMinClusters = 8;
constexpr int kAlongTokensSwizzle = 4;
bool walk_along_the_tokens(const GatedMlpArgs& args) {
  const std::int64_t token_tiles = ceil_div(args.M, 128);
  const std::int64_t weight_clusters = ceil_div(ceil_div(2 * args.w.N, 256), 2);
  return weight_clusters >= kAlongTokensMinClusters && token_tiles >= 2 * weight_clusters;
}

Status choose(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const auto compiled = [&](const Configuration& c) { return compiled_for(args, candidates, c); };
  // Decode on the warp-mma kernel before any tiling rule: nothing below applies to it.
  if (const KernelKey* warp_mma = warp_mma_fits_one_wave(args, caps, candidates)) {
    *choice = {*warp_mma};
    choice->splits = decode_splits(2 * args.w.N, args.w.K, caps.sm_count);
    return Status::success();
  }
  const Configuration by_shape = configuration_for(args, caps);
  const bool cooperative = cooperative_on_hbm3(by_shape, args, caps, kHbm3LongK);
  const bool swapped_tiles = !cooperative && swapped_tiles_on_hbm3(by_shape, args, caps);
  const bool cooperative_mid_k = !cooperative && !swapped_tiles && cooperative_mid_k_on_hbm3(by_shape, args, caps);
  const Configuration ruled = cooperative || cooperative_mid_k ? kCooperative1x2
                              : swapped_tiles                  ? fewer_rows_of_160_or_224(args.M)
                                                               : by_shape;
  const Configuration chosen = pingpong160_pays(ruled, args, caps)          ? kSwappedPingpong160
                               : pingpong112_pays(ruled, args, caps)        ? kSwappedPingpong112
                               : sixteen_token_tile_pays(ruled, args, caps) ? kSwapped16
                                                                            : ruled;
  Configuration whole_tiles = chosen;  // where stream-K kernels are not candidates (no workspace)
  whole_tiles.decomposition = Decomposition::kDataParallel;
  // The 160-token kernel's whole tiles took 1.03-1.06x the 144-token tile's time where
  // shares_the_160_tail chose its stream-K twin (tuning/issue9/tail-160-129-144/, the sweep).
  if (shares_the_160_tail(args, caps.sm_count)) whole_tiles = kSwapped144;
  const Configuration fallback = args.M <= 64 ? kSwapped64 : kCooperative1x2;
  // A build filtered without the chosen kernel runs what the rules picked before the pingpong rules.
  for (const Configuration& c : {chosen, whole_tiles, ruled, fallback}) {
    if (const KernelKey* k = compiled(c)) {
      *choice = {*k};
      choice->stream_k = swapped32_shares_past_one_wave(c, args, caps) ? StreamKMode::kShareTail
                                                                        : stream_k_mode(c, args, caps.sm_count);
      if (cooperative && has_configuration(*k, kCooperative1x2) && walk_along_the_tokens(args)) {
        choice->raster = RasterOrder::kAlongM;
        choice->swizzle = kAlongTokensSwizzle;
      }
      return Status::success();
    }
  }
  return Status::not_supported(std::string("gated_mlp: no compiled sm90 kernel serves ") + to_string(args.x_dtype) +
                               " in this build");
}

// 321-352 tokens: besides the rules' pick, two cooperative 176-token tiles (352 rows), timed at the
// call's first launch (api/gated_path.hpp). The 96-token pairs and the 128-row tiles the rules pick
// there on most weights compute 384 rows (the wave model's weights may take other tiles). H200
// (bench/results/tuning/issue9/band-321-352/): forced beside them at 321-336 tokens on eight
// catalogue MLPs and two random draws (50 calls), the 176-token tiles won on Llama-3.2 3B, Llama-3
// 70B and Qwen2.5-72B (0.91-1.01 of cuBLASLt + act·mul where the pairs ran 0.87-0.93) and on the
// two draws, lost on Llama-3 8B, Gemma-2 9B, Phi-3 medium and Qwen2.5-7B (0.80-0.96 against
// 0.88-1.02), and were mixed on Llama-3.2 1B; neither the padding, the tiles' waves nor the wave model
// above told them apart. Three 112-token tiles (336 rows) were timed too in a first build: its
// first launches kept them at eight calls (321 tokens on Llama-3.2 1B and 3B, 321-336 on Phi-3
// medium and Qwen2.5-7B), which the bench then ran in 0.99-1.05x the time of the build before, so
// they are not candidates.
constexpr std::int64_t kTimedTilingsMinTokens = 321;
constexpr std::int64_t kTimedTilingsMaxTokens = 352;
// 353-1023 tokens: besides the rules' pick, seven tilings, timed at the call's first launch after
// about 100 ms of untimed runs (kBusyWarmupMs in delegate/candidate_timing.hpp; the 176-token
// tiles above get the same warm-up): the five the rules pick most in this range on the catalogue
// MLPs and random draws (the 96- and 128-token pingpong pairs, pingpong 160, cooperative 224, the
// unswapped pingpong 128x128) and the pingpong 112 and cooperative 176-token tiles. Without that
// warm-up, at the boost clock of an idle GPU, the first launch timed the swapped tiles 5-11 %
// short of the bench's medians (the cooperative ones 10-11 %) and the unswapped pingpong 128x128
// 4 % short, so it kept swapped tiles that ran 0.99-1.13x the rules' kernel's time where the
// rules pick that pingpong (594-598 and 809-878 tokens,
// bench/results/tuning/issue9/timed-577-768/); the band was 577-768 tokens, where the rules pick
// the swapped 128-token pairs, until the warm-up. H200
// (bench/results/tuning/issue9/busy-gpu-timing/), each call beside the rules' pick forced in the
// same process: on the eight catalogue MLPs' full grid at 353-1023 tokens 137 of 328 first
// launches kept another tiling, which took 0.964x the rules' pick's time (0.877-1.077x, 4 above
// 1.03x; 0.962x, 0.961x and 0.981x at 353-576, 577-768 and 769-1023 tokens); on 176 random draws
// there, the 18 that kept another tiling beside a forced rules' kernel took 0.961x (0.823-1.048x).
// A first launch here costs about 120 ms of host time (95-207 ms on the grid, up to 678 ms on the
// largest random draws).
constexpr std::int64_t kTimedManyTilingsMinTokens = 353;
constexpr std::int64_t kTimedManyTilingsMaxTokens = 1023;

std::vector<KernelChoice> timed_alternatives(const GatedMlpArgs& args, const DeviceCaps& caps,
                                             const std::vector<KernelKey>& candidates) {
  std::vector<KernelChoice> alternatives;
  const bool tiles176 = args.M >= kTimedTilingsMinTokens && args.M <= kTimedTilingsMaxTokens;
  const bool many = args.M >= kTimedManyTilingsMinTokens && args.M <= kTimedManyTilingsMaxTokens;
  if (args.kernel || !(tiles176 || many)) return alternatives;
  KernelChoice ruled;
  if (!choose(args, caps, candidates, &ruled).ok()) return alternatives;
  const std::vector<Configuration> tilings =
      tiles176 ? std::vector<Configuration>{kSwapped176}
               : std::vector<Configuration>{kSwappedPingpong112, kSwapped176,         kSwapped224, kSwappedPingpong96,
                                            kSwappedPingpong1x2, kSwappedPingpong160, kPingpong1x2};
  for (const Configuration& c : tilings) {
    const KernelKey* k = compiled_for(args, candidates, c);
    if (k != nullptr && !(*k == ruled.key)) alternatives.push_back({*k});
  }
  return alternatives;
}

}  // namespace epifuse::detail::sm90
