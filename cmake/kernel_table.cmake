# The kernel table's machinery. cmake/kernels_<arch>.cmake holds the rows, one per compiled kernel;
# from them the build generates one .cu per row and kernel_table.inc, the C++ table of every row's
# KernelKey (include/epifuse/kernel_key.hpp), which dispatch and the CPU tests read. Each field is
# a KernelKey field; the C++ names of kernels come from name(KernelKey) alone. A row:
#
#   epifuse_kernel(OP gemm|gated_mlp  A <dtype> [B <dtype>] [D <dtype>]
#                  SCHEDULE cooperative|pingpong|warp_mma  TILE <m> <n> <k>  [CLUSTER <m> <n>]  [SWAP_AB]
#                  [EPILOGUE cast|bias_activation|full|full_with_column_reductions|gated_pair]  [HAS_C]
#                  [GROUPING none|grouped]  [DECOMPOSITION data_parallel|stream_k])
#
# dtypes: bf16 fp16 fp32 e4m3 e5m2. B and D default to A, CLUSTER to 1 1, EPILOGUE to full (gemm)
# or gated_pair (gated_mlp). SWAP_AB: the kernel runs Dᵀ = B·Aᵀ. HAS_C: compiled with a C
# (residual) operand. The architecture is the table file's (epifuse_kernel_table).
#
# Generated sources are named by a hash of the row (the row itself heads each file). For quick
# development builds, -DEPIFUSE_KERNEL_FILTER=<regex> compiles only the rows whose canonical text
# matches, e.g. "op=gated_mlp.*tile=128x32x128" (the text: op=gemm arch=sm90 a=bf16 b=bf16 d=bf16
# schedule=cooperative tile=128x256x64 cluster=2x1 swap_ab=no epilogue=cast has_c=no grouping=none
# decomposition=data_parallel). Dispatch then chooses among the compiled rows only.

set(_epifuse_cpp_op_gemm "kGemm")
set(_epifuse_cpp_op_gated_mlp "kGatedMlp")
set(_epifuse_cpp_arch_sm90 "kSm90")
set(_epifuse_cpp_dtype_bf16 "kBF16")
set(_epifuse_cpp_dtype_fp16 "kFP16")
set(_epifuse_cpp_dtype_fp32 "kFP32")
set(_epifuse_cpp_dtype_e4m3 "kFP8E4M3")
set(_epifuse_cpp_dtype_e5m2 "kFP8E5M2")
set(_epifuse_cpp_schedule_cooperative "kCooperative")
set(_epifuse_cpp_schedule_pingpong "kPingpong")
set(_epifuse_cpp_schedule_warp_mma "kWarpMma")
set(_epifuse_cpp_epilogue_cast "kCastOnly")
set(_epifuse_cpp_epilogue_bias_activation "kBiasActivation")
set(_epifuse_cpp_epilogue_full "kFull")
set(_epifuse_cpp_epilogue_full_with_column_reductions "kFullWithColumnReductions")
set(_epifuse_cpp_epilogue_gated_pair "kGatedPair")
set(_epifuse_cpp_grouping_none "kNone")
set(_epifuse_cpp_grouping_grouped "kGrouped")
set(_epifuse_cpp_decomposition_data_parallel "kDataParallel")
set(_epifuse_cpp_decomposition_stream_k "kStreamK")

# Rows of the table file being read go to this architecture.
macro(epifuse_kernel_table arch)
  if(NOT DEFINED _epifuse_cpp_arch_${arch})
    message(FATAL_ERROR "kernel table: unknown architecture '${arch}'")
  endif()
  set(EPIFUSE_TABLE_ARCH "${arch}")
endmacro()

function(_epifuse_kernel_field kind value row)
  if(NOT DEFINED _epifuse_cpp_${kind}_${value})
    message(FATAL_ERROR "kernel table: unknown ${kind} '${value}' in epifuse_kernel(${row})")
  endif()
endfunction()

function(_epifuse_positive_integers what row)
  foreach(v IN LISTS ARGN)
    if(NOT v MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "kernel table: ${what} needs positive integers, got '${ARGN}' in epifuse_kernel(${row})")
    endif()
  endforeach()
endfunction()

