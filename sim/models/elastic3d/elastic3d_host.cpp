// CPU backend of elastic 3D: the `cpu` variant (the shared point functions, OpenMP),
// the double reference (independent plain loops), the discrete energy, the trace file.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "sim/models/elastic3d/elastic3d_solver.hpp"

namespace ss {

namespace {

template <typename T>
void fill_ghosts_host(T* f, const Grid3D& g, ElasticGhostRule r, T top_sign) {
  const long long n = ghost_face_cells(g);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (long long e = 0; e < n; ++e) write_elastic_ghost(f, g, e, r, top_sign);
}

}  // namespace

template <typename T>
HostElastic3D<T>::HostElastic3D(const Elastic3DSetup& setup)
    : setup_(setup), medium_(padded_medium<T>(setup)), damping_(elastic_damping_tables<T>(setup)),
      source_weights_(source_weights_as<T>(setup)), cpml_table_(elastic_cpml_table<T>(setup)),
      vp_(elastic_vp_field(setup)) {
  for (std::vector<T>& s : stress_) s.assign(setup_.grid.elements(), T(0));
  reset();
}

template <typename T>
void HostElastic3D<T>::reset() {
  for (auto& level : u_)
    for (std::vector<T>& f : level) f.assign(setup_.grid.elements(), T(0));
  prev_ = 0, cur_ = 1, next_ = 2;
  steps_done_ = 0;
  trace_first_ = 0;
  traces_.clear();
  cpml_memory_.assign(setup_.cpml_layout.memory_values(kElasticCpmlVars, setup_.grid), T(0));
  refresh_ghosts();
}

template <typename T>
void HostElastic3D<T>::refresh_ghosts() {
  for (int c = 0; c < 3; ++c) fill_ghosts_host(u_[cur_][c].data(), setup_.grid, ghost_rule_of(setup_), T(1));
}

template <typename T>
void HostElastic3D<T>::poison_scratch() {
  for (std::vector<T>& f : u_[next_]) std::fill(f.begin(), f.end(), std::numeric_limits<T>::quiet_NaN());
  for (std::vector<T>& f : stress_) std::fill(f.begin(), f.end(), std::numeric_limits<T>::quiet_NaN());
}

template <typename T>
void HostElastic3D<T>::step(int n) {
  const Grid3D g = setup_.grid;
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  const T* tx = damping_.data();
  const T* ty = tx + g.nx;
  const T* tz = ty + g.ny;
  const ElasticGhostRule rule = ghost_rule_of(setup_);
  const bool free_top = rule.free_top;
  const T* wsrc = source_weights_.data();
  const PaddedMedium<T>& m = medium_;
  dispatch_radius(setup_.config.order, [&]<int R>() {
    for (int step = 0; step < n; ++step) {
      const T* ux = u_[cur_][0].data();
      const T* uy = u_[cur_][1].data();
      const T* uz = u_[cur_][2].data();
      T* s[6];
      for (int c = 0; c < 6; ++c) s[c] = stress_[c].data();
      // 1-2: strains and stresses.
#pragma omp parallel for schedule(static)
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            const std::size_t e = g.index(i, j, k);
            const Strain6<T> eps = elastic_strain_at<T, R>(ux, uy, uz, e, pitch, plane);
            const Stress6<T> sig =
                elastic_stress(eps, VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]}, free_top && k == 0);
            s[0][e] = sig.xx, s[1][e] = sig.yy, s[2][e] = sig.zz, s[3][e] = sig.xy, s[4][e] = sig.xz, s[5][e] = sig.yz;
          }
      const ElasticCpml<T> cp{setup_.cpml_layout, cpml_memory_.data(), cpml_table_.data()};
      const long long cpml_nodes = cp.layout.nodes(g);
      if (cp.layout.any()) {  // the CPML's stress pass
#pragma omp parallel for schedule(static)
        for (long long n = 0; n < cpml_nodes; ++n) {
          int i, j, k;
          cp.layout.node(g, n, i, j, k);
          const std::size_t e = g.index(i, j, k);
          elastic_cpml_stress<T, R>(ux, uy, uz, cp, VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]},
                                    free_top && k == 0, g, i, j, k, s);
        }
      }
      // 4: the stress source; 3: the stress ghosts (free-surface images).
      const ElasticStressStep<T> stress_src = elastic3d_stress_step<T>(setup_, steps_done_);
      for (int r = 0; r < stress_src.n; ++r) {
        const int* at = stress_src.node[r];
        for (int k = std::max(0, at[2] - kSourceRadius); k <= std::min(g.nz - 1, at[2] + kSourceRadius); ++k)
          for (int j = std::max(0, at[1] - kSourceRadius); j <= std::min(g.ny - 1, at[1] + kSourceRadius); ++j)
            for (int i = std::max(0, at[0] - kSourceRadius); i <= std::min(g.nx - 1, at[0] + kSourceRadius); ++i) {
              if (!elastic_source_owner(stress_src, r, i, j, k)) continue;
              const std::size_t e = g.index(i, j, k);
              T v[6] = {s[0][e], s[1][e], s[2][e], s[3][e], s[4][e], s[5][e]};
              elastic_add_stresses(stress_src, i, j, k, wsrc, v);
              for (int c = 0; c < 6; ++c) s[c][e] = v[c];
            }
      }
      for (int c = 0; c < 6; ++c) fill_ghosts_host(s[c], g, rule, static_cast<T>(elastic_stress_top_sign(c)));
      // 5-7: divergence, force source, update.
      const ElasticForceStep<T> forces = elastic3d_force_step<T>(setup_, steps_done_);
      const T* pv[3] = {u_[prev_][0].data(), u_[prev_][1].data(), u_[prev_][2].data()};
      T* out[3] = {u_[next_][0].data(), u_[next_][1].data(), u_[next_][2].data()};
      const T* cu[3] = {ux, uy, uz};
      const T* const sc[6] = {s[0], s[1], s[2], s[3], s[4], s[5]};
