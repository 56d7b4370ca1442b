// GPU backend of heat 3D: two device buffers, the analytic tables and a stream.
// A global or shared3d step is one interior launch plus the boundary step; a
// stream25d step is one launch that applies the boundary while it stages planes,
// and leaves the ghost frame of its output stale until something else reads it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d_kernels.cuh"
#include "sim/core/pdl.cuh"
#include "sim/models/heat3d/heat3d_kernels.cuh"
#include "sim/core/slice3d_kernels.cuh"
#include "sim/core/device.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;

// stream25d's shapes by STENCILSCOPE_STREAM25 (read once per process): 0 "8x8", 1 the
// default, 2 "16x16", then the two-pack shapes "2pack" and "2pack24" (session 15).
// "auto" takes 2pack where DRAM is fast for the SMs (kSmBoundPeakGbpsPerSm: the
// H200, not the H100), else the default: a per-device choice ready for when the
// device runs have shown where two packs win (docs/perf.md, session 15).
constexpr int kShape2Pack = 3, kShape2Pack24 = 4;
int stream25d_shape_from_env() {
  const char* e = std::getenv("STENCILSCOPE_STREAM25");
  const std::string v = e ? e : "";
  if (v == "8x8") return 0;
  if (v == "16x16") return 2;
  if (v == "2pack") return kShape2Pack;
  if (v == "2pack24") return kShape2Pack24;
  if (v == "auto") return cuda_peak_gbps_per_sm() > kSmBoundPeakGbpsPerSm ? kShape2Pack : 1;
  return 1;
}

// Whether stream25d's default shape runs its lean kernel: heat3d_stream25d_lean of the
// device, or STENCILSCOPE_STREAM25_LEAN=1 or 0 (read once per process by its caller).
bool stream25d_lean_from_env() {
  return switch_from_env("STENCILSCOPE_STREAM25_LEAN", heat3d_stream25d_lean(cuda_peak_gbps_per_sm()));
}

// Whether stream25d's blocks take the tile columns from the middle one on
// (Heat3DStepArgs::x_tiles_from_middle): heat3d_stream25d_tiles_from_middle of the device, or
// STENCILSCOPE_TILES_FROM_MIDDLE=1 or 0 (read once per process).
bool tiles_from_middle() {
  static const bool on =
      switch_from_env("STENCILSCOPE_TILES_FROM_MIDDLE", heat3d_stream25d_tiles_from_middle(cuda_peak_gbps_per_sm()));
  return on;
}

// Planes each stream25d block marches (stream25d_slab_planes);
// STENCILSCOPE_STREAM25_SLAB asks for slabs of about that many planes, for tuning.
int stream25d_slab(const Grid3D& g, long long blocks_xy, long long resident_blocks) {
  static const int forced = [] {
    const char* e = std::getenv("STENCILSCOPE_STREAM25_SLAB");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  if (forced > 0) return std::min(forced, g.nz);
  return stream25d_slab_planes(blocks_xy, g.nz, resident_blocks);
}

// Resident blocks of a stream25d kernel on this device: its shared ring sets it.
// The analytic kernel's tables after the ring (a few KB) only ever leave room for
// fewer blocks where the ring alone would fit several, which no shape does.
template <typename T, int R, int BY, int RING, bool kSine, int PX, bool kBox = false, bool kLean = false>
long long stream25d_resident(int sm_count, int smem_optin) {
  static const long long resident = [&] {
    const auto kernel = heat3d_step_stream25d<T, R, BY, RING, kSine, PX, kBox, kLean>;
    cudaFuncAttributes attributes{};
    SS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));  // its static shared memory counts too
    const int dynamic = smem_optin - static_cast<int>(attributes.sharedSizeBytes);
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic));
    int per_sm = 0;
    using S = Stream25Shape<T, R, BY, RING, PX>;
    SS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::kStream25Threads, S::smem_bytes));
    if (per_sm < 1) throw Error("stream25d: the kernel does not fit on this device");
    return static_cast<long long>(per_sm) * sm_count;
  }();
  return resident;
}

