// CPU backend of acoustic 3D: the `cpu` variant (shared point function, OpenMP), the
// double reference (independent plain loops), the discrete energy and the trace file.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"  // ghost_face_cells
#include "sim/core/npy.hpp"
#include "sim/models/acoustic3d/acoustic3d_host_step.hpp"
#include "sim/models/acoustic3d/acoustic3d_solver.hpp"

namespace ss {

namespace {

template <typename T>
void fill_acoustic_ghosts_host(T* f, const Grid3D& g, AcousticGhostRule r) {
  const long long n = ghost_face_cells(g);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (long long e = 0; e < n; ++e) write_acoustic_ghost(f, g, e, r);
}

}  // namespace

template <typename T>
HostAcoustic3D<T>::HostAcoustic3D(const Acoustic3DSetup& setup)
    : setup_(setup), c2_(courant2_field<T>(setup)), damping_(damping_tables<T>(setup)),
      cpml_table_(acoustic_cpml_table<T>(setup)), velocity_(velocity_field(setup)) {
  reset();
}

template <typename T>
void HostAcoustic3D<T>::reset() {
  for (std::vector<T>& f : field_) f.assign(setup_.grid.elements(), T(0));
  prev_ = 0, cur_ = 1, next_ = 2;
  steps_done_ = 0;
  trace_first_ = 0;
  traces_.clear();
  cpml_memory_.assign(setup_.cpml_layout.memory_values(kAcousticCpmlVars, setup_.grid), T(0));
  refresh_ghosts();
}

template <typename T>
void HostAcoustic3D<T>::refresh_ghosts() {
  fill_acoustic_ghosts_host(field_[cur_].data(), setup_.grid, ghost_rule_of(setup_));
}

template <typename T>
void HostAcoustic3D<T>::poison_scratch() {
  std::fill(field_[next_].begin(), field_[next_].end(), std::numeric_limits<T>::quiet_NaN());
}

template <typename T>
void HostAcoustic3D<T>::step(int n) {
  const Grid3D g = setup_.grid;
  const T* tx = damping_.data();
  const T* ty = tx + g.nx;
  const T* tz = ty + g.ny;
  const AcousticGhostRule rule = ghost_rule_of(setup_);
  dispatch_radius(setup_.config.order, [&]<int R>() {
    for (int s = 0; s < n; ++s) {
      const T* p = field_[cur_].data();
      const T* pp = field_[prev_].data();
      T* out = field_[next_].data();
      acoustic3d_interior_host<T, R>(g, p, pp, c2_.data(), tx, ty, tz, out);
      if (setup_.cpml_layout.any()) {  // the CPML's two passes over the slab nodes
        const AcousticCpml<T> cp{setup_.cpml_layout, cpml_memory_.data(), cpml_table_.data()};
        const long long nodes = cp.layout.nodes(g);
#pragma omp parallel for schedule(static)
        for (long long e = 0; e < nodes; ++e) {
          int i, j, k;
          cp.layout.node(g, e, i, j, k);
          acoustic3d_cpml_psi<T, R>(p, cp, g, i, j, k);
        }
#pragma omp parallel for schedule(static)
        for (long long e = 0; e < nodes; ++e) {
          int i, j, k;
          cp.layout.node(g, e, i, j, k);
          const std::size_t at = g.index(i, j, k);
          out[at] = fma_t(c2_[at], acoustic3d_cpml_term<T, R>(p, cp, g, i, j, k), out[at]);
        }
      }
      const AcousticSourceStep<T> src = acoustic3d_source_step<T>(setup_, steps_done_);
      for (int r = 0; r < src.n; ++r)
        if (acoustic_source_owner(src, r)) out[src.at[r]] = acoustic_add_sources(out[src.at[r]], src.at[r], src);
      fill_acoustic_ghosts_host(out, g, rule);
      if (trace_rows() < setup_.trace_steps)
        for (const auto& n : setup_.receivers) traces_.push_back(out[g.index(n[0], n[1], n[2])]);
      const int old_prev = prev_;
      prev_ = cur_, cur_ = next_, next_ = old_prev;
      ++steps_done_;
    }
  });
}

template <typename T>
void HostAcoustic3D<T>::set_order(int order) {
  Acoustic3DConfig c = setup_.config;
  c.order = order;
  c.velocity = setup_.velocity;  // the same medium, not rebuilt
  Acoustic3DSetup next = make_acoustic3d_setup(c);  // throws for a bad order or a dt above its limit
  next.config.velocity = setup_.config.velocity;
  setup_ = next;
}

template <typename T>
void HostAcoustic3D<T>::set_sources(const std::vector<SourceSpec>& sources) {
  Acoustic3DSetup next = setup_;
  set_acoustic3d_sources(next, sources);  // throws, keeping the old list
  setup_ = std::move(next);
}

template <typename T>
void HostAcoustic3D<T>::set_receivers(const ReceiverLayout& layout) {
  Acoustic3DSetup next = setup_;
  set_acoustic3d_receivers(next, layout);  // throws, keeping the old receivers
  setup_ = std::move(next);
  traces_.clear();
  trace_first_ = steps_done_;
}

std::vector<double> acoustic3d_paint_pulse(const Sphere& s, const CellBox& b, bool free_top) {
  std::vector<double> add;
  const double sigma = std::max(0.5, s.radius / 2);
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        const double dx = i + 0.5 - s.x, dy = j + 0.5 - s.y, dz = k + 0.5 - s.z;
        const double r2 = dx * dx + dy * dy + dz * dz;
        add.push_back(in_sphere(s, i, j, k) && !(free_top && k == 0) ? s.value * std::exp(-r2 / (2 * sigma * sigma)) : 0.0);
      }
  return add;
}

