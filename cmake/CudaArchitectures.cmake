# CUDA architectures: the local GPU when one answers, otherwise a default that
# carries real code for Ampere and Hopper plus PTX for sm_75, which the driver
# JIT-compiles for any newer GPU. Overridable with -DCMAKE_CUDA_ARCHITECTURES=...
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  return()
endif()
set(_stencilscope_arch "")
find_program(_nvidia_smi nvidia-smi)
if(_nvidia_smi)
  execute_process(COMMAND ${_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _caps RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_rc EQUAL 0 AND _caps MATCHES "^[0-9]+\\.[0-9]+")
    string(REGEX REPLACE "\n.*" "" _cap "${_caps}")
    string(REPLACE "." "" _cap "${_cap}")
    set(_stencilscope_arch "${_cap}-real")
    message(STATUS "CUDA architectures: local GPU sm_${_cap}")
  endif()
endif()
if(_stencilscope_arch STREQUAL "")
  set(_stencilscope_arch "80-real;90-real;75-virtual")
  message(STATUS "CUDA architectures: no GPU found, default ${_stencilscope_arch}")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_stencilscope_arch}" CACHE STRING "CUDA architectures" FORCE)
