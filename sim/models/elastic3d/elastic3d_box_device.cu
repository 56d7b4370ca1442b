// One rank's box of a distributed elastic3d run on the GPU (elastic3d_box.hpp): the
// `steps` kernels (or `fused`'s) of elastic3d_kernels.cuh on the box's layout, with the
// inputs of HostElastic3DBox (the medium of the global nodes, the sponge's per-axis tables
// of the whole grid cut to the box, the free surface's rule at global k == 0), uploaded
// once. A step, in HostElastic3DBox's order:
//   strains and stresses from u^n; the stress sources; the exchange of the six stresses,
//   then the domain's faces (0, or the free top's images, odd for sigma_zz, sigma_xz,
//   sigma_yz); the divergence, the force sources and the update with the damping;
//   Clayton-Engquist on the global list's nodes in the box; the exchange of u^{n+1}, then
//   the domain's faces (0, or the even image above a free top); the receivers.
// Why bitwise equal to DeviceElastic3D's run of the same variant on the whole grid (and so
// to the CPU): the same kernels, point functions and launches read the same neighbour
// values (a ghost is the neighbour's interior of the same step, copied by the exchange, or
// the boundary rule's value of the same global node). The sources' lists are the global
// ones moved by -lo: a source's box, its weights (source_box_index is relative to the
// source's node), the ownership of a node (elastic_source_owner: which earlier source's box
// holds it) and the list order do not change under a shift, and the kernels' clip at 0 and
// n now clips at the box, which lies inside the grid. Clayton-Engquist runs through the
// global list (elastic_ce_node on the whole grid), so each node keeps the face one rank
// gives it.
// The window's views, paints and loaded states act on the device fields with the one-GPU
// run's kernels (elastic3d_view, elastic3d_add_box) at the box's indices.
// Not yet: the cpml rule (its memory variables as box fields on the GPU); stream25d and
// register25d (they compute the stresses of the ghost layers inside the kernel, from u's
// ghosts 2R deep, which a box does not hold).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/box_regions.hpp"
#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/core/model.hpp"  // StepAccounting
#include "sim/core/stencil.hpp"
#include "sim/models/elastic3d/elastic3d_bench.hpp"  // kElasticValuesPerNode
#include "sim/models/elastic3d/elastic3d_box.hpp"
#include "sim/models/elastic3d/elastic3d_kernels.cuh"
#include "sim/models/elastic3d/elastic3d_solver.hpp"  // kViewMagnitude

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;

/// The domain's faces of the box for `count` fields (blockIdx.y picks one): `width` layers
/// per face, 0, or above a free top (the low z face, `mirror`) the image f(-m) = sign f(m)
/// with the field's sign. Faces do not overlap (each spans the interior of the other two
/// axes) and read only interior nodes or ghosts the exchange wrote before.
__global__ void elastic3d_box_faces(ElasticFields6<float> f, Grid3D g, int axis, int side, int width, bool mirror,
                                    float s0, float s1, float s2, float s3, float s4, float s5) {
  const float signs[6] = {s0, s1, s2, s3, s4, s5};
  float* field = f.c[blockIdx.y];
  const float sign = signs[blockIdx.y];
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
    field[g.index(at[0], at[1], at[2])] = mirror ? sign * field[g.index(image[0], image[1], image[2])] : 0.0f;
  }
}

/// Clayton-Engquist on the box: entry e of the whole grid's list (elastic_ce_node on
/// `whole`, in its order, each node with its face), rewritten where the node lies in the
/// box (`lo`, the box's layout g); the inner node read may be a ghost (u^n, exchanged).
__global__ void elastic3d_box_clayton_engquist(ElasticFields3<float> cur, ElasticFields3<float> out,
                                               ElasticMediumPtrs<float> m, const float* __restrict__ damp, Grid3D g,
                                               Grid3D whole, int lo_x, int lo_y, int lo_z, CeFaces faces,
                                               long long n, ElasticPart part) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    CeNode nd = elastic_ce_node(whole, faces, e);
    nd.i -= lo_x, nd.j -= lo_y, nd.k -= lo_z;
    if (nd.i < 0 || nd.i >= g.nx || nd.j < 0 || nd.j >= g.ny || nd.k < 0 || nd.k >= g.nz) continue;
    if (!part.takes(nd.i, nd.j, nd.k)) continue;
    const float d = (damp[nd.i] * damp[g.nx + nd.j]) * damp[g.nx + g.ny + nd.k];
    const std::size_t at = g.index(nd.i, nd.j, nd.k);