# One row: validates its fields and appends it to the table.
function(epifuse_kernel)
  set(row "${ARGN}")
  cmake_parse_arguments(PARSE_ARGV 0 K "SWAP_AB;HAS_C" "OP;A;B;D;SCHEDULE;EPILOGUE;GROUPING;DECOMPOSITION"
                        "TILE;CLUSTER")
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kernel table: unknown fields '${K_UNPARSED_ARGUMENTS}' in epifuse_kernel(${row})")
  endif()
  if(NOT EPIFUSE_TABLE_ARCH)
    message(FATAL_ERROR "kernel table: epifuse_kernel(${row}) before epifuse_kernel_table(<arch>)")
  endif()
  foreach(required OP A SCHEDULE TILE)
    if(NOT K_${required})
      message(FATAL_ERROR "kernel table: ${required} missing in epifuse_kernel(${row})")
    endif()
  endforeach()
  if(NOT K_B)
    set(K_B "${K_A}")
  endif()
  if(NOT K_D)
    set(K_D "${K_A}")
  endif()
  if(NOT K_CLUSTER)
    set(K_CLUSTER 1 1)
  endif()
  if(NOT K_EPILOGUE)
    set(K_EPILOGUE full)
    if(K_OP STREQUAL "gated_mlp")
      set(K_EPILOGUE gated_pair)
    endif()
  endif()
  if(NOT K_GROUPING)
    set(K_GROUPING none)
  endif()
  if(NOT K_DECOMPOSITION)
    set(K_DECOMPOSITION data_parallel)
  endif()
  _epifuse_kernel_field(op "${K_OP}" "${row}")
  foreach(operand A B D)
    _epifuse_kernel_field(dtype "${K_${operand}}" "${row}")
  endforeach()
  _epifuse_kernel_field(schedule "${K_SCHEDULE}" "${row}")
  _epifuse_kernel_field(epilogue "${K_EPILOGUE}" "${row}")
  _epifuse_kernel_field(grouping "${K_GROUPING}" "${row}")
  _epifuse_kernel_field(decomposition "${K_DECOMPOSITION}" "${row}")
  list(LENGTH K_TILE tile_fields)
  list(LENGTH K_CLUSTER cluster_fields)
  if(NOT tile_fields EQUAL 3 OR NOT cluster_fields EQUAL 2)
    message(FATAL_ERROR "kernel table: TILE takes <m> <n> <k> and CLUSTER <m> <n> in epifuse_kernel(${row})")
  endif()
  _epifuse_positive_integers(TILE "${row}" ${K_TILE})
  _epifuse_positive_integers(CLUSTER "${row}" ${K_CLUSTER})
  if(K_OP STREQUAL "gated_mlp" AND NOT K_EPILOGUE STREQUAL "gated_pair" OR
     NOT K_OP STREQUAL "gated_mlp" AND K_EPILOGUE STREQUAL "gated_pair")
    message(FATAL_ERROR "kernel table: the gated_pair epilogue is the gated_mlp op's, and only its: epifuse_kernel(${row})")
  endif()
  set(dense_warp_mma_gemm FALSE)
  if(K_OP STREQUAL "gemm" AND K_GROUPING STREQUAL "none" AND K_EPILOGUE STREQUAL "bias_activation")
    set(dense_warp_mma_gemm TRUE)
  endif()
  if(K_SCHEDULE STREQUAL "warp_mma" AND NOT (K_SWAP_AB AND K_CLUSTER STREQUAL "1;1" AND
                                              K_DECOMPOSITION STREQUAL "data_parallel" AND NOT K_HAS_C AND
                                              (K_TILE STREQUAL "16;8;64" OR
                                               (dense_warp_mma_gemm AND K_TILE STREQUAL "16;16;64")) AND
                                              (K_OP STREQUAL "gated_mlp" OR dense_warp_mma_gemm OR
                                               (K_GROUPING STREQUAL "grouped" AND K_EPILOGUE STREQUAL "cast"))))
    message(FATAL_ERROR "kernel table: warp_mma rows are SWAP_AB, TILE 16 8 64, CLUSTER 1 1, data_parallel, without C, "
                        "and gated_mlp or a gemm with the bias_activation epilogue (the cast when grouped); the "
                        "dense gemm also has TILE 16 16 64 (two token tiles): epifuse_kernel(${row})")
  endif()
  if(K_GROUPING STREQUAL "grouped" AND NOT (K_DECOMPOSITION STREQUAL "data_parallel" AND NOT K_HAS_C AND
                                            (K_OP STREQUAL "gated_mlp" OR K_EPILOGUE STREQUAL "cast")))
    message(FATAL_ERROR "kernel table: grouped rows are data_parallel, without C, and gated_mlp or "
                        "a gemm with the cast epilogue: epifuse_kernel(${row})")
  endif()
  if(K_DECOMPOSITION STREQUAL "stream_k" AND NOT K_SCHEDULE STREQUAL "cooperative")
    message(FATAL_ERROR "kernel table: CUTLASS's sm90 stream-K scheduler runs the cooperative schedule only: epifuse_kernel(${row})")
  endif()

  list(GET K_TILE 0 tile_m)
  list(GET K_TILE 1 tile_n)
  list(GET K_TILE 2 tile_k)
  list(GET K_CLUSTER 0 cluster_m)
  list(GET K_CLUSTER 1 cluster_n)
  set(swap_ab no)
  set(swap_cpp false)
  if(K_SWAP_AB)
    set(swap_ab yes)
    set(swap_cpp true)
  endif()
  set(has_c no)
  set(has_c_cpp false)
  if(K_HAS_C)
    set(has_c yes)
    set(has_c_cpp true)
  endif()

  set(text "op=${K_OP} arch=${EPIFUSE_TABLE_ARCH} a=${K_A} b=${K_B} d=${K_D} schedule=${K_SCHEDULE}")
  string(APPEND text " tile=${tile_m}x${tile_n}x${tile_k} cluster=${cluster_m}x${cluster_n} swap_ab=${swap_ab}")
  string(APPEND text " epilogue=${K_EPILOGUE} has_c=${has_c} grouping=${K_GROUPING} decomposition=${K_DECOMPOSITION}")
  string(SHA1 hash "${text}")
  string(SUBSTRING "${hash}" 0 12 id)
  get_property(ids GLOBAL PROPERTY EPIFUSE_KERNEL_IDS)
  if(id IN_LIST ids)
    message(FATAL_ERROR "kernel table: duplicate row ${text}")
  endif()

  set(ns "epifuse")
  set(assignments "")
  foreach(line
      "k.op = ${ns}::Op::${_epifuse_cpp_op_${K_OP}};"
      "k.arch = ${ns}::Arch::${_epifuse_cpp_arch_${EPIFUSE_TABLE_ARCH}};"
      "k.a = ${ns}::DType::${_epifuse_cpp_dtype_${K_A}};"
      "k.b = ${ns}::DType::${_epifuse_cpp_dtype_${K_B}};"
      "k.d = ${ns}::DType::${_epifuse_cpp_dtype_${K_D}};"
      "k.schedule = ${ns}::Schedule::${_epifuse_cpp_schedule_${K_SCHEDULE}};"
      "k.tile.m = ${tile_m};"
      "k.tile.n = ${tile_n};"
      "k.tile.k = ${tile_k};"
      "k.cluster.m = ${cluster_m};"
      "k.cluster.n = ${cluster_n};"
      "k.swap_ab = ${swap_cpp};"
      "k.epilogue = ${ns}::EpilogueCoverage::${_epifuse_cpp_epilogue_${K_EPILOGUE}};"
      "k.has_c = ${has_c_cpp};"
      "k.grouping = ${ns}::Grouping::${_epifuse_cpp_grouping_${K_GROUPING}};"
      "k.decomposition = ${ns}::Decomposition::${_epifuse_cpp_decomposition_${K_DECOMPOSITION}};")
    string(APPEND assignments "  ${line}\n")
  endforeach()

  # The header of the kernel family that builds the row (src/kernels/<arch>/).
  if(K_SCHEDULE STREQUAL "warp_mma" AND K_GROUPING STREQUAL "grouped")
    set(family "warp_mma_grouped_kernel.cuh")
  elseif(K_SCHEDULE STREQUAL "warp_mma" AND K_OP STREQUAL "gemm")
    set(family "warp_mma_gemm_kernel.cuh")
  elseif(K_SCHEDULE STREQUAL "warp_mma")
    set(family "warp_mma_gated_kernel.cuh")
  elseif(K_OP STREQUAL "gemm" AND K_GROUPING STREQUAL "grouped")
    set(family "grouped_gemm_kernel.cuh")
  elseif(K_OP STREQUAL "gemm")
    set(family "gemm_kernel.cuh")
  elseif(K_GROUPING STREQUAL "grouped")
    set(family "grouped_gated_mlp_kernel.cuh")
  else()
    set(family "gated_mlp_kernel.cuh")
  endif()
  set_property(GLOBAL PROPERTY EPIFUSE_KERNEL_FAMILY_${id} "kernels/${EPIFUSE_TABLE_ARCH}/${family}")
  # Without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED CuTe picks wgmma N from 8/16/32/64/96/128/192/256
  # only, so a 224-wide tile would run 64x32 wgmmas that re-read A from shared memory
  # (detail::sm90::Assembly rejects that). The extended headers add ~25 s to a kernel's compile:
  # only the rows that need them define it; the SASS of the others is the same either way.
  set(base_wgmma_n 8 16 32 64 96 128 192 256)
  if(NOT K_SCHEDULE STREQUAL "warp_mma" AND NOT tile_n IN_LIST base_wgmma_n)
    set_property(GLOBAL PROPERTY EPIFUSE_KERNEL_DEFINES_${id} CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)
  endif()
  set_property(GLOBAL APPEND PROPERTY EPIFUSE_KERNEL_IDS "${id}")
  set_property(GLOBAL PROPERTY EPIFUSE_KERNEL_TEXT_${id} "${text}")
  set_property(GLOBAL PROPERTY EPIFUSE_KERNEL_ARCH_${id} "${EPIFUSE_TABLE_ARCH}")
  set_property(GLOBAL PROPERTY EPIFUSE_KERNEL_ASSIGNMENTS_${id} "${assignments}")
