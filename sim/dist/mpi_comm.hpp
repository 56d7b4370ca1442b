#pragma once
// MPI as a distributed run uses it: the session (MPI_Init / MPI_Finalize, only when the
// program was started by mpirun), a move-only owner of the Cartesian communicator a
// decomposition describes, and errors every rank agrees on (so a bad input leaves every
// rank with one line from rank 0, never a hang). Built only with MPI (STENCILSCOPE_MPI).
#include <mpi.h>

#include <array>
#include <functional>
#include <string>

#include "sim/core/decomposition.hpp"
#include "sim/core/error.hpp"

namespace ss::dist {

/// True when this process was started by an MPI launcher (mpirun, srun): the environment
/// names a world size. Without one the program is a one-rank run and never calls MPI.
bool launched_by_mpi();

/// Owns MPI_Init_thread / MPI_Finalize for the life of the program (one per process).
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// Runs `release` when the MpiSession ends, before MPI_Finalize, in the reverse order of
/// registration: for what must go before MPI does (communicators kept for the run, such
/// as the NCCL communicators the GPU halo exchanges share).
void before_mpi_finalize(std::function<void()> release);

/// This process's rank in MPI_COMM_WORLD, and the world's size (0 and 1 when MPI is not
/// initialised: a one-rank run).
int world_rank();
int world_size();

/// Where this rank sits on its node: its rank among the ranks of `comm` that share its
/// memory (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED), and how many there are. Collective.
struct NodePlace {
  int local_rank = 0;
  int local_ranks = 1;
};
NodePlace node_place(MPI_Comm comm);

/// An ss::Error every rank of a communicator raised together with the same message (a
/// bad input found the same way everywhere, or agreed on through agree()): rank 0 prints
/// it, every rank leaves with a non-zero status.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

/// Runs `work` on every rank of `comm`; when it throws ss::Error on any rank, every rank
/// throws CollectiveError with the message of the lowest failing rank (its rank named
/// when it is not 0). Collective.
void agree(MPI_Comm comm, const std::function<void()>& work);

/// Waits for every rank of `comm` without spinning (MPI_Ibarrier polled with short
/// sleeps), so ranks that wait leave the cores to the ones that work.
void idle_barrier(MPI_Comm comm);

/// Throws ss::Error naming the MPI call and MPI's message when `code` is not MPI_SUCCESS.
void check_mpi(int code, const char* call);

/// The Cartesian communicator of a decomposition (MPI_Cart_create without reordering):
/// its ranks are the decomposition's (x fastest). Move-only; frees the communicator.
class CartComm {
 public:
  /// Collective over `parent`, whose size must be d.ranks.
  CartComm(MPI_Comm parent, const Decomposition& d, const std::array<bool, 3>& periodic);
  ~CartComm();
  CartComm(CartComm&& other) noexcept;
  CartComm& operator=(CartComm&& other) noexcept;
  CartComm(const CartComm&) = delete;
  CartComm& operator=(const CartComm&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace ss::dist
