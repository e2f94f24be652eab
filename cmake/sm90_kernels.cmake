# The sm90 GEMM kernels epifuse compiles: one generated .cu per kernel (one CUTLASS
# instantiation each, ~1 min and ~3.5 GB of compiler memory apiece), plus kernel_list.inc,
# which the registry includes. Each entry:
#   input|output|schedule|tile M,N,K|cluster M,N|swap_ab|epilogue[|noc]
# epilogue: full | colreduce (full plus col_sum/col_amax) | biasact (alpha, col_bias, activation)
#   | cast (D = cast(acc)); see EpilogueCoverage in include/epifuse/gemm.hpp.
# noc: compiled without C (no residual): no C shared memory or pipeline, and CUTLASS's builder then
# delays each subtile's TMA store behind the next subtile's work.
# Dispatch (src/dispatch/sm90_heuristics.cpp) picks among them by name. For quick development
# builds, -DEPIFUSE_KERNEL_FILTER=<regex> compiles only the matching kernels.
set(EPIFUSE_SM90_KERNELS
  # bf16 -> bf16, the primary path. The large-M configuration also without C ("noc"), which
  # epilogues without a residual use, and with the two narrow epilogues (docs/heuristics.md).
  "bf16|bf16|coop|128,256,64|2,1|0|full"
  "bf16|bf16|coop|128,256,64|2,1|0|full|noc"
  "bf16|bf16|coop|128,256,64|2,1|0|biasact|noc"
  "bf16|bf16|coop|128,256,64|2,1|0|cast|noc"
  "bf16|bf16|coop|128,256,64|1,2|0|full"
  "bf16|bf16|coop|128,64,128|1,1|1|full"
  "bf16|bf16|coop|128,128,64|1,1|0|colreduce"
  # Other dtype pairs: one large-M, one small-M and one column-reduction kernel each.
  "fp16|fp16|coop|128,256,64|1,2|0|full"
  "fp16|fp16|coop|128,64,128|1,1|1|full"
  "fp16|fp16|coop|128,128,64|1,1|0|colreduce"
  "bf16|fp32|coop|128,256,64|1,2|0|full"
  "bf16|fp32|coop|128,64,128|1,1|1|full"
  "bf16|fp32|coop|128,128,64|1,1|0|colreduce"
  "fp16|fp32|coop|128,256,64|1,2|0|full"
  "fp16|fp32|coop|128,64,128|1,1|1|full"
  "fp16|fp32|coop|128,128,64|1,1|0|colreduce"
)

set(_epifuse_cutlass_type_bf16 "cutlass::bfloat16_t")
set(_epifuse_cutlass_type_fp16 "cutlass::half_t")
set(_epifuse_cutlass_type_fp32 "float")
set(_epifuse_schedule_coop "Cooperative")
set(_epifuse_coverage_full "kFull")
set(_epifuse_coverage_colreduce "kFullWithColumnReductions")
set(_epifuse_coverage_biasact "kBiasActivation")
set(_epifuse_coverage_cast "kCastOnly")
set(_epifuse_schedule_pingpong "Pingpong")

# Shared by both generators: from a spec's schedule, "M,N,K" tile, "M,N" cluster and swap flag,
# sets `geometry_name` ([swap_]<schedule>_<M>x<N>x<K>_c<M>x<N>) and the template arguments
# EPIFUSE_TILE, EPIFUSE_CLUSTER, EPIFUSE_SCHEDULE, EPIFUSE_SWAP_AB in the caller's scope.
function(_epifuse_kernel_geometry schedule tile cluster swap_ab)
  string(REPLACE "," ";" tile "${tile}")
  string(REPLACE "," ";" cluster "${cluster}")
  list(GET tile 0 tile_m)
  list(GET tile 1 tile_n)
  list(GET tile 2 tile_k)
  list(GET cluster 0 cluster_m)
  list(GET cluster 1 cluster_n)
  set(name "")
  set(swap "false")
  if(swap_ab)
    set(name "swap_")
    set(swap "true")
  endif()
  string(APPEND name "${schedule}_${tile_m}x${tile_n}x${tile_k}_c${cluster_m}x${cluster_n}")
  set(geometry_name "${name}" PARENT_SCOPE)
  set(EPIFUSE_TILE "cute::Shape<cute::_${tile_m}, cute::_${tile_n}, cute::_${tile_k}>" PARENT_SCOPE)
  set(EPIFUSE_CLUSTER "cute::Shape<cute::_${cluster_m}, cute::_${cluster_n}, cute::_1>" PARENT_SCOPE)
  set(EPIFUSE_SCHEDULE "${_epifuse_schedule_${schedule}}" PARENT_SCOPE)
  set(EPIFUSE_SWAP_AB "${swap}" PARENT_SCOPE)
endfunction()

