// GPU halo transports: pack and unpack kernels over halo_plan.hpp's regions, MPI on
// pinned host buffers, and NCCL where the build found it. See the header.
#include "sim/dist/halo_exchange_device.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/cuda_check.cuh"
#ifdef STENCILSCOPE_WITH_NCCL
#include <nccl.h>
#endif

namespace ss::dist {

namespace {

/// A region as a kernel argument (no std::array in device code).
struct DeviceRegion {
  int lo[3];
  int n[3];
};

DeviceRegion device_region(const HaloRegion& r) {
  return {{r.lo[0], r.lo[1], r.lo[2]}, {r.n[0], r.n[1], r.n[2]}};
}

/// Cell e of region r (x fastest) and its offset in a field of layout g.
__device__ __forceinline__ std::size_t region_offset(const Grid3D& g, const DeviceRegion& r, long long e) {
  const int i = static_cast<int>(e % r.n[0]);
  const long long rest = e / r.n[0];
  const int j = static_cast<int>(rest % r.n[1]), k = static_cast<int>(rest / r.n[1]);
  return g.index(r.lo[0] + i, r.lo[1] + j, r.lo[2] + k);
}

__global__ void pack_region_kernel(const float* __restrict__ f, Grid3D g, DeviceRegion r, long long cells,
                                   float* __restrict__ out) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e < cells) out[e] = f[region_offset(g, r, e)];
}

__global__ void unpack_region_kernel(float* __restrict__ f, Grid3D g, DeviceRegion r, long long cells,
                                     const float* __restrict__ in) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e < cells) f[region_offset(g, r, e)] = in[e];
}

}  // namespace

// The owners of this file's handles (outside the anonymous namespace: nvcc warns about
// the unused members of classes inside one).
namespace device_detail {

using PinnedBuffer = ::ss::PinnedBuffer<float>;  // sim/core/cuda_check.cuh

#ifdef STENCILSCOPE_WITH_NCCL
#define SS_NCCL_CHECK(expr)                                                                                  \
  do {                                                                                                       \
    const ncclResult_t ss_nccl_result = (expr);                                                              \
    if (ss_nccl_result != ncclSuccess)                                                                       \
      throw ::ss::Error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + #expr + " failed: " + \
                        ncclGetErrorString(ss_nccl_result));                                                 \
  } while (0)

/// Owns an NCCL communicator over the ranks of an MPI communicator; move-only.
class NcclComm {
 public:
  explicit NcclComm(MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    ncclUniqueId id;
    if (rank == 0) SS_NCCL_CHECK(ncclGetUniqueId(&id));
    check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast");
    SS_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
  }
  ~NcclComm() {
    if (comm_ && ncclCommDestroy(comm_) != ncclSuccess) std::fprintf(stderr, "stencilscope: ncclCommDestroy failed\n");
  }
  NcclComm(NcclComm&& o) noexcept : comm_(std::exchange(o.comm_, nullptr)) {}
  NcclComm& operator=(NcclComm&& o) noexcept {
    std::swap(comm_, o.comm_);
    return *this;
  }
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

/// The NCCL communicator over the ranks of `comm`, made once per set of ranks (a
/// communicator congruent with one seen before shares its NCCL communicator) and kept
/// until the MpiSession ends. Making one costs a fraction of a second to seconds (a
/// bootstrap over sockets, then the NVLink or PCIe connections on first use): a test or a
/// window that builds a new exchange per case or per rebuild would otherwise spend most
/// of its time there. Collective the first time for a set of ranks; every rank makes the
/// same calls in the same order, so every rank finds the same answer.
std::shared_ptr<NcclComm> shared_nccl_comm(MPI_Comm comm) {
  struct Entry {
    MPI_Comm ranks;  // a duplicate, freed before MPI_Finalize
    std::shared_ptr<NcclComm> nccl;
  };
  static std::vector<Entry> cache;
  for (const Entry& e : cache) {
    int same = MPI_UNEQUAL;
    check_mpi(MPI_Comm_compare(e.ranks, comm, &same), "MPI_Comm_compare");
    if (same == MPI_IDENT || same == MPI_CONGRUENT) return e.nccl;
  }
  if (cache.empty())
    before_mpi_finalize([] {
      for (Entry& e : cache) MPI_Comm_free(&e.ranks);
      cache.clear();  // ncclCommDestroy while CUDA and MPI are still up
    });
  Entry e;
  check_mpi(MPI_Comm_dup(comm, &e.ranks), "MPI_Comm_dup");
  e.nccl = std::make_shared<NcclComm>(comm);
  cache.push_back(e);
  return e.nccl;
}
#endif

}  // namespace device_detail

