// GPU halo transports: pack and unpack kernels over halo_plan.hpp's regions, MPI on
// pinned host buffers, and NCCL where the build found it. See the header.
#include "sim/dist/halo_exchange_device.hpp"

#include <cuda.h>  // types of the driver's stream memory operations (called through entry points)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
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

/// The driver calls the peer transport needs, found at run time (cudaGetDriverEntryPoint):
/// the program links no libcuda, so that it starts on machines without a driver.
struct DriverCalls {
  PFN_cuStreamWaitValue32_v11070 wait_value = nullptr;
  PFN_cuStreamWriteValue32_v11070 write_value = nullptr;
  PFN_cuMemGetAddressRange_v3020 address_range = nullptr;
};

const DriverCalls& driver_calls() {
  static const DriverCalls calls = [] {
    DriverCalls c;
    auto find = [](const char* name, void** fn) {
      cudaDriverEntryPointQueryResult found{};
      SS_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found));
      if (found != cudaDriverEntryPointSuccess || !*fn)
        throw Error(std::string("--transport peer: the CUDA driver has no ") + name);
    };
    find("cuStreamWaitValue32", reinterpret_cast<void**>(&c.wait_value));
    find("cuStreamWriteValue32", reinterpret_cast<void**>(&c.write_value));
    find("cuMemGetAddressRange", reinterpret_cast<void**>(&c.address_range));
    return c;
  }();
  return calls;
}

void check_driver(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw Error(std::string("--transport peer: ") + what + " failed (CUresult " + std::to_string(r) + ")");
}

/// A device pointer as another process can open it: the IPC handle of its allocation and
/// the offset in elements.
struct SharedPointer {
  cudaIpcMemHandle_t handle;
  long long offset = 0;
};

SharedPointer share_pointer(const void* p) {
  CUdeviceptr base = 0;
  std::size_t size = 0;
  check_driver(driver_calls().address_range(&base, &size, reinterpret_cast<CUdeviceptr>(p)), "cuMemGetAddressRange");
  SharedPointer out;
  std::memset(&out.handle, 0, sizeof(out.handle));
  SS_CUDA_CHECK(cudaIpcGetMemHandle(&out.handle, reinterpret_cast<void*>(base)));
  out.offset = static_cast<long long>(reinterpret_cast<CUdeviceptr>(p) - base);
  return out;
}

/// The allocations of other processes this one has opened, each once, closed at the end.
class OpenedAllocations {
 public:
  OpenedAllocations() = default;
  OpenedAllocations(const OpenedAllocations&) = delete;
  OpenedAllocations& operator=(const OpenedAllocations&) = delete;
  ~OpenedAllocations() {
    for (auto& [key, base] : opened_) cudaIpcCloseMemHandle(base);  // the owner may have freed it: no check
  }
  /// The byte address of `p` in this process.
  char* open(const SharedPointer& p) {
    const std::string key(reinterpret_cast<const char*>(&p.handle), sizeof(p.handle));
    auto it = opened_.find(key);
    if (it == opened_.end()) {
      void* base = nullptr;
      const cudaError_t e = cudaIpcOpenMemHandle(&base, p.handle, cudaIpcMemLazyEnablePeerAccess);
      if (e != cudaSuccess)
        throw Error(std::string("--transport peer: cannot open a neighbour's GPU memory (cudaIpcOpenMemHandle: ") +
                    cudaGetErrorString(e) + "); the ranks must share a node and their GPUs reach each other: " +
                    "--transport nccl or staged");
      it = opened_.emplace(key, base).first;
    }
    return static_cast<char*>(it->second) + p.offset;
  }

 private:
  std::map<std::string, void*> opened_;
};

}  // namespace device_detail