// stream25d's face ghosts under the analytic rule (FaceGhosts): `ready` when
// a.faces holds those of a.in's time (else the step computes them first);
// `produced` is set when the step's producer blocks wrote those of a.out's time
// into a.faces_next.
struct FaceState {
  bool ready = false;
  bool produced = false;
};
// Who writes the next step's face ghosts (Heat3DFaceWriters): STENCILSCOPE_FACES=auto,
// producers or kernel (read once per process; another value is ignored, with a line
// that says so), else auto.
Heat3DFaceWriters face_writers() {
  static const Heat3DFaceWriters w = [] {
    const char* e = std::getenv("STENCILSCOPE_FACES");
    if (!e || !*e) return Heat3DFaceWriters::automatic;
    if (const auto p = parse_heat3d_face_writers(e)) return *p;
    std::fprintf(stderr, "stencilscope: STENCILSCOPE_FACES=%s ignored (auto, producers or kernel)\n", e);
    return Heat3DFaceWriters::automatic;
  }();
  return w;
}
// The face kernel: heat3d_face_ghosts_staged, or with STENCILSCOPE_FACE_KERNEL=walk the
// walking heat3d_face_ghosts it replaced (for A/B runs; read once per process).
bool face_kernel_walks() {
  static const bool walk = [] {
    const char* e = std::getenv("STENCILSCOPE_FACE_KERNEL");
    return e && std::string(e) == "walk";
  }();
  return walk;
}
// At most this many producer blocks;
// STENCILSCOPE_FACE_PRODUCERS=N asks for at most N (0: the face kernel before every step).
int max_face_producers() {
  static const int n = [] {
    const char* e = std::getenv("STENCILSCOPE_FACE_PRODUCERS");
    return e ? std::max(0, std::atoi(e)) : 8;
  }();
  return n;
}

