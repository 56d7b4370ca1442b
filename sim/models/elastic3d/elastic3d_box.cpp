// A distributed elastic3d box (elastic3d_box.hpp). Why it is bitwise equal to one rank:
// every node's strains, stresses, divergence and update come from the shared point
// functions on the same neighbour values (the ghost layers are the neighbour's u or
// stresses of the same step, exchanged, or the boundary rule's value of the same global
// node), with the medium, damping and free-surface rule of the global node; a source box
// that straddles boxes is added by each box on its part, node by node with the global
// indices, so each node sums the same sources in the same (list) order; Clayton-Engquist
// rewrites the global list's nodes that lie in the box, each with the face the one-rank
// list gives it; the CPML's passes use the coefficients of the node's global slot and read
// only the node's own memory variables (no exchange of them is needed).
#include "sim/models/elastic3d/elastic3d_box.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"  // extract_interior3d
#include "sim/core/model.hpp"    // StepAccounting
#include "sim/core/stencil.hpp"
#include "sim/models/elastic3d/elastic3d_bench.hpp"   // kElasticValuesPerNode
#include "sim/models/elastic3d/elastic3d_solver.hpp"  // elastic3d_paint_pulse

namespace ss {

namespace {

class HostElastic3DBox final : public BoxSimulation {
 public:
  HostElastic3DBox(const Elastic3DSetup& setup, const BoxPlacement& where)
      : setup_(setup), where_(where), grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        radius_(radius_of_order(setup.config.order)), rule_(ghost_rule_of(setup)),
        weights_(source_weights_as<float>(setup)) {
    const Grid3D& g = grid_;
    const std::array<int, 3>& lo = where_.box.lo;
    const std::vector<float> whole = elastic_damping_tables<float>(setup_);
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    int base = 0;
    for (int a = 0; a < 3; ++a) {
      damping_[a].assign(whole.begin() + base + lo[a], whole.begin() + base + lo[a] + where_.box.n[a]);
      base += n[a];
    }
    {  // the medium of the global nodes, cut to the box
      const PaddedMedium<float> m = padded_medium<float>(setup_);
      const std::vector<float>* from[6] = {&m.c11, &m.c13, &m.c33, &m.c44, &m.c66, &m.q};
      std::vector<float>* to[6] = {&medium_.c11, &medium_.c13, &medium_.c33, &medium_.c44, &medium_.c66, &medium_.q};
      for (int f = 0; f < 6; ++f) {
        to[f]->assign(g.elements(), 0.0f);
        for (int k = 0; k < g.nz; ++k)
          for (int j = 0; j < g.ny; ++j)
            for (int i = 0; i < g.nx; ++i)
              (*to[f])[g.index(i, j, k)] = (*from[f])[setup_.grid.index(lo[0] + i, lo[1] + j, lo[2] + k)];
      }
    }
    for (auto& level : u_)
      for (auto& f : level) f.assign(g.elements(), 0.0f);
    for (auto& f : stress_) f.assign(g.elements(), 0.0f);
    if (setup_.cpml_layout.any()) {
      cpml_table_ = elastic_cpml_table<float>(setup_);
      for (int a = 0; a < 3; ++a)  // box fields of the slabs the box meets: psi_a{x,y,z}, phi_a{x,y,z}
        for (int i = 0; i < where_.box.n[a]; ++i)
          if (slot(a, i) >= 0) {
            for (auto& f : memory_[a]) f.assign(g.elements(), 0.0f);
            break;
          }
    }
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 3, 0);
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  void refresh_ghosts(HaloFill& halo) override {
    float* const u[] = {u_[cur_][0].data(), u_[cur_][1].data(), u_[cur_][2].data()};
    fill_ghosts(u, halo, [](int) { return 1.0f; });
  }

