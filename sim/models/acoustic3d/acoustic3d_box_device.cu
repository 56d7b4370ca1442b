// One rank's box of a distributed acoustic3d run on the GPU (acoustic3d_box.hpp): the
// `global` or `stream25d` kernel on the box's layout (both read p's ghost layers from
// memory), with the inputs of HostAcoustic3DBox (the sponge's tables of the whole grid cut
// to the box, (v dt/h)^2 of each global node); under cpml the CPU box's two passes on the
// GPU (psi and zeta as box fields, the one-GPU run's kernels and point functions over the
// box's layer nodes, the three psi fields exchanged between the passes); the sources whose
// node the box holds added by acoustic3d_inject in list order; then the exchange of p and
// the domain's own faces (0 beyond them, the odd image above a free top), in that order as
// on the CPU box; last, the receivers the box holds gathered into a device buffer of rows.
// Every node's p^{n+1} is acoustic3d_point (and the CPML's acoustic3d_cpml_psi / _term) on
// the values the one-GPU run gives it, so the field is bitwise that of DeviceAcoustic3D
// (either variant) on the whole grid.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/core/model.hpp"  // StepAccounting
#include "sim/core/stencil.hpp"
#include "sim/models/acoustic3d/acoustic3d_bench.hpp"  // kAcousticValuesPerNode
#include "sim/models/acoustic3d/acoustic3d_box.hpp"
#include "sim/models/acoustic3d/acoustic3d_kernels.cuh"