#pragma omp parallel for schedule(static)
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            const std::size_t e = g.index(i, j, k);
            T a[3];
            elastic_divergence_at<T, R>(sc, e, pitch, plane, a);
            if (forces.n > 0) elastic_add_forces(forces, i, j, k, wsrc, a);
            const T damp = (tx[i] * ty[j]) * tz[k];
            for (int c = 0; c < 3; ++c) out[c][e] = elastic_update(cu[c][e], pv[c][e], m.q[e], a[c], damp);
          }
      if (cp.layout.any()) {  // the CPML's update pass
        T* const outs[3] = {out[0], out[1], out[2]};
#pragma omp parallel for schedule(static)
        for (long long n = 0; n < cpml_nodes; ++n) {
          int i, j, k;
          cp.layout.node(g, n, i, j, k);
          elastic_cpml_update<T, R>(sc, cp, m.q[g.index(i, j, k)], g, i, j, k, outs);
        }
      }
      // 8: Clayton-Engquist on the outermost nodes of the absorbing faces.
      if (setup_.absorbing_bottom()) {
        const CeFaces faces = ce_faces_of(setup_);
        const long long nce = elastic_ce_nodes(g, faces);
#pragma omp parallel for schedule(static)
        for (long long e = 0; e < nce; ++e) {
          const CeNode nd = elastic_ce_node(g, faces, e);
          const T damp = (tx[nd.i] * ty[nd.j]) * tz[nd.k];
          const std::size_t at = g.index(nd.i, nd.j, nd.k);
          for (int c = 0; c < 3; ++c)
            out[c][at] = elastic_ce_value(nd, c, cu[c], g, m.c11.data(), m.c33.data(), m.c44.data(), m.c66.data(),
                                          m.q.data(), damp);
        }
      }
      // 9: ghosts of u^{n+1}, receivers, rotation.
      for (int c = 0; c < 3; ++c) fill_ghosts_host(out[c], g, rule, T(1));
      if (trace_rows() < setup_.trace_steps)
        for (int c = 0; c < 3; ++c)
          for (const auto& at : setup_.receivers) traces_.push_back(out[c][g.index(at[0], at[1], at[2])]);
      const int old_prev = prev_;
      prev_ = cur_, cur_ = next_, next_ = old_prev;
      ++steps_done_;
    }
  });
}