  void step(int n, HaloFill& halo) override {
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int s = 0; s < n; ++s) step_once<R>(halo);
    });
  }

  std::vector<std::vector<float>> interiors() const override {
    std::vector<std::vector<float>> out;
    for (int level : {cur_, prev_})
      for (int c = 0; c < 3; ++c) out.push_back(extract_interior3d(u_[level][c], grid_));
    return out;
  }

  // What the window asks of a box: the one-rank HostSim's answers on the box's nodes.
  double dt() const override { return setup_.dt; }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {kElasticValuesPerNode * sizeof(float) * cells, cells};
  }
  /// The model's quantities (u_z first): a component, vp of the global node (elastic_vp_field),
  /// or |u|, the divergence or the curl's magnitude by elastic_derived_at on the box, whose
  /// ghosts of u^n hold the neighbours' u (exchanged after every step, paint and load) or the
  /// boundary rule's values: the same neighbour values as on one rank.
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    const ElasticBoxQuantity q = elastic3d_box_quantity(quantity);
    if (q.component >= 0) return extract_interior3d(u_[cur_][q.component], grid_);
    if (q.vp) return elastic3d_box_vp(setup_, where_.box);
    const ElasticDerived d = q.derived;
    std::vector<float> out(static_cast<std::size_t>(where_.box.cells()));
    const Grid3D& g = grid_;
    const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
    const double inv_h = 1.0 / setup_.config.h;
    const float* ux = u_[cur_][0].data();
    const float* uy = u_[cur_][1].data();
    const float* uz = u_[cur_][2].data();
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i)
            out[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] =
                elastic_derived_at<float, R>(d, ux, uy, uz, g.index(i, j, k), pitch, plane, inv_h);
    });
    return out;
  }
  /// HostElastic3D::paint on the box's nodes: the same pulse (elastic3d_paint_pulse at global
  /// indices) added to u_z of u^n and u^{n-1}.
  void paint(const Sphere& sp) override {
    const ElasticBoxPulse pulse = elastic3d_box_pulse(setup_, where_.box, sp);
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
          for (int f : {cur_, prev_}) u_[f][2][e] = u_[f][2][e] + v;
        }
  }
  /// {u_x, u_y, u_z, then those of u^{n-1}} of the box (interiors()); the CPML's memory
  /// starts from 0, as HostElastic3D::load.
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    const std::size_t cells = static_cast<std::size_t>(where_.box.cells());
    bool fits = in.size() == 6;
    for (const auto& f : in) fits = fits && f.size() == cells;
    if (!fits)
      throw Error(fmt::format("an elastic3d box state holds u and u_prev (6 fields of {} nodes); this one has {} fields",
                              cells, in.size()));
    const std::array<int, 3>& n = where_.box.n;
    for (int f = 0; f < 6; ++f) {
      std::vector<float>& to = u_[f < 3 ? cur_ : prev_][f % 3];
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i)
            to[grid_.index(i, j, k)] = in[static_cast<std::size_t>(f)][(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i];
    }
    steps_done_ = steps_done;
    recorder_.restart(steps_done);
    for (auto& slab : memory_)
      for (auto& f : slab) std::fill(f.begin(), f.end(), 0.0f);
  }
  /// The traces and the CPML's memory, which HostElastic3D::set_order keeps.
  void carry_over(BoxSimulation& old) override {
    auto* from = dynamic_cast<HostElastic3DBox*>(&old);
    if (!from) return;
    if (from->setup_.receivers != setup_.receivers) throw Error("the order changed the receivers");
    recorder_ = from->recorder_;
    for (int a = 0; a < 3; ++a)
      for (int f = 0; f < 6; ++f) {
        if (from->memory_[a][f].size() != memory_[a][f].size()) throw Error("the order changed the CPML's layout");
        memory_[a][f] = from->memory_[a][f];
      }
  }
  std::vector<SourceSpec> sources() const override { return setup_.sources; }
  /// HostElastic3D::set_sources: the same checks (every rank holds the whole list).
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
    setup_ = std::move(next);
    recorder_ = BoxTraceRecorder(setup_.receivers, where_.box, grid_, 3, steps_done_);
  }
  BoxTraces traces(int from_row) const override {
    BoxTraces t;
    t.head = elastic3d_seismogram_head(setup_);
    recorder_.fill(t, from_row);
    return t;
  }

 private:
  bool in_box(int gi, int gj, int gk) const {
    const Box& b = where_.box;
    return gi >= b.lo[0] && gi < b.lo[0] + b.n[0] && gj >= b.lo[1] && gj < b.lo[1] + b.n[1] && gk >= b.lo[2] &&
           gk < b.lo[2] + b.n[2];
  }

  // HostElastic3D::step's nine steps on the box.
  template <int R>
  void step_once(HaloFill& halo) {
    const Grid3D& g = grid_;
    const Grid3D& G = setup_.grid;
    const Box& b = where_.box;
    const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
    const float *tx = damping_[0].data(), *ty = damping_[1].data(), *tz = damping_[2].data();
    const bool free_top = rule_.free_top;
    const PaddedMedium<float>& m = medium_;
    const float* ux = u_[cur_][0].data();
    const float* uy = u_[cur_][1].data();
    const float* uz = u_[cur_][2].data();
    float* s[6];
    for (int c = 0; c < 6; ++c) s[c] = stress_[c].data();
    // 1-2: strains and stresses.
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::size_t e = g.index(i, j, k);
          const Strain6<float> eps = elastic_strain_at<float, R>(ux, uy, uz, e, pitch, plane);
          const Stress6<float> sig = elastic_stress(eps, VtiNode<float>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]},
                                                    free_top && b.lo[2] + k == 0);
          s[0][e] = sig.xx, s[1][e] = sig.yy, s[2][e] = sig.zz, s[3][e] = sig.xy, s[4][e] = sig.xz, s[5][e] = sig.yz;
        }
    if (setup_.cpml_layout.any()) cpml_stress<R>(ux, uy, uz, s);
    // 4: the stress sources on the part of their boxes inside this box (global indices).
    const ElasticStressStep<float> stress_src = elastic3d_stress_step<float>(setup_, steps_done_);
    for (int r = 0; r < stress_src.n; ++r) {
      const int* at = stress_src.node[r];
      const int k0 = std::max({0, at[2] - kSourceRadius, b.lo[2]}), k1 = std::min({G.nz - 1, at[2] + kSourceRadius, b.lo[2] + b.n[2] - 1});
      const int j0 = std::max({0, at[1] - kSourceRadius, b.lo[1]}), j1 = std::min({G.ny - 1, at[1] + kSourceRadius, b.lo[1] + b.n[1] - 1});
      const int i0 = std::max({0, at[0] - kSourceRadius, b.lo[0]}), i1 = std::min({G.nx - 1, at[0] + kSourceRadius, b.lo[0] + b.n[0] - 1});
      for (int k = k0; k <= k1; ++k)
        for (int j = j0; j <= j1; ++j)
          for (int i = i0; i <= i1; ++i) {
            if (!elastic_source_owner(stress_src, r, i, j, k)) continue;
            const std::size_t e = g.index(i - b.lo[0], j - b.lo[1], k - b.lo[2]);
            float v[6] = {s[0][e], s[1][e], s[2][e], s[3][e], s[4][e], s[5][e]};
            elastic_add_stresses(stress_src, i, j, k, weights_.data(), v);
            for (int c = 0; c < 6; ++c) s[c][e] = v[c];
          }
    }
    // 3: the stress ghosts, before the divergence reads them.
    float* const sf[] = {s[0], s[1], s[2], s[3], s[4], s[5]};
    fill_ghosts(sf, halo, [](int c) { return static_cast<float>(elastic_stress_top_sign(c)); });
    // 5-7: divergence, force source, update.
    const ElasticForceStep<float> forces = elastic3d_force_step<float>(setup_, steps_done_);
    const float* pv[3] = {u_[prev_][0].data(), u_[prev_][1].data(), u_[prev_][2].data()};
    float* out[3] = {u_[next_][0].data(), u_[next_][1].data(), u_[next_][2].data()};
    const float* cu[3] = {ux, uy, uz};
    const float* const sc[6] = {s[0], s[1], s[2], s[3], s[4], s[5]};
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::size_t e = g.index(i, j, k);
          float a[3];
          elastic_divergence_at<float, R>(sc, e, pitch, plane, a);
          if (forces.n > 0) elastic_add_forces(forces, b.lo[0] + i, b.lo[1] + j, b.lo[2] + k, weights_.data(), a);
          const float damp = (tx[i] * ty[j]) * tz[k];
          for (int c = 0; c < 3; ++c) out[c][e] = elastic_update(cu[c][e], pv[c][e], m.q[e], a[c], damp);
        }
    if (setup_.cpml_layout.any()) cpml_update<R>(sc, out);
    // 8: Clayton-Engquist on the global list's nodes in this box (each keeps its face).
    if (setup_.absorbing_bottom()) {
      const CeFaces faces = ce_faces_of(setup_);
      const long long nce = elastic_ce_nodes(G, faces);
      for (long long e = 0; e < nce; ++e) {
        CeNode nd = elastic_ce_node(G, faces, e);
        if (!in_box(nd.i, nd.j, nd.k)) continue;
        nd.i -= b.lo[0], nd.j -= b.lo[1], nd.k -= b.lo[2];
        const float damp = (tx[nd.i] * ty[nd.j]) * tz[nd.k];
        const std::size_t at = g.index(nd.i, nd.j, nd.k);
        for (int c = 0; c < 3; ++c)
          out[c][at] = elastic_ce_value(nd, c, cu[c], g, m.c11.data(), m.c33.data(), m.c44.data(), m.c66.data(),
                                        m.q.data(), damp);
      }
    }
    // 9: the ghosts of u^{n+1}, the rotation.
    float* const uf[] = {out[0], out[1], out[2]};
    fill_ghosts(uf, halo, [](int) { return 1.0f; });
    const float* const recorded[] = {out[0], out[1], out[2]};  // u^{n+1}, as HostElastic3D records it
    recorder_.record(recorded, setup_.trace_steps);
    const int old_prev = prev_;
    prev_ = cur_, cur_ = next_, next_ = old_prev;
    ++steps_done_;
  }

  /// The global CPML slot of the box's node index i along axis a, or -1 outside slab a.
  int slot(int a, int i) const {
    const int n[3] = {setup_.grid.nx, setup_.grid.ny, setup_.grid.nz};
    return setup_.cpml_layout.slot(a, where_.box.lo[a] + i, n[a]);
  }

  // elastic_cpml_stress on the box: psi_ac = b psi_ac + c D_a u_c at each layer node (u^n,
  // ghosts filled), then sigma += C : sym(psi); only the node's own values are read.
  template <int R>
  void cpml_stress(const float* ux, const float* uy, const float* uz, float* const (&s)[6]) {
    const Grid3D& g = grid_;
    const CpmlLayout& L = setup_.cpml_layout;
    const PaddedMedium<float>& m = medium_;
    const float* u[3] = {ux, uy, uz};
    const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
    const bool free_top = rule_.free_top;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const int at[3] = {i, j, k};
          if (slot(0, i) < 0 && slot(1, j) < 0 && slot(2, k) < 0) continue;
          const std::size_t e = g.index(i, j, k);
          float psi[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};  // [c][a]
          for (int a = 0; a < 3; ++a) {
            const int sl = slot(a, at[a]);
            if (sl < 0) continue;
            const float* tab = cpml_table_.data() + L.table_base(a);
            const float b = tab[sl], c = tab[L.slots(a) + sl];
            for (int comp = 0; comp < 3; ++comp) {
              float& v = memory_[a][comp][e];
              v = fma_t(b, v, c * elastic_derivative<float, R>(u[comp], e, stride[a]));
              psi[comp][a] = v;
            }
          }
          const Stress6<float> d =
              elastic_stress(elastic_strain(psi), VtiNode<float>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]},
                             free_top && where_.box.lo[2] + k == 0);
          s[0][e] = s[0][e] + d.xx, s[1][e] = s[1][e] + d.yy, s[2][e] = s[2][e] + d.zz;
          s[3][e] = s[3][e] + d.xy, s[4][e] = s[4][e] + d.xz, s[5][e] = s[5][e] + d.yz;
        }
  }

  // elastic_cpml_update on the box: phi_ac = b phi_ac + c D_a sigma_ca (stress ghosts
  // filled), u_c^{n+1} += q sum_a phi_ac.
  template <int R>
  void cpml_update(const float* const (&s)[6], float* const (&out)[3]) {
    constexpr int comp_of[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};  // sigma_ca: [c][a]
    const Grid3D& g = grid_;
    const CpmlLayout& L = setup_.cpml_layout;
    const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const int at[3] = {i, j, k};
          if (slot(0, i) < 0 && slot(1, j) < 0 && slot(2, k) < 0) continue;
          const std::size_t e = g.index(i, j, k);
          float sum[3] = {0.0f, 0.0f, 0.0f};
          for (int a = 0; a < 3; ++a) {
            const int sl = slot(a, at[a]);
            if (sl < 0) continue;
            const float* tab = cpml_table_.data() + L.table_base(a);
            const float b = tab[sl], c = tab[L.slots(a) + sl];
            for (int comp = 0; comp < 3; ++comp) {
              float& v = memory_[a][3 + comp][e];
              v = fma_t(b, v, c * elastic_derivative<float, R>(s[comp_of[comp][a]], e, stride[a]));
              sum[comp] = sum[comp] + v;
            }
          }
          for (int comp = 0; comp < 3; ++comp) out[comp][e] = fma_t(medium_.q[e], sum[comp], out[comp][e]);
        }
  }

  // The faces between boxes through the exchange, then the domain's own faces: 0 beyond
  // them, or the mirror f(-m) = sign f(m) above a free top (the image may be a ghost the
  // exchange just wrote, in a box as thin as the radius; the exchange sends interior cells
  // only, so it never reads what follows).
  template <typename Sign>
  void fill_ghosts(std::span<float* const> fields, HaloFill& halo, Sign top_sign) {
    halo.fill(fields);
    const Grid3D& g = grid_;
    const int n[3] = {g.nx, g.ny, g.nz};
    for (std::size_t q = 0; q < fields.size(); ++q) {
      float* f = fields[q];
      const float sign = top_sign(static_cast<int>(q));
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          if (!where_.domain_face[a][side]) continue;
          const bool mirror = a == 2 && side == 0 && rule_.free_top;
          const int u = a == 0 ? 1 : 0, v = a == 2 ? 1 : 2;
          for (int m = 1; m <= radius_; ++m)
            for (int y = 0; y < n[v]; ++y)
              for (int x = 0; x < n[u]; ++x) {
                int at[3], image[3];
                at[u] = image[u] = x;
                at[v] = image[v] = y;
                at[a] = side == 0 ? -m : n[a] - 1 + m;
                image[a] = m;
                f[g.index(at[0], at[1], at[2])] = mirror ? sign * f[g.index(image[0], image[1], image[2])] : 0.0f;
              }
        }
    }
  }

  Elastic3DSetup setup_;
  BoxPlacement where_;
  Grid3D grid_;
  int radius_;
  ElasticGhostRule rule_;
  std::vector<float> weights_;
  std::vector<float> damping_[3];
  PaddedMedium<float> medium_;
  std::vector<float> u_[3][3];
  std::vector<float> stress_[6];
  std::vector<float> cpml_table_;
  std::vector<float> memory_[3][6];  ///< per slab a: psi_a{x,y,z}, phi_a{x,y,z} (box fields; only slabs the box meets)
  int prev_ = 0, cur_ = 1, next_ = 2;
  BoxTraceRecorder recorder_;  // u at the receivers in this box
  long steps_done_ = 0;
};

}  // namespace

