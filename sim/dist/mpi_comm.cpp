#include "sim/dist/mpi_comm.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace ss::dist {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  // Only the main thread calls MPI (OpenMP threads never do).
  check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors become ss::Error, not aborts
}

namespace {
std::vector<std::function<void()>>& finalize_hooks() {
  static std::vector<std::function<void()>> hooks;
  return hooks;
}
}  // namespace

void before_mpi_finalize(std::function<void()> release) { finalize_hooks().push_back(std::move(release)); }

MpiSession::~MpiSession() {
  auto& hooks = finalize_hooks();
  while (!hooks.empty()) {
    auto release = std::move(hooks.back());
    hooks.pop_back();
    release();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && MPI_Finalize() != MPI_SUCCESS) std::fprintf(stderr, "stencilscope: MPI_Finalize failed\n");
}

namespace {
bool mpi_up() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}
}  // namespace

int world_rank() {
  int r = 0;
  if (mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int n = 1;
  if (mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

NodePlace node_place(MPI_Comm comm) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  NodePlace p;
  MPI_Comm_rank(node, &p.local_rank);
  MPI_Comm_size(node, &p.local_ranks);
  MPI_Comm_free(&node);
  return p;
}

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(fmt::format("{} failed: {}", call, std::string(text, static_cast<std::size_t>(len))));
}

void agree(MPI_Comm comm, const std::function<void()>& work) {
  std::string message;
  bool failed = false;
  try {
    work();
  } catch (const Error& e) {
    failed = true;
    message = e.what();
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = failed ? rank : size;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return;
  int length = static_cast<int>(message.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast");
  throw CollectiveError(first == 0 ? message : fmt::format("rank {}: {}", first, message));
}

void idle_barrier(MPI_Comm comm) {
  MPI_Request request;
  check_mpi(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

CartComm::CartComm(MPI_Comm parent, const Decomposition& d, const std::array<bool, 3>& periodic) {
  int parent_size = 0;
  MPI_Comm_size(parent, &parent_size);
  if (parent_size != d.ranks)
    throw Error(fmt::format("decomposition {} is for {} ranks, but the run has {}", d.text(), d.ranks, parent_size));
  // MPI numbers Cartesian ranks with the last dimension fastest: give it z, y, x so that
  // x is fastest, as Decomposition::rank_of.
  int dims[3] = {d.dims[2], d.dims[1], d.dims[0]};
  int periods[3] = {periodic[2], periodic[1], periodic[0]};
  check_mpi(MPI_Cart_create(parent, 3, dims, periods, /*reorder=*/0, &comm_), "MPI_Cart_create");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int c[3] = {0, 0, 0};
  check_mpi(MPI_Cart_coords(comm_, rank_, 3, c), "MPI_Cart_coords");
  if (d.coords_of(rank_) != std::array<int, 3>{c[2], c[1], c[0]})
    throw Error(fmt::format("MPI placed rank {} at ({}, {}, {}), not where decomposition {} puts it", rank_, c[2], c[1],
                            c[0], d.text()));
}

CartComm::~CartComm() {
  if (comm_ != MPI_COMM_NULL && MPI_Comm_free(&comm_) != MPI_SUCCESS)
    std::fprintf(stderr, "stencilscope: MPI_Comm_free failed\n");
}

CartComm::CartComm(CartComm&& o) noexcept : comm_(o.comm_), rank_(o.rank_), size_(o.size_) { o.comm_ = MPI_COMM_NULL; }

CartComm& CartComm::operator=(CartComm&& o) noexcept {
  if (this != &o) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = o.comm_;
    rank_ = o.rank_;
    size_ = o.size_;
    o.comm_ = MPI_COMM_NULL;
  }
  return *this;
}

}  // namespace ss::dist