template <typename T>
const std::vector<float>& HostElastic3D<T>::derived(ElasticDerived q) {
  const Grid3D& g = setup_.grid;
  derived_.assign(g.elements(), 0.0f);
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  const double inv_h = 1.0 / setup_.config.h;
  const T* ux = u_[cur_][0].data();
  const T* uy = u_[cur_][1].data();
  const T* uz = u_[cur_][2].data();
  dispatch_radius(setup_.config.order, [&]<int R>() {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::size_t e = g.index(i, j, k);
          derived_[e] = elastic_derived_at<T, R>(q, ux, uy, uz, e, pitch, plane, inv_h);
        }
  });
  return derived_;
}

template <typename T>
void HostElastic3D<T>::set_order(int order) {
  Elastic3DConfig c = setup_.config;
  c.order = order;
  Elastic3DSetup next = make_elastic3d_setup(c);  // throws for a bad order or a dt above its limit
  setup_ = next;
}

template <typename T>
void HostElastic3D<T>::set_sources(const std::vector<SourceSpec>& sources) {
  Elastic3DSetup next = setup_;
  set_elastic3d_sources(next, sources);  // throws, keeping the old list
  setup_ = std::move(next);
}

template <typename T>
void HostElastic3D<T>::set_receivers(const ReceiverLayout& layout) {
  Elastic3DSetup next = setup_;
  set_elastic3d_receivers(next, layout);  // throws, keeping the old receivers
  setup_ = std::move(next);
  traces_.clear();
  trace_first_ = steps_done_;
}

std::vector<double> elastic3d_paint_pulse(const Sphere& sp, const CellBox& b) {
  std::vector<double> add;
  const double sigma = std::max(0.5, sp.radius / 2);
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        const double dx = i + 0.5 - sp.x, dy = j + 0.5 - sp.y, dz = k + 0.5 - sp.z;
        add.push_back(in_sphere(sp, i, j, k) ? sp.value * std::exp(-(dx * dx + dy * dy + dz * dz) / (2 * sigma * sigma))
                                             : 0.0);
      }
  return add;
}

template <typename T>
void HostElastic3D<T>::paint(const Sphere& sp) {
  const Grid3D& g = setup_.grid;
  const CellBox b = sphere_cells(sp, g);
  if (b.empty()) return;
  const std::vector<double> add = elastic3d_paint_pulse(sp, b);
  std::size_t n = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i, ++n) {
        const T v = static_cast<T>(add[n]);
        for (int f : {cur_, prev_}) u_[f][2][g.index(i, j, k)] = u_[f][2][g.index(i, j, k)] + v;
      }
  refresh_ghosts();
}

template <typename T>
ElasticState<T> HostElastic3D<T>::state() const {
  ElasticState<T> s;
  for (int c = 0; c < 3; ++c) {
    s.u[c] = extract_interior3d(u_[cur_][c], setup_.grid);
    s.u_prev[c] = extract_interior3d(u_[prev_][c], setup_.grid);
  }
  return s;
}

template <typename T>
void HostElastic3D<T>::load(const ElasticState<T>& s, long steps_done) {
  const Grid3D& g = setup_.grid;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::size_t e = setup_.node(i, j, k);
          u_[cur_][c][g.index(i, j, k)] = s.u[c][e];
          u_[prev_][c][g.index(i, j, k)] = s.u_prev[c][e];
        }
  steps_done_ = steps_done;
  trace_first_ = steps_done;
  traces_.clear();
  std::fill(cpml_memory_.begin(), cpml_memory_.end(), T(0));
  refresh_ghosts();
}

template class HostElastic3D<float>;
template class HostElastic3D<double>;