using device_detail::PinnedBuffer;
using device_detail::SharedPointer;
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
  cudaStream_t stream = nullptr;
  DeviceTransport transport = DeviceTransport::staged;
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


  // ---- peer: the copy engines through CUDA IPC ----
  // Per face, what the neighbour across it told this rank about its receiving side, and
  // the flags. Each rank has two flags per face slot (2 axis + (dir > 0)) in its own
  // memory: `free`, written by the neighbour when everything it queued before its fill of
  // turn t has run (so its ghosts may be overwritten), and `arrived`, written by the
  // neighbour after its copies of turn t into this rank's ghosts. Turn t is the t-th fill.
  struct PeerFace {
    bool direct = false;              ///< y and z faces: field to field; x faces: packed
    unsigned* remote_free = nullptr;  ///< the neighbour's flags for this face
    unsigned* remote_arrived = nullptr;
    long long remote_offset = 0;      ///< the neighbour's recv region's first cell in its layout
    int remote_pitch = 0;
    std::size_t remote_rows = 0;      ///< rows per plane of the neighbour's layout
    float* remote_recv = nullptr;     ///< packed: the neighbour's receive buffer of this face
    std::vector<float*> remote_fields;  ///< the neighbour's fields, in the order they were first filled
  };
  /// What a rank sends across a face at set-up: about its receiving side of that face.
  struct PeerHello {
    SharedPointer flags;  ///< its flags (offset: this face's slot)
    SharedPointer recv;   ///< its packed receive buffer of this face
    long long offset = 0;
    int pitch = 0;
    long long rows = 0;
    int same_process = 0;
  };
  static constexpr int kSlots = 6;
  int rank = 0;
  DeviceBuffer<unsigned> flags;  ///< [0, 6): free per slot, [6, 12): arrived per slot
  std::vector<PeerFace> peer;
  std::vector<float*> shared_fields;  ///< this rank's fields, in the order they were first filled
  std::unique_ptr<device_detail::OpenedAllocations> opened;
  unsigned turn = 0;

  ~Impl() {
    // Nothing of this rank's may still be copying into a neighbour's memory, or waiting on
    // a flag, when the handles close and the flags go.
    if (transport == DeviceTransport::peer && stream) SS_CUDA_LOG(cudaStreamSynchronize(stream));
  }

  static int slot(const HaloFace& f) { return 2 * f.axis + (f.dir > 0 ? 1 : 0); }
  unsigned* local_free(const HaloFace& f) const { return flags.get() + slot(f); }
  unsigned* local_arrived(const HaloFace& f) const { return flags.get() + kSlots + slot(f); }

  /// Exchanges one message per face with the neighbour across it (all posted, then waited:
  /// a ring of periodic ranks must not wait on each other in turn). `out[k]` goes across
  /// face k; `in[k]` comes from its neighbour's face that faces this one.
  template <typename T>
  void across_faces(const std::vector<T>& out, std::vector<T>& in, int tag_base) {
    in.assign(faces.size(), T{});
    std::vector<MPI_Request> requests;
    for (std::size_t k = 0; k < faces.size(); ++k) {
      MPI_Request r;
      check_mpi(MPI_Irecv(&in[k], sizeof(T), MPI_BYTE, faces[k].peer, tag_base + faces[k].recv_tag, comm, &r),
                "MPI_Irecv");
      requests.push_back(r);
    }
    for (std::size_t k = 0; k < faces.size(); ++k) {
      MPI_Request r;
      check_mpi(MPI_Isend(&out[k], sizeof(T), MPI_BYTE, faces[k].peer, tag_base + faces[k].send_tag, comm, &r),
                "MPI_Isend");
      requests.push_back(r);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  /// Collective with the neighbours: shares the flags, the receive buffers and the layout.
  void setup_peer() {
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    (void)device_detail::driver_calls();  // fails here, with its reason, where the driver lacks them
    opened = std::make_unique<device_detail::OpenedAllocations>();
    flags = DeviceBuffer<unsigned>(2 * kSlots);
    SS_CUDA_CHECK(cudaMemsetAsync(flags.get(), 0, flags.bytes(), stream));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream));  // zero before any neighbour can write them
    std::vector<PeerHello> out(faces.size()), in;
    for (std::size_t k = 0; k < faces.size(); ++k) {
      const HaloFace& f = faces[k];
      out[k].flags = device_detail::share_pointer(flags.get());
      out[k].flags.offset = 0;
      out[k].recv = device_detail::share_pointer(recv[k].get());
      out[k].offset = static_cast<long long>(grid.index(f.recv.lo[0], f.recv.lo[1], f.recv.lo[2]));
      out[k].pitch = grid.pitch;
      out[k].rows = static_cast<long long>(grid.rows_per_plane());
      out[k].same_process = f.peer == rank;
    }
    across_faces(out, in, 100);
    // Every rank has the hellos before any flag is written (the flags are zero on every rank).
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    peer.assign(faces.size(), PeerFace{});
    for (std::size_t k = 0; k < faces.size(); ++k) {
      const HaloFace& f = faces[k];
      PeerFace& p = peer[k];
      p.direct = f.axis != 0;
      // The neighbour's face that meets this one: the same axis, the other direction.
      HaloFace theirs = f;
      theirs.dir = -f.dir;
      unsigned* their_flags = f.peer == rank ? flags.get() : reinterpret_cast<unsigned*>(opened->open(in[k].flags));
      p.remote_free = their_flags + slot(theirs);
      p.remote_arrived = their_flags + kSlots + slot(theirs);
      p.remote_recv = f.peer == rank ? recv_of(theirs) : reinterpret_cast<float*>(opened->open(in[k].recv));
      p.remote_offset = in[k].offset;
      p.remote_pitch = in[k].pitch;
      p.remote_rows = static_cast<std::size_t>(in[k].rows);
    }
  }

  /// This rank's receive buffer of face `f` (a face to itself along a periodic axis).
  float* recv_of(const HaloFace& f) {
    for (std::size_t k = 0; k < faces.size(); ++k)
      if (faces[k].axis == f.axis && faces[k].dir == f.dir) return recv[k].get();
    throw Error("peer transport: no face " + std::to_string(f.axis) + "/" + std::to_string(f.dir));
  }

  /// The place of each field in the order of first appearance; shares new ones with the
  /// neighbours (collective among them: every rank meets new pointers in the same fill).
  std::vector<std::size_t> field_slots(std::span<float* const> fields_in) {
    std::vector<std::size_t> slots;
    std::vector<float*> fresh;
    for (float* f : fields_in) {
      std::size_t s = 0;
      while (s < shared_fields.size() && shared_fields[s] != f) ++s;
      if (s == shared_fields.size()) {
        s = shared_fields.size() + fresh.size();
        fresh.push_back(f);
      }
      slots.push_back(s);
    }
    if (fresh.empty()) return slots;
    if (fresh.size() > 8) throw Error("peer transport: more than 8 new fields in one fill");
    struct NewFields {  // what a rank tells each neighbour: how many new fields, and where
      int fields = 0;
      SharedPointer pointers[8];
    };
    NewFields mine;
    mine.fields = static_cast<int>(fresh.size());
    for (std::size_t q = 0; q < fresh.size(); ++q) mine.pointers[q] = device_detail::share_pointer(fresh[q]);
    std::vector<NewFields> out(faces.size(), mine), in;
    across_faces(out, in, 200);
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (in[k].fields != mine.fields)
        throw Error("peer transport: the neighbour across a face filled other buffers (the ranks are not in step)");
      for (std::size_t q = 0; q < fresh.size(); ++q)
        peer[k].remote_fields.push_back(faces[k].peer == rank ? fresh[q]
                                                              : reinterpret_cast<float*>(opened->open(in[k].pointers[q])));
    }
    shared_fields.insert(shared_fields.end(), fresh.begin(), fresh.end());
    return slots;
  }

  void write_flag(unsigned* at, unsigned value) {
    device_detail::check_driver(
        device_detail::driver_calls().write_value(stream, reinterpret_cast<CUdeviceptr>(at), value, CU_STREAM_WRITE_VALUE_DEFAULT),
        "cuStreamWriteValue32");
  }
  void wait_flag(unsigned* at, unsigned value) {
    device_detail::check_driver(
        device_detail::driver_calls().wait_value(stream, reinterpret_cast<CUdeviceptr>(at), value, CU_STREAM_WAIT_VALUE_GEQ),
        "cuStreamWaitValue32");
  }

  /// Region r of field f (layout g) to region rd of field `to` (pitch, rows per plane):
  /// one 3D copy by the copy engines (cudaMemcpyDefault: the other GPU's memory is mapped).
  void copy_region(const float* f, const HaloRegion& r, float* to, int to_pitch, std::size_t to_rows) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<float*>(f), grid.pitch * sizeof(float), r.n[0] * sizeof(float),
                                   grid.rows_per_plane());
    p.dstPtr = make_cudaPitchedPtr(to, to_pitch * sizeof(float), r.n[0] * sizeof(float), to_rows);
    p.extent = make_cudaExtent(r.n[0] * sizeof(float), r.n[1], r.n[2]);
    p.kind = cudaMemcpyDefault;
    SS_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
  }

  void peer_phase(int phase, std::span<float* const> fields_in, const std::vector<std::size_t>& slots) {
    const std::size_t nf = fields_in.size();
    // This rank's ghosts may be written: everything queued before this fill has run.
    for (std::size_t k = 0; k < faces.size(); ++k)
      if (faces[k].phase == phase) write_flag(peer[k].remote_free, turn);
    for (std::size_t k = 0; k < faces.size(); ++k) {
      const HaloFace& f = faces[k];
      if (f.phase != phase) continue;
      PeerFace& p = peer[k];
      if (!p.direct) pack(f, k, fields_in);
      wait_flag(local_free(f), turn);
      if (p.direct) {
        for (std::size_t q = 0; q < nf; ++q)
          copy_region(fields_in[q] + grid.index(f.send.lo[0], f.send.lo[1], f.send.lo[2]), f.send,
                      p.remote_fields[slots[q]] + p.remote_offset, p.remote_pitch, p.remote_rows);
      } else {
        SS_CUDA_CHECK(cudaMemcpyAsync(p.remote_recv, send[k].get(), count(f, nf) * sizeof(float), cudaMemcpyDefault,
                                      stream));
      }
      write_flag(p.remote_arrived, turn);
    }
    for (std::size_t k = 0; k < faces.size(); ++k) {
      if (faces[k].phase != phase) continue;
      wait_flag(local_arrived(faces[k]), turn);
      if (!peer[k].direct) unpack(faces[k], k, fields_in);
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
  if (transport == DeviceTransport::peer) m.setup_peer();
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
  if (m.transport == DeviceTransport::peer) {
    const std::vector<std::size_t> slots = m.field_slots(device_fields);
    ++m.turn;
    for (int phase = 0; phase < m.phases; ++phase) m.peer_phase(phase, device_fields, slots);
    SS_CUDA_CHECK(cudaEventRecord(mark.second.get(), m.stream));
    return;
  }
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
