// GPU backend of elastic 3D: u at three time levels (three components each), the
// stresses (and for `steps` the strains and accelerations), the medium, the damping
// tables, vp and a view scratch volume, and the receiver traces in device memory, all on
// the object's stream. A step follows elastic3d_solver.hpp's nine.
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
#include "sim/models/elastic3d/elastic3d_kernels.cuh"
#include "sim/models/elastic3d/elastic3d_register25d.cuh"
#include "sim/models/elastic3d/elastic3d_stream25d.cuh"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;

dim3 point_grid(const Grid3D& g) {
  const dim3 grid(blocks_for(g.nx, kElasticBX), blocks_for(g.ny, kElasticBY), std::min<unsigned>(g.nz, kMaxGridYZ));
  if (grid.y > kMaxGridYZ) throw Error("elastic3d: ny " + std::to_string(g.ny) + " is too large for this launch");
  return grid;
}
const dim3 kPointBlock(kElasticBX, kElasticBY);

template <typename T>
void launch_ghosts(ElasticFields6<T> f, int count, const T (&sign)[6], const Grid3D& g, ElasticGhostRule r,
                   cudaStream_t s) {
  const dim3 grid(std::min<unsigned>(blocks_for(ghost_face_cells(g), 256), 4096), count);
  elastic3d_ghosts<T><<<grid, 256, 0, s>>>(f, r, g, sign[0], sign[1], sign[2], sign[3], sign[4], sign[5]);
  SS_CUDA_LAUNCH_CHECK("elastic3d_ghosts");
}

/// The streaming kernels' tile in float: 32 x 16 (order 8: stream25d 141 KB of shared
/// memory, register25d 176 KB; one block of 512 threads per SM, 1.75 stress evaluations per
/// written node instead of 2.25) unless STENCILSCOPE_ELASTIC_TILE=32x8 (96 KB and 113 KB,
/// two blocks of 256 threads per SM), for tuning. Measured at 512^3, order 8, on an H100:
/// register25d 9.0 against 10.1 ms a step, stream25d 0.221 against 0.186 of copy. Double runs
/// 32 x 8 always (191 KB and 225 KB; 32 x 16 needs 282 KB and 313 KB).
bool elastic_tall_tile() {
  static const bool tall = [] {
    const char* e = std::getenv("STENCILSCOPE_ELASTIC_TILE");
    if (!e || std::string(e) == "32x16") return true;
    if (std::string(e) == "32x8") return false;
    throw Error("STENCILSCOPE_ELASTIC_TILE: '" + std::string(e) + "' is not 32x8 or 32x16");
  }();
  return tall;
}

/// register25d's plane loop in float compiled twice per pass (elastic3d_register25d.cuh's
/// Unroll) when STENCILSCOPE_ELASTIC_UNROLL=2, for an A/B on the device; 1 (the default)
/// keeps one plane per pass. Double always runs 1 (255 registers, no room for the copy).
int elastic_register_unroll() {
  static const int unroll = [] {
    const char* e = std::getenv("STENCILSCOPE_ELASTIC_UNROLL");
    if (!e || std::string(e) == "1") return 1;
    if (std::string(e) == "2") return 2;
    throw Error("STENCILSCOPE_ELASTIC_UNROLL: '" + std::string(e) + "' is not 1 or 2");
  }();
  return unroll;
}

int sm_count() {
  static const int n = [] {
    int dev = 0, count = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    return count;
  }();
  return n;
}

