// A distributed acoustic3d box (acoustic3d_box.hpp). Why it is bitwise equal to one rank:
// every node's p^{n+1} comes from acoustic3d_point on the same neighbour values (the ghost
// layers are the neighbour's interior of the same step, or the boundary rule's value of the
// same global node), with the damping and (v dt/h)^2 of its global node; the CPML passes sum
// the same terms in the same order with the coefficients of its global slot, and psi across a
// face between boxes is the neighbour's psi of the same step (exchanged); the sources of a
// node are added in list order, by the one box that holds it.
#include "sim/models/acoustic3d/acoustic3d_box.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"  // extract_interior3d
#include "sim/core/model.hpp"    // StepAccounting
#include "sim/core/stencil.hpp"
#include "sim/models/acoustic3d/acoustic3d_bench.hpp"  // kAcousticValuesPerNode
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"  // acoustic3d_paint_pulse
#include "sim/models/acoustic3d/acoustic3d_host_step.hpp"

namespace ss {

namespace {

class HostAcoustic3DBox final : public BoxSimulation {
 public:
  HostAcoustic3DBox(const Acoustic3DSetup& setup, const BoxPlacement& where)
      : setup_(setup), where_(where), grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        radius_(radius_of_order(setup.config.order)), rule_(ghost_rule_of(setup)) {
    const Grid3D& g = grid_;
    const std::array<int, 3>& lo = where_.box.lo;
    // The sponge's per-axis tables of the global grid, cut to the box.
    const std::vector<float> whole = damping_tables<float>(setup_);
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    int base = 0;
    for (int a = 0; a < 3; ++a) {
      damping_[a].assign(whole.begin() + base + lo[a], whole.begin() + base + lo[a] + where_.box.n[a]);
      base += n[a];
    }
    c2_.assign(g.elements(), 0.0f);
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i)
          c2_[g.index(i, j, k)] = static_cast<float>(setup_.courant2(lo[0] + i, lo[1] + j, lo[2] + k));
    for (auto& f : field_) f.assign(g.elements(), 0.0f);
    if (setup_.cpml_layout.any()) {
      cpml_table_ = acoustic_cpml_table<float>(setup_);
      for (auto& f : psi_) f.assign(g.elements(), 0.0f);  // 0 outside the slabs and beyond the faces
      for (auto& f : zeta_) f.assign(g.elements(), 0.0f);
    }
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 1, 0);
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  void refresh_ghosts(HaloFill& halo) override { fill_ghosts(field_[cur_].data(), halo); }

