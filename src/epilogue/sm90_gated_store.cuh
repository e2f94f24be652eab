// The gated-MLP output node of an sm90 epilogue visitor tree: it combines each gate/up pair of
// the accumulator tile in registers and stores only the half-width output, through shared memory
// and TMA.
//
// The packed weight (include/epifuse/packing/gate_up.hpp) interleaves gate and up rows in blocks of 8:
// packed rows [16b, 16b+8) are gate rows [8b, 8b+8), packed rows [16b+8, 16b+16) the matching up
// rows. In the GEMM's accumulator the packed rows run along kPairMode (N for x·Wᵀ, M for the
// swapped Wᵀ·x). wgmma gives each thread coordinates p and p+8 of that mode within every 16-aligned
// block (columns 2q, 2q+1, 8+2q, 8+2q+1 of the C fragment; rows r and r+8 when swapped), so gate
// p and up p+8 sit in the same thread and out = act(gate)·up never leaves it.
//
// Per epilogue subtile, visit() keeps the thread's fp32 values (acc + bias) in registers;
// postreduce() pairs them, applies the math and writes the half-width subtile to shared memory;
// tma_store() sends it out with its own TMA descriptor over the [M, N] (or swapped [N, M]) output.
// The collective's D is void: the 2N-wide product is never stored.
//
// kGroupedRows (the grouped kernel: one GEMM per expert over its run of rows of x and out): a
// tile of one group may reach past that group's last row into the next group's rows, where a TMA
// store cannot be clipped. There every epilogue thread copies 16-byte chunks of the subtile from
// shared memory to the group's rows of out, skipping rows past the group's end.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/builders/sm90_builder.inl>
#include <cutlass/epilogue/collective/detail.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp>
#include <cutlass/numeric_conversion.h>

#include "epilogue/gated_math.cuh"

namespace epifuse::device {

// kStages must equal the collective's StagesD (the store pipeline guards our buffers too);
// EpilogueTile is the accumulator subtile (EPI_M, EPI_N); StrideOut is the output's (M, N, L)
// stride in GEMM coordinates, its pair mode half as long as the GEMM's.
template <int kStages, class EpilogueTile, class ElementOut, class StrideOut, int kPairMode, bool kGroupedRows = false>
struct Sm90GatedStore {
  using ElementAux = ElementOut;  // what CUTLASS's builder sizes its tiles by when D is void
  static constexpr int kBlock = 8;
  static_assert(kPairMode == 0 || kPairMode == 1, "pairs run along GEMM M (0) or N (1)");
  static_assert(cute::size<kPairMode>(EpilogueTile{}) % (2 * kBlock) == 0,
                "an epilogue subtile must hold whole gate/up blocks");

  template <class Shape>
  CUTLASS_HOST_DEVICE static constexpr auto halve_pair_mode(Shape shape) {
    return cute::replace<kPairMode>(shape, cute::Int<decltype(cute::size<kPairMode>(shape))::value / 2>{});
  }
  using OutTile = decltype(halve_pair_mode(cute::make_shape(cute::size<0>(EpilogueTile{}),
                                                            cute::size<1>(EpilogueTile{}))));  // (OUT_EPI_M, OUT_EPI_N)
  static constexpr bool kMMajor = cutlass::epilogue::collective::detail::is_m_major<StrideOut>();
  using SmemLayoutAtom = decltype(cutlass::epilogue::collective::detail::sm90_get_epilogue_smem_swizzle_layout_atom<
                                  StrideOut, ElementOut, OutTile>());
  using SmemLayoutStage = decltype(cute::tile_to_shape(SmemLayoutAtom{}, OutTile{},
                                                       cute::conditional_t<kMMajor, cute::Step<cute::_2, cute::_1>,
                                                                           cute::Step<cute::_1, cute::_2>>{}));
  using SmemLayout = decltype(cute::tile_to_shape(
      SmemLayoutAtom{}, cute::make_shape(cute::get<0>(OutTile{}), cute::get<1>(OutTile{}), cute::Int<kStages>{}),
      cute::conditional_t<kMMajor, cute::Step<cute::_2, cute::_1, cute::_3>, cute::Step<cute::_1, cute::_2, cute::_3>>{}));

