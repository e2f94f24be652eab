#include "bench/harness/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
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
        const Shape s{rows, g.gated ? g.N / 2 : g.N, g.K};
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

}  // namespace epifuse::bench