template <typename T>
void HostAcoustic3D<T>::paint(const Sphere& s) {
  const Grid3D& g = setup_.grid;
  const CellBox b = sphere_cells(s, g);
  if (b.empty()) return;
  const std::vector<double> add = acoustic3d_paint_pulse(s, b, ghost_rule_of(setup_).free_top);
  std::size_t n = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i, ++n) {
        const T v = static_cast<T>(add[n]);
        for (int f : {cur_, prev_}) field_[f][g.index(i, j, k)] = field_[f][g.index(i, j, k)] + v;
      }
  refresh_ghosts();
}

template <typename T>
std::vector<T> HostAcoustic3D<T>::interior() const {
  return extract_interior3d(field_[cur_], setup_.grid);
}

template <typename T>
std::vector<T> HostAcoustic3D<T>::previous_interior() const {
  return extract_interior3d(field_[prev_], setup_.grid);
}

template <typename T>
void HostAcoustic3D<T>::load_interior(const T* p, const T* p_prev, long steps_done) {
  const Grid3D& g = setup_.grid;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t e = (static_cast<std::size_t>(k) * g.ny + j) * g.nx + i;
        field_[cur_][g.index(i, j, k)] = p[e];
        field_[prev_][g.index(i, j, k)] = p_prev[e];
      }
  steps_done_ = steps_done;
  trace_first_ = steps_done;
  traces_.clear();
  std::fill(cpml_memory_.begin(), cpml_memory_.end(), T(0));
  refresh_ghosts();
}

template class HostAcoustic3D<float>;
template class HostAcoustic3D<double>;

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

// Ghost faces by cases, one axis at a time: wrapped (periodic), 0 beyond the sponge, or
// the odd mirror p(-m) = -p(m) above the free surface.
void reference_ghosts(RefField& u, const Acoustic3DSetup& s) {
  const bool periodic = s.config.boundary == AcousticBoundary::periodic;
  const bool free_top = !periodic && s.config.top == TopBoundary::free;
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
        u.at(i, j, -m) = periodic ? u.at(i, j, nz - m) : free_top ? -u.at(i, j, m) : 0.0;
        u.at(i, j, nz - 1 + m) = periodic ? u.at(i, j, m - 1) : 0.0;
      }
}

// lap_1 (unit spacing) of u at (i, j, k), plainly.
double reference_laplacian(RefField& u, int i, int j, int k, int R, const std::array<double, kMaxRadius + 1>& w) {
  double lap = 0;
  for (int m = -R; m <= R; ++m) lap += w[std::abs(m)] * (u.at(i + m, j, k) + u.at(i, j + m, k) + u.at(i, j, k + m));
  return lap;
}

// The CPML layer along axis a that holds node index i: how many nodes it lies in from the
// outermost, or -1 outside every layer (no layer under a free top, nor without cpml).
int ref_cpml_depth(const Acoustic3DSetup& s, int a, int i) {
  if (s.config.boundary != AcousticBoundary::cpml) return -1;
  const int n = a == 0 ? s.grid.nx : a == 1 ? s.grid.ny : s.grid.nz;
  const bool free_top = a == 2 && s.config.top == TopBoundary::free;
  const int d = free_top ? n - 1 - i : std::min(i, n - 1 - i);
  return d < s.cpml ? d : -1;
}

// A whole-grid array (zero beyond the faces) for the reference's CPML memory variables.
struct RefMemory {
  int nx, ny, nz;
  std::vector<double> v;
  RefMemory(int nx_, int ny_, int nz_) : nx(nx_), ny(ny_), nz(nz_), v(static_cast<std::size_t>(nx_) * ny_ * nz_, 0.0) {}
  double& at(int i, int j, int k) { return v[(static_cast<std::size_t>(k) * ny + j) * nx + i]; }
  double get(int i, int j, int k) const {
    if (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz) return 0.0;
    return v[(static_cast<std::size_t>(k) * ny + j) * nx + i];
  }
};

}  // namespace