// The face ghosts of the times of rules[0 .. ahead - 1] into slots first_slot, first_slot + 1,
// ... (modulo `slots`) of `faces`, `slot_elements` values each: heat3d_face_ghosts_staged, one
// launch (or the walking kernel once per time, STENCILSCOPE_FACE_KERNEL=walk).
template <typename T, int R>
void launch_face_ghosts_ahead(T* faces, std::size_t slot_elements, int first_slot, int slots, int ahead, const Grid3D& g,
                              const GhostRule3D<T>* rules, cudaStream_t s) {
  static const bool carveout = [] {  // the carveout stream25d runs with: no SM reconfigures between them
    SS_CUDA_CHECK(cudaFuncSetAttribute(heat3d_face_ghosts<T, R>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
    SS_CUDA_CHECK(cudaFuncSetAttribute(heat3d_face_ghosts_staged<T, R>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)carveout;
  const unsigned face_bx = blocks_for(FaceGhosts<T, R>::plane(g), kFaceThreads);
  if (face_kernel_walks()) {
    int dev = 0, sm_count = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    const unsigned face_by = std::clamp<unsigned>(8U * sm_count / face_bx, 1U, std::min<unsigned>(g.nz, kMaxGridYZ));
    for (int j = 0; j < ahead; ++j)
      heat3d_face_ghosts<T, R><<<dim3(face_bx, face_by), kFaceThreads, 0, s>>>(
          faces + static_cast<std::size_t>((first_slot + j) % slots) * slot_elements, g, rules + j);
  } else {
    const unsigned face_by = std::min<unsigned>(blocks_for(g.nz, kFaceZB), kMaxGridYZ);
    launch_pdl("heat3d_face_ghosts_staged", heat3d_face_ghosts_staged<T, R>, dim3(face_bx, face_by, static_cast<unsigned>(ahead)),
               dim3(kFaceThreads), 0, s, faces, static_cast<std::ptrdiff_t>(slot_elements), first_slot, slots, g, rules);
    return;
  }
  SS_CUDA_LAUNCH_CHECK("heat3d_face_ghosts");
}

// One time step from a.in to a.out. `in_rule` is the boundary rule at the time
// of a.in, `out_rule` the one at the time of a.out; `sine_modes` the number of
// modes of the analytic rule, if that is the rule; `faces` stream25d's face
// ghosts under that rule (null: it computes its ghosts itself). Returns whether
// the ghost frame of a.out was written (stream25d leaves it).
// kBox: a distributed run's box, whose stream25d reads every ghost from memory (the
// default shape only).
template <typename T, int R, bool kBox = false>
bool launch_step(Heat3DVariant v, std::optional<int> sine_modes, const Heat3DStepArgs<T>& a, cudaStream_t s, int sm_count,
                 const GhostRule3D<T>* in_rule, const GhostRule3D<T>* out_rule, FaceState* faces, int reserve = 0) {
  const Grid3D& g = a.g;
  if (!a.faces) faces = nullptr;
  switch (v) {
    case Heat3DVariant::global: {
      const dim3 grid(blocks_for(g.nx, kHeatGlobalBX), blocks_for(g.ny, kHeatGlobalBY), std::min<unsigned>(g.nz, kMaxGridYZ));
      if (grid.y > kMaxGridYZ) throw Error("global: ny " + std::to_string(g.ny) + " is too large for this launch");
      heat3d_step_global<T, R><<<grid, dim3(kHeatGlobalBX, kHeatGlobalBY), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("heat3d_step_global");
      break;
    }
    case Heat3DVariant::shared3d: {
      const dim3 grid(blocks_for(g.nx, kShared3BX), blocks_for(g.ny, kShared3BY),
                      std::min<unsigned>(blocks_for(g.nz, kShared3BZ), kMaxGridYZ));
      if (grid.y > kMaxGridYZ) throw Error("shared3d: ny " + std::to_string(g.ny) + " is too large for this launch");
      heat3d_step_shared3d<T, R><<<grid, dim3(kShared3BX, kShared3BY, kShared3BZ), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("heat3d_step_shared3d");
      break;
    }
    case Heat3DVariant::stream25d: {
      // Tile rows and ring planes: 16 and 9 in float from order 6 (kRing16 below), 16
      // and 8 else (0.69 of copy at 512^3 on an H100 in session 4, against 0.65 for 16
      // and 16 and 0.61 for 8 and 8); STENCILSCOPE_STREAM25 chooses another, for
      // tuning (docs/perf.md): 16x16 or 8x8 (rows x ring planes), or 2pack / 2pack24:
      // two packs per thread (Stream25Shape's PX), 16 or 24 rows, the default's ring.
      static const int shape = stream25d_shape_from_env();
      // The 16-plane ring (204 KB in float, 216 KB in double, too much with the
      // boundary duties' 14 KB) needs a Hopper-class shared memory, 16 rows with 8
      // planes (102 / 108 KB) an Ampere-class one; the analytic rule adds 24 KB per
      // sine mode (2 in the default scene).
      static const int smem_optin = [] {
        int dev = 0, v = 0;
        SS_CUDA_CHECK(cudaGetDevice(&dev));
        SS_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        return v;
      }();
      // Slabs of at most this many planes under the analytic rule, whose z tables
      // over the slab are staged in shared memory (8 KB for 1024 planes, 2 modes, float).
      constexpr int kSineSlab = 1024;
      // The 16-row shape's ring in float: 2R + 1 planes (its slots then constants
      // of the kernel's unrolled steps) where that leaves a fetch distance of 2 or
      // more. In double the ring of 9 was slower than that of 8 (0.81 of copy at
      // 512^3, order 8, on an H100, against 0.84; session 11).
      constexpr int kRing16 = R >= 3 && sizeof(T) == 4 ? 2 * R + 1 : 8;
      auto go = [&]<int BY, int RING, bool kSine, int PX = 1, bool kLean = false>() {
        using S = Stream25Shape<T, R, BY, RING, PX>;
        const long long bx = blocks_for(g.nx, S::TW), by = blocks_for(g.ny, BY);
        const long long resident =
            std::max(1LL, stream25d_resident<T, R, BY, RING, kSine, PX, kBox, kLean>(sm_count, smem_optin) - reserve);
        int slab = stream25d_slab(g, bx * by, resident);
        if (kSine) slab = std::min(slab, kSineSlab);
        const long long tile_blocks = bx * by * blocks_for(g.nz, slab);
        // Under the analytic rule producer blocks on the SMs the tiles leave idle (4 of 132 at
        // 512^3) write the face ghosts of the next step where they keep up with the tiles
        // (Heat3DFaceWriters); else the face kernel writes them before the next step.
        const long long idle = kSine && faces && a.faces_next ? std::clamp<long long>(resident - tile_blocks, 0, max_face_producers()) : 0;
        int producers = 0;
        switch (face_writers()) {
          case Heat3DFaceWriters::producers: producers = static_cast<int>(idle); break;
          case Heat3DFaceWriters::kernel: break;
          case Heat3DFaceWriters::automatic:
            producers = stream25d_face_producers(FaceGhosts<T, R>::plane(g) * g.nz,
                                                 static_cast<long long>(g.nx) * g.ny * g.nz, tile_blocks, idle);
            break;
        }
        if (tile_blocks + producers > std::numeric_limits<int>::max()) throw Error("stream25d: grid too large for this launch");
        if (kSine && faces && !faces->ready) {  // the face ghosts of a.in's time, which the kernel copies
          launch_face_ghosts_ahead<T, R>(const_cast<T*>(a.faces), 0, 0, 1, 1, g, in_rule, s);
        }
        if (faces) faces->produced = producers > 0;
        Heat3DStepArgs<T> args = a;
        if (!faces) args.faces = args.faces_next = nullptr;  // the kernel computes every ghost
        const dim3 grid(static_cast<unsigned>(tile_blocks + producers)), block(S::TXT, BY);
        const std::size_t smem = S::smem_bytes_for(sine_modes, slab);
        if constexpr (kBox) {  // a box's step follows the exchange's events: launched plainly
          heat3d_step_stream25d<T, R, BY, RING, kSine, PX, kBox, kLean><<<grid, block, smem, s>>>(args, slab, in_rule, out_rule);
          SS_CUDA_LAUNCH_CHECK("heat3d_step_stream25d");
        } else {  // one GPU: the next step is scheduled during this one's tail (sim/core/pdl.cuh)
          launch_pdl("heat3d_step_stream25d", heat3d_step_stream25d<T, R, BY, RING, kSine, PX, kBox, kLean>, grid, block, smem, s,
                     args, slab, in_rule, out_rule);
        }
      };
      auto fits = [&]<int BY, int RING, int PX = 1>() {
        // The kernel's static shared memory holds its ghost rule and the ring's barriers.
        return Stream25Shape<T, R, BY, RING, PX>::smem_bytes_for(sine_modes, kSineSlab) + sizeof(GhostRule3D<T>) +
                   2 * RING * sizeof(std::uint64_t) <=
               static_cast<std::size_t>(smem_optin);
      };
      const bool small_ring_fits = fits.template operator()<16, kRing16>();
      if (!small_ring_fits && !fits.template operator()<8, 8>())
        throw Error("stream25d needs " + std::to_string(Stream25Shape<T, R, 8, 8>::smem_bytes_for(sine_modes, kSineSlab) / 1024) +
                    " KB of shared memory per block; this device offers " + std::to_string(smem_optin / 1024) + " KB");
      if constexpr (kBox) {  // the default shapes; the faces between ranks from memory
        // The lean form where the device's one-GPU step takes it (the H200), as there:
        // before, a box always ran the classic form, 12-15% slower on an H200 at 512^3.
        static const bool lean = stream25d_lean_from_env();
        if (sine_modes) {
          if (!small_ring_fits) go.template operator()<8, 8, true>();
          else if (lean) go.template operator()<16, kRing16, true, 1, true>();
          else go.template operator()<16, kRing16, true>();
        } else {
          if (!small_ring_fits) go.template operator()<8, 8, false>();
          else if (lean) go.template operator()<16, kRing16, false, 1, true>();
          else go.template operator()<16, kRing16, false>();
        }
        return false;
      } else {
        // Two packs per thread where asked for and it fits (2pack24 under the analytic
        // rule with 2 sine modes does not: its products take 31 KB per mode), else the
        // one-pack shapes. 2pack24 is float only: in double, order 8, the 168 registers
        // of 384 threads spill; it runs 2pack there.
        auto two_packs = [&]<int BY>() {
          if (!fits.template operator()<BY, kRing16, 2>()) return false;
          if (sine_modes) go.template operator()<BY, kRing16, true, 2>();
          else go.template operator()<BY, kRing16, false, 2>();
          return true;
        };
        bool launched = false;
        if constexpr (sizeof(T) == 4) launched = shape == kShape2Pack24 && two_packs.template operator()<24>();
        if (!launched && shape >= kShape2Pack) launched = two_packs.template operator()<16>();
        if (launched) return false;
        // The default shape's kernel in its lean form where the SM binds (stream25d_lean).
        static const bool lean = stream25d_lean_from_env();
        if (sine_modes) {  // the 16x16 shape is for tuning the other rules only
          if (shape == 0 || !small_ring_fits) go.template operator()<8, 8, true>();
          else if (lean) go.template operator()<16, kRing16, true, 1, true>();
          else go.template operator()<16, kRing16, true>();
        } else {
          const bool big_ring_fits = fits.template operator()<16, 16>();
          if (shape == 0 || !small_ring_fits) go.template operator()<8, 8, false>();
          else if (shape != 2 || !big_ring_fits) {
            if (lean) go.template operator()<16, kRing16, false, 1, true>();
            else go.template operator()<16, kRing16, false>();
          } else {
            go.template operator()<16, 16, false>();
          }
        }
        return false;  // the next stream25d step stages the ghosts itself
      }
    }
    default:
      throw Error("variant '" + std::string(to_string(v)) + "' does not run on the GPU");
  }
  launch_fill_ghosts3d(a.out, g, out_rule, s);  // the explicit boundary step
  return true;
}

template <typename T>
__global__ void paint_sphere_kernel(T* f, Grid3D g, Sphere s, CellBox box) {
  const int i = box.lo[0] + blockIdx.x * blockDim.x + threadIdx.x;
  const int j = box.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
  for (int k = box.lo[2] + blockIdx.z; k <= box.hi[2]; k += gridDim.z)
    if (i <= box.hi[0] && j <= box.hi[1] && in_sphere(s, i, j, k)) f[g.index(i, j, k)] = static_cast<T>(s.value);
}

}  // namespace

void launch_heat3d_stream25d_box(int order, const Heat3DStepArgs<float>& a, std::optional<int> sine_modes,
                                 const GhostRule3D<float>* in_rule, const GhostRule3D<float>* out_rule,
                                 Heat3DBoxFaces* faces, int reserve, cudaStream_t s) {
  int dev = 0, sm_count = 0;
  SS_CUDA_CHECK(cudaGetDevice(&dev));
  SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
  FaceState state{faces ? faces->ready : false, false};
  dispatch_radius(order, [&]<int R>() {
    launch_step<float, R, true>(Heat3DVariant::stream25d, sine_modes, a, s, sm_count, in_rule, out_rule,
                                faces ? &state : nullptr, reserve);
  });
  if (faces) faces->produced = state.produced;
}

template <typename T>
struct DeviceHeat3D<T>::Impl {
  Heat3DSetup setup;
  CudaStream stream;
  CudaEvent t0, t1;
  int sm_count = 0;
  DeviceBuffer<T> field[2];
  // Ghost rules (the analytic amplitudes change every step) live in device memory,
  // uploaded once per chunk of up to kRuleRing steps (the rule of the chunk's
  // first input, then one per output); kernels get a pointer.
  static constexpr int kRuleRing = 256;
  // The last slot serves refresh_ghosts (after a paint or a load).
  static constexpr int kRefreshSlot = kRuleRing + 1;
  DeviceBuffer<GhostRule3D<T>> rules{kRuleRing + 2};
  bool ghosts_stale = false;  // the current field's ghost frame is out of date (after stream25d)
  std::vector<GhostRule3D<T>> rules_host;
  std::vector<T> initial;
  DeviceBuffer<T> tables;
  // stream25d's face ghosts (FaceGhosts) under the analytic rule, in kFaceSlots slots of
  // face_elements values: slot s % kFaceSlots holds those of step s's input for the steps
  // s = faces_from .. faces_to. The face kernel writes up to kFaceSlots steps ahead in one
  // launch; stream25d's producer blocks write the next step's.
  static constexpr int kFaceSlots = 4;
  std::size_t face_elements = 0;
  DeviceBuffer<T> faces;
  long faces_from = -1, faces_to = -2;
  T* face_slot(long step) { return faces.get() + static_cast<std::size_t>(step % kFaceSlots) * face_elements; }
  bool faces_hold(long step) const { return faces_from <= step && step <= faces_to; }
  int current = 0;
  long steps_done = 0;
  BatchTimer batch;  // step_timed_async's batch
  DeviceBuffer<T> slice;  // gather target of copy_slice_to_host, grown on demand

  explicit Impl(const Heat3DSetup& s) : setup(s) {
    int dev = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    const std::vector<T> host_tables = analytic_tables3d<T>(s);
    const bool analytic = s.config.boundary == Boundary::analytic;
    face_elements = analytic ? FaceGhosts<T, 1>::elements_max(s.grid) : 0;
    check_device_memory((2 * s.grid.elements() + host_tables.size() + kFaceSlots * face_elements) * sizeof(T), "this grid");
    field[0] = DeviceBuffer<T>(s.grid.elements());
    field[1] = DeviceBuffer<T>(s.grid.elements());
    if (analytic) faces = DeviceBuffer<T>(kFaceSlots * face_elements);
    tables = DeviceBuffer<T>(std::max<std::size_t>(host_tables.size(), 1));
    if (!host_tables.empty())
      SS_CUDA_CHECK(cudaMemcpy(tables.get(), host_tables.data(), host_tables.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
};

template <typename T>
DeviceHeat3D<T>::DeviceHeat3D(const Heat3DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  impl_ = std::make_unique<Impl>(setup);
  reset();
  // Both buffers start identical: ghost edges, corners and padding hold defined values.
  SS_CUDA_CHECK(cudaMemcpyAsync(impl_->field[1].get(), impl_->field[0].get(), impl_->field[0].bytes(),
                                cudaMemcpyDeviceToDevice, impl_->stream.get()));
  synchronize();
}

template <typename T>
DeviceHeat3D<T>::~DeviceHeat3D() = default;
template <typename T>
DeviceHeat3D<T>::DeviceHeat3D(DeviceHeat3D&&) noexcept = default;
template <typename T>
DeviceHeat3D<T>& DeviceHeat3D<T>::operator=(DeviceHeat3D&&) noexcept = default;

template <typename T>
void DeviceHeat3D<T>::reset() {
  Impl& m = *impl_;
  if (m.initial.empty()) m.initial = heat3d_initial_field<T>(m.setup);
  SS_CUDA_CHECK(cudaMemcpyAsync(m.field[m.current].get(), m.initial.data(), m.initial.size() * sizeof(T),
                                cudaMemcpyHostToDevice, m.stream.get()));
  m.steps_done = 0;
  refresh_ghosts();  // the first step reads ghosts that match the boundary, as every later one
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

template <typename T>
void DeviceHeat3D<T>::step(Heat3DVariant variant, int n) {
  Impl& m = *impl_;
  const T c = static_cast<T>(m.setup.courant());
  dispatch_radius(m.setup.config.order, [&]<int R>() {
    for (int done = 0; done < n;) {
      const int chunk = std::min(n - done, Impl::kRuleRing);
      // Stream-ordered upload: the slots are rewritten only after the kernels before it read them.
      // Slot k holds the rule at the time of step k's input, slot k + 1 that of its output.
      m.rules_host.resize(chunk + 1);
      for (int k = 0; k <= chunk; ++k)
        m.rules_host[k] = make_ghost_rule3d<T>(m.setup, (m.steps_done + k) * m.setup.dt, m.tables.get());
      SS_CUDA_CHECK(cudaMemcpyAsync(m.rules.get(), m.rules_host.data(), (chunk + 1) * sizeof(GhostRule3D<T>),
                                    cudaMemcpyHostToDevice, m.stream.get()));
      for (int k = 0; k < chunk; ++k) {
        const GhostRule3D<T>* in_rule = m.rules.get() + k;
        if (m.ghosts_stale && variant != Heat3DVariant::stream25d) {
          launch_fill_ghosts3d(m.field[m.current].get(), m.setup.grid, in_rule, m.stream.get());
          m.ghosts_stale = false;
        }
        const bool analytic = m.setup.config.boundary == Boundary::analytic;
        const std::optional<int> sine_modes = analytic ? std::optional<int>(m.setup.analytic.modes) : std::nullopt;
        const long s = m.steps_done;
        const bool face_ghosts = variant == Heat3DVariant::stream25d && analytic;
        if (face_ghosts && !m.faces_hold(s)) {
          // The face ghosts of this step's input and of up to kFaceSlots - 1 steps after it
          // whose rules this chunk has (slots k .. chunk), in one launch.
          const int ahead = std::min(Impl::kFaceSlots, chunk - k + 1);
          launch_face_ghosts_ahead<T, R>(m.faces.get(), m.face_elements, static_cast<int>(s % Impl::kFaceSlots),
                                         Impl::kFaceSlots, ahead, m.setup.grid, in_rule, m.stream.get());
          m.faces_from = s;
          m.faces_to = s + ahead - 1;
        }
        // The producers write the next step's faces only where no launch has yet.
        T* faces_next = face_ghosts && !m.faces_hold(s + 1) ? m.face_slot(s + 1) : nullptr;
        Heat3DStepArgs<T> a{m.field[m.current].get(), m.field[1 - m.current].get(), m.setup.grid, c,
                            face_ghosts ? m.face_slot(s) : nullptr, faces_next};
        a.x_tiles_from_middle = tiles_from_middle();
        FaceState faces{face_ghosts, false};
        m.ghosts_stale = !launch_step<T, R>(variant, sine_modes, a, m.stream.get(), m.sm_count, in_rule, in_rule + 1,
                                            analytic ? &faces : nullptr);
        if (face_ghosts && faces.produced) {  // slot (s + 1) % kFaceSlots held step s + 1 - kFaceSlots's
          m.faces_to = s + 1;
          m.faces_from = std::max(m.faces_from, s + 2 - Impl::kFaceSlots);
        }
        m.current = 1 - m.current;
        ++m.steps_done;
      }
      done += chunk;
    }
  });
}

template <typename T>
double DeviceHeat3D<T>::timed_steps(Heat3DVariant variant, int n) {
  Impl& m = *impl_;
  SS_CUDA_CHECK(cudaEventRecord(m.t0.get(), m.stream.get()));
  step(variant, n);
  SS_CUDA_CHECK(cudaEventRecord(m.t1.get(), m.stream.get()));
  return elapsed_ms(m.t0, m.t1);
}

template <typename T>
void DeviceHeat3D<T>::poison_scratch() {
  Impl& m = *impl_;
  launch_fill_value3d(m.field[1 - m.current].get(), m.setup.grid.elements(), std::numeric_limits<T>::quiet_NaN(),
                      m.stream.get());
}

template <typename T>
void DeviceHeat3D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
std::vector<T> DeviceHeat3D<T>::download() const {
  if (impl_->ghosts_stale) const_cast<DeviceHeat3D*>(this)->refresh_ghosts();  // the whole buffer, ghosts included
  std::vector<T> out(impl_->setup.grid.elements());
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
  SS_CUDA_CHECK(cudaMemcpy(out.data(), impl_->field[impl_->current].get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

template <typename T>
const Heat3DSetup& DeviceHeat3D<T>::setup() const {
  return impl_->setup;
}
template <typename T>
long DeviceHeat3D<T>::steps_done() const {
  return impl_->steps_done;
}

template <typename T>
void DeviceHeat3D<T>::set_order(int order) {
  Heat3DConfig c = impl_->setup.config;
  c.order = order;
  impl_->setup = make_heat3d_setup(c);
  // The time of the field (steps x dt) moves with dt: its ghosts follow, and
  // stream25d's face ghosts (laid out for one radius, too) are written again.
  impl_->faces_from = -1;
  impl_->faces_to = -2;
  refresh_ghosts();
}

template <typename T>
const T* DeviceHeat3D<T>::device_field() const {
  return impl_->field[impl_->current].get();
}

template <typename T>
void* DeviceHeat3D<T>::native_stream() const {
  return impl_->stream.get();
}

template <typename T>
void DeviceHeat3D<T>::paint(const Sphere& s) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  const CellBox box = sphere_cells(s, g);
  if (!box.empty()) {
    const dim3 block(32, 8);
    const dim3 grid(blocks_for(box.hi[0] - box.lo[0] + 1, 32),
                    std::min<unsigned>(blocks_for(box.hi[1] - box.lo[1] + 1, 8), kMaxGridYZ),
                    std::min<unsigned>(box.hi[2] - box.lo[2] + 1, kMaxGridYZ));
    paint_sphere_kernel<T><<<grid, block, 0, m.stream.get()>>>(m.field[m.current].get(), g, s, box);
    SS_CUDA_LAUNCH_CHECK("paint_sphere_kernel");
  }
  refresh_ghosts();
}

template <typename T>
void DeviceHeat3D<T>::refresh_ghosts() {
  Impl& m = *impl_;
  m.rules_host.assign(1, make_ghost_rule3d<T>(m.setup, m.steps_done * m.setup.dt, m.tables.get()));
  GhostRule3D<T>* slot = m.rules.get() + Impl::kRefreshSlot;
  SS_CUDA_CHECK(cudaMemcpyAsync(slot, m.rules_host.data(), sizeof(GhostRule3D<T>), cudaMemcpyHostToDevice, m.stream.get()));
  // A copy from pageable memory has read rules_host when the call returns (as in heat 2D).
  launch_fill_ghosts3d(m.field[m.current].get(), m.setup.grid, slot, m.stream.get());
  m.ghosts_stale = false;
}

template <typename T>
void DeviceHeat3D<T>::copy_slice_to_host(SliceAxis axis, int position, T* dst) {
  Impl& m = *impl_;
  copy_slice_to_host_via(m.field[m.current].get(), slice_view(m.setup.grid, axis, position), m.slice, dst,
                         m.stream.get());
}

template <typename T>
void DeviceHeat3D<T>::copy_interior_to_host(T* dst) const {
  const Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  for (int k = 0; k < g.nz; ++k)  // one 2D copy per plane: rows of nx out of the padded pitch
    SS_CUDA_CHECK(cudaMemcpy2DAsync(dst + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                    m.field[m.current].get() + g.index(0, 0, k), g.pitch * sizeof(T), g.nx * sizeof(T),
                                    g.ny, cudaMemcpyDeviceToHost, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

template <typename T>
void DeviceHeat3D<T>::load_interior(const T* interior, long steps_done) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  for (int k = 0; k < g.nz; ++k)
    SS_CUDA_CHECK(cudaMemcpy2DAsync(m.field[m.current].get() + g.index(0, 0, k), g.pitch * sizeof(T),
                                    interior + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                    g.nx * sizeof(T), g.ny, cudaMemcpyHostToDevice, m.stream.get()));
  m.steps_done = steps_done;
  refresh_ghosts();
  synchronize();  // the caller's buffer may go away
}

template <typename T>
void DeviceHeat3D<T>::step_timed_async(Heat3DVariant variant, int n) {
  Impl& m = *impl_;
  m.batch.begin(m.stream.get());
  step(variant, n);
  m.batch.end(m.stream.get());
}

template <typename T>
std::optional<double> DeviceHeat3D<T>::finished_batch_ms() {
  return impl_->batch.finished_ms();
}

template <typename T>
bool DeviceHeat3D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}

template class DeviceHeat3D<float>;
template class DeviceHeat3D<double>;

}  // namespace ss