endfunction()

# Writes into `out_dir` one .cu per row that passes EPIFUSE_KERNEL_FILTER, kernel_table.inc (every
# row) and compiled_kernels.inc (the rows compiled); sets `out_sources` to the .cu paths.
function(epifuse_generate_kernels out_dir out_sources)
  file(GLOB stale "${out_dir}/kernel_*.cu")
  get_property(ids GLOBAL PROPERTY EPIFUSE_KERNEL_IDS)
  set(sources "")
  set(table "")
  set(compiled "")
  foreach(id IN LISTS ids)
    get_property(text GLOBAL PROPERTY EPIFUSE_KERNEL_TEXT_${id})
    get_property(arch GLOBAL PROPERTY EPIFUSE_KERNEL_ARCH_${id})
    get_property(assignments GLOBAL PROPERTY EPIFUSE_KERNEL_ASSIGNMENTS_${id})
    string(REPLACE "\n  " "\n    " nested "${assignments}")
    string(APPEND table "  {  // ${text}\n    epifuse::KernelKey k;\n  ${nested}    rows.push_back(k);\n  }\n")
    if(EPIFUSE_KERNEL_FILTER AND NOT text MATCHES "${EPIFUSE_KERNEL_FILTER}")
      continue()
    endif()
    set(EPIFUSE_ROW "${text}")
    set(EPIFUSE_KERNEL_ID "${id}")
    get_property(EPIFUSE_FAMILY_HEADER GLOBAL PROPERTY EPIFUSE_KERNEL_FAMILY_${id})
    string(REGEX REPLACE "\n$" "" EPIFUSE_KEY_ASSIGNMENTS "${assignments}")
    configure_file("${PROJECT_SOURCE_DIR}/src/kernels/${arch}/kernel.cu.in" "${out_dir}/kernel_${id}.cu" @ONLY)
    get_property(defines GLOBAL PROPERTY EPIFUSE_KERNEL_DEFINES_${id})
    if(defines)
      set_source_files_properties("${out_dir}/kernel_${id}.cu" PROPERTIES COMPILE_DEFINITIONS "${defines}")
    endif()
    list(APPEND sources "${out_dir}/kernel_${id}.cu")
    string(APPEND compiled "EPIFUSE_COMPILED_KERNEL(${id})\n")
  endforeach()
  if(NOT sources)
    message(FATAL_ERROR "kernel table: EPIFUSE_KERNEL_FILTER '${EPIFUSE_KERNEL_FILTER}' matches no row")
  endif()
  list(REMOVE_ITEM stale ${sources})
  if(stale)
    file(REMOVE ${stale})
  endif()
  file(CONFIGURE OUTPUT "${out_dir}/kernel_table.inc" CONTENT "${table}")
  file(CONFIGURE OUTPUT "${out_dir}/compiled_kernels.inc" CONTENT "${compiled}")
  set(${out_sources} "${sources}" PARENT_SCOPE)
endfunction()