using device_detail::PinnedBuffer;
#ifdef STENCILSCOPE_WITH_NCCL
using device_detail::NcclComm;
using device_detail::shared_nccl_comm;
#endif

bool nccl_built() {
#ifdef STENCILSCOPE_WITH_NCCL
  return true;
#else
  return false;
#endif
}

struct DeviceHaloExchange::Impl {
  MPI_Comm comm;
  Grid3D grid;
  std::size_t fields;
  std::vector<HaloFace> faces;
  int phases;
  cudaStream_t stream;
  DeviceTransport transport;
  std::vector<DeviceBuffer<float>> send, recv;            ///< per face: every field's cells, field after field
  std::vector<PinnedBuffer> host_send, host_recv;         ///< staged only
#ifdef STENCILSCOPE_WITH_NCCL
  std::shared_ptr<NcclComm> nccl;  ///< shared by the exchanges over the same ranks (shared_nccl_comm)
#endif
  // One pair of events per fill since reset_timer (the stream's time in the exchange).
  std::vector<std::pair<CudaEvent, CudaEvent>> marks;
  std::size_t marks_used = 0;

  void pack(const HaloFace& f, std::size_t k, std::span<float* const> fields_in) {
    const long long cells = f.send.cells();
    for (std::size_t q = 0; q < fields_in.size(); ++q) {
      pack_region_kernel<<<blocks_for(cells, 256), 256, 0, stream>>>(fields_in[q], grid, device_region(f.send), cells,
                                                                      send[k].get() + q * cells);
      SS_CUDA_LAUNCH_CHECK("pack_region_kernel");
    }
  }
  void unpack(const HaloFace& f, std::size_t k, std::span<float* const> fields_in) {
    const long long cells = f.recv.cells();
    for (std::size_t q = 0; q < fields_in.size(); ++q) {
      unpack_region_kernel<<<blocks_for(cells, 256), 256, 0, stream>>>(fields_in[q], grid, device_region(f.recv),
                                                                        cells, recv[k].get() + q * cells);
      SS_CUDA_LAUNCH_CHECK("unpack_region_kernel");
    }
  }

  /// Values of face k's message when `nf` fields travel.
  static std::size_t count(const HaloFace& f, std::size_t nf) { return static_cast<std::size_t>(f.send.cells()) * nf; }

  void staged_phase(int phase, std::span<float* const> fields_in) {
    const std::size_t nf = fields_in.size();
    std::vector<MPI_Request> requests;
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].phase != phase) continue;
      pack(faces[k], k, fields_in);
      SS_CUDA_CHECK(cudaMemcpyAsync(host_send[k].get(), send[k].get(), count(faces[k], nf) * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream));
    }
    // The packed faces are in pinned memory, and the last fill's copies out of host_recv have
    // run (they were queued before this pack): only now may a receive land there. (Posted
    // before this wait, a neighbour running a step ahead wrote its next faces into host_recv
    // while the previous copy was still to read it: ghosts of the wrong step, seen with 3
    // ranks on one GPU.)
    SS_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].phase != phase) continue;
      MPI_Request r;
      check_mpi(MPI_Irecv(host_recv[k].get(), static_cast<int>(count(faces[k], nf)), MPI_FLOAT, faces[k].peer,
                          faces[k].recv_tag, comm, &r),
                "MPI_Irecv");
      requests.push_back(r);
    }
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].phase != phase) continue;
      MPI_Request r;
      check_mpi(MPI_Isend(host_send[k].get(), static_cast<int>(count(faces[k], nf)), MPI_FLOAT, faces[k].peer,
                          faces[k].send_tag, comm, &r),
                "MPI_Isend");
      requests.push_back(r);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].phase != phase) continue;
      SS_CUDA_CHECK(cudaMemcpyAsync(recv[k].get(), host_recv[k].get(), count(faces[k], nf) * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
      unpack(faces[k], k, fields_in);
    }
  }