/// Planes per stream25d block (a slab): the slab count with the least waves x (slab
/// planes + 8), the 8 being about what starting a slab costs at order 8 (2R planes of
/// this node's stresses and 4R planes of u^n read before the first output), ties to
/// fewer slabs; at least 16 planes (or nz). STENCILSCOPE_ELASTIC_SLAB=N asks for N planes,
/// for tuning.
int elastic_slab_planes(long long tiles, int nz, long long resident) {
  static const int forced = [] {
    const char* e = std::getenv("STENCILSCOPE_ELASTIC_SLAB");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  if (forced > 0) return std::min(forced, nz);
  constexpr int kSlabStart = 8, kMinPlanes = 16;
  int best = nz;
  long long best_cost = -1;
  for (int slabs = 1; slabs == 1 || (nz + slabs - 1) / slabs >= kMinPlanes; ++slabs) {
    const int planes = (nz + slabs - 1) / slabs;
    const long long waves = (tiles * slabs + resident - 1) / resident;
    const long long cost = waves * (planes + kSlabStart);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best = planes;
  }
  return best;
}

/// One step of the interior by a streaming kernel (stream25d or register25d; Shape its
/// tile, threads and shared memory): the shared-memory opt-in (once per call site), the slabs for
/// the blocks resident per SM, then launch(grid, block, shared bytes, slab planes), which
/// checks its launch.
template <typename Shape, typename Kernel, typename Launch>
void launch_streaming(Kernel kernel, const char* name, const Grid3D& g, Launch launch) {
  static const int resident = [&] {
    int dev = 0, optin = 0, blocks = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (Shape::kBytes > static_cast<std::size_t>(optin))
      throw Error(std::string(name) + ": the " + std::to_string(Shape::kTX) + " x " + std::to_string(Shape::kTY) +
                  " tile needs " + std::to_string(Shape::kBytes) +
                  " bytes of shared memory per block; this device allows " + std::to_string(optin));
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(Shape::kBytes)));
    // All of L1 as shared memory: two 32 x 8 blocks of register25d need 227 of the 228 KB.
    SS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       static_cast<int>(cudaSharedmemCarveoutMaxShared)));
    SS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Shape::kThreads, Shape::kBytes));
    return std::max(blocks, 1);
  }();
  const unsigned bx = blocks_for(g.nx, Shape::kTX), by = blocks_for(g.ny, Shape::kTY);
  const int slab = elastic_slab_planes(static_cast<long long>(bx) * by, g.nz, static_cast<long long>(resident) * sm_count());
  const dim3 grid(bx, by, blocks_for(g.nz, slab));
  if (grid.y > kMaxGridYZ || grid.z > kMaxGridYZ)
    throw Error(std::string(name) + ": ny " + std::to_string(g.ny) + " or nz " + std::to_string(g.nz) +
                " is too large for this launch");
  launch(grid, dim3(Shape::kThreads / Shape::kTY, Shape::kTY), Shape::kBytes, slab);  // TX / PX x TY threads
}

/// One stream25d step of the interior (elastic3d_stream25d.cuh) on the tile TX x TY.
template <typename T, int R, int TX, int TY>
void launch_stream25d(ElasticFields3<T> cur, ElasticFields3<T> prev, ElasticMediumPtrs<T> m, const T* damp,
                      ElasticFields3<T> out, const Grid3D& g, bool free_top, const ElasticStressStep<T>& stress_src,
                      const ElasticForceStep<T>& forces, const T* w, cudaStream_t st) {
  auto* kernel = elastic3d_stream25d<T, R, TX, TY>;
  launch_streaming<ElasticStreamShape<T, R, TX, TY>>(
      kernel, "elastic3d_stream25d", g, [&](dim3 grid, dim3 block, std::size_t bytes, int slab) {
        kernel<<<grid, block, bytes, st>>>(cur, prev, m, damp, out, g, free_top, slab, stress_src, forces, w);
        SS_CUDA_LAUNCH_CHECK("elastic3d_stream25d");
      });
}

/// One register25d step of the interior (elastic3d_register25d.cuh) on the tile TX x TY,
/// its plane loop unrolled by Unroll.
template <typename T, int R, int TX, int TY, int Unroll = 1>
void launch_register25d(ElasticFields3<T> cur, ElasticFields3<T> prev, ElasticMediumPtrs<T> m, const T* damp,
                        ElasticFields3<T> out, const Grid3D& g, bool free_top, const ElasticStressStep<T>& stress_src,
                        const ElasticForceStep<T>& forces, const T* w, cudaStream_t st) {
  auto* kernel = elastic3d_register25d<T, R, TX, TY, Unroll>;
  launch_streaming<ElasticRegisterShape<T, R, TX, TY>>(
      kernel, "elastic3d_register25d", g, [&](dim3 grid, dim3 block, std::size_t bytes, int slab) {
        kernel<<<grid, block, bytes, st>>>(cur, prev, m, damp, out, g, free_top, slab, stress_src, forces, w);
        SS_CUDA_LAUNCH_CHECK("elastic3d_register25d");
      });
}

}  // namespace

