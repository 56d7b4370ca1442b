// GPU backend of acoustic 3D: three field buffers, (v dt/h)^2, the damping tables, the
// velocity (for views) and the receiver traces in device memory, on the object's stream.
// A step is the interior launch of the variant, the source-and-receivers launch and the
// boundary step.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/core/ghost3d_kernels.cuh"  // launch_fill_value3d
#include "sim/core/slice3d_kernels.cuh"
#include "sim/models/acoustic3d/acoustic3d_stream25d.cuh"  // and acoustic3d_kernels.cuh
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;

// The packed stream25d's slab; STENCILSCOPE_ACOUSTIC25_SLAB asks for slabs of about that
// many planes, for tuning.
int packed_slab(const Grid3D& g, long long columns, long long resident) {
  static const int forced = [] {
    const char* e = std::getenv("STENCILSCOPE_ACOUSTIC25_SLAB");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  if (forced > 0) return std::min(forced, g.nz);
  return acoustic3d_stream_slab_planes(columns, g.nz, resident);
}

// One packed stream25d step: BY rows, a ring of RING planes (0: the default, heat 3D's
// choice: 2R + 1 planes in float from order 6, where that leaves a fetch distance of 2 or
// more and the ring's slots are constants of the unrolled steps; else 8).
template <typename T, int R, int BY, int RING_ASKED>
void launch_packed(const Acoustic3DStepArgs<T>& a, cudaStream_t s, int sm_count) {
  constexpr int RING = RING_ASKED > 0 ? RING_ASKED : R >= 3 && sizeof(T) == 4 ? 2 * R + 1 : 8;
  using S = AcousticPackShape<T, R, BY, RING>;
  const auto kernel = acoustic3d_step_stream25d_packed<T, R, BY, RING>;
  // Blocks resident at once on this device: the ring sets it (one block of 16 rows per
  // SM on an H100 in float at order 8: 118 KB).
  static const long long resident = [&] {
    int dev = 0, optin = 0, per_sm = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes attributes{};
    SS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));  // the barriers are static shared memory
    if (S::smem_bytes + attributes.sharedSizeBytes > static_cast<std::size_t>(optin))
      throw Error("stream25d: this shape needs " + std::to_string((S::smem_bytes + 1023) / 1024) +
                  " KB of shared memory per block; this device offers " + std::to_string(optin / 1024) +
                  " KB (STENCILSCOPE_ACOUSTIC25=packed8 or scalar need less)");
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(S::smem_bytes)));
    SS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::threads, S::smem_bytes));
    if (per_sm < 1) throw Error("stream25d: the kernel does not fit on this device");
    return static_cast<long long>(per_sm) * sm_count;
  }();
  const Grid3D& g = a.g;
  const long long columns = static_cast<long long>(blocks_for(g.nx, S::TW)) * blocks_for(g.ny, BY);
  const int slab = packed_slab(g, columns, resident);
  const long long blocks = columns * blocks_for(g.nz, slab);
  if (blocks > std::numeric_limits<int>::max()) throw Error("stream25d: grid too large for this launch");
  kernel<<<static_cast<unsigned>(blocks), dim3(kAcousticPackBX, BY), S::smem_bytes, s>>>(a, slab);
  SS_CUDA_LAUNCH_CHECK("acoustic3d_step_stream25d_packed");
}

