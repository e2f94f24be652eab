// A benchmark suite: one op, its default shapes, its baselines and how it is timed. epifuse-bench
// makes one subcommand per row of suites() (suites/table.cpp); adding an op's suite is one row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/harness/ceilings.hpp"
#include "bench/harness/device_facts.hpp"
#include "bench/harness/results.hpp"
#include "bench/harness/shapes.hpp"
#include "bench/harness/timing.hpp"
#include "epifuse/status.hpp"

namespace epifuse::bench {

struct SuiteOptions {
  bool check = true;         // verify every implementation against the fp64 reference before timing it
  bool sweep = false;        // also time every compiled bf16 kernel of the op at default launch knobs
  bool sweep_knobs = false;  // with sweep: also under other raster orders and tile swizzles
  TimingOptions timing;
  std::vector<std::string> epilogues;  // gemm: the epilogues timed besides none (empty: all)
  std::vector<std::string> sweep_only;  // with sweep: kernels whose name holds one of these (empty: all)
};

// Whether a sweep times the kernel of this name (SuiteOptions::sweep_only).
inline bool swept(const SuiteOptions& options, const std::string& kernel_name) {
  if (options.sweep_only.empty()) return true;
  for (const std::string& part : options.sweep_only) {
    if (kernel_name.find(part) != std::string::npos) return true;
  }
  return false;
}

struct Suite {
  std::string name;         // the subcommand
  std::string description;
  std::string shape_help;   // what --shape's MxNxK means for this op
  bool gated_model_gemms;   // which of a catalogue model's GEMMs --model measures (planner LayerGemm::gated)
  std::vector<std::int64_t> model_tokens;  // --tokens default for --model
  std::vector<Shape> default_shapes;
  // --model's shapes when the suite has its own (null: the model's GEMMs, shapes.hpp).
  std::vector<Shape> (*shapes_for_model)(const std::string& model, const std::vector<std::int64_t>& tokens) = nullptr;
  TimingOptions timing;        // default
  TimingOptions quick_timing;  // --quick
  // The op's argument rules for a shape (fake operands; nothing runs): a shape no kernel can run
  // is refused before anything is measured.
  Status (*validate)(const Shape& shape);
  // Without a GPU: what the suite would run and the roofline of its shapes.
  void (*print_plan)(const std::vector<Shape>& shapes);
  // Checks and times one shape, appending its rows.
  void (*run_shape)(const SuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings,
                    const Shape& shape, std::vector<Row>* rows);
};

Suite gemm_suite();
Suite gated_mlp_suite();
Suite moe_suite();

// Every suite, the default first.
const std::vector<Suite>& suites();

}  // namespace epifuse::bench
