// Which shapes a bench run measures: shapes from the command line, or a catalogue model's GEMMs
// (tools/planner/models.hpp) at a list of token counts.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace epifuse::bench {

struct Shape {
  std::int64_t M = 0, N = 0, K = 0;
};

// "MxNxK" with positive sizes; std::invalid_argument with a message otherwise.
Shape parse_shape(const std::string& text);

// `gated`: each gated MLP's (tokens, N = its width, K = hidden); routed experts get tokens·k/E
// rows. Otherwise the model's other GEMMs (attention projections, down projections).
// std::invalid_argument with the catalogue's keys for an unknown model.
std::vector<Shape> model_shapes(const std::string& model_key, bool gated, const std::vector<std::int64_t>& tokens);

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