template <typename T, int R>
void launch_interior(Acoustic3DVariant v, Acoustic3DStreamShape shape, const Acoustic3DStepArgs<T>& a, cudaStream_t s,
                     int sm_count) {
  const Grid3D& g = a.g;
  if (v == Acoustic3DVariant::stream25d) {
    switch (shape) {
      case Acoustic3DStreamShape::packed16: return launch_packed<T, R, 16, 0>(a, s, sm_count);
      case Acoustic3DStreamShape::packed16_ring8: return launch_packed<T, R, 16, 8>(a, s, sm_count);
      case Acoustic3DStreamShape::packed8: return launch_packed<T, R, 8, 0>(a, s, sm_count);
      case Acoustic3DStreamShape::scalar: break;  // below
    }
  }
  switch (v) {
    case Acoustic3DVariant::global: {
      const dim3 grid(blocks_for(g.nx, kAcousticGlobalBX), blocks_for(g.ny, kAcousticGlobalBY),
                      std::min<unsigned>(g.nz, kMaxGridYZ));
      if (grid.y > kMaxGridYZ) throw Error("global: ny " + std::to_string(g.ny) + " is too large for this launch");
      acoustic3d_step_global<T, R><<<grid, dim3(kAcousticGlobalBX, kAcousticGlobalBY), 0, s>>>(a);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_step_global");
      return;
    }
    case Acoustic3DVariant::stream25d: {
      const long long tiles = static_cast<long long>(blocks_for(g.nx, kAcoustic25BX)) * blocks_for(g.ny, kAcoustic25BY);
      const int slab = acoustic3d_slab_planes(tiles, g.nz, sm_count);
      const dim3 grid(blocks_for(g.nx, kAcoustic25BX), blocks_for(g.ny, kAcoustic25BY), blocks_for(g.nz, slab));
      if (grid.y > kMaxGridYZ || grid.z > kMaxGridYZ)
        throw Error("stream25d: grid " + std::to_string(g.ny) + " x " + std::to_string(g.nz) + " is too large for this launch");
      using Shape = Acoustic25Shape<T, R>;
      if constexpr (Shape::smem_bytes > 48 * 1024) {
        static const bool opted = [] {
          SS_CUDA_CHECK(cudaFuncSetAttribute(acoustic3d_step_stream25d<T, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(Shape::smem_bytes)));
          return true;
        }();
        (void)opted;
      }
      acoustic3d_step_stream25d<T, R><<<grid, dim3(kAcoustic25BX, kAcoustic25BY), Shape::smem_bytes, s>>>(a, slab);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_step_stream25d");
      return;
    }
    default:
      throw Error("variant '" + std::string(to_string(v)) + "' does not run on the GPU");
  }
}

// The boundary step on f. `whole`: every ghost face cell; else only those that change from
// step to step: all under periodic, the top's odd mirror under a free top, none else (the
// zeros of the other faces are still there from the last whole step). At 512^3 the whole
// step's x faces, 16-byte writes at both ends of every row, cost heat 3D 58 us a step.
template <typename T>
void launch_ghosts(T* f, const Grid3D& g, AcousticGhostRule r, bool whole, cudaStream_t s) {
  long long first = 0, n = ghost_face_cells(g);
  if (!whole && !r.periodic) {
    // write_acoustic_ghost's numbering: x faces, y faces, then the z faces, planes below first.
    first = 2LL * kGhost * (static_cast<long long>(g.ny) + g.nx) * g.nz;
    n = r.free_top ? static_cast<long long>(kGhost) * g.nx * g.ny : 0;
  }
  if (n == 0) return;
  const unsigned blocks = std::min<unsigned>(blocks_for(n, 256), 8192);
  acoustic3d_ghosts<T><<<blocks, 256, 0, s>>>(f, g, r, first, n);
  SS_CUDA_LAUNCH_CHECK("acoustic3d_ghosts");
}

}  // namespace

template <typename T>
struct DeviceAcoustic3D<T>::Impl {
  Acoustic3DSetup setup;
  CudaStream stream;
  CudaEvent t0, t1;
  BatchTimer batch;  // step_timed_async's batch
  int sm_count = 0;
  DeviceBuffer<T> field[3];
  DeviceBuffer<T> c2, damp, traces;
  DeviceBuffer<long long> receivers;  // padded indices
  DeviceBuffer<T> cpml_memory, cpml_table;  // CPML: psi and zeta per slab, the coefficients (empty without)
  DeviceBuffer<float> velocity;
  DeviceBuffer<T> slice, box;      // gather target of copy_slice_to_host, paint increments
  DeviceBuffer<float> velocity_slice;
  int prev = 0, cur = 1, next = 2;
  // zero_faces[b]: buffer b's ghost faces hold the rule's zeros (all but the free top's
  // mirror) since its last whole boundary step, so later steps rewrite only the rest.
  // Cleared when a buffer is poisoned; nothing else writes ghost cells.
  bool zero_faces[3] = {false, false, false};
  Acoustic3DStreamShape shape = acoustic3d_stream_shape_from_env();
  long steps_done = 0, trace_first = 0;
  int trace_rows = 0;

