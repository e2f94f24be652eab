// EVT leaf that yields C (the residual) when the launch has one. Unlike CUTLASS's Sm90SrcFetch,
// whether C is loaded is a run-time choice: with `enabled == false` the collective epilogue
// issues no C loads at all, so a kernel compiled with C support pays nothing when C is absent.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp>

namespace epifuse::device {

template <class ElementC>
struct Sm90OptionalSource {
  struct SharedStorage {};
  struct Arguments {
    bool enabled = false;
  };
  using Params = Arguments;

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(const ProblemShape&, const Arguments& args, void*) {
    return args;
  }
  template <class ProblemShape>
  static bool can_implement(const ProblemShape&, const Arguments&) {
    return true;
  }
  template <class ProblemShape>
  static std::size_t get_workspace_size(const ProblemShape&, const Arguments&) {
    return 0;
  }
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(const ProblemShape&, const Arguments&, void*, cudaStream_t,
                                              cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }

  CUTLASS_HOST_DEVICE Sm90OptionalSource() {}
  CUTLASS_HOST_DEVICE Sm90OptionalSource(const Params& params, const SharedStorage&) : params(params) {}

  Params params{};

  CUTLASS_DEVICE bool is_producer_load_needed() const { return params.enabled; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return params.enabled; }

  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(
      const cutlass::epilogue::fusion::ProducerLoadArgs<Args...>&) {
    return cutlass::epilogue::fusion::EmptyProducerLoadCallbacks{};
  }

  template <class SrcTensor>
  struct ConsumerStoreCallbacks : cutlass::epilogue::fusion::EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE explicit ConsumerStoreCallbacks(const SrcTensor& tCrC) : tCrC(tCrC) {}

    const SrcTensor& tCrC;  // (CPY,CPY_M,CPY_N)

    template <class ElementAccumulator, int kFragmentSize>
    CUTLASS_DEVICE cutlass::Array<typename SrcTensor::value_type, kFragmentSize> visit(
        const cutlass::Array<ElementAccumulator, kFragmentSize>&, int epi_v, int, int) {
      return cute::recast<cutlass::Array<typename SrcTensor::value_type, kFragmentSize>>(tCrC)(epi_v);
    }
  };

  template <bool kReferenceSrc, class... Args>
  CUTLASS_DEVICE auto get_consumer_store_callbacks(
      const cutlass::epilogue::fusion::ConsumerStoreArgs<Args...>& args) {
    return ConsumerStoreCallbacks<cute::remove_cvref_t<decltype(args.tCrC)>>(args.tCrC);
  }
};

}  // namespace epifuse::device