  struct SharedStorage {
    alignas(cutlass::detail::alignment_for_swizzle(SmemLayout{}))
        cute::array_aligned<ElementOut, cute::cosize_v<SmemLayout>> smem_out;
  };

  struct Arguments {
    ElementOut* ptr_out = nullptr;
    StrideOut d_out = {};
    GatedMath math;
    // The output's token extent when the GEMM runs over more (x padded with zero rows); 0: the
    // GEMM's. Stores past it are clipped by the TMA descriptor.
    int tokens = 0;
    // kGroupedRows: group l's first row of out (device memory, one entry per group).
    const std::int32_t* group_first_row = nullptr;
  };

  struct TmaParams {
    using TmaStore = decltype(cute::make_tma_copy(
        cute::SM90_TMA_STORE{},
        cute::make_tensor(static_cast<ElementOut*>(nullptr), cute::repeat_like(StrideOut{}, int32_t(0)), StrideOut{}),
        SmemLayoutStage{}));
    TmaStore tma_store;
    GatedMath math;
  };
  struct GroupedRowsParams {
    ElementOut* ptr_out;
    StrideOut d_out;
    const std::int32_t* group_first_row;
    GatedMath math;
  };
  using Params = cute::conditional_t<kGroupedRows, GroupedRowsParams, TmaParams>;

  // (M, N, L) of the output: the GEMM's, with the pair mode halved.
  template <class ProblemShape>
  CUTLASS_HOST_DEVICE static auto output_shape(const ProblemShape& problem_shape) {
    auto [M, N, K, L] = cute::append<4>(problem_shape, 1);
    if constexpr (kPairMode == 0) {
      return cute::make_shape(static_cast<int>(M) / 2, static_cast<int>(N), static_cast<int>(L));
    } else {
      return cute::make_shape(static_cast<int>(M), static_cast<int>(N) / 2, static_cast<int>(L));
    }
  }

