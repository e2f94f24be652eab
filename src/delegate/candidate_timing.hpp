// Times alternative ways of running one call, on the caller's stream and operands, and picks one.
// A delegated call uses it to choose among cuBLASLt's top heuristic candidates at its first eager
// launch (cublaslt_gemm.hpp): cuBLASLt's first candidate took 1.5x its fastest at some shapes
// (bench/results/tuning/issue9/cublaslt-heuristics-probe.log).
#pragma once

#include <functional>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

// A candidate whose median lies within this factor of the fastest one's counts as tied with it;
// the first tied candidate in the caller's order wins, so near-ties keep cuBLASLt's ranking and
// the pick is the same from run to run where one candidate is clearly ahead.
constexpr double kCandidateTieFactor = 1.03;
// Timed rounds (each runs every candidate once) fill about this much device time, within
// [kMinTimedRounds, kMaxTimedRounds], after one untimed round that warms every candidate up.
constexpr float kTimingBudgetMs = 2.0f;
constexpr int kMinTimedRounds = 1;
constexpr int kMaxTimedRounds = 5;

// Runs `run(i, stream)` for i in [0, count) round by round, interleaved, with CUDA events between
// runs, waits for the stream, and returns the first candidate within kCandidateTieFactor of the
// fastest median. `run` returns false where candidate i could not be enqueued; that candidate is
// left out. Returns -1 where no candidate ran or an event call failed. Blocks the host until the
// stream has finished every run; the stream must not be capturing.
int fastest_candidate(int count, const std::function<bool(int, cudaStream_t)>& run, cudaStream_t stream);

}  // namespace epifuse::detail
