// Kernel introspection and forcing: which kernels this build compiled, which one a call would
// run, and how to name one. Forcing is by value: set GemmArgs::kernel / GatedMlpArgs::kernel to
// a KernelChoice whose key is one of compiled_kernels(op).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/status.hpp"

namespace epifuse {

// Every compiled kernel of `op`, in kernel-table order.
std::vector<KernelKey> compiled_kernels(Op op);

// The compiled kernel whose name(key) is `kernel_name`, if any.
std::optional<KernelKey> find_kernel(std::string_view kernel_name);

// The most tokens (M) of a call forced to run kernel `key`: a warp-mma kernel's tile N (8, or 16
// in two token tiles), except the GEMM's 16-token kernel: up to 64, in rows of 16 along its
// grid's y, each row reading the weight again (the rows after the first mostly from L2). Any
// other kernel: no limit (INT64_MAX).
std::int64_t max_tokens(const KernelKey& key);

// What gemm(args, stream) / gated_mlp(args, stream) would run: validates args and reads the
// stream's device the same way, launches nothing. `choice` is left empty when the call would
// launch no kernel (an empty problem).
//
// gemm() delegates a call to cuBLASLt when no kernel is forced, cuBLASLt computes its epilogue
// exactly as epifuse defines it (alpha, a column bias, identity, ReLU or GELU-tanh, a residual
// added before the activation; no scales, row bias or reductions) and cuBLASLt has an algorithm
// for it: epifuse's own GEMM kernels trail cuBLASLt there (docs/heuristics.md). gated_mlp()
// delegates narrow weights with a long K to cuBLASLt + epifuse's act·mul kernel when no kernel
// is forced and the workspace holds the fp32 product (gated_mlp.hpp). `*delegated` (when given)
// says whether the call would be delegated; `choice` is then the epifuse kernel that runs the
// call when forced (args.kernel = *choice), which is how to opt out (query the workspace again
// for the forced call: stream-K partials and a 16-bit bias's fp32 copy are counted there). A call
// that is not delegated and whose workspace cannot hold its 16-bit bias's copy returns gemm()'s error.
Status selected_kernel(const GemmArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice,
                       bool* delegated = nullptr);
Status selected_kernel(const GatedMlpArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice,
                       bool* delegated = nullptr);

// A delegated GEMM (and a delegated gated MLP's product) runs one of cuBLASLt's top four heuristic
// algorithms, chosen at the first launch of each shape (shape, strides, types, epilogue, pointer
// alignment and workspace size): that launch runs every candidate on the call's own operands,
// 7-13 times each, in two passes over the candidates, the second in reverse order, each
// candidate's runs back to back (timed runs sized to about 2 ms, four to ten each, held until all
// are enqueued so that they run at the device's pace, not the host's launch rate), waits for its
// stream, and keeps the fastest median; a candidate within 1 % of it that cuBLASLt ranks
// higher wins the tie. Every later call of the shape runs the choice without timing. cuBLASLt's
// first choice took up to 1.5x its fastest candidate's time at some shapes (docs/heuristics.md).
// A first launch under stream capture, or one whose residual is D itself (reruns would add to
// it), keeps cuBLASLt's first candidate. A gated call's first launch times its ways the same way:
// the fused kernel against the delegated path where it can run both, and at 321-1023 tokens the
// rules' fused tiling against other tilings, after about 100 ms of untimed runs (gated_mlp.hpp: so
// such a first launch takes 0.1-0.7 s of host time); a first launch under capture runs the rules'
// way.
// The choice holds for the process; where candidates run close, two processes may choose
// differently and so round differently. Off (set_delegated_tuning(false) before a shape's first
// launch, or EPIFUSE_DELEGATED_TUNING=0 in the environment), every delegated call runs cuBLASLt's
// first candidate, as cuBLASLt's heuristic ranks it on this GPU and library version. On by default;
// EPIFUSE_DELEGATED_TUNING=log also prints each choice, with every candidate's time and the host
// time the choice took (its stream drained first), to stderr.
void set_delegated_tuning(bool enabled);
bool delegated_tuning();

// How reports name what a delegated call runs.
constexpr const char* kDelegatedKernelName = "cublaslt (delegated)";

}  // namespace epifuse