  template <class ProblemShape>
  static Params to_underlying_arguments(const ProblemShape& problem_shape, const Arguments& args, void*) {
    if constexpr (kGroupedRows) {
      return {args.ptr_out, args.d_out, args.group_first_row, args.math};
    } else {
      return tma_params(problem_shape, args);
    }
  }
  template <class ProblemShape>
  static TmaParams tma_params(const ProblemShape& problem_shape, const Arguments& args) {
    constexpr int kTokenMode = 1 - kPairMode;
    auto shape = output_shape(problem_shape);
    if (args.tokens > 0) cute::get<kTokenMode>(shape) = cute::min(cute::get<kTokenMode>(shape), args.tokens);
    auto out = cute::make_tensor(args.ptr_out, cute::make_layout(shape, args.d_out));
    return {cute::make_tma_copy(cute::SM90_TMA_STORE{}, out, SmemLayoutStage{}), args.math};
  }
  template <class ProblemShape>
  static bool can_implement(const ProblemShape& problem_shape, const Arguments& args) {
    if (args.ptr_out == nullptr || (kGroupedRows && args.group_first_row == nullptr)) return false;
    return cute::size<kPairMode>(cute::append<4>(problem_shape, 1)) % (2 * kBlock) == 0;
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

  CUTLASS_HOST_DEVICE Sm90GatedStore() {}
  CUTLASS_HOST_DEVICE Sm90GatedStore(const Params& params, const SharedStorage& shared)
      : params_ptr(&params), smem_out(const_cast<ElementOut*>(shared.smem_out.data())) {}

  const Params* params_ptr = nullptr;
  ElementOut* smem_out = nullptr;

  CUTLASS_DEVICE bool is_producer_load_needed() const { return false; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return false; }

  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(cutlass::epilogue::fusion::detail::ProducerLoadArgs<Args...> const&) {
    return cutlass::epilogue::fusion::detail::EmptyProducerLoadCallbacks{};
  }

  // Sends a finished subtile out through the TMA descriptor (one elected thread).
  template <class SGTensor, class GGTensor>
  struct TmaWriter {
    SGTensor bSG_sOut;  // (TMA,TMA_M,TMA_N,PIPE)
    GGTensor bSG_gOut;  // (TMA,TMA_M,TMA_N,EPI_M,EPI_N)

    template <class STensor>
    CUTLASS_DEVICE void store(const Params& params, STensor&, int epi_m, int epi_n, int store_iteration, bool issue_tma_store) {
      if (issue_tma_store) {
        const int pipe = store_iteration % kStages;
        cute::copy(params.tma_store, bSG_sOut(cute::_, cute::_, cute::_, pipe),
                   bSG_gOut(cute::_, cute::_, cute::_, epi_m, epi_n));
      }
    }
  };

  // Copies a finished subtile to the group's rows, every epilogue thread 16-byte chunks of it,
  // skipping chunks past the group's output (whose pair-mode extent is a multiple of 8).
  template <class GTensor, class CTensor, class Extent>
  struct GroupedRowsWriter {
    GTensor gOut;    // (OUT_EPI_M,OUT_EPI_N,EPI_M,EPI_N) the group's output
    CTensor cOut;    // (OUT_EPI_M,OUT_EPI_N,EPI_M,EPI_N) -> (m, n) in the group's output
    Extent extent;   // (M_OUT, N_OUT) of the group
    int thread_idx;
    int threads;

    template <class STensor>
    CUTLASS_DEVICE void store(const Params&, STensor& sOut, int epi_m, int epi_n, int store_iteration, bool) {
      using namespace cute;
      constexpr int kVector = 16 / static_cast<int>(sizeof(ElementOut));
      constexpr int kAlong = kMMajor ? 0 : 1;  // the contiguous mode of out
      constexpr int kChunks = decltype(size<kAlong>(OutTile{}))::value / kVector;
      constexpr int kLines = decltype(size<1 - kAlong>(OutTile{}))::value;
      Tensor sStage = sOut(_, _, store_iteration % kStages);  // (OUT_EPI_M,OUT_EPI_N)
      Tensor gSub = gOut(_, _, epi_m, epi_n);                 // (OUT_EPI_M,OUT_EPI_N)
      Tensor cSub = cOut(_, _, epi_m, epi_n);                 // (OUT_EPI_M,OUT_EPI_N) -> (m, n)
      for (int i = thread_idx; i < kLines * kChunks; i += threads) {
        const int line = i / kChunks, along = (i % kChunks) * kVector;
        const auto coord = kAlong == 1 ? make_coord(line, along) : make_coord(along, line);
        if (elem_less(cSub(coord), extent)) {
          *reinterpret_cast<uint128_t*>(&gSub(coord)) = *reinterpret_cast<const uint128_t*>(&sStage(coord));
        }
      }
    }
  };

  template <class RTensor, class CTensor, class STensor, class Writer>
  struct ConsumerStoreCallbacks : cutlass::epilogue::fusion::detail::EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE ConsumerStoreCallbacks(RTensor&& r, CTensor&& c, STensor&& s, Writer&& w, const Params* params)
        : tC_rIn(cute::forward<RTensor>(r)),
          tC_cIn(cute::forward<CTensor>(c)),
          sOut(cute::forward<STensor>(s)),
          writer(cute::forward<Writer>(w)),
          params_ptr(params) {}

    RTensor tC_rIn;      // (CPY,CPY_M,CPY_N) fp32 gate and up values of the current subtile
    CTensor tC_cIn;      // (CPY,CPY_M,CPY_N,EPI_M,EPI_N) their (m, n) in the CTA tile
    STensor sOut;        // (OUT_EPI_M,OUT_EPI_N,PIPE)
    Writer writer;
    const Params* params_ptr;

    template <class ElementAccumulator, class ElementInput, int FragmentSize>
    CUTLASS_DEVICE auto visit(cutlass::Array<ElementAccumulator, FragmentSize> const&, int epi_v, int, int,
                              cutlass::Array<ElementInput, FragmentSize> const& frg_input) {
      cutlass::NumericArrayConverter<float, ElementInput, FragmentSize> to_float;
      cute::recast<cutlass::Array<float, FragmentSize>>(cute::coalesce(tC_rIn))(epi_v) = to_float(frg_input);
      return frg_input;
    }

    CUTLASS_DEVICE void postreduce(int epi_m, int epi_n, int store_iteration, bool issue_smem_store) {
      if (!issue_smem_store) return;
      constexpr int kValues = decltype(cute::size(tC_rIn))::value;
      constexpr int kPairs = kValues / 2;
      constexpr int kOther = 1 - kPairMode;
      cute::Tensor cSub = tC_cIn(cute::_, cute::_, cute::_, epi_m, epi_n);  // (CPY,CPY_M,CPY_N) -> (m, n) in the CTA tile

      // Offsets from the thread's first value are compile-time constants once unrolled. The
      // first value is a gate (its pair-mode coordinate is < 8 within its 16-block; see the
      // top of this file), so value i is a gate when its offset is in the lower half of a
      // 16-block, and its up value sits 8 further along the pair mode.
      const auto first = cSub(0);
      auto offset = [&](int i, auto mode) { return cute::get<decltype(mode)::value>(cSub(i)) -
                                                   cute::get<decltype(mode)::value>(first); };
      cutlass::Array<float, kPairs> gate, up;
      int gate_index[kPairs];
      int pair = 0;
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < kValues; ++i) {
        const int along = offset(i, cute::Int<kPairMode>{});
        if (((along % 16) + 16) % 16 >= kBlock) continue;
        CUTLASS_PRAGMA_UNROLL
        for (int j = 0; j < kValues; ++j) {
          if (offset(j, cute::Int<kPairMode>{}) == along + kBlock &&
              offset(j, cute::Int<kOther>{}) == offset(i, cute::Int<kOther>{})) {
            gate[pair] = tC_rIn(i);
            up[pair] = tC_rIn(j);
            gate_index[pair] = i;
          }
        }
        ++pair;
      }

      const GatedMath& math = params_ptr->math;
      limit_and_activate(gate, up, math);

      // The subtile's origin in the CTA tile, then each output's place in the half-width subtile.
      const int origin[2] = {epi_m * static_cast<int>(cute::size<0>(EpilogueTile{})),
                             epi_n * static_cast<int>(cute::size<1>(EpilogueTile{}))};
      cute::Tensor sStage = sOut(cute::_, cute::_, store_iteration % kStages);  // (OUT_EPI_M,OUT_EPI_N)
      auto out_address = [&](int k) {
        const auto coord = cSub(gate_index[k]);
        const int along = cute::get<kPairMode>(coord) - origin[kPairMode];
        const int across = cute::get<kOther>(coord) - origin[kOther];
        const int out_along = (along / (2 * kBlock)) * kBlock + along % kBlock;
        if constexpr (kPairMode == 1) {
          return &sStage(across, out_along);
        } else {
          return &sStage(out_along, across);
        }
      };
      // Unswapped, the C fragment's values come in adjacent column pairs starting at an even
      // column, so outputs k and k+1 share one 32-bit store (swizzles move 16-byte chunks).
      auto starts_adjacent_pair = [&](int k) {
        return kPairMode == 1 && k % 2 == 0 && k + 1 < kPairs &&
               offset(gate_index[k + 1], cute::Int<kPairMode>{}) == offset(gate_index[k], cute::Int<kPairMode>{}) + 1 &&
               offset(gate_index[k + 1], cute::Int<kOther>{}) == offset(gate_index[k], cute::Int<kOther>{});
      };
      CUTLASS_PRAGMA_UNROLL
      for (int k = 0; k < kPairs; ++k) {
        const ElementOut value = static_cast<ElementOut>(math.scale * gate[k] * up[k]);
        if (starts_adjacent_pair(k)) {
          cutlass::Array<ElementOut, 2> two;
          two[0] = value;
          two[1] = static_cast<ElementOut>(math.scale * gate[k + 1] * up[k + 1]);
          *reinterpret_cast<cutlass::Array<ElementOut, 2>*>(out_address(k)) = two;
        } else if (k == 0 || !starts_adjacent_pair(k - 1)) {
          *out_address(k) = value;
        }
      }
    }

