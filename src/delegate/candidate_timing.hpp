// Times alternative ways of running one call, on the caller's stream and operands, and picks one.
// A delegated call uses it to choose among cuBLASLt's top heuristic candidates at its first eager
// launch (cublaslt_gemm.hpp): cuBLASLt's first candidate took 1.5x its fastest at some shapes
// (bench/results/tuning/issue9/cublaslt-heuristics-probe.log).
#pragma once

#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

// A candidate whose median lies within this factor of the fastest one's counts as tied with it;
// the first tied candidate in the caller's order wins, so near-ties keep cuBLASLt's ranking and
// the pick is the same from run to run where one candidate is clearly ahead. At 3 % it kept
// candidates 2.6-4.3 % slower than the fastest in the tuning on long calls (H100: 1 x 35904 x
// 24000, 607.6 against 592.1 us; 41 x 20736 x 52352, 795.6 against 776.4).
constexpr double kCandidateTieFactor = 1.01;
// The timed runs go in two passes over the candidates, the second in reverse order, so that a
// clock still rising after an idle host favours no candidate by its place. In each pass a
// candidate runs once untimed, then half its timed runs back to back, timed one by one: in all as
// many as fill about kTimingBudgetMs of device time, an even count within [kMinTimedRuns,
// kMaxTimedRuns]; its time is the upper median of them. Back to back, not interleaved: a split-K
// candidate run right after another candidate took up to 1.8x its time in a row (980x448x17792:
// 48.9 against 27.5 us), and calls of one shape run in a row wherever the bench or a model's layer
// repeats them. The timed runs are enqueued behind a closed StreamGate, so that they run back to
// back on the device: launched one at a time, every candidate of calls that take 6-8 us in a CUDA
// graph timed alike at 11-13 us, the host's launch gaps (H100, 1 x 1024 x 1280 and six more
// shapes, bench/results/tuning/issue9/delegated-tuning/gate-h100/).
constexpr float kTimingBudgetMs = 2.0f;
constexpr int kMinTimedRuns = 4;
constexpr int kMaxTimedRuns = 10;

// A gated call's first launch that times tilings (api/gated_path.cpp) first keeps the GPU busy
// with its ways, untimed, for about this much device time. Under such load an H200 (700 W power
// limit) lowered its SM clock from 1980 MHz to as low as 1470 within 30-100 ms, and not every
// tiling slowed by as much. Timed right after an idle host, the cooperative 128x224 tiles took
// 0.96-0.97x the unswapped pingpong 128x128's time at 812x14336x3584; after 100 ms busy, 1.10x, as
// in the bench's interleaved runs. At 406x18944x3584 the pingpong 112-token tiles went from 1.07x
// the stream-K 224-token tiles' time to 0.89-0.93x (0.88x interleaved). With the warm-up, each
// tiling's first-launch median came within 1.2 % of the bench's (median per tiling over 328 grid
// calls), where without it they ran 4-11 % short (bench/results/tuning/issue9/busy-gpu-timing/).
constexpr double kBusyWarmupMs = 100.0;
// At most this many warm-up runs over all ways together: calls under 50 us get less than
// kBusyWarmupMs, and each run costs the host one or two launches.
constexpr int kMaxWarmupRuns = 2000;

struct CandidateTimes {
  int pick = -1;                  // -1: no candidate ran, or an event call failed
  std::vector<double> median_us;  // per candidate; infinity where it could not be enqueued
};

// Runs every candidate i in [0, count) as `run(i, stream)`: a sizing pass of one run each, then
// two passes (the second in reverse order) of, per candidate, an untimed run and half its timed
// runs, with CUDA events around every run; waits for the stream and picks the first candidate
// within kCandidateTieFactor of the fastest median. With `warmup_ms` > 0, a second sizing pass
// (each kernel loaded by then) follows the first, and passes over the candidates run untimed
// before the timed runs for about that much device time as that pass measured it, at most
// kMaxWarmupRuns runs.
// `run` returns false where candidate i could not be enqueued; that candidate is left out. Blocks
// the host until the stream has finished every run; the stream must not be capturing.
CandidateTimes time_candidates(int count, const std::function<bool(int, cudaStream_t)>& run, cudaStream_t stream,
                               double warmup_ms = 0.0);

// Whether work enqueued on `stream` now would be captured, not run: true also where CUDA cannot
// say (the legacy stream while another stream captures), so that no timing starts there.
bool stream_capturing(cudaStream_t stream);

}  // namespace epifuse::detail