ElasticBoxQuantity elastic3d_box_quantity(const std::string& quantity) {
  const std::string q = quantity.empty() ? "u_z" : quantity;
  ElasticBoxQuantity out;
  for (int c = 0; c < 3; ++c)
    if (q == std::string("u_") + "xyz"[c]) out.component = c;
  if (out.component >= 0) return out;
  if (q == "vp") out.vp = true;
  else if (q == "magnitude") out.derived = ElasticDerived::magnitude;
  else if (q == "divergence") out.derived = ElasticDerived::divergence;
  else if (q == "curl") out.derived = ElasticDerived::curl;
  else throw Error(fmt::format("elastic3d has no view quantity '{}'", quantity));
  return out;
}

std::vector<float> elastic3d_box_vp(const Elastic3DSetup& setup, const Box& b) {
  std::vector<float> out(static_cast<std::size_t>(b.cells()));
  std::size_t e = 0;
  for (int k = 0; k < b.n[2]; ++k)
    for (int j = 0; j < b.n[1]; ++j)
      for (int i = 0; i < b.n[0]; ++i, ++e) {
        const std::size_t at = setup.node(b.lo[0] + i, b.lo[1] + j, b.lo[2] + k);
        out[e] = static_cast<float>(std::sqrt(static_cast<double>(setup.medium->c33[at]) / setup.medium->rho[at]));
      }
  return out;
}