#ifdef STENCILSCOPE_WITH_NCCL
  // NCCL has no tags: between two ranks, the k-th send matches the k-th receive. Sends go
  // axis by axis, low face then high; receives axis by axis, high face then low, so that
  // a neighbour's send towards its high face meets this rank's receive on its low face
  // (two faces on one neighbour: an axis split in two with a periodic domain).
  void nccl_phase(int phase, std::span<float* const> fields_in) {
    const std::size_t nf = fields_in.size();
    for (std::size_t k = 0; k < faces.size(); ++k)
      if (faces[k].phase == phase) pack(faces[k], k, fields_in);
    SS_NCCL_CHECK(ncclGroupStart());
    for (std::size_t k = 0; k < faces.size(); ++k)
      if (faces[k].phase == phase)
        SS_NCCL_CHECK(ncclSend(send[k].get(), count(faces[k], nf), ncclFloat, faces[k].peer, nccl->get(), stream));
    for (int axis = 0; axis < 3; ++axis)
      for (int dir : {+1, -1})
        for (std::size_t k = 0; k < faces.size(); ++k)
          if (faces[k].phase == phase && faces[k].axis == axis && faces[k].dir == dir)
            SS_NCCL_CHECK(ncclRecv(recv[k].get(), count(faces[k], nf), ncclFloat, faces[k].peer, nccl->get(), stream));
    SS_NCCL_CHECK(ncclGroupEnd());
    for (std::size_t k = 0; k < faces.size(); ++k)
      if (faces[k].phase == phase) unpack(faces[k], k, fields_in);
  }
#endif
};

DeviceHaloExchange::DeviceHaloExchange(const CartComm& comm, const BoxPlacement& where, const Grid3D& g, int width,
                                       bool edges, std::size_t fields, void* stream, DeviceTransport transport)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.comm = comm.get();
  m.grid = g;
  m.fields = fields;
  m.faces = plan_halo(where, width, edges);
  m.phases = halo_phases(m.faces);
  m.stream = static_cast<cudaStream_t>(stream);
  m.transport = transport;
  for (const HaloFace& f : m.faces) {
    const std::size_t count = static_cast<std::size_t>(f.send.cells()) * fields;
    m.send.emplace_back(count);
    m.recv.emplace_back(count);
    if (transport == DeviceTransport::staged) {
      m.host_send.emplace_back(count);
      m.host_recv.emplace_back(count);
    }
  }
  if (transport == DeviceTransport::nccl) {
#ifdef STENCILSCOPE_WITH_NCCL
    m.nccl = shared_nccl_comm(m.comm);
#else
    throw Error("this build has no NCCL: GPU halos go through MPI on pinned host buffers (staged)");
#endif
  }
}

DeviceHaloExchange::~DeviceHaloExchange() = default;
DeviceHaloExchange::DeviceHaloExchange(DeviceHaloExchange&&) noexcept = default;

float DeviceHaloExchange::max_over_ranks(float local) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_FLOAT, MPI_MAX, impl_->comm), "MPI_Allreduce");
  return local;
}
DeviceHaloExchange& DeviceHaloExchange::operator=(DeviceHaloExchange&&) noexcept = default;

void DeviceHaloExchange::fill(std::span<float* const> device_fields) {
  Impl& m = *impl_;
  if (device_fields.size() > m.fields)
    throw Error("halo exchange set up for " + std::to_string(m.fields) + " fields was given " +
                std::to_string(device_fields.size()));
  if (m.marks_used == m.marks.size()) m.marks.emplace_back();
  auto& mark = m.marks[m.marks_used++];
  SS_CUDA_CHECK(cudaEventRecord(mark.first.get(), m.stream));
  for (int phase = 0; phase < m.phases; ++phase) {
#ifdef STENCILSCOPE_WITH_NCCL
    if (m.transport == DeviceTransport::nccl) {
      m.nccl_phase(phase, device_fields);
      continue;
    }
#endif
    m.staged_phase(phase, device_fields);
  }
  SS_CUDA_CHECK(cudaEventRecord(mark.second.get(), m.stream));
}

double DeviceHaloExchange::seconds() const {
  const Impl& m = *impl_;
  double total = 0;
  for (std::size_t k = 0; k < m.marks_used; ++k) total += elapsed_ms(m.marks[k].first, m.marks[k].second);
  return total * 1e-3;
}

void DeviceHaloExchange::reset_timer() {
  if (impl_->marks_used) SS_CUDA_CHECK(cudaEventSynchronize(impl_->marks[impl_->marks_used - 1].second.get()));
  impl_->marks_used = 0;
}

}  // namespace ss::dist
