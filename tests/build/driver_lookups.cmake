# cmake -DNM=<nm> -DLIBRARY=<libepifuse.a> -P driver_lookups.cmake
# A launch's host cost: the library looks up driver entry points in one object only
# (src/kernels/tensor_map_encode.cpp, once per process). An object of its own that looks one up
# is a kernel source that included CUTLASS without epifuse/detail/cutlass_driver_calls.hpp.
execute_process(COMMAND ${NM} -A --undefined-only "${LIBRARY}" RESULT_VARIABLE code OUTPUT_VARIABLE symbols
                ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]*cudaGetDriverEntryPoint[^\n]*" lookups "${symbols}")
set(others "")
foreach(line IN LISTS lookups)
  if(NOT line MATCHES "tensor_map_encode\\.cpp\\.o")
    list(APPEND others "${line}")
  endif()
endforeach()
if(NOT lookups)
  message(FATAL_ERROR "no object of ${LIBRARY} looks up a driver entry point: is tensor_map_encode.cpp built?")
endif()
if(others)
  string(REPLACE ";" "\n" others "${others}")
  message(FATAL_ERROR "objects that look up driver entry points themselves:\n${others}")
endif()