    CUTLASS_DEVICE void tma_store(int epi_m, int epi_n, int store_iteration, bool issue_tma_store) {
      writer.store(*params_ptr, sOut, epi_m, epi_n, store_iteration, issue_tma_store);
    }
  };

  template <bool kReferenceSrc, class... Args>
  CUTLASS_DEVICE auto get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<Args...> const& args) {
    using namespace cute;
    auto [M, N, K, L] = args.problem_shape_mnkl;
    auto [m, n, k, l] = args.tile_coord_mnkl;

    // Where each of the thread's values sits in the CTA tile.
    Tensor cTile = make_identity_tensor(take<0, 2>(args.tile_shape_mnk));  // (CTA_M,CTA_N) -> (m, n)
    Tensor tC_cIn = cutlass::epilogue::fusion::sm90_partition_for_epilogue<kReferenceSrc>(
        cTile, args.epi_tile, args.tiled_copy, args.thread_idx);           // (CPY,CPY_M,CPY_N,EPI_M,EPI_N)
    Tensor tC_rIn = make_tensor<float>(take<0, 3>(shape(tC_cIn)));        // (CPY,CPY_M,CPY_N)

    Tensor sOut = as_position_independent_swizzle_tensor(
        make_tensor(make_smem_ptr(smem_out), SmemLayout{}));  // (OUT_EPI_M,OUT_EPI_N,PIPE)
    auto out_cta_tile = halve_pair_mode(take<0, 2>(args.tile_shape_mnk));
    auto make_callbacks = [&](auto writer) {
      return ConsumerStoreCallbacks<decltype(tC_rIn), decltype(tC_cIn), decltype(sOut), decltype(writer)>(
          cute::move(tC_rIn), cute::move(tC_cIn), cute::move(sOut), cute::move(writer), params_ptr);
    };

    if constexpr (kGroupedRows) {
      // Group l's output: its rows of out, from its first row on.
      constexpr int kTokenMode = 1 - kPairMode;
      auto extent = take<0, 2>(output_shape(make_shape(M, N, K, L)));  // (M_OUT,N_OUT)
      const auto& d_out = params_ptr->d_out;
      ElementOut* base = params_ptr->ptr_out + static_cast<std::int64_t>(params_ptr->group_first_row[l]) * get<kTokenMode>(d_out);
      Tensor mOut = make_tensor(make_gmem_ptr(base), make_layout(extent, take<0, 2>(d_out)));  // (M_OUT,N_OUT)
      Tensor gOut = flat_divide(local_tile(mOut, out_cta_tile, make_coord(m, n)), OutTile{});  // (OUT_EPI_M,OUT_EPI_N,EPI_M,EPI_N)
      Tensor cOut = flat_divide(local_tile(make_identity_tensor(extent), out_cta_tile, make_coord(m, n)),
                                OutTile{});                                                    // (OUT_EPI_M,OUT_EPI_N,EPI_M,EPI_N)
      using Writer = GroupedRowsWriter<decltype(gOut), decltype(cOut), decltype(extent)>;
      return make_callbacks(Writer{gOut, cOut, extent, args.thread_idx, static_cast<int>(size(args.tiled_mma))});
    } else {
      // The output tile of this CTA, cut into half-width subtiles.
      Tensor mOut = params_ptr->tma_store.get_tma_tensor(output_shape(make_shape(M, N, K, L)));  // (M_OUT,N_OUT,L)
      Tensor gOut = local_tile(mOut, out_cta_tile, make_coord(m, n, l));  // (OUT_CTA_M,OUT_CTA_N)
      Tensor gOut_epi = flat_divide(gOut, OutTile{});                     // (OUT_EPI_M,OUT_EPI_N,EPI_M,EPI_N)
      ThrCopy tma_slice = params_ptr->tma_store.get_slice(_0{});
      Tensor bSG_sOut = tma_slice.partition_S(sOut);     // (TMA,TMA_M,TMA_N,PIPE)
      Tensor bSG_gOut = tma_slice.partition_D(gOut_epi);  // (TMA,TMA_M,TMA_N,EPI_M,EPI_N)
      return make_callbacks(TmaWriter<decltype(bSG_sOut), decltype(bSG_gOut)>{bSG_sOut, bSG_gOut});
    }
  }
};

}  // namespace epifuse::device