template <typename T>
ElasticState<double> to_double(const ElasticState<T>& s) {
  ElasticState<double> d;
  for (int c = 0; c < 3; ++c) {
    d.u[c].assign(s.u[c].begin(), s.u[c].end());
    d.u_prev[c].assign(s.u_prev[c].begin(), s.u_prev[c].end());
  }
  return d;
}
template ElasticState<double> to_double(const ElasticState<float>&);
template ElasticState<double> to_double(const ElasticState<double>&);

// ---- the reference ---------------------------------------------------------------

namespace {

// The reference's own padded layout: (n + 2G) per axis, no alignment.
struct RefField {
  int nx, ny, nz, wx, wy;
  std::vector<double> v;
  RefField(int nx_, int ny_, int nz_)
      : nx(nx_), ny(ny_), nz(nz_), wx(nx_ + 2 * kGhost), wy(ny_ + 2 * kGhost),
        v(static_cast<std::size_t>(wx) * wy * (nz_ + 2 * kGhost), 0.0) {}
  double& at(int i, int j, int k) {
    return v[(static_cast<std::size_t>(k + kGhost) * wy + (j + kGhost)) * wx + (i + kGhost)];
  }
};

// Ghosts by cases: wrapped (periodic), 0 beyond the sponge, or mirrored above a free top
// with `sign` (+1 even, -1 odd).
void reference_ghosts(RefField& u, const Elastic3DSetup& s, double sign) {
  const bool periodic = s.config.boundary == ElasticBoundary::periodic ||
                        s.config.boundary == ElasticBoundary::periodic_sides;  // x and y
  const bool periodic_z = s.config.boundary == ElasticBoundary::periodic;
  const bool free_top = s.free_top();
  const int nx = u.nx, ny = u.ny, nz = u.nz;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int m = 1; m <= kGhost; ++m) {
        u.at(-m, j, k) = periodic ? u.at(nx - m, j, k) : 0.0;
        u.at(nx - 1 + m, j, k) = periodic ? u.at(m - 1, j, k) : 0.0;
      }
  for (int k = 0; k < nz; ++k)
    for (int i = 0; i < nx; ++i)
      for (int m = 1; m <= kGhost; ++m) {
        u.at(i, -m, k) = periodic ? u.at(i, ny - m, k) : 0.0;
        u.at(i, ny - 1 + m, k) = periodic ? u.at(i, m - 1, k) : 0.0;
      }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      for (int m = 1; m <= kGhost; ++m) {
        u.at(i, j, -m) = periodic_z ? u.at(i, j, nz - m) : free_top ? sign * u.at(i, j, m) : 0.0;
        u.at(i, j, nz - 1 + m) = periodic_z ? u.at(i, j, m - 1) : 0.0;
      }
}

// d/d(axis) at unit spacing, plainly.
double ref_d(RefField& f, int i, int j, int k, int axis, int R, const std::array<double, kMaxRadius + 1>& w) {
  double d = 0;
  for (int m = 1; m <= R; ++m) {
    const int di = axis == 0 ? m : 0, dj = axis == 1 ? m : 0, dk = axis == 2 ? m : 0;
    d += w[m] * (f.at(i + di, j + dj, k + dk) - f.at(i - di, j - dj, k - dk));
  }
  return d;
}

struct RefMedium {
  double c11, c13, c33, c44, c66, rho;
};

RefMedium ref_medium(const Elastic3DSetup& s, int i, int j, int k) {
  const std::size_t e = s.node(i, j, k);
  const ElasticMediumField& m = *s.medium;
  return {m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e], m.rho[e]};
}