template <typename T>
struct DeviceElastic3D<T>::Impl {
  Elastic3DSetup setup;
  CudaStream stream;
  CudaEvent t0, t1;
  BatchTimer batch;  // step_timed_async's batch
  DeviceBuffer<T> u[3][3];
  DeviceBuffer<T> stress[6], strain[6], accel[3];
  DeviceBuffer<T> c11, c13, c33, c44, c66, q, damp, traces, source_weights;
  DeviceBuffer<long long> receivers;  // padded indices
  DeviceBuffer<T> cpml_memory, cpml_table;  // CPML: psi and phi per slab, the coefficients (empty without)
  DeviceBuffer<float> vp, view;  // vp; the view scratch volume
  DeviceBuffer<float> slice;
  DeviceBuffer<T> box;
  int view_quantity = -1;        // what `view` holds now (-1: stale)
  int prev = 0, cur = 1, next = 2;
  long steps_done = 0, trace_first = 0;
  int trace_rows = 0;

  explicit Impl(const Elastic3DSetup& s) : setup(s) {
    const Grid3D& g = s.grid;
    const std::size_t trace_values = static_cast<std::size_t>(s.trace_steps) * 3 * s.receivers.size();
    check_device_memory(30 * g.elements() * sizeof(T) + 2 * g.elements() * sizeof(float) + trace_values * sizeof(T) +
                            s.cpml_layout.memory_values(kElasticCpmlVars, g) * sizeof(T),
                        "elastic3d on this grid");
    for (auto& level : u)
      for (DeviceBuffer<T>& f : level) f = DeviceBuffer<T>(g.elements());
    for (DeviceBuffer<T>& f : stress) f = DeviceBuffer<T>(g.elements());
    for (DeviceBuffer<T>& f : strain) f = DeviceBuffer<T>(g.elements());
    for (DeviceBuffer<T>& f : accel) f = DeviceBuffer<T>(g.elements());
    const PaddedMedium<T> m = padded_medium<T>(s);
    auto upload = [&](DeviceBuffer<T>& d, const std::vector<T>& h) {
      d = DeviceBuffer<T>(h.size());
      SS_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
    };
    upload(c11, m.c11);
    upload(c13, m.c13);
    upload(c33, m.c33);
    upload(c44, m.c44);
    upload(c66, m.c66);
    upload(q, m.q);
    upload(damp, elastic_damping_tables<T>(s));
    upload(source_weights, source_weights_as<T>(s));
    const std::vector<float> host_vp = elastic_vp_field(s);
    vp = DeviceBuffer<float>(host_vp.size());
    SS_CUDA_CHECK(cudaMemcpy(vp.get(), host_vp.data(), vp.bytes(), cudaMemcpyHostToDevice));
    view = DeviceBuffer<float>(g.elements());
    SS_CUDA_CHECK(cudaMemset(view.get(), 0, view.bytes()));
    upload_receivers();
    // Scratch ghosts the kernels never write stay 0 (stresses under periodic or sponge
    // rules are rewritten each step; strains and accelerations are read only inside).
    for (DeviceBuffer<T>& f : stress) SS_CUDA_CHECK(cudaMemset(f.get(), 0, f.bytes()));
    if (s.cpml_layout.any()) {
      upload(cpml_table, elastic_cpml_table<T>(s));
      cpml_memory = DeviceBuffer<T>(s.cpml_layout.memory_values(kElasticCpmlVars, g));
    }
  }
  /// The receivers' indices and a trace buffer for them (synchronous).
  void upload_receivers() {
    std::vector<long long> at;
    for (const auto& n : setup.receivers) at.push_back(static_cast<long long>(setup.grid.index(n[0], n[1], n[2])));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // queued steps still write the old buffers
    receivers = DeviceBuffer<long long>(at.size());
    SS_CUDA_CHECK(cudaMemcpy(receivers.get(), at.data(), receivers.bytes(), cudaMemcpyHostToDevice));
    traces = DeviceBuffer<T>(static_cast<std::size_t>(setup.trace_steps) * 3 * at.size());
    trace_rows = 0;
    trace_first = steps_done;
  }
  void clear_cpml() {
    if (cpml_memory.size() > 0) SS_CUDA_CHECK(cudaMemsetAsync(cpml_memory.get(), 0, cpml_memory.bytes(), stream.get()));
  }
  ElasticCpml<T> cpml() { return {setup.cpml_layout, cpml_memory.get(), cpml_table.get()}; }
  ElasticMediumPtrs<T> medium() const { return {c11.get(), c13.get(), c33.get(), c44.get(), c66.get(), q.get()}; }
  ElasticFields3<T> level(int l) { return {{u[l][0].get(), u[l][1].get(), u[l][2].get()}}; }
  ElasticFields6<T> stresses() {
    return {{stress[0].get(), stress[1].get(), stress[2].get(), stress[3].get(), stress[4].get(), stress[5].get()}};
  }
  void u_ghosts(int l) {
    const T plus[6] = {T(1), T(1), T(1), T(1), T(1), T(1)};
    launch_ghosts<T>({{u[l][0].get(), u[l][1].get(), u[l][2].get(), nullptr, nullptr, nullptr}}, 3, plus, setup.grid,
                     ghost_rule_of(setup), stream.get());
  }
};

