// Which rank this process is: MPI's answer when the build has MPI and mpirun started it,
// else the launcher's environment (so a build without MPI can still refuse a distributed
// run once, from rank 0), else a one-rank run.
#include <cstdlib>
#include <string>

#include "commands.hpp"
#ifdef STENCILSCOPE_WITH_MPI
#include "sim/dist/mpi_comm.hpp"
#endif

namespace ss::app {

namespace {
int from_environment(const char* ompi, const char* pmi, int fallback) {
  for (const char* name : {ompi, pmi})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return fallback;
}
}  // namespace

int world_ranks() {
#ifdef STENCILSCOPE_WITH_MPI
  if (dist::launched_by_mpi()) return dist::world_size();
#endif
  return from_environment("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
}

int this_rank() {
#ifdef STENCILSCOPE_WITH_MPI
  if (dist::launched_by_mpi()) return dist::world_rank();
#endif
  return from_environment("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
}

}  // namespace ss::app