  void step(int n, HaloFill& halo) override {
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int s = 0; s < n; ++s) {
        float* out = field_[next_].data();
        step_interior<R>(field_[cur_].data(), field_[prev_].data(), out);
        if (setup_.cpml_layout.any()) {
          cpml_psi<R>(field_[cur_].data());
          float* const psi[] = {psi_[0].data(), psi_[1].data(), psi_[2].data()};
          halo.fill(psi);
          cpml_correct<R>(field_[cur_].data(), out);
        }
        inject(out);
        fill_ghosts(out, halo);
        const float* const recorded[] = {out};  // p^{n+1} after its ghosts, as HostAcoustic3D records it
        recorder_.record(recorded, setup_.trace_steps);
        const int old_prev = prev_;
        prev_ = cur_, cur_ = next_, next_ = old_prev;
        ++steps_done_;
      }
    });
  }

  std::vector<std::vector<float>> interiors() const override {
    return {extract_interior3d(field_[cur_], grid_), extract_interior3d(field_[prev_], grid_)};
  }

  // What the window asks of a box: the one-rank HostSim's answers on the box's nodes.
  double dt() const override { return setup_.dt; }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {kAcousticValuesPerNode * sizeof(float) * cells, cells};
  }
  /// "pressure" (or empty): p^n; "velocity": the medium's vp at each global node, as
  /// velocity_field gives the whole grid's.
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    if (acoustic3d_box_shows_velocity(quantity)) return acoustic3d_box_velocity(setup_, where_.box);
    return extract_interior3d(field_[cur_], grid_);
  }
  /// HostAcoustic3D::paint on the box's nodes: the same Gaussian pulse (acoustic3d_paint_pulse
  /// at global indices, none on a free top's plane) added to p^n and p^{n-1}.
  void paint(const Sphere& s) override {
    const AcousticBoxPulse pulse = acoustic3d_box_pulse(setup_, where_.box, s);
    const CellBox& c = pulse.cells;
    const Box& b = where_.box;
    if (c.empty()) return;
    const std::vector<double>& add = pulse.add;
    std::size_t n = 0;
    for (int k = c.lo[2]; k <= c.hi[2]; ++k)
      for (int j = c.lo[1]; j <= c.hi[1]; ++j)
        for (int i = c.lo[0]; i <= c.hi[0]; ++i, ++n) {
          const float v = static_cast<float>(add[n]);
          const std::size_t e = grid_.index(i - b.lo[0], j - b.lo[1], k - b.lo[2]);
          for (int f : {cur_, prev_}) field_[f][e] = field_[f][e] + v;
        }
  }
  /// {p, p_prev} of the box; the CPML's memory starts from 0, as HostAcoustic3D::load_interior.
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    const std::size_t cells = static_cast<std::size_t>(where_.box.cells());
    if (in.size() != 2 || in[0].size() != cells || in[1].size() != cells)
      throw Error(fmt::format("an acoustic3d box state holds p and p_prev of {} nodes each; this one has {} fields",
                              cells, in.size()));
    const std::array<int, 3>& n = where_.box.n;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          const std::size_t e = (static_cast<std::size_t>(k) * n[1] + j) * n[0] + i;
          field_[cur_][grid_.index(i, j, k)] = in[0][e];
          field_[prev_][grid_.index(i, j, k)] = in[1][e];
        }
    steps_done_ = steps_done;
    recorder_.restart(steps_done);
    for (auto& f : psi_) std::fill(f.begin(), f.end(), 0.0f);
    for (auto& f : zeta_) std::fill(f.begin(), f.end(), 0.0f);
  }
  /// The traces and the CPML's memory, which HostAcoustic3D::set_order keeps (the layout
  /// does not depend on the order, nor does the box's padded layout).
  void carry_over(BoxSimulation& old) override {
    auto* from = dynamic_cast<HostAcoustic3DBox*>(&old);
    if (!from) return;
    if (from->setup_.receivers != setup_.receivers) throw Error("the order changed the receivers");
    recorder_ = from->recorder_;
    if (!setup_.cpml_layout.any()) return;
    for (int a = 0; a < 3; ++a) {
      if (from->psi_[a].size() != psi_[a].size()) throw Error("the order changed the CPML's layout");
      psi_[a] = from->psi_[a];
      zeta_[a] = from->zeta_[a];
    }
  }
  std::vector<SourceSpec> sources() const override { return setup_.sources; }
  /// HostAcoustic3D::set_sources: the same checks (every rank holds the whole list).
  void set_sources(const std::vector<SourceSpec>& sources) override { set_acoustic3d_sources(setup_, sources); }
  std::optional<ReceiverLayout> receivers() const override { return setup_.receiver_layout; }
  /// HostAcoustic3D::set_receivers: the same checks; this box's traces start again.
  void set_receivers(const ReceiverLayout& layout) override {
    Acoustic3DSetup next = setup_;
    set_acoustic3d_receivers(next, layout);  // throws, keeping the old receivers
    setup_ = std::move(next);
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 1, steps_done_);
  }
  BoxTraces traces(int from_row) const override {
    BoxTraces t;
    t.head = acoustic3d_seismogram_head(setup_);
    recorder_.fill(t, from_row);
    return t;
  }

 private:
  // HostAcoustic3D's interior loop (acoustic3d_interior_host) on the box.
  template <int R>
  void step_interior(const float* p, const float* pp, float* out) const {
    acoustic3d_interior_host<float, R>(grid_, p, pp, c2_.data(), damping_[0].data(), damping_[1].data(),
                                       damping_[2].data(), out);
  }

  /// The CPML's state of the box: psi, zeta as box fields, slots of the global nodes.
  AcousticCpmlBox<float> cpml_box() {
    AcousticCpmlBox<float> m;
    m.layout = setup_.cpml_layout;
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    for (int a = 0; a < 3; ++a) {
      m.lo[a] = where_.box.lo[a];
      m.n[a] = n[a];
      m.psi_field[a] = psi_[a].data();
      m.zeta_field[a] = zeta_[a].data();
    }
    m.table = cpml_table_.data();
    return m;
  }
  /// The box's layer nodes, enumerated as one rank enumerates the grid's.
  CpmlLayout box_layers() const {
    const int lo[3] = {where_.box.lo[0], where_.box.lo[1], where_.box.lo[2]};
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    return acoustic_cpml_box_layout(setup_.cpml_layout, lo, n, grid_);
  }

  // Pass 1 (acoustic3d_cpml_psi, the one-rank run's function) with psi_a a box field.
  template <int R>
  void cpml_psi(const float* p) {
    const AcousticCpmlBox<float> m = cpml_box();
    const CpmlLayout layers = box_layers();
    const Grid3D& g = grid_;
    const long long nodes = layers.nodes(g);
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < nodes; ++e) {
      int i, j, k;
      layers.node(g, e, i, j, k);
      acoustic3d_cpml_psi<float, R>(p, m, g, i, j, k);
    }
  }

  // Pass 2 (acoustic3d_cpml_term) and the correction of p^{n+1}, on the box.
  template <int R>
  void cpml_correct(const float* p, float* out) {
    const AcousticCpmlBox<float> m = cpml_box();
    const CpmlLayout layers = box_layers();
    const Grid3D& g = grid_;
    const long long nodes = layers.nodes(g);
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < nodes; ++e) {
      int i, j, k;
      layers.node(g, e, i, j, k);
      const std::size_t at = g.index(i, j, k);
      out[at] = fma_t(c2_[at], acoustic3d_cpml_term<float, R>(p, m, g, i, j, k), out[at]);
    }
  }

  // The sources whose node lies in the box, in list order, at the box's indices.
  void inject(float* out) const {
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
    for (int r = 0; r < l.n; ++r)
      if (acoustic_source_owner(l, r)) out[l.at[r]] = acoustic_add_sources(out[l.at[r]], l.at[r], l);
  }

  // The faces between boxes through the exchange, then the domain's own faces: p = 0 beyond
  // them, or the odd image p(-m) = -p(m) above a free top. The image may be a ghost the
  // exchange just wrote (a box as thin as the radius), hence this order; the exchange sends
  // interior cells only (no edges), so it never reads what follows.
  void fill_ghosts(float* f, HaloFill& halo) {
    float* const fields[] = {f};
    halo.fill(fields);
    const Grid3D& g = grid_;
    const int n[3] = {g.nx, g.ny, g.nz};
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        if (!where_.domain_face[a][side]) continue;
        const bool mirror = a == 2 && side == 0 && rule_.free_top;
        const int u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;  // the face's two axes
        for (int m = 1; m <= radius_; ++m)
          for (int y = 0; y < n[v]; ++y)
            for (int x = 0; x < n[u]; ++x) {
              int at[3], image[3];
              at[u] = image[u] = x;
              at[v] = image[v] = y;
              at[a] = side == 0 ? -m : n[a] - 1 + m;
              image[a] = m;
              f[g.index(at[0], at[1], at[2])] = mirror ? -f[g.index(image[0], image[1], image[2])] : 0.0f;
            }
      }
  }

  Acoustic3DSetup setup_;
  BoxPlacement where_;
  Grid3D grid_;
  int radius_;
  AcousticGhostRule rule_;
  std::vector<float> damping_[3];
  std::vector<float> c2_;
  std::vector<float> field_[3];
  int prev_ = 0, cur_ = 1, next_ = 2;
  std::vector<float> cpml_table_;
  std::vector<float> psi_[3], zeta_[3];
  BoxTraceRecorder recorder_;  // p at the receivers in this box
  long steps_done_ = 0;
};

}  // namespace