template <typename T>
DeviceElastic3D<T>::DeviceElastic3D(const Elastic3DSetup& setup) {
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  impl_ = std::make_unique<Impl>(setup);
  reset();
}

template <typename T>
DeviceElastic3D<T>::~DeviceElastic3D() = default;
template <typename T>
DeviceElastic3D<T>::DeviceElastic3D(DeviceElastic3D&&) noexcept = default;
template <typename T>
DeviceElastic3D<T>& DeviceElastic3D<T>::operator=(DeviceElastic3D&&) noexcept = default;

template <typename T>
void DeviceElastic3D<T>::reset() {
  Impl& m = *impl_;
  for (auto& level : m.u)
    for (DeviceBuffer<T>& f : level) SS_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, f.bytes(), m.stream.get()));
  m.prev = 0, m.cur = 1, m.next = 2;
  m.steps_done = 0;
  m.trace_first = 0;
  m.trace_rows = 0;
  m.view_quantity = -1;
  m.clear_cpml();
  m.u_ghosts(m.cur);
  synchronize();
}

template <typename T>
void DeviceElastic3D<T>::step(Elastic3DVariant variant, int n) {
  if (!is_gpu(variant)) throw Error("variant '" + std::string(to_string(variant)) + "' does not run on the GPU");
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  const ElasticGhostRule rule = ghost_rule_of(m.setup);
  const bool free_top = rule.free_top;
  const T* wsrc = m.source_weights.get();
  const unsigned box_blocks = blocks_for(kSourceBoxNodes, 128);
  const int receivers = static_cast<int>(m.setup.receivers.size());
  const cudaStream_t st = m.stream.get();
  const dim3 grid = point_grid(g);
  T stress_sign[6];
  for (int c = 0; c < 6; ++c) stress_sign[c] = static_cast<T>(elastic_stress_top_sign(c));
  m.view_quantity = -1;
  // stream25d and register25d run their own kernels under the sponge boundary; periodic and
  // cpml step as fused.
  const bool streamed = (variant == Elastic3DVariant::stream25d || variant == Elastic3DVariant::register25d) &&
                        elastic3d_stream25d_runs(m.setup);
  dispatch_radius(m.setup.config.order, [&]<int R>() {
    for (int s = 0; s < n; ++s) {
      const ElasticFields3<T> cur = m.level(m.cur), prev = m.level(m.prev), out = m.level(m.next);
      const ElasticFields6<T> stress = m.stresses();
      const ElasticForceStep<T> forces = elastic3d_force_step<T>(m.setup, m.steps_done);
      const ElasticStressStep<T> stress_src = elastic3d_stress_step<T>(m.setup, m.steps_done);
      const long long cpml_nodes = m.setup.cpml_layout.nodes(g);
      const unsigned cpml_blocks = std::min<unsigned>(blocks_for(cpml_nodes, 128), 8192);
      if (streamed) {
        // Strains, stresses, their sources and ghosts and the update in one kernel; the
        // tile (32 x 16 in float, 32 x 8 in double) and the unroll as elastic_tall_tile and
        // elastic_register_unroll say.
        const auto launch = [&]<int TY, int Unroll>() {
          if (variant == Elastic3DVariant::register25d)
            launch_register25d<T, R, 32, TY, Unroll>(cur, prev, m.medium(), m.damp.get(), out, g, free_top,
                                                     stress_src, forces, wsrc, st);
          else
            launch_stream25d<T, R, 32, TY>(cur, prev, m.medium(), m.damp.get(), out, g, free_top, stress_src, forces,
                                           wsrc, st);
        };
        if constexpr (std::is_same_v<T, float>) {
          const bool tall = elastic_tall_tile();
          const bool unrolled = variant == Elastic3DVariant::register25d && elastic_register_unroll() == 2;
          if (tall) unrolled ? launch.template operator()<16, 2>() : launch.template operator()<16, 1>();
          else unrolled ? launch.template operator()<8, 2>() : launch.template operator()<8, 1>();
        } else {
          launch.template operator()<8, 1>();
        }
      } else {
        if (variant == Elastic3DVariant::steps) {
          const ElasticFields6<T> strain = {
              {m.strain[0].get(), m.strain[1].get(), m.strain[2].get(), m.strain[3].get(), m.strain[4].get(), m.strain[5].get()}};
          elastic3d_strain<T, R><<<grid, kPointBlock, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], strain, g);
          SS_CUDA_LAUNCH_CHECK("elastic3d_strain");
          elastic3d_stress<T><<<grid, kPointBlock, 0, st>>>(strain, m.medium(), stress, g, free_top);
          SS_CUDA_LAUNCH_CHECK("elastic3d_stress");
        } else {
          elastic3d_stress_fused<T, R><<<grid, kPointBlock, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], m.medium(), stress, g,
                                                                     free_top);
          SS_CUDA_LAUNCH_CHECK("elastic3d_stress_fused");
        }
        if (m.setup.cpml_layout.any()) {
          elastic3d_cpml_stress_kernel<T, R><<<cpml_blocks, 128, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], m.cpml(),
                                                                          m.medium(), stress, g, free_top, cpml_nodes);
          SS_CUDA_LAUNCH_CHECK("elastic3d_cpml_stress_kernel");
        }
        if (stress_src.n > 0) {
          elastic3d_stress_source<T><<<dim3(box_blocks, stress_src.n), 128, 0, st>>>(stress, g, stress_src, wsrc);
          SS_CUDA_LAUNCH_CHECK("elastic3d_stress_source");
        }
        launch_ghosts<T>(stress, 6, stress_sign, g, rule, st);
        if (variant == Elastic3DVariant::steps) {
          const ElasticFields3<T> accel = {{m.accel[0].get(), m.accel[1].get(), m.accel[2].get()}};
          elastic3d_divergence<T, R><<<grid, kPointBlock, 0, st>>>(stress, accel, g);
          SS_CUDA_LAUNCH_CHECK("elastic3d_divergence");
          if (forces.n > 0) {
            elastic3d_force_source<T><<<dim3(box_blocks, forces.n), 128, 0, st>>>(accel, g, forces, wsrc);
            SS_CUDA_LAUNCH_CHECK("elastic3d_force_source");
          }
          elastic3d_update<T><<<grid, kPointBlock, 0, st>>>(cur, prev, accel, m.q.get(), m.damp.get(), out, g);
          SS_CUDA_LAUNCH_CHECK("elastic3d_update");
        } else {
          elastic3d_update_fused<T, R><<<grid, kPointBlock, 0, st>>>(stress, cur, prev, m.q.get(), m.damp.get(), out, g,
                                                                     forces, wsrc);
          SS_CUDA_LAUNCH_CHECK("elastic3d_update_fused");
        }
      }
      if (m.setup.cpml_layout.any()) {
        elastic3d_cpml_update_kernel<T, R><<<cpml_blocks, 128, 0, st>>>(stress, m.cpml(), m.q.get(), out, g, cpml_nodes);
        SS_CUDA_LAUNCH_CHECK("elastic3d_cpml_update_kernel");
      }
      if (m.setup.absorbing_bottom()) {
        const CeFaces faces = ce_faces_of(m.setup);
        const long long nce = elastic_ce_nodes(g, faces);
        elastic3d_clayton_engquist<T><<<std::min<unsigned>(blocks_for(nce, 256), 4096), 256, 0, st>>>(
            cur, out, m.medium(), m.damp.get(), g, faces, nce);
        SS_CUDA_LAUNCH_CHECK("elastic3d_clayton_engquist");
      }
      m.u_ghosts(m.next);
      if (m.trace_rows < m.setup.trace_steps) {
        T* row = m.traces.get() + static_cast<std::size_t>(m.trace_rows) * 3 * receivers;
        elastic3d_record<T><<<blocks_for(receivers, 128), 128, 0, st>>>(out, m.receivers.get(), receivers, row);
        SS_CUDA_LAUNCH_CHECK("elastic3d_record");
        ++m.trace_rows;
      }
      const int old_prev = m.prev;
      m.prev = m.cur, m.cur = m.next, m.next = old_prev;
      ++m.steps_done;
    }
  });
}

