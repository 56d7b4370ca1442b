# Writes ${CMAKE_BINARY_DIR}/generated/stencilscope_build_info.cpp at every build,
# touching it only when the commit changes, so `info` and `bench --json` name the
# commit that was really built.
set(_gen ${CMAKE_BINARY_DIR}/generated/stencilscope_build_info.cpp)
get_property(_cuda_archs CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY VALUE)
string(REPLACE ";" "," _cuda_archs "${_cuda_archs}")
foreach(_flag STENCILSCOPE_CUDA STENCILSCOPE_GUI OpenMP_CXX_FOUND STENCILSCOPE_WITH_MPI STENCILSCOPE_WITH_NCCL)
  if(${_flag})
    set(_${_flag}_01 1)
  else()
    set(_${_flag}_01 0)
  endif()
endforeach()
add_custom_target(stencilscope_build_info_gen
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${_gen}
          -DVERSION=${PROJECT_VERSION} -DCUDA=${_STENCILSCOPE_CUDA_01} -DGUI=${_STENCILSCOPE_GUI_01}
          -DOPENMP=${_OpenMP_CXX_FOUND_01} -DMPI=${_STENCILSCOPE_WITH_MPI_01} -DNCCL=${_STENCILSCOPE_WITH_NCCL_01}
          "-DARCHS=${_cuda_archs}" -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
          -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${_gen}
  COMMENT "Recording the git commit"
  VERBATIM)
add_library(stencilscope_build_info STATIC ${_gen})
add_dependencies(stencilscope_build_info stencilscope_build_info_gen)
target_include_directories(stencilscope_build_info PUBLIC ${CMAKE_SOURCE_DIR})