// h sigma (xx, yy, zz, xy, xz, yz) from the unit-spacing strains, written out.
std::array<double, 6> ref_stress(const RefMedium& c, const std::array<double, 6>& e, bool surface) {
  const double c12 = c.c11 - 2 * c.c66;
  if (surface) {  // sigma_zz = 0 gives eps_zz = -C13 / C33 (eps_xx + eps_yy)
    const double ezz = -c.c13 / c.c33 * (e[0] + e[1]);
    return {c.c11 * e[0] + c12 * e[1] + c.c13 * ezz, c12 * e[0] + c.c11 * e[1] + c.c13 * ezz, 0.0,
            2 * c.c66 * e[3], 0.0, 0.0};
  }
  return {c.c11 * e[0] + c12 * e[1] + c.c13 * e[2], c12 * e[0] + c.c11 * e[1] + c.c13 * e[2],
          c.c13 * (e[0] + e[1]) + c.c33 * e[2], 2 * c.c66 * e[3], 2 * c.c44 * e[4], 2 * c.c44 * e[5]};
}

std::array<double, 6> ref_strain(std::array<RefField, 3>& u, int i, int j, int k, int R,
                                 const std::array<double, kMaxRadius + 1>& w) {
  double g[3][3];
  for (int c = 0; c < 3; ++c)
    for (int a = 0; a < 3; ++a) g[c][a] = ref_d(u[c], i, j, k, a, R, w);
  return {g[0][0], g[1][1], g[2][2], 0.5 * (g[0][1] + g[1][0]), 0.5 * (g[0][2] + g[2][0]), 0.5 * (g[1][2] + g[2][1])};
}

// The weight of source r's box at node (i, j, k); 0 outside its box.
double ref_weight(const Elastic3DSetup& s, std::size_t r, int i, int j, int k) {
  const auto& at = s.sources[r].node;
  if (std::abs(i - at[0]) > kSourceRadius || std::abs(j - at[1]) > kSourceRadius || std::abs(k - at[2]) > kSourceRadius)
    return 0.0;
  const int W = 2 * kSourceRadius + 1;
  const int a = i - at[0] + kSourceRadius, b = j - at[1] + kSourceRadius, c = k - at[2] + kSourceRadius;
  return s.source_weights[(static_cast<std::size_t>(c) * W + b) * W + a];
}

// The CPML layer along axis a that holds node index i: how many nodes it lies in from the
// outermost, or -1 outside every layer (no layer under a free top, nor without cpml).
int ref_cpml_depth(const Elastic3DSetup& s, int a, int i) {
  if (s.config.boundary != ElasticBoundary::cpml) return -1;
  const int n = a == 0 ? s.grid.nx : a == 1 ? s.grid.ny : s.grid.nz;
  const int d = a == 2 && s.free_top() ? n - 1 - i : std::min(i, n - 1 - i);
  return d < s.cpml ? d : -1;
}

std::array<RefField, 3> ref_fields(const Grid3D& g) {
  return {RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz)};
}

}  // namespace