  explicit Impl(const Acoustic3DSetup& s) : setup(s) {
    int dev = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
    const Grid3D& g = s.grid;
    const std::size_t trace_values = static_cast<std::size_t>(s.trace_steps) * s.receivers.size();
    check_device_memory(4 * g.elements() * sizeof(T) + g.elements() * sizeof(float) + trace_values * sizeof(T) +
                            s.cpml_layout.memory_values(kAcousticCpmlVars, g) * sizeof(T),
                        "acoustic3d on this grid");
    for (DeviceBuffer<T>& f : field) f = DeviceBuffer<T>(g.elements());
    const std::vector<T> host_c2 = courant2_field<T>(s);
    const std::vector<T> host_damp = damping_tables<T>(s);
    const std::vector<float> host_velocity = velocity_field(s);
    c2 = DeviceBuffer<T>(host_c2.size());
    damp = DeviceBuffer<T>(host_damp.size());
    velocity = DeviceBuffer<float>(host_velocity.size());
    upload_receivers();
    SS_CUDA_CHECK(cudaMemcpy(c2.get(), host_c2.data(), c2.bytes(), cudaMemcpyHostToDevice));
    SS_CUDA_CHECK(cudaMemcpy(damp.get(), host_damp.data(), damp.bytes(), cudaMemcpyHostToDevice));
    SS_CUDA_CHECK(cudaMemcpy(velocity.get(), host_velocity.data(), velocity.bytes(), cudaMemcpyHostToDevice));
    if (s.cpml_layout.any()) {
      const std::vector<T> host_table = acoustic_cpml_table<T>(s);
      cpml_table = DeviceBuffer<T>(host_table.size());
      SS_CUDA_CHECK(cudaMemcpy(cpml_table.get(), host_table.data(), cpml_table.bytes(), cudaMemcpyHostToDevice));
      cpml_memory = DeviceBuffer<T>(s.cpml_layout.memory_values(kAcousticCpmlVars, g));
    }
  }
  void clear_cpml() {
    if (cpml_memory.size() > 0) SS_CUDA_CHECK(cudaMemsetAsync(cpml_memory.get(), 0, cpml_memory.bytes(), stream.get()));
  }
  /// The receivers' indices and a trace buffer for them (synchronous).
  void upload_receivers() {
    std::vector<long long> at;
    for (const auto& n : setup.receivers) at.push_back(static_cast<long long>(setup.grid.index(n[0], n[1], n[2])));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // queued steps still write the old buffers
    receivers = DeviceBuffer<long long>(at.size());
    SS_CUDA_CHECK(cudaMemcpy(receivers.get(), at.data(), receivers.bytes(), cudaMemcpyHostToDevice));
    traces = DeviceBuffer<T>(static_cast<std::size_t>(setup.trace_steps) * at.size());
    trace_rows = 0;
    trace_first = steps_done;
  }
  /// The boundary step on buffer b: whole unless its zero faces are still there.
  void ghosts(int b) {
    const AcousticGhostRule rule = ghost_rule_of(setup);
    launch_ghosts(field[b].get(), setup.grid, rule, !zero_faces[b], stream.get());
    zero_faces[b] = !rule.periodic;
  }
  void refresh_ghosts() { ghosts(cur); }
};

template <typename T>
DeviceAcoustic3D<T>::DeviceAcoustic3D(const Acoustic3DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  impl_ = std::make_unique<Impl>(setup);
  reset();
}

template <typename T>
DeviceAcoustic3D<T>::~DeviceAcoustic3D() = default;
template <typename T>
DeviceAcoustic3D<T>::DeviceAcoustic3D(DeviceAcoustic3D&&) noexcept = default;
template <typename T>
DeviceAcoustic3D<T>& DeviceAcoustic3D<T>::operator=(DeviceAcoustic3D&&) noexcept = default;

template <typename T>
void DeviceAcoustic3D<T>::reset() {
  Impl& m = *impl_;
  for (DeviceBuffer<T>& f : m.field) SS_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, f.bytes(), m.stream.get()));
  m.prev = 0, m.cur = 1, m.next = 2;
  for (bool& z : m.zero_faces) z = true;  // memset: every ghost is 0
  m.steps_done = 0;
  m.trace_first = 0;
  m.trace_rows = 0;
  m.clear_cpml();
  m.refresh_ghosts();
  synchronize();
}

