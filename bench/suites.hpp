// Which shapes a bench run measures: the named suite (Llama-3), a catalogue model's GEMMs
// (planner/models.hpp) at a list of token counts, or shapes from the command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/gemm_suite.hpp"

namespace epifuse::bench {

// `op` "gated": each gated MLP's (tokens, N = its width, K = hidden); routed experts get tokens·k/E
// rows. `op` "gemm": the model's other GEMMs (attention projections, down projections).
// Throws std::invalid_argument with the catalogue's keys for an unknown model.
std::vector<Shape> model_shapes(const std::string& model_key, const std::string& op,
                                const std::vector<std::int64_t>& tokens);

}  // namespace epifuse::bench