namespace ss {

namespace {

constexpr unsigned kMaxGridZ = 65535;

/// The domain's faces of the box: `width` layers each, 0, or above a free top (the low z
/// face) the odd image p(-m) = -p(m). Faces do not overlap (each spans the interior of the
/// other two axes) and read only interior nodes or ghosts the exchange wrote before.
__global__ void acoustic3d_box_faces(float* f, Grid3D g, int axis, int side, int width, bool mirror) {
  const int n[3] = {g.nx, g.ny, g.nz};
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;  // the face's two axes
  const long long cells = static_cast<long long>(width) * n[u] * n[v];
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < cells;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(e % n[u]);
    const long long rest = e / n[u];
    const int y = static_cast<int>(rest % n[v]), m = 1 + static_cast<int>(rest / n[v]);
    int at[3], image[3];
    at[u] = image[u] = x;
    at[v] = image[v] = y;
    at[axis] = side == 0 ? -m : n[axis] - 1 + m;
    image[axis] = m;
    f[g.index(at[0], at[1], at[2])] = mirror ? -f[g.index(image[0], image[1], image[2])] : 0.0f;
  }
}

class DeviceAcoustic3DBox final : public BoxSimulation {
 public:
  DeviceAcoustic3DBox(const Acoustic3DSetup& setup, const BoxPlacement& where, Acoustic3DVariant variant)
      : setup_(setup), where_(where), variant_(variant),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        radius_(radius_of_order(setup.config.order)), rule_(ghost_rule_of(setup)) {
    int dev = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, dev));
    const Grid3D& g = grid_;
    const std::array<int, 3>& lo = where_.box.lo;
    const bool cpml = setup_.cpml_layout.any();
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 1, 0);
    check_device_memory((4 + (cpml ? 6 : 0)) * g.elements() * sizeof(float) +
                            static_cast<std::size_t>(setup_.trace_steps) * recorder_.held().size() * sizeof(float),
                        "acoustic3d on this rank's box");
    // The sponge's per-axis tables of the whole grid, cut to the box: x (nx), y (ny), z (nz).
    const std::vector<float> whole = damping_tables<float>(setup_);
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    std::vector<float> damp;
    int base = 0;
    for (int a = 0; a < 3; ++a) {
      damp.insert(damp.end(), whole.begin() + base + lo[a], whole.begin() + base + lo[a] + where_.box.n[a]);
      base += n[a];
    }
    std::vector<float> c2(g.elements(), 0.0f);
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i)
          c2[g.index(i, j, k)] = static_cast<float>(setup_.courant2(lo[0] + i, lo[1] + j, lo[2] + k));
    damp_ = DeviceBuffer<float>(damp.size());
    c2_ = DeviceBuffer<float>(c2.size());
    SS_CUDA_CHECK(cudaMemcpyAsync(damp_.get(), damp.data(), damp.size() * sizeof(float), cudaMemcpyHostToDevice,
                                  stream_.get()));
    SS_CUDA_CHECK(cudaMemcpyAsync(c2_.get(), c2.data(), c2.size() * sizeof(float), cudaMemcpyHostToDevice,
                                  stream_.get()));
    for (auto& f : field_) {
      f = DeviceBuffer<float>(g.elements());
      SS_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, f.bytes(), stream_.get()));
    }
    std::vector<float> table;
    if (cpml) {
      table = acoustic_cpml_table<float>(setup_);
      cpml_table_ = DeviceBuffer<float>(table.size());
      SS_CUDA_CHECK(cudaMemcpyAsync(cpml_table_.get(), table.data(), table.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream_.get()));
      // 0 outside the slabs and in the domain's ghosts: only layer nodes and, for psi, the
      // ghosts between boxes (the exchange) are ever written.
      for (DeviceBuffer<float>* set : {psi_, zeta_})
        for (int a = 0; a < 3; ++a) {
          set[a] = DeviceBuffer<float>(g.elements());
          SS_CUDA_CHECK(cudaMemsetAsync(set[a].get(), 0, set[a].bytes(), stream_.get()));
        }
      const int whole[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
      const int first[3] = {lo[0], lo[1], lo[2]};
      layers_ = acoustic_cpml_box_layout(setup_.cpml_layout, first, whole, g);
    }
    upload_receivers();
    synchronize();  // on the box's own (non-blocking) stream, before the host buffers go
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  void* device_stream() const override { return stream_.get(); }
  void synchronize() override { SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }
  void refresh_ghosts(HaloFill& halo) override { fill_ghosts(field_[cur_].get(), halo); }

  void step(int n, HaloFill& halo) override {
    const Grid3D& g = grid_;
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int s = 0; s < n; ++s) {
        float* out = field_[next_].get();
        const Acoustic3DStepArgs<float> a{field_[cur_].get(), field_[prev_].get(), c2_.get(), damp_.get(), out, g};
        launch_interior<R>(a);
        if (setup_.cpml_layout.any()) cpml_passes<R>(a.p, out, halo);
        inject(out);
        fill_ghosts(out, halo);
        record(out);  // p^{n+1} after its ghosts, as the CPU box records it
        const int old_prev = prev_;
        prev_ = cur_, cur_ = next_, next_ = old_prev;
        ++steps_done_;
      }
    });
  }

  std::vector<std::vector<float>> interiors() const override {
    return {interior(field_[cur_].get()), interior(field_[prev_].get())};
  }

  // What the window asks of a box: HostAcoustic3DBox's answers, the field read from the device.
  double dt() const override { return setup_.dt; }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {kAcousticValuesPerNode * sizeof(float) * cells, cells};
  }
  /// p^n copied from the device, or vp of the global nodes (from the setup, on the host).
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    if (acoustic3d_box_shows_velocity(quantity)) return acoustic3d_box_velocity(setup_, where_.box);
    return interior(field_[cur_].get());
  }
  /// DeviceAcoustic3D::paint on the box: the CPU box's pulse (global indices, clipped to the
  /// box) added to p^n and p^{n-1} by the one-GPU run's kernel, at the box's indices.
  void paint(const Sphere& s) override {
    const AcousticBoxPulse pulse = acoustic3d_box_pulse(setup_, where_.box, s);
    if (pulse.cells.empty()) return;
    CellBox at = pulse.cells;
    for (std::size_t a = 0; a < 3; ++a) at.lo[a] -= where_.box.lo[a], at.hi[a] -= where_.box.lo[a];
    const std::vector<float> add(pulse.add.begin(), pulse.add.end());
    DeviceBuffer<float> increments(add.size());
    SS_CUDA_CHECK(cudaMemcpyAsync(increments.get(), add.data(), increments.bytes(), cudaMemcpyHostToDevice,
                                  stream_.get()));
    const unsigned blocks = std::min<unsigned>(blocks_for(static_cast<long long>(add.size()), 256), 4096);
    acoustic3d_add_box<float><<<blocks, 256, 0, stream_.get()>>>(field_[cur_].get(), field_[prev_].get(), grid_, at,
                                                                increments.get());
    SS_CUDA_LAUNCH_CHECK("acoustic3d_add_box");
    synchronize();  // `add` is pageable host memory the copy reads; `increments` goes here
  }
  /// {p, p_prev} of the box; the CPML's memory starts from 0 and the traces at steps_done,
  /// as HostAcoustic3DBox::load_interiors.
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    const std::size_t cells = static_cast<std::size_t>(where_.box.cells());
    if (in.size() != 2 || in[0].size() != cells || in[1].size() != cells)
      throw Error("an acoustic3d box state holds p and p_prev of " + std::to_string(cells) +
                  " nodes each; this one has " + std::to_string(in.size()) + " fields");
    upload_interior(field_[cur_].get(), in[0]);
    upload_interior(field_[prev_].get(), in[1]);
    for (DeviceBuffer<float>* set : {psi_, zeta_})
      for (int a = 0; a < 3; ++a)
        if (set[a].get()) SS_CUDA_CHECK(cudaMemsetAsync(set[a].get(), 0, set[a].bytes(), stream_.get()));
    synchronize();  // the caller's vectors may go
    steps_done_ = steps_done;
    recorder_.restart(steps_done);
    trace_rows_ = 0;
  }
  /// The traces and the CPML's memory, which DeviceAcoustic3D::set_order keeps (the box's
  /// layout does not depend on the order).
  void carry_over(BoxSimulation& old) override {
    auto* from = dynamic_cast<DeviceAcoustic3DBox*>(&old);
    if (!from) return;
    if (from->setup_.receivers != setup_.receivers) throw Error("the order changed the receivers");
    if (from->traces_.size() != traces_.size()) throw Error("the order changed the receivers' buffer");
    from->synchronize();
    recorder_ = from->recorder_;
    trace_rows_ = from->trace_rows_;
    if (traces_.size() > 0)
      SS_CUDA_CHECK(cudaMemcpyAsync(traces_.get(), from->traces_.get(), traces_.bytes(), cudaMemcpyDeviceToDevice,
                                    stream_.get()));
    for (int a = 0; a < 3; ++a)
      for (const auto& [to, source] : {std::pair{&psi_[a], &from->psi_[a]}, std::pair{&zeta_[a], &from->zeta_[a]}}) {
        if (to->size() != source->size()) throw Error("the order changed the CPML's layout");
        if (to->size() > 0)
          SS_CUDA_CHECK(cudaMemcpyAsync(to->get(), source->get(), to->bytes(), cudaMemcpyDeviceToDevice, stream_.get()));
      }
    synchronize();
  }
  std::vector<SourceSpec> sources() const override { return setup_.sources; }
  /// HostAcoustic3D::set_sources: the same checks; the list reaches each step's launch by value.
  void set_sources(const std::vector<SourceSpec>& sources) override { set_acoustic3d_sources(setup_, sources); }
  std::optional<ReceiverLayout> receivers() const override { return setup_.receiver_layout; }
  /// HostAcoustic3D::set_receivers: the same checks; this box's traces start again.
  void set_receivers(const ReceiverLayout& layout) override {
    Acoustic3DSetup next = setup_;
    set_acoustic3d_receivers(next, layout);  // throws, keeping the old receivers
    setup_ = std::move(next);
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 1, steps_done_);
    upload_receivers();
  }
  /// BoxTraceRecorder::fill's answer from the device rows (one copy, here and not per step).
  BoxTraces traces(int from_row) const override {
    if (from_row < 0 || from_row > trace_rows_)
      throw Error("traces from row " + std::to_string(from_row) + " asked of a box that recorded " +
                  std::to_string(trace_rows_));
    BoxTraces t;
    t.head = acoustic3d_seismogram_head(setup_);
    t.head.first_step = recorder_.first_step();
    t.rows = trace_rows_;
    t.held = recorder_.held();
    const std::size_t row = t.held.size();
    t.values.resize(row * static_cast<std::size_t>(trace_rows_ - from_row));
    if (!t.values.empty())
      SS_CUDA_CHECK(cudaMemcpyAsync(t.values.data(), traces_.get() + row * static_cast<std::size_t>(from_row),
                                    t.values.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return t;
  }

 private:
  /// The CPML's state of the box (AcousticCpmlBox: box fields, the global nodes' slots).
  AcousticCpmlBox<float> cpml_box() {
    AcousticCpmlBox<float> m;
    m.layout = setup_.cpml_layout;
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    for (int a = 0; a < 3; ++a) {
      m.lo[a] = where_.box.lo[a];
      m.n[a] = n[a];
      m.psi_field[a] = psi_[a].get();
      m.zeta_field[a] = zeta_[a].get();
    }
    m.table = cpml_table_.get();
    return m;
  }

  // Pass 1 over the box's layer nodes, the psi exchange (collective: every box calls it,
  // with or without layer nodes), pass 2 and the correction of p^{n+1}: HostAcoustic3DBox's
  // order, the one-GPU run's kernels.
  template <int R>
  void cpml_passes(const float* p, float* out, HaloFill& halo) {
    const AcousticCpmlBox<float> m = cpml_box();
    const long long nodes = layers_.nodes(grid_);
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(blocks_for(nodes, 256), 8192));
    if (nodes > 0) {
      acoustic3d_cpml_psi_kernel<float, R><<<blocks, 256, 0, stream_.get()>>>(p, m, layers_, grid_, nodes);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_cpml_psi_kernel");
    }
    float* const psi[] = {psi_[0].get(), psi_[1].get(), psi_[2].get()};
    halo.fill(psi);
    if (nodes > 0) {
      acoustic3d_cpml_correct_kernel<float, R><<<blocks, 256, 0, stream_.get()>>>(p, c2_.get(), out, m, layers_, grid_,
                                                                                 nodes);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_cpml_correct_kernel");
    }
  }

  /// The held receivers' box indices on the device and a buffer of trace_steps rows
  /// (synchronous: queued steps may still write the old buffers).
  void upload_receivers() {
    const std::vector<std::size_t>& idx = recorder_.box_indices();
    const std::vector<long long> at(idx.begin(), idx.end());
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    receiver_at_ = DeviceBuffer<long long>(at.size());
    if (!at.empty())
      SS_CUDA_CHECK(cudaMemcpy(receiver_at_.get(), at.data(), receiver_at_.bytes(), cudaMemcpyHostToDevice));
    traces_ = DeviceBuffer<float>(static_cast<std::size_t>(setup_.trace_steps) * at.size());
    trace_rows_ = 0;
  }

  /// One row of BoxTraceRecorder::record on the device: p at the held receivers, while
  /// fewer than trace_steps rows are kept; a box that holds none counts the row too.
  void record(const float* p) {
    if (trace_rows_ >= setup_.trace_steps) return;
    const int held = static_cast<int>(recorder_.held().size());
    if (held > 0) {
      float* row = traces_.get() + static_cast<std::size_t>(trace_rows_) * held;
      acoustic3d_record<float><<<blocks_for(held, 128), 128, 0, stream_.get()>>>(p, receiver_at_.get(), held, row);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_record");
    }
    ++trace_rows_;
  }

  // The one-GPU run's launches (acoustic3d_device.cu's launch_interior) on the box's layout:
  // both kernels read the ghost layers from memory, whoever wrote them.
  template <int R>
  void launch_interior(const Acoustic3DStepArgs<float>& a) {
    const Grid3D& g = a.g;
    if (variant_ == Acoustic3DVariant::global) {
      const dim3 blocks(blocks_for(g.nx, kAcousticGlobalBX), blocks_for(g.ny, kAcousticGlobalBY),
                        std::min<unsigned>(g.nz, kMaxGridZ));
      if (blocks.y > kMaxGridZ) throw Error("global: the box's ny " + std::to_string(g.ny) + " is too large for a launch");
      acoustic3d_step_global<float, R><<<blocks, dim3(kAcousticGlobalBX, kAcousticGlobalBY), 0, stream_.get()>>>(a);
      SS_CUDA_LAUNCH_CHECK("acoustic3d_step_global");
      return;
    }
    const long long tiles = static_cast<long long>(blocks_for(g.nx, kAcoustic25BX)) * blocks_for(g.ny, kAcoustic25BY);
    const int slab = acoustic3d_slab_planes(tiles, g.nz, sm_count_);
    const dim3 blocks(blocks_for(g.nx, kAcoustic25BX), blocks_for(g.ny, kAcoustic25BY), blocks_for(g.nz, slab));
    if (blocks.y > kMaxGridZ || blocks.z > kMaxGridZ)
      throw Error("stream25d: the box's " + std::to_string(g.ny) + " x " + std::to_string(g.nz) + " is too large for a launch");
    using Shape = Acoustic25Shape<float, R>;
    if constexpr (Shape::smem_bytes > 48 * 1024) {
      static const bool opted = [] {
        SS_CUDA_CHECK(cudaFuncSetAttribute(acoustic3d_step_stream25d<float, R>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(Shape::smem_bytes)));
        return true;
      }();
      (void)opted;
    }
    acoustic3d_step_stream25d<float, R><<<blocks, dim3(kAcoustic25BX, kAcoustic25BY), Shape::smem_bytes, stream_.get()>>>(
        a, slab);
    SS_CUDA_LAUNCH_CHECK("acoustic3d_step_stream25d");
  }

  /// Writes `in` (the box's interior, x fastest) into f's interior, on the stream.
  void upload_interior(float* f, const std::vector<float>& in) {
    const Grid3D& g = grid_;
    for (int k = 0; k < g.nz; ++k)
      SS_CUDA_CHECK(cudaMemcpy2DAsync(f + g.index(0, 0, k), g.pitch * sizeof(float),
                                      in.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                      g.nx * sizeof(float), g.ny, cudaMemcpyHostToDevice, stream_.get()));
  }

  std::vector<float> interior(const float* f) const {
    const Grid3D& g = grid_;
    std::vector<float> out(g.points());
    for (int k = 0; k < g.nz; ++k)  // rows of nx out of the padded pitch, one 2D copy per plane
      SS_CUDA_CHECK(cudaMemcpy2DAsync(out.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                      f + g.index(0, 0, k), g.pitch * sizeof(float), g.nx * sizeof(float), g.ny,
                                      cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }

  // The sources whose node lies in the box, in list order, at the box's indices (as the CPU
  // box); the list travels by value, as in the one-GPU run.
  void inject(float* out) {
    AcousticSourceStep<float> l;
    const Box& b = where_.box;
    for (std::size_t r = 0; r < setup_.sources.size(); ++r) {
      const auto& node = setup_.sources[r].node;
      bool inside = true;
      for (int a = 0; a < 3; ++a) inside = inside && node[a] >= b.lo[a] && node[a] < b.lo[a] + b.n[a];
      if (!inside) continue;
      l.at[l.n] = static_cast<long long>(grid_.index(node[0] - b.lo[0], node[1] - b.lo[1], node[2] - b.lo[2]));
      l.add[l.n] = static_cast<float>(setup_.source_increment(steps_done_, r));
      ++l.n;
    }
    if (l.n == 0) return;
    acoustic3d_inject<float><<<1, 32, 0, stream_.get()>>>(out, l);
    SS_CUDA_LAUNCH_CHECK("acoustic3d_inject");
  }

  // The exchange first, then the domain's faces (the image may be a ghost it just wrote).
  void fill_ghosts(float* f, HaloFill& halo) {
    float* const fields[] = {f};
    halo.fill(fields);
    const int n[3] = {grid_.nx, grid_.ny, grid_.nz};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        if (!where_.domain_face[a][side]) continue;
        const long long cells = static_cast<long long>(radius_) * n[(a + 1) % 3] * n[(a + 2) % 3];
        const unsigned blocks = std::min<unsigned>(blocks_for(cells, 256), 4096);
        acoustic3d_box_faces<<<blocks, 256, 0, stream_.get()>>>(f, grid_, a, side, radius_,
                                                                a == 2 && side == 0 && rule_.free_top);
        SS_CUDA_LAUNCH_CHECK("acoustic3d_box_faces");
      }
  }

  Acoustic3DSetup setup_;
  BoxPlacement where_;
  Acoustic3DVariant variant_;
  int sm_count_ = 0;
  Grid3D grid_;
  int radius_;
  AcousticGhostRule rule_;
  CudaStream stream_;
  DeviceBuffer<float> damp_, c2_;
  DeviceBuffer<float> field_[3];
  DeviceBuffer<float> cpml_table_, psi_[3], zeta_[3];  // under cpml: box fields
  CpmlLayout layers_;                                   // the box's layer nodes (none without cpml)
  BoxTraceRecorder recorder_;                           // which receivers, at which box index; no values
  DeviceBuffer<long long> receiver_at_;
  DeviceBuffer<float> traces_;                          // trace_steps rows of the held receivers
  int trace_rows_ = 0;
  int prev_ = 0, cur_ = 1, next_ = 2;
  long steps_done_ = 0;
};

}  // namespace

std::unique_ptr<BoxSimulation> make_acoustic3d_device_box(const Acoustic3DSetup& setup, const BoxPlacement& where,
                                                          Acoustic3DVariant variant) {
  if (variant != Acoustic3DVariant::global && variant != Acoustic3DVariant::stream25d)
    throw Error("acoustic3d's boxes on the GPU step with global or stream25d, not " + std::string(to_string(variant)));
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  return std::make_unique<DeviceAcoustic3DBox>(setup, where, variant);
}

}  // namespace ss
