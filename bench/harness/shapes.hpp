// Which shapes a bench run measures: shapes from the command line, a catalogue model's GEMMs
// (tools/planner/models.hpp) at a list of token counts, the dense token grid over every catalogue
// model, or random draws.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace epifuse::bench {

struct Shape {
  std::int64_t M = 0, N = 0, K = 0;
  std::string suite = "shapes";  // "shapes" (command line or default), "model", "grid" or "random"
  std::string model, gemm;       // catalogue key and GEMM name, for model and grid shapes
  std::string routing;           // MoE shapes: how tokens pick experts (moe_routing.hpp)
};

// "MxNxK" with positive sizes; std::invalid_argument with a message otherwise.
Shape parse_shape(const std::string& text);

// `gated`: each gated MLP's (tokens, N = its width, K = hidden); routed experts get tokens·k/E
// rows. Otherwise the model's other GEMMs (attention projections, down projections).
// std::invalid_argument with the catalogue's keys for an unknown model.
std::vector<Shape> model_shapes(const std::string& model_key, bool gated, const std::vector<std::int64_t>& tokens);

// The dense token grid: every multiple of 8 up to 256, then a geometric sequence of ratio <= 1.08
// up to 16384, and beside each of those base values M + 1 and M - 3 (odd M, partial tiles).
// `every` keeps one base value in `every` (a thinner grid for a time-limited run), from the
// `offset`-th on (0 to every - 1): the offsets together cover the whole grid.
std::vector<std::int64_t> grid_tokens(int every = 1, int offset = 0);

// The grid over the GEMMs of `models` (every dense catalogue model when empty), suite "grid".
std::vector<Shape> grid_shapes(bool gated, const std::vector<std::string>& models, int every, int offset = 0);

// `count` random shapes, suite "random": N and K multiples of 64, log-uniform in [256, 65536];
// M log-uniform in [1, 16384]; the weight ([N, K], or [2N, K] gated, bf16) at most 4 GB.
std::vector<Shape> random_shapes(int count, std::uint64_t seed, bool gated);

// Runs `run_shape` on each shape with a progress line on stderr ("[op] shape i/n: MxNxK").
template <class RunShape>
void for_each_shape(const char* op, const std::vector<Shape>& shapes, RunShape run_shape) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    std::fprintf(stderr, "[%s] shape %zu/%zu: %lldx%lldx%lld\n", op, i + 1, shapes.size(), static_cast<long long>(s.M),
                 static_cast<long long>(s.N), static_cast<long long>(s.K));
    run_shape(s);
  }
}

}  // namespace epifuse::bench