ElasticState<double> elastic3d_reference(const Elastic3DSetup& s, int steps, std::vector<double>* traces,
                                         const ElasticState<double>* start) {
  const Grid3D& g = s.grid;
  const int R = radius_of_order(s.config.order);
  const auto w = first_derivative_weights_runtime(s.config.order);
  const bool free_top = s.free_top(), sides = s.absorbing_sides();
  auto prev = ref_fields(g), cur = ref_fields(g), next = ref_fields(g);
  std::array<RefField, 6> sig = {RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz),
                                 RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz), RefField(g.nx, g.ny, g.nz)};
  if (start)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            cur[c].at(i, j, k) = start->u[c][s.node(i, j, k)];
            prev[c].at(i, j, k) = start->u_prev[c][s.node(i, j, k)];
          }
  if (traces) traces->clear();
  const double h = s.config.h, dt = s.dt;
  // The CPML's memory variables on the whole grid (0 outside their layers): psi[a][c] of
  // d_a u_c, phi[a][c] of d_a sigma_ca.
  const bool cpml = s.config.boundary == ElasticBoundary::cpml;
  std::vector<std::vector<double>> psi(cpml ? 9 : 0, std::vector<double>(g.points(), 0.0)), phi = psi;
  auto coefficients = [&](int d) {
    return cpml_coefficients(d, s.cpml, s.vmax, s.config.h, s.dt, s.config.f0, s.config.cpml_reflection);
  };
  for (int n = 0; n < steps; ++n) {
    for (int c = 0; c < 3; ++c) reference_ghosts(cur[c], s, 1.0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          std::array<double, 6> strain = ref_strain(cur, i, j, k, R, w);
          if (cpml) {  // the stretched derivatives d_a u_c + psi_ac in the layers
            double grad[3][3];
            for (int c = 0; c < 3; ++c)
              for (int a = 0; a < 3; ++a) grad[c][a] = ref_d(cur[c], i, j, k, a, R, w);
            const int at[3] = {i, j, k};
            for (int a = 0; a < 3; ++a) {
              const int d = ref_cpml_depth(s, a, at[a]);
              if (d < 0) continue;
              const CpmlCoefficients cc = coefficients(d);
              for (int c = 0; c < 3; ++c) {
                double& v = psi[3 * a + c][s.node(i, j, k)];
                v = cc.b * v + cc.c * grad[c][a];
                grad[c][a] += v;
              }
            }
            strain = {grad[0][0], grad[1][1], grad[2][2], 0.5 * (grad[0][1] + grad[1][0]),
                      0.5 * (grad[0][2] + grad[2][0]), 0.5 * (grad[1][2] + grad[2][1])};
          }
          const std::array<double, 6> st = ref_stress(ref_medium(s, i, j, k), strain, free_top && k == 0);
          for (int c = 0; c < 6; ++c) sig[c].at(i, j, k) = st[c];
        }
    for (std::size_t r = 0; r < s.sources.size(); ++r) {
      if (s.sources[r].kind == SourceKind::force) continue;
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            const double wr = ref_weight(s, r, i, j, k);
            if (wr != 0)
              for (int c = 0; c < 6; ++c) sig[c].at(i, j, k) += s.stress_increment(n, r, c) * wr;
          }
    }
    for (int c = 0; c < 6; ++c) reference_ghosts(sig[c], s, c == 2 || c == 4 || c == 5 ? -1.0 : 1.0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          // a_i = d_j sigma_ij (unit spacing), + F_i / h at the source.
          const int comp[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
          const RefMedium md = ref_medium(s, i, j, k);
          const double q = dt * dt / (md.rho * h * h);
          const double d = s.damping(0, i) * s.damping(1, j) * s.damping(2, k);
          for (int c = 0; c < 3; ++c) {
            double a = 0;
            for (int ax = 0; ax < 3; ++ax) {
              const double dsig = ref_d(sig[comp[c][ax]], i, j, k, ax, R, w);
              a += dsig;
              const int at[3] = {i, j, k};
              const int dd = cpml ? ref_cpml_depth(s, ax, at[ax]) : -1;
              if (dd >= 0) {  // the stretched derivative: + phi_{ax, c}
                const CpmlCoefficients cc = coefficients(dd);
                double& v = phi[3 * ax + c][s.node(i, j, k)];
                v = cc.b * v + cc.c * dsig;
                a += v;
              }
            }
            for (std::size_t r = 0; r < s.sources.size(); ++r)
              if (s.sources[r].kind == SourceKind::force) a += s.force_increment(n, r, c) * ref_weight(s, r, i, j, k);
            next[c].at(i, j, k) = d * (2 * cur[c].at(i, j, k) - d * prev[c].at(i, j, k) + q * a);
          }
        }
    if (s.absorbing_bottom()) {
      // Clayton-Engquist A1 on the outermost nodes of the absorbing faces; a node on several
      // takes the first of x-low, x-high, y-low, y-high (under `sponge`), z-high (bottom),
      // z-low (absorbing top).
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            int axis = -1, side = 0;
            if (sides && (i == 0 || i == g.nx - 1)) axis = 0, side = i == 0 ? -1 : 1;
            else if (sides && (j == 0 || j == g.ny - 1)) axis = 1, side = j == 0 ? -1 : 1;
            else if (k == g.nz - 1) axis = 2, side = 1;
            else if (k == 0 && !free_top) axis = 2, side = -1;
            if (axis < 0) continue;
            const RefMedium md = ref_medium(s, i, j, k);
            const double q = dt * dt / (md.rho * h * h);
            const double d = s.damping(0, i) * s.damping(1, j) * s.damping(2, k);
            const int ii = i - (axis == 0 ? side : 0), jj = j - (axis == 1 ? side : 0), kk = k - (axis == 2 ? side : 0);
            for (int c = 0; c < 3; ++c) {
              const double stiff = c == axis ? (axis == 2 ? md.c33 : md.c11) : (axis != 2 && c != 2 ? md.c66 : md.c44);
              const double v = std::sqrt(stiff * q);
              const double u0 = cur[c].at(i, j, k);
              next[c].at(i, j, k) = d * (u0 - v * (u0 - cur[c].at(ii, jj, kk)));
            }
          }
    }
    if (traces && n < s.trace_steps)
      for (int c = 0; c < 3; ++c)
        for (const auto& at : s.receivers) traces->push_back(next[c].at(at[0], at[1], at[2]));
    for (int c = 0; c < 3; ++c) {
      std::swap(prev[c].v, cur[c].v);
      std::swap(cur[c].v, next[c].v);
    }
  }
  ElasticState<double> out;
  for (int c = 0; c < 3; ++c) {
    out.u[c].resize(g.points());
    out.u_prev[c].resize(g.points());
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          out.u[c][s.node(i, j, k)] = cur[c].at(i, j, k);
          out.u_prev[c][s.node(i, j, k)] = prev[c].at(i, j, k);
        }
  }
  return out;
}