std::vector<float> acoustic3d_box_velocity(const Acoustic3DSetup& setup, const Box& b) {
  std::vector<float> out(static_cast<std::size_t>(b.cells()));
  std::size_t e = 0;
  for (int k = 0; k < b.n[2]; ++k)
    for (int j = 0; j < b.n[1]; ++j)
      for (int i = 0; i < b.n[0]; ++i) out[e++] = setup.velocity_at(b.lo[0] + i, b.lo[1] + j, b.lo[2] + k);
  return out;
}

AcousticBoxPulse acoustic3d_box_pulse(const Acoustic3DSetup& setup, const Box& b, const Sphere& s) {
  AcousticBoxPulse p;
  p.cells = sphere_cells(s, setup.grid);
  for (std::size_t a = 0; a < 3; ++a) {
    p.cells.lo[a] = std::max(p.cells.lo[a], b.lo[a]);
    p.cells.hi[a] = std::min(p.cells.hi[a], b.lo[a] + b.n[a] - 1);
  }
  if (!p.cells.empty()) p.add = acoustic3d_paint_pulse(s, p.cells, ghost_rule_of(setup).free_top);
  return p;
}

bool acoustic3d_box_shows_velocity(const std::string& quantity) {
  if (quantity.empty() || quantity == "pressure") return false;
  if (quantity == "velocity") return true;
  throw Error(fmt::format("unknown quantity '{}' of acoustic3d (choose pressure or velocity)", quantity));
}

std::unique_ptr<BoxSimulation> make_acoustic3d_box(const Acoustic3DSetup& setup, const BoxPlacement& where) {
  return std::make_unique<HostAcoustic3DBox>(setup, where);
}

DistributedSpec acoustic3d_distributed_spec(const Acoustic3DSetup& setup) {
  DistributedSpec s;
  s.supported = true;
  s.ghost_width = radius_of_order(setup.config.order);
  const bool periodic = ghost_rule_of(setup).periodic;
  s.periodic = {periodic, periodic, periodic};
  s.edges = false;
  s.fields = setup.cpml_layout.any() ? 3 : 1;
  s.gpu_variant = "global";  // acoustic3d_box_device.cu, every rule
  s.boxes_show = true;  // the CPU box gives views, paints, states and sources
  s.gpu_boxes_show = s.gpu_boxes_paint = true;  // so does the GPU box (acoustic3d_box_device.cu)
  return s;
}

}  // namespace ss