template <typename T>
double DeviceElastic3D<T>::timed_steps(Elastic3DVariant variant, int n) {
  Impl& m = *impl_;
  SS_CUDA_CHECK(cudaEventRecord(m.t0.get(), m.stream.get()));
  step(variant, n);
  SS_CUDA_CHECK(cudaEventRecord(m.t1.get(), m.stream.get()));
  return elapsed_ms(m.t0, m.t1);
}

template <typename T>
void DeviceElastic3D<T>::step_timed_async(Elastic3DVariant variant, int n) {
  Impl& m = *impl_;
  m.batch.begin(m.stream.get());
  step(variant, n);
  m.batch.end(m.stream.get());
}

template <typename T>
std::optional<double> DeviceElastic3D<T>::finished_batch_ms() {
  return impl_->batch.finished_ms();
}

template <typename T>
bool DeviceElastic3D<T>::idle() const {
  return stream_idle(impl_->stream.get());
}

template <typename T>
void DeviceElastic3D<T>::synchronize() {
  SS_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

template <typename T>
void DeviceElastic3D<T>::poison_scratch() {
  Impl& m = *impl_;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::size_t n = m.setup.grid.elements();
  for (DeviceBuffer<T>& f : m.u[m.next]) launch_fill_value3d(f.get(), n, nan, m.stream.get());
  for (DeviceBuffer<T>& f : m.stress) launch_fill_value3d(f.get(), n, nan, m.stream.get());
  for (DeviceBuffer<T>& f : m.strain) launch_fill_value3d(f.get(), n, nan, m.stream.get());
  for (DeviceBuffer<T>& f : m.accel) launch_fill_value3d(f.get(), n, nan, m.stream.get());
}

template <typename T>
std::vector<T> DeviceElastic3D<T>::download(int c) const {
  const Impl& m = *impl_;
  std::vector<T> out(m.setup.grid.elements());
  SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.u[m.cur][c].get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
ElasticState<T> DeviceElastic3D<T>::state() const {
  const Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  ElasticState<T> s;
  for (int c = 0; c < 3; ++c) {
    s.u[c].resize(g.points());
    s.u_prev[c].resize(g.points());
    for (const auto& [dst, src] : {std::pair{s.u[c].data(), m.u[m.cur][c].get()}, std::pair{s.u_prev[c].data(), m.u[m.prev][c].get()}})
      for (int k = 0; k < g.nz; ++k)
        SS_CUDA_CHECK(cudaMemcpy2DAsync(dst + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                        src + g.index(0, 0, k), g.pitch * sizeof(T), g.nx * sizeof(T), g.ny,
                                        cudaMemcpyDeviceToHost, m.stream.get()));
  }
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return s;
}

template <typename T>
void DeviceElastic3D<T>::load(const ElasticState<T>& s, long steps_done) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  for (int c = 0; c < 3; ++c)
    for (const auto& [dst, src] : {std::pair{m.u[m.cur][c].get(), s.u[c].data()}, std::pair{m.u[m.prev][c].get(), s.u_prev[c].data()}})
      for (int k = 0; k < g.nz; ++k)
        SS_CUDA_CHECK(cudaMemcpy2DAsync(dst + g.index(0, 0, k), g.pitch * sizeof(T),
                                        src + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(T),
                                        g.nx * sizeof(T), g.ny, cudaMemcpyHostToDevice, m.stream.get()));
  m.steps_done = steps_done;
  m.trace_first = steps_done;
  m.trace_rows = 0;
  m.view_quantity = -1;
  m.clear_cpml();
  m.u_ghosts(m.cur);
  synchronize();  // the caller's buffers may go away
}

template <typename T>
void DeviceElastic3D<T>::set_order(int order) {
  Impl& m = *impl_;
  Elastic3DConfig c = m.setup.config;
  c.order = order;
  m.setup = make_elastic3d_setup(c);  // dt, the medium and the damping stay
  m.view_quantity = -1;
}

template <typename T>
void DeviceElastic3D<T>::paint(const Sphere& s) {
  Impl& m = *impl_;
  const Grid3D& g = m.setup.grid;
  const CellBox b = sphere_cells(s, g);
  if (b.empty()) return;
  const std::vector<double> pulse = elastic3d_paint_pulse(s, b);
  const std::vector<T> add(pulse.begin(), pulse.end());
  if (m.box.size() < add.size()) m.box = DeviceBuffer<T>(add.size());
  SS_CUDA_CHECK(cudaMemcpyAsync(m.box.get(), add.data(), add.size() * sizeof(T), cudaMemcpyHostToDevice, m.stream.get()));
  const unsigned blocks = std::min<unsigned>(blocks_for(static_cast<long long>(add.size()), 256), 4096);
  elastic3d_add_box<T><<<blocks, 256, 0, m.stream.get()>>>(m.u[m.cur][2].get(), m.u[m.prev][2].get(), g, b, m.box.get());
  SS_CUDA_LAUNCH_CHECK("elastic3d_add_box");
  m.u_ghosts(m.cur);
  m.view_quantity = -1;
  synchronize();  // `add` is pageable host memory the copy reads
}

template <typename T>
const float* DeviceElastic3D<T>::device_view_volume(int quantity) {
  Impl& m = *impl_;
  if (quantity < 0 || quantity > kViewVp) throw Error("elastic3d: no view quantity " + std::to_string(quantity));
  if (quantity == kViewVp) return m.vp.get();
  if constexpr (std::is_same_v<T, float>)
    if (quantity <= kViewUz) return m.u[m.cur][quantity].get();
  if (m.view_quantity != quantity) {
    const Grid3D& g = m.setup.grid;
    const ElasticFields3<T> cur = m.level(m.cur);
    dispatch_radius(m.setup.config.order, [&]<int R>() {
      elastic3d_view<T, R><<<point_grid(g), kPointBlock, 0, m.stream.get()>>>(cur, g, quantity, 1.0 / m.setup.config.h,
                                                                               m.view.get());
      SS_CUDA_LAUNCH_CHECK("elastic3d_view");
    });
    m.view_quantity = quantity;
  }
  return m.view.get();
}

template <typename T>
void* DeviceElastic3D<T>::native_stream() const {
  return impl_->stream.get();
}

template <typename T>
void DeviceElastic3D<T>::copy_slice_to_host(SliceAxis axis, int position, int quantity, float* dst) {
  Impl& m = *impl_;
  const SliceView view = slice_view(m.setup.grid, axis, position);
  copy_slice_to_host_via(device_view_volume(quantity), view, m.slice, dst, m.stream.get());
}

template <typename T>
void DeviceElastic3D<T>::set_sources(const std::vector<SourceSpec>& sources) {
  set_elastic3d_sources(impl_->setup, sources);  // by value into each step's launches; throws, keeping them
}

template <typename T>
void DeviceElastic3D<T>::set_receivers(const ReceiverLayout& layout) {
  Impl& m = *impl_;
  Elastic3DSetup next = m.setup;
  set_elastic3d_receivers(next, layout);  // throws, keeping the old receivers
  m.setup = std::move(next);
  m.upload_receivers();
}

template <typename T>
std::vector<T> DeviceElastic3D<T>::traces() const {
  const Impl& m = *impl_;
  std::vector<T> out(static_cast<std::size_t>(m.trace_rows) * 3 * m.setup.receivers.size());
  if (!out.empty())
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.traces.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                  m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
std::vector<T> DeviceElastic3D<T>::cpml_memory() const {
  const Impl& m = *impl_;
  std::vector<T> out(m.cpml_memory.size());
  if (!out.empty())
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), m.cpml_memory.get(), out.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                  m.stream.get()));
  SS_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  return out;
}

template <typename T>
long DeviceElastic3D<T>::first_trace_step() const {
  return impl_->trace_first;
}
template <typename T>
const Elastic3DSetup& DeviceElastic3D<T>::setup() const {
  return impl_->setup;
}
template <typename T>
long DeviceElastic3D<T>::steps_done() const {
  return impl_->steps_done;
}

template class DeviceElastic3D<float>;
template class DeviceElastic3D<double>;

}  // namespace ss