std::vector<double> acoustic3d_reference(const Acoustic3DSetup& s, int steps, std::vector<double>* traces) {
  const Grid3D& g = s.grid;
  const int R = radius_of_order(s.config.order);
  const auto w = second_derivative_weights_runtime(s.config.order);
  RefField prev(g.nx, g.ny, g.nz), cur(g.nx, g.ny, g.nz), next(g.nx, g.ny, g.nz);
  std::vector<double> c2(g.points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) c2[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = s.courant2(i, j, k);
  if (traces) traces->clear();
  const auto w1 = first_derivative_weights_runtime(s.config.order);
  const bool cpml = s.config.boundary == AcousticBoundary::cpml;
  std::vector<RefMemory> psi(3, RefMemory(g.nx, g.ny, g.nz)), zeta(3, RefMemory(g.nx, g.ny, g.nz));
  auto coefficients = [&](int d) {
    return cpml_coefficients(d, s.cpml, s.vmax, s.config.h, s.dt, s.config.f0, s.config.cpml_reflection);
  };
  for (int n = 0; n < steps; ++n) {
    reference_ghosts(cur, s);
    if (cpml) {  // psi_a = b psi_a + c d_a p^n in layer a
#pragma omp parallel for schedule(static)
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            const int at[3] = {i, j, k};
            for (int a = 0; a < 3; ++a) {
              const int d = ref_cpml_depth(s, a, at[a]);
              if (d < 0) continue;
              double dp = 0;
              for (int m = 1; m <= R; ++m) {
                int hi[3] = {i, j, k}, lo[3] = {i, j, k};
                hi[a] += m, lo[a] -= m;
                dp += w1[m] * (cur.at(hi[0], hi[1], hi[2]) - cur.at(lo[0], lo[1], lo[2]));
              }
              const CpmlCoefficients c = coefficients(d);
              psi[a].at(i, j, k) = c.b * psi[a].at(i, j, k) + c.c * dp;
            }
          }
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const double d = s.damping(0, i) * s.damping(1, j) * s.damping(2, k);
          const double lap = reference_laplacian(cur, i, j, k, R, w);
          next.at(i, j, k) = d * (2 * cur.at(i, j, k) - d * prev.at(i, j, k) +
                                  c2[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] * lap);
        }
    if (cpml) {  // zeta_a = b zeta_a + c (d_aa p + d_a psi_a); p^{n+1} += c2 (d_a psi_a + zeta_a)
#pragma omp parallel for schedule(static)
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) {
            const int at[3] = {i, j, k};
            double term = 0;
            for (int a = 0; a < 3; ++a) {
              const int d = ref_cpml_depth(s, a, at[a]);
              if (d < 0) continue;
              double d2 = w[0] * cur.at(i, j, k), dpsi = 0;
              for (int m = 1; m <= R; ++m) {
                int hi[3] = {i, j, k}, lo[3] = {i, j, k};
                hi[a] += m, lo[a] -= m;
                d2 += w[m] * (cur.at(hi[0], hi[1], hi[2]) + cur.at(lo[0], lo[1], lo[2]));
                dpsi += w1[m] * (psi[a].get(hi[0], hi[1], hi[2]) - psi[a].get(lo[0], lo[1], lo[2]));
              }
              const CpmlCoefficients c = coefficients(d);
              zeta[a].at(i, j, k) = c.b * zeta[a].at(i, j, k) + c.c * (d2 + dpsi);
              term += dpsi + zeta[a].at(i, j, k);
            }
            next.at(i, j, k) += c2[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] * term;
          }
    }
    for (std::size_t r = 0; r < s.sources.size(); ++r) {
      const auto& at = s.sources[r].node;
      next.at(at[0], at[1], at[2]) += s.source_increment(n, r);
    }
    if (traces && n < s.trace_steps)
      for (const auto& at : s.receivers) traces->push_back(next.at(at[0], at[1], at[2]));
    std::swap(prev.v, cur.v);
    std::swap(cur.v, next.v);
  }
  std::vector<double> out(g.points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) out[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = cur.at(i, j, k);
  return out;
}

double acoustic3d_energy(const Acoustic3DSetup& s, const std::vector<float>& p, const std::vector<float>& p_prev) {
  const Grid3D& g = s.grid;
  if (p.size() != g.points() || p_prev.size() != g.points())
    throw Error(fmt::format("acoustic3d_energy: fields of {} and {} values for a grid of {} nodes", p.size(),
                            p_prev.size(), g.points()));
  const int R = radius_of_order(s.config.order);
  const auto w = second_derivative_weights_runtime(s.config.order);
  RefField u(g.nx, g.ny, g.nz);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) u.at(i, j, k) = p_prev[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i];
  reference_ghosts(u, s);
  const double h = s.config.h, dt = s.dt;
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t e = (static_cast<std::size_t>(k) * g.ny + j) * g.nx + i;
        const double v = s.velocity_at(i, j, k);
        const double rate = (static_cast<double>(p[e]) - p_prev[e]) / dt;
        sum += rate * rate / (v * v) - p[e] * reference_laplacian(u, i, j, k, R, w) / (h * h);
      }
  return 0.5 * h * h * h * sum;
}

void write_traces_npy(const std::string& path, const std::vector<float>& traces, int nx) {
  if (nx < 1 || traces.size() % static_cast<std::size_t>(nx) != 0)
    throw Error(fmt::format("{} trace values are no whole number of rows of {}", traces.size(), nx));
  write_npy(path, traces.data(), {traces.size() / static_cast<std::size_t>(nx), static_cast<std::size_t>(nx)});
}

}  // namespace ss