template <typename T>
void DeviceAcoustic3D<T>::step(Acoustic3DVariant variant, int n) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  const int receivers = static_cast<int>(m.setup.receivers.size());
  dispatch_radius(m.setup.config.order, [&]<int R>() {
    for (int s = 0; s < n; ++s) {
      const Acoustic3DStepArgs<T> a{m.field[m.cur].get(), m.field[m.prev].get(), m.c2.get(), m.damp.get(),
                                    m.field[m.next].get(), g};
      launch_interior<T, R>(variant, m.shape, a, m.stream.get(), m.sm_count);
      if (m.setup.cpml_layout.any()) {
        const AcousticCpml<T> cp{m.setup.cpml_layout, m.cpml_memory.get(), m.cpml_table.get()};
        const long long nodes = cp.layout.nodes(g);
        const unsigned blocks = std::min<unsigned>(blocks_for(nodes, 256), 8192);
        acoustic3d_cpml_psi_kernel<T, R><<<blocks, 256, 0, m.stream.get()>>>(a.p, cp, cp.layout, g, nodes);
        SS_CUDA_LAUNCH_CHECK("acoustic3d_cpml_psi_kernel");
        acoustic3d_cpml_correct_kernel<T, R><<<blocks, 256, 0, m.stream.get()>>>(a.p, m.c2.get(), a.out, cp, cp.layout,
                                                                                   g, nodes);
        SS_CUDA_LAUNCH_CHECK("acoustic3d_cpml_correct_kernel");
      }
      const AcousticSourceStep<T> sources = acoustic3d_source_step<T>(m.setup, m.steps_done);
      if (sources.n > 0) {
        acoustic3d_inject<T><<<1, 32, 0, m.stream.get()>>>(m.field[m.next].get(), sources);
        SS_CUDA_LAUNCH_CHECK("acoustic3d_inject");
      }
      if (m.trace_rows < m.setup.trace_steps) {
        T* row = m.traces.get() + static_cast<std::size_t>(m.trace_rows) * receivers;
        acoustic3d_record<T><<<blocks_for(receivers, 128), 128, 0, m.stream.get()>>>(m.field[m.next].get(),
                                                                                    m.receivers.get(), receivers, row);
        SS_CUDA_LAUNCH_CHECK("acoustic3d_record");
        ++m.trace_rows;
      }
      m.ghosts(m.next);
      const int old_prev = m.prev;
      m.prev = m.cur, m.cur = m.next, m.next = old_prev;
      ++m.steps_done;
    }
  });
}

template <typename T>
double DeviceAcoustic3D<T>::timed_steps(Acoustic3DVariant variant, int n) {
  Impl& m = *impl_;
  SS_CUDA_CHECK(cudaEventRecord(m.t0.get(), m.stream.get()));
  step(variant, n);
  SS_CUDA_CHECK(cudaEventRecord(m.t1.get(), m.stream.get()));
  return elapsed_ms(m.t0, m.t1);
}

template <typename T>
void DeviceAcoustic3D<T>::step_timed_async(Acoustic3DVariant variant, int n) {
  Impl& m = *impl_;
  m.batch.begin(m.stream.get());
  step(variant, n);
  m.batch.end(m.stream.get());
}

template <typename T>
std::optional<double> DeviceAcoustic3D<T>::finished_batch_ms() {
  return impl_->batch.finished_ms();
}

template <typename T>
bool DeviceAcoustic3D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}

template <typename T>
void DeviceAcoustic3D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
void DeviceAcoustic3D<T>::poison_scratch() {
  Impl& m = *impl_;
  launch_fill_value3d(m.field[m.next].get(), m.setup.grid.elements(), std::numeric_limits<T>::quiet_NaN(), m.stream.get());
  m.zero_faces[m.next] = false;
}

template <typename T>
void DeviceAcoustic3D<T>::set_stream_shape(Acoustic3DStreamShape shape) {
  impl_->shape = shape;
}
template <typename T>
Acoustic3DStreamShape DeviceAcoustic3D<T>::stream_shape() const {
  return impl_->shape;
}