ElasticBoxPulse elastic3d_box_pulse(const Elastic3DSetup& setup, const Box& b, const Sphere& s) {
  ElasticBoxPulse p;
  p.cells = sphere_cells(s, setup.grid);
  for (std::size_t a = 0; a < 3; ++a) {
    p.cells.lo[a] = std::max(p.cells.lo[a], b.lo[a]);
    p.cells.hi[a] = std::min(p.cells.hi[a], b.lo[a] + b.n[a] - 1);
  }
  if (!p.cells.empty()) p.add = elastic3d_paint_pulse(s, p.cells);
  return p;
}

DistributedSpec elastic3d_distributed_spec(const Elastic3DSetup& setup) {
  DistributedSpec s;
  s.supported = true;
  s.ghost_width = radius_of_order(setup.config.order);
  const ElasticGhostRule r = ghost_rule_of(setup);
  s.periodic = {r.periodic, r.periodic, r.periodic_z};
  s.edges = false;
  s.fields = 6;
  if (!setup.cpml_layout.any()) s.gpu_variant = "steps";  // elastic3d_box_device.cu
  s.boxes_show = true;  // views (the derived ones from exchanged ghosts), paints, states, sources
  s.gpu_boxes_show = s.gpu_boxes_paint = !s.gpu_variant.empty();  // the GPU box too (elastic3d_box_device.cu)
  return s;
}

std::unique_ptr<BoxSimulation> make_elastic3d_box(const Elastic3DSetup& setup, const BoxPlacement& where) {
  return std::make_unique<HostElastic3DBox>(setup, where);
}

}  // namespace ss
