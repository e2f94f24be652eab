#include "bench/harness/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>

#include "planner/models.hpp"

namespace epifuse::bench {

Shape parse_shape(const std::string& text) {
  static const std::regex pattern(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) throw std::invalid_argument("expected MxNxK, got '" + text + "'");
  Shape s;
  try {
    s = {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
  } catch (const std::out_of_range&) {
    throw std::invalid_argument("size out of range: '" + text + "'");
  }
  if (s.M <= 0 || s.N <= 0 || s.K <= 0) throw std::invalid_argument("sizes must be positive: '" + text + "'");
  return s;
}

std::vector<Shape> model_shapes(const std::string& model_key, bool gated, const std::vector<std::int64_t>& tokens) {
  plan::ModelConfig model;
  if (!plan::find_model(model_key, &model)) {
    std::string keys;
    for (const std::string& k : plan::model_keys()) keys += (keys.empty() ? "" : ", ") + k;
    throw std::invalid_argument("unknown model '" + model_key + "'; the catalogue has " + keys);
  }
  std::vector<Shape> shapes;
  for (const plan::LayerKind& kind : plan::layer_kinds(model)) {
    for (const plan::LayerGemm& g : kind.gemms) {
      if (g.gated != gated || g.name == "router") continue;
      const bool routed = g.name.rfind("expert", 0) == 0;
      for (std::int64_t t : tokens) {
        const std::int64_t rows =
            routed ? static_cast<std::int64_t>(std::ceil(t * g.per_token / static_cast<double>(model.experts))) : t;
        // Gated: N is the output width, half the fused gate+up GEMM's.
        const Shape s{rows, g.gated ? g.N / 2 : g.N, g.K, "model", model_key, g.name};
        if (std::find_if(shapes.begin(), shapes.end(), [&](const Shape& o) {
              return o.M == s.M && o.N == s.N && o.K == s.K;
            }) == shapes.end()) {
          shapes.push_back(s);
        }
      }
    }
  }
  return shapes;
}

std::vector<std::int64_t> grid_tokens(int every, int offset) {
  std::vector<std::int64_t> base;
  for (std::int64_t m = 8; m <= 256; m += 8) base.push_back(m);
  constexpr double kRatio = 1.08;
  for (double m = 256 * kRatio; m < 16384; m *= kRatio) {
    if (const auto rounded = static_cast<std::int64_t>(std::lround(m)); rounded > base.back()) base.push_back(rounded);
  }
  base.push_back(16384);
  std::set<std::int64_t> tokens = {1};
  const std::size_t step = static_cast<std::size_t>(std::max(every, 1));
  const std::size_t first = static_cast<std::size_t>(std::clamp(offset, 0, std::max(every, 1) - 1));
  for (std::size_t i = first; i < base.size(); i += step) {
    for (std::int64_t m : {base[i], base[i] + 1, base[i] - 3}) {
      if (m >= 1) tokens.insert(m);
    }
  }
  return {tokens.begin(), tokens.end()};
}

std::vector<Shape> grid_shapes(bool gated, const std::vector<std::string>& models, int every, int offset) {
  std::vector<std::string> keys = models;
  if (keys.empty()) {
    for (const std::string& k : plan::model_keys()) {
      plan::ModelConfig m;
      if (plan::find_model(k, &m) && m.experts == 0) keys.push_back(k);
    }
  }
  std::vector<Shape> shapes;
  for (const std::string& k : keys) {
    for (Shape s : model_shapes(k, gated, grid_tokens(every, offset))) {
      s.suite = "grid";
      shapes.push_back(s);
    }
  }
  return shapes;
}

std::vector<Shape> random_shapes(int count, std::uint64_t seed, bool gated) {
  std::mt19937_64 rng(seed);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
  };
  auto multiple_of_64 = [&] { return std::clamp<std::int64_t>(std::llround(log_uniform(256, 65536) / 64) * 64, 256, 65536); };
  constexpr double kMaxWeightBytes = 4e9;
  std::vector<Shape> shapes;
  while (static_cast<int>(shapes.size()) < count) {
    Shape s;
    s.N = multiple_of_64();
    s.K = multiple_of_64();
    s.M = std::clamp<std::int64_t>(std::llround(log_uniform(1, 16384)), 1, 16384);
    s.suite = "random";
    if ((gated ? 2.0 : 1.0) * 2.0 * static_cast<double>(s.N) * static_cast<double>(s.K) <= kMaxWeightBytes) {
      shapes.push_back(s);
    }
  }
  return shapes;
}

}  // namespace epifuse::bench