template <typename T>
std::vector<T> DeviceAcoustic3D<T>::download() const {
  const Impl& m = *impl_;
  std::vector<T> out(m.setup.grid.elements());
  SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.field[m.cur].get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
void DeviceAcoustic3D<T>::copy_interiors_to_host(T* p, T* p_prev) const {
  const Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  for (const auto& [dst, src] : {std::pair{p, m.field[m.cur].get()}, std::pair{p_prev, m.field[m.prev].get()}})
    for (int k = 0; k < g.nz; ++k)  // one 2D copy per plane: rows of nx out of the padded pitch
      SS_CUDA_CHECK(cudaMemcpy2DAsync(dst + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                      src + g.index(0, 0, k), g.pitch * sizeof(T), g.nx * sizeof(T), g.ny,
                                      cudaMemcpyDeviceToHost, m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
}

template <typename T>
void DeviceAcoustic3D<T>::load_interior(const T* p, const T* p_prev, long steps_done) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  for (const auto& [dst, src] : {std::pair{m.field[m.cur].get(), p}, std::pair{m.field[m.prev].get(), p_prev}})
    for (int k = 0; k < g.nz; ++k)
      SS_CUDA_CHECK(cudaMemcpy2DAsync(dst + g.index(0, 0, k), g.pitch * sizeof(T),
                                      src + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                      g.nx * sizeof(T), g.ny, cudaMemcpyHostToDevice, m.stream.get()));
  m.steps_done = steps_done;
  m.trace_first = steps_done;
  m.trace_rows = 0;
  m.clear_cpml();
  m.refresh_ghosts();
  synchronize();  // the caller's buffers may go away
}

template <typename T>
void DeviceAcoustic3D<T>::set_order(int order) {
  Impl& m = *impl_;
  Acoustic3DConfig c = m.setup.config;
  c.order = order;
  c.velocity = m.setup.velocity;  // the same medium, not rebuilt
  Acoustic3DSetup next = make_acoustic3d_setup(c);  // dt, (v dt/h)^2 and the damping stay
  next.config.velocity = m.setup.config.velocity;
  m.setup = next;
}

template <typename T>
void DeviceAcoustic3D<T>::paint(const Sphere& s) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  const CellBox b = sphere_cells(s, g);
  if (b.empty()) return;
  const std::vector<double> pulse = acoustic3d_paint_pulse(s, b, ghost_rule_of(m.setup).free_top);
  const std::vector<T> add(pulse.begin(), pulse.end());
  if (m.box.size() < add.size()) m.box = DeviceBuffer<T>(add.size());
  SS_CUDA_CHECK(cudaMemcpyAsync(m.box.get(), add.data(), add.size() * sizeof(T), cudaMemcpyHostToDevice, m.stream.get()));
  const unsigned blocks = std::min<unsigned>(blocks_for(static_cast<long long>(add.size()), 256), 4096);
  acoustic3d_add_box<T><<<blocks, 256, 0, m.stream.get()>>>(m.field[m.cur].get(), m.field[m.prev].get(), g, b, m.box.get());
  SS_CUDA_LAUNCH_CHECK("acoustic3d_add_box");
  m.refresh_ghosts();
  synchronize();  // `add` is pageable host memory the copy reads
}

template <typename T>
const T* DeviceAcoustic3D<T>::device_pressure() const {
  return impl_->field[impl_->cur].get();
}
template <typename T>
const float* DeviceAcoustic3D<T>::device_velocity() const {
  return impl_->velocity.get();
}
template <typename T>
void* DeviceAcoustic3D<T>::native_stream() const {
  return impl_->stream.get();
}

template <typename T>
void DeviceAcoustic3D<T>::copy_slice_to_host(SliceAxis axis, int position, bool velocity, float* dst) {
  Impl& m = *impl_;
  const SliceView view = slice_view(m.setup.grid, axis, position);
  if (velocity) {
    copy_slice_to_host_via(m.velocity.get(), view, m.velocity_slice, dst, m.stream.get());
  } else if constexpr (std::is_same_v<T, float>) {
    copy_slice_to_host_via(m.field[m.cur].get(), view, m.slice, dst, m.stream.get());
  } else {
    std::vector<T> values(static_cast<std::size_t>(view.nu) * view.nv);
    copy_slice_to_host_via(m.field[m.cur].get(), view, m.slice, values.data(), m.stream.get());
    std::transform(values.begin(), values.end(), dst, [](T v) { return static_cast<float>(v); });
  }
}

template <typename T>
void DeviceAcoustic3D<T>::set_sources(const std::vector<SourceSpec>& sources) {
  set_acoustic3d_sources(impl_->setup, sources);  // by value into each step's launch; throws, keeping them
}

template <typename T>
void DeviceAcoustic3D<T>::set_receivers(const ReceiverLayout& layout) {
  Impl& m = *impl_;
  Acoustic3DSetup next = m.setup;
  set_acoustic3d_receivers(next, layout);  // throws, keeping the old receivers
  m.setup = std::move(next);
  m.upload_receivers();
}

template <typename T>
std::vector<T> DeviceAcoustic3D<T>::traces() const {
  const Impl& m = *impl_;
  std::vector<T> out(static_cast<std::size_t>(m.trace_rows) * m.setup.receivers.size());
  if (!out.empty())
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.traces.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                  m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
std::vector<T> DeviceAcoustic3D<T>::cpml_memory() const {
  const Impl& m = *impl_;
  std::vector<T> out(m.cpml_memory.size());
  if (!out.empty())
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.cpml_memory.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                  m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
long DeviceAcoustic3D<T>::first_trace_step() const {
  return impl_->trace_first;
}
template <typename T>
const Acoustic3DSetup& DeviceAcoustic3D<T>::setup() const {
  return impl_->setup;
}
template <typename T>
long DeviceAcoustic3D<T>::steps_done() const {
  return impl_->steps_done;
}

template class DeviceAcoustic3D<float>;
template class DeviceAcoustic3D<double>;

}  // namespace ss
