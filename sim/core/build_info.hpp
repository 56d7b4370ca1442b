#pragma once
// What was built: filled in by cmake/WriteBuildInfo.cmake at every build.

namespace ss {

struct BuildInfo {
  const char* version;           ///< project version
  const char* commit;            ///< short git hash, "-dirty" when the tree had changes, or "unknown"
  bool cuda;                     ///< the CUDA backend was compiled in
  bool gui;                      ///< the windowed app was compiled in
  bool openmp;                   ///< CPU variants run in parallel
  const char* cuda_architectures;///< CMAKE_CUDA_ARCHITECTURES of the build
  const char* build_type;        ///< CMAKE_BUILD_TYPE
  bool mpi;                      ///< distributed runs over MPI ranks (sim/dist/) were compiled in
  bool nccl;                     ///< GPU halos through NCCL were compiled in
};

/// The build's description (static storage, never null).
const BuildInfo& build_info();

}  // namespace ss