double elastic3d_energy(const Elastic3DSetup& s, const ElasticState<double>& st) {
  const Grid3D& g = s.grid;
  for (int c = 0; c < 3; ++c)
    if (st.u[c].size() != g.points() || st.u_prev[c].size() != g.points())
      throw Error(fmt::format("elastic3d_energy: a state of {} values for a grid of {} nodes", st.u[c].size(), g.points()));
  const int R = radius_of_order(s.config.order);
  const auto w = first_derivative_weights_runtime(s.config.order);
  auto a = ref_fields(g), b = ref_fields(g);
  for (int c = 0; c < 3; ++c) {
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          a[c].at(i, j, k) = st.u[c][s.node(i, j, k)];
          b[c].at(i, j, k) = st.u_prev[c][s.node(i, j, k)];
        }
    reference_ghosts(a[c], s, 1.0);
    reference_ghosts(b[c], s, 1.0);
  }
  const double h = s.config.h, dt = s.dt;
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const RefMedium md = ref_medium(s, i, j, k);
        const std::size_t e = s.node(i, j, k);
        double kinetic = 0;
        for (int c = 0; c < 3; ++c) {
          const double v = (st.u[c][e] - st.u_prev[c][e]) / dt;
          kinetic += md.rho * v * v;
        }
        const std::array<double, 6> sig = ref_stress(md, ref_strain(a, i, j, k, R, w), false);
        const std::array<double, 6> eps = ref_strain(b, i, j, k, R, w);
        const double work = sig[0] * eps[0] + sig[1] * eps[1] + sig[2] * eps[2] +
                            2 * (sig[3] * eps[3] + sig[4] * eps[4] + sig[5] * eps[5]);
        sum += kinetic + work / (h * h);
      }
  return 0.5 * h * h * h * sum;
}

void write_elastic_traces_npy(const std::string& path, const std::vector<float>& traces, int nx) {
  const std::size_t row = 3 * static_cast<std::size_t>(std::max(nx, 0));
  if (nx < 1 || traces.size() % row != 0)
    throw Error(fmt::format("{} trace values are no whole number of rows of 3 x {}", traces.size(), nx));
  write_npy(path, traces.data(), {traces.size() / row, 3, static_cast<std::size_t>(nx)});
}

}  // namespace ss