# Writes the instantiation sources into `out_dir`; sets `out_sources` to their paths.
function(epifuse_generate_sm90_kernels out_dir out_sources)
  file(GLOB stale "${out_dir}/*.cu")
  list(FILTER stale EXCLUDE REGEX "/gated_[^/]*\\.cu$")
  set(sources "")
  set(list_lines "")
  foreach(spec IN LISTS EPIFUSE_SM90_KERNELS)
    string(REPLACE "|" ";" fields "${spec}")
    list(GET fields 0 input)
    list(GET fields 1 output)
    list(GET fields 2 schedule)
    list(GET fields 3 tile)
    list(GET fields 4 cluster)
    list(GET fields 5 swap_ab)
    list(GET fields 6 epilogue)
    set(without_c FALSE)
    list(LENGTH fields field_count)
    if(field_count GREATER 7)
      list(GET fields 7 variant)
      if(NOT variant STREQUAL "noc")
        message(FATAL_ERROR "unknown kernel variant '${variant}' in ${spec}")
      endif()
      set(without_c TRUE)
    endif()
    _epifuse_kernel_geometry("${schedule}" "${tile}" "${cluster}" "${swap_ab}")
    set(name "${input}_${output}_${geometry_name}")
    if(NOT epilogue STREQUAL "full")
      string(APPEND name "_${epilogue}")
    endif()
    if(without_c)
      string(APPEND name "_noc")
    endif()

    if(EPIFUSE_KERNEL_FILTER AND NOT name MATCHES "${EPIFUSE_KERNEL_FILTER}")
      continue()
    endif()

    set(EPIFUSE_KERNEL_NAME "${name}")
    set(EPIFUSE_ELEMENT_AB "${_epifuse_cutlass_type_${input}}")
    set(EPIFUSE_ELEMENT_D "${_epifuse_cutlass_type_${output}}")
    if(without_c)
      set(EPIFUSE_ELEMENT_C "void")
    else()
      set(EPIFUSE_ELEMENT_C "${EPIFUSE_ELEMENT_D}")
    endif()
    set(EPIFUSE_COVERAGE "${_epifuse_coverage_${epilogue}}")
    if(NOT EPIFUSE_COVERAGE)
      message(FATAL_ERROR "unknown epilogue '${epilogue}' in ${spec}")
    endif()
    configure_file("${PROJECT_SOURCE_DIR}/src/kernels/sm90/instantiation.cu.in" "${out_dir}/${name}.cu" @ONLY)
    list(APPEND sources "${out_dir}/${name}.cu")
    string(APPEND list_lines "EPIFUSE_SM90_KERNEL(${name})\n")
  endforeach()
  list(REMOVE_ITEM stale ${sources})
  if(stale)
    file(REMOVE ${stale})
  endif()
  file(CONFIGURE OUTPUT "${out_dir}/kernel_list.inc" CONTENT "${list_lines}")
  set(${out_sources} "${sources}" PARENT_SCOPE)
endfunction()

# The sm90 fused gated-MLP kernels (src/kernels/sm90/gated_gemm.cuh), generated the same way into
# gated_kernel_list.inc. Each entry:  dtype|schedule|tile M,N,K|cluster M,N|swap_ab
# Tiles are in the GEMM actually run: unswapped, N spans packed gate/up rows (half as many outputs).
# The bf16 list is what dispatch uses (src/dispatch/sm90_gated_heuristics.cpp); a cooperative 2x1
# and a swapped 128x64 kernel were swept and dropped (bench/results/tuning/gated-sweep-*.json).
set(EPIFUSE_SM90_GATED_KERNELS
  "bf16|coop|128,256,64|1,2|0"
  "bf16|pingpong|128,128,64|1,2|0"
  "bf16|pingpong|128,128,64|2,1|0"
  "bf16|coop|128,32,128|1,1|1"
  "fp16|coop|128,256,64|1,2|0"
  "fp16|coop|128,64,128|1,1|1"
)

function(epifuse_generate_sm90_gated_kernels out_dir out_sources)
  file(GLOB stale "${out_dir}/gated_*.cu")
  set(sources "")
  set(list_lines "")
  foreach(spec IN LISTS EPIFUSE_SM90_GATED_KERNELS)
    string(REPLACE "|" ";" fields "${spec}")
    list(GET fields 0 dtype)
    list(GET fields 1 schedule)
    list(GET fields 2 tile)
    list(GET fields 3 cluster)
    list(GET fields 4 swap_ab)
    _epifuse_kernel_geometry("${schedule}" "${tile}" "${cluster}" "${swap_ab}")
    set(name "${dtype}_${geometry_name}")
    if(EPIFUSE_KERNEL_FILTER AND NOT "gated_${name}" MATCHES "${EPIFUSE_KERNEL_FILTER}")
      continue()
    endif()
    set(EPIFUSE_KERNEL_NAME "${name}")
    set(EPIFUSE_ELEMENT_AB "${_epifuse_cutlass_type_${dtype}}")
    configure_file("${PROJECT_SOURCE_DIR}/src/kernels/sm90/gated_instantiation.cu.in" "${out_dir}/gated_${name}.cu" @ONLY)
    list(APPEND sources "${out_dir}/gated_${name}.cu")
    string(APPEND list_lines "EPIFUSE_SM90_GATED_KERNEL(${name})\n")
  endforeach()
  list(REMOVE_ITEM stale ${sources})
  if(stale)
    file(REMOVE ${stale})
  endif()
  file(CONFIGURE OUTPUT "${out_dir}/gated_kernel_list.inc" CONTENT "${list_lines}")
  set(${out_sources} "${sources}" PARENT_SCOPE)
endfunction()