#pragma unroll
    for (int c = 0; c < 3; ++c)
      out.c[c][at] = elastic_ce_value(nd, c, cur.c[c], g, m.c11, m.c33, m.c44, m.c66, m.q, d);
  }
}

/// A source list with its nodes moved by -lo (the box's indices; see the file's comment).
template <typename List>
List moved_to_box(List l, const std::array<int, 3>& lo) {
  for (int r = 0; r < l.n; ++r)
    for (int a = 0; a < 3; ++a) l.node[r][a] -= lo[static_cast<std::size_t>(a)];
  return l;
}

class DeviceElastic3DBox final : public BoxSimulation {
 public:
  DeviceElastic3DBox(const Elastic3DSetup& setup, const BoxPlacement& where, Elastic3DVariant variant)
      : setup_(setup), where_(where), variant_(variant),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        radius_(radius_of_order(setup.config.order)), rule_(ghost_rule_of(setup)),
        free_top_here_(rule_.free_top && where.box.lo[2] == 0) {
    const Grid3D& g = grid_;
    const std::array<int, 3>& lo = where_.box.lo;
    const cudaStream_t st = stream_.get();
    const bool steps = variant_ == Elastic3DVariant::steps;  // strains and accelerations through memory
    check_device_memory((steps ? 30 : 21) * g.elements() * sizeof(float) +
                            static_cast<std::size_t>(setup_.trace_steps) * 3 * setup_.receivers.size() * sizeof(float),
                        "elastic3d on this rank's box");
    // Uploads from pageable vectors, stream-ordered: `host` keeps them until the constructor
    // has waited for the stream.
    std::vector<std::vector<float>> host;
    auto upload = [&](DeviceBuffer<float>& d, std::vector<float> h) {
      d = DeviceBuffer<float>(h.size());
      SS_CUDA_CHECK(cudaMemcpyAsync(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice, st));
      host.push_back(std::move(h));
    };
    {  // the sponge's per-axis tables of the whole grid, cut to the box: x (nx), y (ny), z (nz)
      const std::vector<float> whole = elastic_damping_tables<float>(setup_);
      const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
      std::vector<float> damp;
      int base = 0;
      for (int a = 0; a < 3; ++a) {
        damp.insert(damp.end(), whole.begin() + base + lo[a], whole.begin() + base + lo[a] + where_.box.n[a]);
        base += n[a];
      }
      upload(damp_, std::move(damp));
    }
    {  // the medium of the global nodes, cut to the box (0 in the ghosts, never read)
      const PaddedMedium<float> m = padded_medium<float>(setup_);
      const std::vector<float>* from[6] = {&m.c11, &m.c13, &m.c33, &m.c44, &m.c66, &m.q};
      for (int f = 0; f < 6; ++f) {
        std::vector<float> cut(g.elements(), 0.0f);
        for (int k = 0; k < g.nz; ++k)
          for (int j = 0; j < g.ny; ++j)
            for (int i = 0; i < g.nx; ++i)
              cut[g.index(i, j, k)] = (*from[f])[setup_.grid.index(lo[0] + i, lo[1] + j, lo[2] + k)];
        upload(medium_[f], std::move(cut));
      }
    }
    upload(weights_, source_weights_as<float>(setup_));
    for (auto& level : u_)
      for (auto& f : level) f = DeviceBuffer<float>(g.elements());
    for (auto& f : stress_) f = DeviceBuffer<float>(g.elements());
    if (steps) {
      for (auto& f : strain_) f = DeviceBuffer<float>(g.elements());
      for (auto& f : accel_) f = DeviceBuffer<float>(g.elements());
    }
    // u starts at rest; the stresses' edge and corner ghosts are never written (nor read).
    for (auto& level : u_)
      for (auto& f : level) SS_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, f.bytes(), st));
    for (auto& f : stress_) SS_CUDA_CHECK(cudaMemsetAsync(f.get(), 0, f.bytes(), st));
    start_receivers(0);
    // Overlap: the shells (the nodes the exchange reads) apart from the core, where the box
    // has both; a free top in a box as thin as the radius reads its image from ghosts the
    // exchange writes, so such a box steps in one piece.
    const CellRegion core = exchange_core(g, where_, radius_);
    const std::vector<CellRegion> shells = exchanged_shells(g, where_, radius_);
    shells_ = ElasticCells{false, CellRegionList(shells, kElasticBX * kElasticBY)};
    core_ = ElasticCells{false, CellRegionList({core}, kElasticBX * kElasticBY)};
    for (int a = 0; a < 3; ++a) {
      core_part_.lo[a] = shell_part_.lo[a] = core.lo[a];
      core_part_.n[a] = shell_part_.n[a] = core.n[a];
    }
    core_part_.mode = 1;
    shell_part_.mode = 2;
    overlap_ = !shells.empty() && core.cells() > 0 && !(free_top_here_ && g.nz <= radius_);
    synchronize();
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  // The exchange runs on a stream of its own, so that it overlaps the core's compute.
  void* device_stream() const override { return exchange_stream_.get(); }
  void synchronize() override {
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(exchange_stream_.get()));
  }
  void refresh_ghosts(HaloFill& halo) override { fill_ghosts(level(cur_), 3, halo, kEvenSigns); }

  void step(int n, HaloFill& halo) override {
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int s = 0; s < n; ++s) overlap_ ? step_overlapped<R>(halo) : step_once<R>(halo);
    });
    // What follows on the compute stream (views, copies, the next call's steps) sees u's ghosts.
    SS_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), u_exchanged_.get(), 0));
  }

  std::vector<std::vector<float>> interiors() const override {
    std::vector<std::vector<float>> out;
    for (int l : {cur_, prev_})
      for (int c = 0; c < 3; ++c) out.push_back(interior(u_[l][c].get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }

  double dt() const override { return setup_.dt; }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {kElasticValuesPerNode * sizeof(float) * cells, cells};
  }
  /// A component of u^n or vp, as the CPU box gives them; a derived quantity by the one-GPU
  /// run's view kernel (elastic3d_view) on the box, whose ghosts of u^n hold the neighbours'
  /// u or the boundary rule's values (exchanged after every step, paint and load).
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    const ElasticBoxQuantity q = elastic3d_box_quantity(quantity);
    if (q.vp) return elastic3d_box_vp(setup_, where_.box);
    if (q.component >= 0) {
      std::vector<float> out = interior(u_[cur_][q.component].get());
      SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      return out;
    }
    if (view_.size() != grid_.elements()) view_ = DeviceBuffer<float>(grid_.elements());
    dispatch_radius(setup_.config.order, [&]<int R>() {
      elastic3d_view<float, R><<<point_grid(), dim3(kElasticBX, kElasticBY), 0, stream_.get()>>>(
          level(cur_), grid_, kViewMagnitude + static_cast<int>(q.derived), 1.0 / setup_.config.h, view_.get());
      SS_CUDA_LAUNCH_CHECK("elastic3d_view");
    });
    std::vector<float> out = interior(view_.get());
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }
  /// DeviceElastic3D::paint on the box: the CPU box's pulse (global indices, clipped to the
  /// box) added to u_z of u^n and u^{n-1} by the one-GPU run's kernel, at the box's indices.
  void paint(const Sphere& s) override {
    const ElasticBoxPulse pulse = elastic3d_box_pulse(setup_, where_.box, s);
    if (pulse.cells.empty()) return;
    CellBox at = pulse.cells;
    for (std::size_t a = 0; a < 3; ++a) at.lo[a] -= where_.box.lo[a], at.hi[a] -= where_.box.lo[a];
    const std::vector<float> add(pulse.add.begin(), pulse.add.end());
    DeviceBuffer<float> increments(add.size());
    SS_CUDA_CHECK(cudaMemcpyAsync(increments.get(), add.data(), increments.bytes(), cudaMemcpyHostToDevice,
                                  stream_.get()));
    const unsigned blocks = std::min<unsigned>(blocks_for(static_cast<long long>(add.size()), 256), 4096);
    elastic3d_add_box<float><<<blocks, 256, 0, stream_.get()>>>(u_[cur_][2].get(), u_[prev_][2].get(), grid_, at,
                                                               increments.get());
    SS_CUDA_LAUNCH_CHECK("elastic3d_add_box");
    synchronize();  // `add` is pageable host memory the copy reads; `increments` goes here
  }
  /// {u_x, u_y, u_z, then those of u^{n-1}} of the box (interiors()); the traces start again
  /// at steps_done, as HostElastic3DBox::load_interiors.
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    const std::size_t cells = static_cast<std::size_t>(where_.box.cells());
    bool fits = in.size() == 6;
    for (const auto& f : in) fits = fits && f.size() == cells;
    if (!fits)
      throw Error("an elastic3d box state holds u and u_prev (6 fields of " + std::to_string(cells) +
                  " nodes); this one has " + std::to_string(in.size()) + " fields");
    const Grid3D& g = grid_;
    for (int f = 0; f < 6; ++f) {
      float* to = u_[f < 3 ? cur_ : prev_][f % 3].get();
      const std::vector<float>& from = in[static_cast<std::size_t>(f)];
      for (int k = 0; k < g.nz; ++k)
        SS_CUDA_CHECK(cudaMemcpy2DAsync(to + g.index(0, 0, k), g.pitch * sizeof(float),
                                        from.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                        g.nx * sizeof(float), g.ny, cudaMemcpyHostToDevice, stream_.get()));
    }
    synchronize();  // the caller's vectors may go
    steps_done_ = steps_done;
    rows_ = 0;
    trace_first_ = steps_done;
  }
  /// The traces, which DeviceElastic3D::set_order keeps (no CPML on GPU boxes).
  void carry_over(BoxSimulation& old) override {
    auto* from = dynamic_cast<DeviceElastic3DBox*>(&old);
    if (!from) return;
    if (from->setup_.receivers != setup_.receivers || from->trace_values_.size() != trace_values_.size())
      throw Error("the order changed the receivers");
    from->synchronize();
    rows_ = from->rows_;
    trace_first_ = from->trace_first_;
    if (trace_values_.size() > 0)
      SS_CUDA_CHECK(cudaMemcpyAsync(trace_values_.get(), from->trace_values_.get(), trace_values_.bytes(),
                                    cudaMemcpyDeviceToDevice, stream_.get()));
    synchronize();
  }
  std::vector<SourceSpec> sources() const override { return setup_.sources; }
  /// HostElastic3D::set_sources: the same checks; each step's launches take the lists by value.
  void set_sources(const std::vector<SourceSpec>& sources) override {
    Elastic3DSetup next = setup_;
    set_elastic3d_sources(next, sources);  // throws, keeping the old list
    setup_ = std::move(next);
  }
  std::optional<ReceiverLayout> receivers() const override { return setup_.receiver_layout; }
  /// HostElastic3D::set_receivers: the same checks; this box's traces start again.
  void set_receivers(const ReceiverLayout& layout) override {
    Elastic3DSetup next = setup_;
    set_elastic3d_receivers(next, layout);  // throws, keeping the old receivers
    synchronize();                          // queued steps still write the old buffers
    setup_ = std::move(next);
    start_receivers(steps_done_);
    synchronize();
  }
  /// The rows recorded on the device (elastic3d_record into trace_values_), copied now.
  BoxTraces traces(int from_row) const override {
    if (from_row < 0 || from_row > rows_)
      throw Error("traces from row " + std::to_string(from_row) + " asked of a box that recorded " +
                  std::to_string(rows_));
    BoxTraces t;
    t.head = elastic3d_seismogram_head(setup_);
    t.head.first_step = trace_first_;
    t.rows = rows_;
    t.held = held_.held();
    const std::size_t row = 3 * t.held.size();
    t.values.resize(row * static_cast<std::size_t>(rows_ - from_row));
    if (!t.values.empty())
      SS_CUDA_CHECK(cudaMemcpyAsync(t.values.data(), trace_values_.get() + row * static_cast<std::size_t>(from_row),
                                    t.values.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return t;
  }

 private:
  static constexpr float kEvenSigns[6] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};

  ElasticFields3<float> level(int l) const { return {{u_[l][0].get(), u_[l][1].get(), u_[l][2].get()}}; }
  ElasticFields6<float> stresses() const {
    return {{stress_[0].get(), stress_[1].get(), stress_[2].get(), stress_[3].get(), stress_[4].get(), stress_[5].get()}};
  }
  ElasticMediumPtrs<float> medium() const {
    return {medium_[0].get(), medium_[1].get(), medium_[2].get(), medium_[3].get(), medium_[4].get(), medium_[5].get()};
  }
  dim3 point_grid() const {
    const dim3 grid(blocks_for(grid_.nx, kElasticBX), blocks_for(grid_.ny, kElasticBY),
                    std::min<unsigned>(grid_.nz, kMaxGridYZ));
    if (grid.y > kMaxGridYZ) throw Error("elastic3d: the box's ny " + std::to_string(grid_.ny) + " is too large for a launch");
    return grid;
  }

  // DeviceElastic3D::step's `steps` (or `fused`) launches on the box, with the exchanges
  // and the domain's faces where HostElastic3DBox has them.
  template <int R>
  void step_once(HaloFill& halo) {
    const Grid3D& g = grid_;
    const cudaStream_t st = stream_.get();
    const dim3 grid = point_grid(), block(kElasticBX, kElasticBY);
    const ElasticFields3<float> cur = level(cur_), prev = level(prev_), out = level(next_);
    const ElasticFields6<float> stress = stresses();
    const std::array<int, 3>& lo = where_.box.lo;
    const ElasticForceStep<float> forces = moved_to_box(elastic3d_force_step<float>(setup_, steps_done_), lo);
    const ElasticStressStep<float> stress_src = moved_to_box(elastic3d_stress_step<float>(setup_, steps_done_), lo);
    const unsigned source_blocks = blocks_for(kSourceBoxNodes, 128);
    const float* w = weights_.get();
    // 1-2: strains and stresses (the surface's plane stress where the box holds k == 0).
    if (variant_ == Elastic3DVariant::steps) {
      const ElasticFields6<float> strain = {{strain_[0].get(), strain_[1].get(), strain_[2].get(), strain_[3].get(),
                                             strain_[4].get(), strain_[5].get()}};
      elastic3d_strain<float, R><<<grid, block, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], strain, g);
      SS_CUDA_LAUNCH_CHECK("elastic3d_strain");
      elastic3d_stress<float><<<grid, block, 0, st>>>(strain, medium(), stress, g, free_top_here_);
      SS_CUDA_LAUNCH_CHECK("elastic3d_stress");
    } else {
      elastic3d_stress_fused<float, R><<<grid, block, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], medium(), stress, g,
                                                               free_top_here_);
      SS_CUDA_LAUNCH_CHECK("elastic3d_stress_fused");
    }
    // 4: the stress sources on the part of their boxes inside this box.
    if (stress_src.n > 0) {
      elastic3d_stress_source<float><<<dim3(source_blocks, stress_src.n), 128, 0, st>>>(stress, g, stress_src, w);
      SS_CUDA_LAUNCH_CHECK("elastic3d_stress_source");
    }
    // 3: the stress ghosts, before the divergence reads them.
    float signs[6];
    for (int c = 0; c < 6; ++c) signs[c] = static_cast<float>(elastic_stress_top_sign(c));
    fill_ghosts(stress, 6, halo, signs);
    // 5-7: divergence, force sources, update.
    if (variant_ == Elastic3DVariant::steps) {
      const ElasticFields3<float> accel = {{accel_[0].get(), accel_[1].get(), accel_[2].get()}};
      elastic3d_divergence<float, R><<<grid, block, 0, st>>>(stress, accel, g);
      SS_CUDA_LAUNCH_CHECK("elastic3d_divergence");
      if (forces.n > 0) {
        elastic3d_force_source<float><<<dim3(source_blocks, forces.n), 128, 0, st>>>(accel, g, forces, w);
        SS_CUDA_LAUNCH_CHECK("elastic3d_force_source");
      }
      elastic3d_update<float><<<grid, block, 0, st>>>(cur, prev, accel, medium_[5].get(), damp_.get(), out, g);
      SS_CUDA_LAUNCH_CHECK("elastic3d_update");
    } else {
      elastic3d_update_fused<float, R><<<grid, block, 0, st>>>(stress, cur, prev, medium_[5].get(), damp_.get(), out,
                                                               g, forces, w);
      SS_CUDA_LAUNCH_CHECK("elastic3d_update_fused");
    }
    // 8: Clayton-Engquist on the global list's nodes in this box.
    if (setup_.absorbing_bottom()) {
      const CeFaces faces = ce_faces_of(setup_);
      const long long nce = elastic_ce_nodes(setup_.grid, faces);
      elastic3d_box_clayton_engquist<<<std::min<unsigned>(blocks_for(nce, 256), 4096), 256, 0, st>>>(
          cur, out, medium(), damp_.get(), g, setup_.grid, lo[0], lo[1], lo[2], faces, nce, ElasticPart{});
      SS_CUDA_LAUNCH_CHECK("elastic3d_box_clayton_engquist");
    }
    // 9: the ghosts of u^{n+1}, the receivers, the rotation.
    fill_ghosts(out, 3, halo, kEvenSigns);
    record(out);
    const int old_prev = prev_;
    prev_ = cur_, cur_ = next_, next_ = old_prev;
    ++steps_done_;
  }

  // step_once's launches with the exchanges overlapped, each node's writes in the same order
  // (every kernel computes a node from the same values; the sources and Clayton-Engquist
  // write the core's nodes with the core and the shells' with the shells):
  //   the core's stresses from u^n (they read no ghost between ranks) and its stress sources;
  //   once u^n's ghosts are in, the shells' stresses and sources, the domain faces of the
  //   stresses; the exchange of the stresses (exchange stream) while the core's divergence,
  //   update and Clayton-Engquist run; once the stresses' ghosts are in, the shells' update
  //   and Clayton-Engquist, the domain faces of u^{n+1}; the exchange of u^{n+1} while the
  //   receivers are recorded and the next step computes its core.
  template <int R>
  void step_overlapped(HaloFill& halo) {
    const Grid3D& g = grid_;
    const cudaStream_t st = stream_.get(), xs = exchange_stream_.get();
    const dim3 block(kElasticBX, kElasticBY);
    const ElasticFields3<float> cur = level(cur_), prev = level(prev_), out = level(next_);
    const ElasticFields6<float> stress = stresses();
    const std::array<int, 3>& lo = where_.box.lo;
    const ElasticForceStep<float> forces = moved_to_box(elastic3d_force_step<float>(setup_, steps_done_), lo);
    const ElasticStressStep<float> stress_src = moved_to_box(elastic3d_stress_step<float>(setup_, steps_done_), lo);
    const unsigned source_blocks = blocks_for(kSourceBoxNodes, 128);
    const float* w = weights_.get();
    const ElasticFields6<float> strain = {{strain_[0].get(), strain_[1].get(), strain_[2].get(), strain_[3].get(),
                                           strain_[4].get(), strain_[5].get()}};
    const ElasticFields3<float> accel = {{accel_[0].get(), accel_[1].get(), accel_[2].get()}};
    auto stresses_of = [&](const ElasticCells& cells, const ElasticPart& part) {
      const unsigned blocks = static_cast<unsigned>(cells.list.blocks());
      if (variant_ == Elastic3DVariant::steps) {
        elastic3d_strain<float, R><<<blocks, block, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], strain, g, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_strain");
        elastic3d_stress<float><<<blocks, block, 0, st>>>(strain, medium(), stress, g, free_top_here_, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_stress");
      } else {
        elastic3d_stress_fused<float, R><<<blocks, block, 0, st>>>(cur.c[0], cur.c[1], cur.c[2], medium(), stress, g,
                                                                   free_top_here_, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_stress_fused");
      }
      if (stress_src.n > 0) {
        elastic3d_stress_source<float><<<dim3(source_blocks, stress_src.n), 128, 0, st>>>(stress, g, stress_src, w, part);
        SS_CUDA_LAUNCH_CHECK("elastic3d_stress_source");
      }
    };
    auto update_of = [&](const ElasticCells& cells, const ElasticPart& part) {
      const unsigned blocks = static_cast<unsigned>(cells.list.blocks());
      if (variant_ == Elastic3DVariant::steps) {
        elastic3d_divergence<float, R><<<blocks, block, 0, st>>>(stress, accel, g, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_divergence");
        if (forces.n > 0) {
          elastic3d_force_source<float><<<dim3(source_blocks, forces.n), 128, 0, st>>>(accel, g, forces, w, part);
          SS_CUDA_LAUNCH_CHECK("elastic3d_force_source");
        }
        elastic3d_update<float><<<blocks, block, 0, st>>>(cur, prev, accel, medium_[5].get(), damp_.get(), out, g, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_update");
      } else {
        elastic3d_update_fused<float, R><<<blocks, block, 0, st>>>(stress, cur, prev, medium_[5].get(), damp_.get(), out,
                                                                   g, forces, w, cells);
        SS_CUDA_LAUNCH_CHECK("elastic3d_update_fused");
      }
      if (setup_.absorbing_bottom()) {
        const CeFaces faces = ce_faces_of(setup_);
        const long long nce = elastic_ce_nodes(setup_.grid, faces);
        elastic3d_box_clayton_engquist<<<std::min<unsigned>(blocks_for(nce, 256), 4096), 256, 0, st>>>(
            cur, out, medium(), damp_.get(), g, setup_.grid, lo[0], lo[1], lo[2], faces, nce, part);
        SS_CUDA_LAUNCH_CHECK("elastic3d_box_clayton_engquist");
      }
    };
    float signs[6];
    for (int c = 0; c < 6; ++c) signs[c] = static_cast<float>(elastic_stress_top_sign(c));
    stresses_of(core_, core_part_);
    SS_CUDA_CHECK(cudaStreamWaitEvent(st, u_exchanged_.get(), 0));
    stresses_of(shells_, shell_part_);
    fill_domain_faces(stress, 6, signs);
    SS_CUDA_CHECK(cudaEventRecord(stress_ready_.get(), st));
    SS_CUDA_CHECK(cudaStreamWaitEvent(xs, stress_ready_.get(), 0));
    float* const sent[6] = {stress.c[0], stress.c[1], stress.c[2], stress.c[3], stress.c[4], stress.c[5]};
    halo.fill(sent);
    SS_CUDA_CHECK(cudaEventRecord(stress_exchanged_.get(), xs));
    update_of(core_, core_part_);
    SS_CUDA_CHECK(cudaStreamWaitEvent(st, stress_exchanged_.get(), 0));
    update_of(shells_, shell_part_);
    fill_domain_faces(out, 3, kEvenSigns);
    SS_CUDA_CHECK(cudaEventRecord(u_ready_.get(), st));
    SS_CUDA_CHECK(cudaStreamWaitEvent(xs, u_ready_.get(), 0));
    float* const moved[3] = {out.c[0], out.c[1], out.c[2]};
    halo.fill(moved);
    SS_CUDA_CHECK(cudaEventRecord(u_exchanged_.get(), xs));
    record(out);
    const int old_prev = prev_;
    prev_ = cur_, cur_ = next_, next_ = old_prev;
    ++steps_done_;
  }

  // The faces between boxes through the exchange, then the domain's own faces (the image
  // above a free top may be a ghost the exchange just wrote, in a box as thin as the
  // radius; the exchange sends interior cells only, so it never reads what follows).
  // The exchange runs on the exchange stream after everything queued on the compute stream,
  // which waits for it.
  template <typename Fields>
  void fill_ghosts(const Fields& f, int count, HaloFill& halo, const float (&signs)[6]) {
    float* fields[6] = {};
    for (int q = 0; q < count; ++q) fields[q] = f.c[q];
    SS_CUDA_CHECK(cudaEventRecord(u_ready_.get(), stream_.get()));
    SS_CUDA_CHECK(cudaStreamWaitEvent(exchange_stream_.get(), u_ready_.get(), 0));
    halo.fill(std::span<float* const>(fields, static_cast<std::size_t>(count)));
    SS_CUDA_CHECK(cudaEventRecord(u_exchanged_.get(), exchange_stream_.get()));
    SS_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), u_exchanged_.get(), 0));
    fill_domain_faces(f, count, signs);
  }
  // The domain's own faces of `count` fields on the compute stream.
  template <typename Fields>
  void fill_domain_faces(const Fields& f, int count, const float (&signs)[6]) {
    ElasticFields6<float> all{};
    for (int q = 0; q < count; ++q) all.c[q] = f.c[q];
    const int n[3] = {grid_.nx, grid_.ny, grid_.nz};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        if (!where_.domain_face[a][side]) continue;
        const long long cells = static_cast<long long>(radius_) * n[(a + 1) % 3] * n[(a + 2) % 3];
        const dim3 blocks(std::min<unsigned>(blocks_for(cells, 256), 4096), static_cast<unsigned>(count));
        elastic3d_box_faces<<<blocks, 256, 0, stream_.get()>>>(all, grid_, a, side, radius_,
                                                               a == 2 && side == 0 && rule_.free_top, signs[0],
                                                               signs[1], signs[2], signs[3], signs[4], signs[5]);
        SS_CUDA_LAUNCH_CHECK("elastic3d_box_faces");
      }
  }

  // The box's interior of f (x fastest), queued on the stream: rows of nx out of the padded pitch.
  std::vector<float> interior(const float* f) const {
    const Grid3D& g = grid_;
    std::vector<float> out(g.points());
    for (int k = 0; k < g.nz; ++k)
      SS_CUDA_CHECK(cudaMemcpy2DAsync(out.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                      f + g.index(0, 0, k), g.pitch * sizeof(float), g.nx * sizeof(float), g.ny,
                                      cudaMemcpyDeviceToHost, stream_.get()));
    return out;
  }

  // The receivers of the run's list that lie in the box (BoxTraceRecorder's choice), their
  // box indices on the device and room for setup_.trace_steps rows; no rows yet. Pageable
  // copy: the caller synchronizes.
  void start_receivers(long first_step) {
    held_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 3, first_step);
    const std::vector<long long> at(held_.box_indices().begin(), held_.box_indices().end());
    receiver_at_ = DeviceBuffer<long long>(at.size());
    if (!at.empty())
      SS_CUDA_CHECK(cudaMemcpyAsync(receiver_at_.get(), at.data(), receiver_at_.bytes(), cudaMemcpyHostToDevice,
                                    stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));  // `at` goes away here
    trace_values_ = DeviceBuffer<float>(static_cast<std::size_t>(setup_.trace_steps) * 3 * at.size());
    rows_ = 0;
    trace_first_ = first_step;
  }

  // One row of u^{n+1} at the held receivers (as HostElastic3DBox records it), while fewer
  // than trace_steps rows are kept; a box that holds none counts the row too.
  void record(const ElasticFields3<float>& u) {
    if (rows_ >= setup_.trace_steps) return;
    const int held = static_cast<int>(held_.held().size());
    if (held > 0) {
      float* row = trace_values_.get() + static_cast<std::size_t>(rows_) * 3 * held;
      elastic3d_record<float><<<blocks_for(held, 128), 128, 0, stream_.get()>>>(u, receiver_at_.get(), held, row);
      SS_CUDA_LAUNCH_CHECK("elastic3d_record");
    }
    ++rows_;
  }

  Elastic3DSetup setup_;
  BoxPlacement where_;
  Elastic3DVariant variant_;
  Grid3D grid_;
  int radius_;
  ElasticGhostRule rule_;
  bool free_top_here_;  ///< the free surface's plane (global k == 0) is this box's k == 0
  CudaStream stream_{CudaStream::Priority::second};  ///< compute: the kernels, the copies
  CudaStream exchange_stream_;                        ///< the halo exchange (device_stream())
  CudaEvent stress_ready_, stress_exchanged_, u_ready_, u_exchanged_;
  bool overlap_ = false;           ///< step_overlapped (else step_once)
  ElasticCells shells_, core_;     ///< the nodes the exchange reads, and the rest
  ElasticPart shell_part_, core_part_;
  DeviceBuffer<float> damp_, weights_;
  DeviceBuffer<float> medium_[6];  ///< c11, c13, c33, c44, c66, q
  DeviceBuffer<float> u_[3][3];
  DeviceBuffer<float> stress_[6], strain_[6], accel_[3];  ///< strain_, accel_: `steps` only
  mutable DeviceBuffer<float> view_;  ///< a derived view quantity (quantity_interior), made at the first
  BoxTraceRecorder held_;  ///< which receivers the box holds (its rows live in trace_values_)
  DeviceBuffer<long long> receiver_at_;
  DeviceBuffer<float> trace_values_;
  int rows_ = 0;
  long trace_first_ = 0;
  int prev_ = 0, cur_ = 1, next_ = 2;
  long steps_done_ = 0;
};

}  // namespace

std::unique_ptr<BoxSimulation> make_elastic3d_device_box(const Elastic3DSetup& setup, const BoxPlacement& where,
                                                         Elastic3DVariant variant) {
  if (variant != Elastic3DVariant::steps && variant != Elastic3DVariant::fused)
    throw Error("elastic3d's boxes on the GPU step with steps or fused, not " + std::string(to_string(variant)) +
                " (it computes the stresses of the ghost layers inside its kernel)");
  if (setup.cpml_layout.any()) throw Error("elastic3d's boxes on the GPU do not run the cpml boundary yet");
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  return std::make_unique<DeviceElastic3DBox>(setup, where, variant);
}

}  // namespace ss
