// Hydro 3D on the CPU: both methods over the shared point functions, OpenMP over planes.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"  // extract_interior3d
#include "sim/core/model.hpp"    // StepAccounting
#include "sim/models/hydro3d/hydro3d_bench.hpp"  // kHydroValuesPerCellSubstep
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

namespace {
/// Below this many cells a loop runs on one thread: a parallel region costs more than
/// the work, and far more when the cores are shared (its barrier waits for a thread the
/// scheduler has put aside).
constexpr long long kParallelCells = 1 << 16;
}  // namespace

std::string_view to_string(HydroVariant v) {
  switch (v) {
    case HydroVariant::global: return "global";
    case HydroVariant::p55: return "55pt";
    case HydroVariant::p19: return "19pt";
    case HydroVariant::stream25d: return "stream25d";
    case HydroVariant::cpu: return "cpu";
    case HydroVariant::cpu19pt: return "cpu19pt";
    case HydroVariant::reference: return "reference";
  }
  return "?";
}

HydroVariant parse_hydro_variant(std::string_view s) {
  for (HydroVariant v : kAllHydroVariants)
    if (s == to_string(v)) return v;
  throw Error(fmt::format("unknown hydro3d variant '{}' (global, 55pt, 19pt, stream25d, cpu, cpu19pt or reference)", s));
}

bool is_gpu(HydroVariant v) {
  return v == HydroVariant::global || v == HydroVariant::p55 || v == HydroVariant::p19 || v == HydroVariant::stream25d;
}

HydroMethod method_of(HydroVariant v) {
  return v == HydroVariant::p19 || v == HydroVariant::cpu19pt ? HydroMethod::two_pass : HydroMethod::single_pass;
}

template <typename T>
HydroStats hydro_stats(const HydroState<T>& st, double h) {
  HydroStats s;
  const std::size_t n = st[0].size();
  double kin = 0, mass = 0, umax2 = 0;
  bool finite = true;
#pragma omp parallel for reduction(+ : kin, mass) reduction(max : umax2) reduction(&& : finite)
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = std::exp(static_cast<double>(st[0][c]));
    const double ux = st[1][c], uy = st[2][c], uz = st[3][c];
    const double u2 = ux * ux + uy * uy + uz * uz;
    finite = finite && std::isfinite(rho) && std::isfinite(u2);
    kin += 0.5 * rho * u2;
    mass += rho;
    umax2 = std::max(umax2, u2);
  }
  s.kinetic = kin * h * h * h;
  s.mass = mass * h * h * h;
  s.umax = std::sqrt(umax2);
  s.finite = finite;
  return s;
}

template <typename T>
HydroSpeed hydro_max_speed(const T* const (&f)[kHydroFields], const Grid3D& g) {
  float u2max = 0;
  bool finite = true;
#pragma omp parallel for reduction(max : u2max) reduction(&& : finite)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t n = g.index(i, j, k);
        // as hydro_max_speed2 on the device: |u|^2 in T, rounded to float
        const float u2 = static_cast<float>(f[1][n] * f[1][n] + f[2][n] * f[2][n] + f[3][n] * f[3][n]);
        if (!std::isfinite(u2) || !std::isfinite(static_cast<float>(f[0][n]))) finite = false;
        else u2max = std::max(u2max, u2);
      }
  return {std::sqrt(static_cast<double>(u2max)), u2max, finite};
}
template HydroSpeed hydro_max_speed<float>(const float* const (&)[kHydroFields], const Grid3D&);
template HydroSpeed hydro_max_speed<double>(const double* const (&)[kHydroFields], const Grid3D&);

std::string hydro_health(const Hydro3DSetup& s, const HydroSpeed& speed, long steps, double dt, bool recomputes_next) {
  if (!speed.finite)
    return fmt::format("the flow holds NaN or Inf after step {} (dt {:.4g}, Courant limit at t = 0 {:.4g}): paused; reset "
                       "to go on",
                       steps, dt, s.dt_limit);
  if (recomputes_next) return {};  // the next step's dt comes from this very state
  const double limit = hydro3d_dt_limit(s.h, s.config.cs, s.config.nu, speed.umax);
  if (dt > limit) {
    if (s.adaptive())
      return fmt::format("the Courant limit is violated after step {}: |u|max {:.4g} + cs {:.4g} allows dt {:.4g}, and dt, "
                         "taken every {} steps, is {:.4g}: paused before it blows up; reset, or take dt more often "
                         "(dt_every)",
                         steps, speed.umax, s.config.cs, limit, s.config.dt_every, dt);
    return fmt::format("the Courant limit is violated after step {}: |u|max {:.4g} + cs {:.4g} allows dt {:.4g}, and dt is "
                       "{:.4g}: paused before it blows up; reset, or set a smaller dt (or dt = 0: auto, following the flow)",
                       steps, speed.umax, s.config.cs, limit, dt);
  }
  return {};
}

template HydroStats hydro_stats<float>(const HydroState<float>&, double);
template HydroStats hydro_stats<double>(const HydroState<double>&, double);

template <typename T>
HostHydro3D<T>::HostHydro3D(const Hydro3DSetup& setup, HydroMethod method)
    : setup_(setup), method_(method), w_(hydro_weights<T>(setup.h)), c_(hydro_constants<T>(setup)) {
  const std::size_t n = setup_.grid.elements();
  for (std::size_t f = 0; f < kHydroFields; ++f) {
    rk_[f].assign(n, T(0));
    out_[f].assign(n, T(0));
  }
  div_.assign(n, T(0));
  forcing_tables_ = hydro_forcing_tables<T>(setup_);
  reset();
}

template <typename T>
void HostHydro3D<T>::reset() {
  f_ = hydro3d_initial_fields<T>(setup_);
  steps_ = 0;
  clock_ = HydroClock{setup_.dt, 0, 0};
  c_.dt = static_cast<T>(clock_.dt);
  dt_stale_ = false;
}

template <typename T>
void HostHydro3D<T>::take_dt() {
  const T* const f[kHydroFields] = {f_[0].data(), f_[1].data(), f_[2].data(), f_[3].data()};
  const HydroSpeed sp = hydro_max_speed(f, setup_.grid);
  // A NaN leaves dt as it is: the health check reports the NaN.
  if (sp.finite) clock_.set_dt(hydro_dt_rule(setup_).dt_for(sp.u2max), steps_);
  c_.dt = static_cast<T>(clock_.dt);
  dt_stale_ = false;
}

template <typename T>
void HostHydro3D<T>::fill_ghosts(std::vector<T>& v) const {
  const long long cells = hydro_ghost_cells(setup_.grid);
#pragma omp parallel for if (cells >= kParallelCells)
  for (long long e = 0; e < cells; ++e) {
    std::size_t dst, src;
    hydro_ghost_cell(setup_.grid, e, dst, src);
    v[dst] = v[src];
  }
}

template <typename T>
void HostHydro3D<T>::poison_scratch() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t f = 0; f < kHydroFields; ++f) {
    std::fill(rk_[f].begin(), rk_[f].end(), nan);
    std::fill(out_[f].begin(), out_[f].end(), nan);
  }
  std::fill(div_.begin(), div_.end(), nan);
}

namespace {

/// One RK3 substep of the interior of a padded grid g (the whole grid, or one rank's box):
/// both methods through the shared point functions; `fill_div(div)` writes the
/// divergence's ghosts between the two passes of the two-pass method. On return f holds
/// the new interiors (f and out swapped); their ghosts are the caller's to write.
template <typename T, typename FillDiv>
void hydro_substep_host(const Grid3D& g, HydroMethod method, const HydroWeights<T>& w, const HydroConstants<T>& c,
                        int s, std::array<std::vector<T>, kHydroFields>& f, std::array<std::vector<T>, kHydroFields>& rkb,
                        std::array<std::vector<T>, kHydroFields>& out, std::vector<T>& div, FillDiv&& fill_div) {
  const HydroRk<T> rk = hydro_rk<T>();
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  const T* fp[kHydroFields] = {f[0].data(), f[1].data(), f[2].data(), f[3].data()};
  const bool single = method == HydroMethod::single_pass;
#pragma omp parallel for if (g.points() >= kParallelCells)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t n = g.index(i, j, k);
        auto at = [&](int q, int di, int dj, int dk) { return fp[q][static_cast<std::ptrdiff_t>(n) + di + dj * pitch + dk * plane]; };
        T rl, ru[3];
        if (single) {
          const HydroPoint<T> p = hydro_gather<T, true>(w, at);
          hydro_rhs<T, true>(p, c, rl, ru);
        } else {
          const HydroPoint<T> p = hydro_gather<T, false>(w, at);
          hydro_rhs<T, false>(p, c, rl, ru);
          div[n] = hydro_divergence(w, at);
        }
        hydro_rk3(s, rk.alpha[s], rk.beta[s], c.dt, rl, fp[0][n], rkb[0][n], out[0][n]);
        for (int a = 0; a < 3; ++a) hydro_rk3(s, rk.alpha[s], rk.beta[s], c.dt, ru[a], fp[a + 1][n], rkb[a + 1][n], out[a + 1][n]);
      }
  if (!single) {
    fill_div(div);
    const T dt_nu3 = c.dt * c.nu3;
    const T* d = div.data();
    const std::ptrdiff_t stride[3] = {1, pitch, plane};
#pragma omp parallel for if (g.points() >= kParallelCells)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(g.index(i, j, k));
          for (int a = 0; a < 3; ++a) {
            const std::ptrdiff_t st = stride[a];
            const T gd = hydro_d1(w, d[n - 3 * st], d[n - 2 * st], d[n - st], d[n + st], d[n + 2 * st], d[n + 3 * st]);
            hydro_second_pass(rk.beta[s], dt_nu3, gd, rkb[a + 1][static_cast<std::size_t>(n)], out[a + 1][static_cast<std::size_t>(n)]);
          }
        }
  }
  for (std::size_t q = 0; q < kHydroFields; ++q) std::swap(f[q], out[q]);
}

}  // namespace

template <typename T>
void HostHydro3D<T>::substep(int s) {
  hydro_substep_host(setup_.grid, method_, w_, c_, s, f_, rk_, out_, div_, [&](std::vector<T>& d) { fill_ghosts(d); });
  for (std::size_t f = 0; f < kHydroFields; ++f) fill_ghosts(f_[f]);
}

template <typename T>
void HostHydro3D<T>::force() {
  if (setup_.forcing_k.empty()) return;
  const HydroForcingStep fs = hydro_forcing_step(setup_, steps_);
  const Grid3D& g = setup_.grid;
  const T* tab = forcing_tables_.data() + static_cast<std::size_t>(fs.index) * hydro_forcing_stride(g);
  const double dt = clock_.dt;
  const T amp[3] = {static_cast<T>(fs.amp_dt(dt, 0)), static_cast<T>(fs.amp_dt(dt, 1)), static_cast<T>(fs.amp_dt(dt, 2))};
  const T cph = static_cast<T>(fs.cos_phase), sph = static_cast<T>(fs.sin_phase);
#pragma omp parallel for if (g.points() >= kParallelCells)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t n = g.index(i, j, k);
        hydro_force_point(tab, g, i, j, k, amp, cph, sph, f_[1][n], f_[2][n], f_[3][n]);
      }
  for (int f = 1; f < kHydroFields; ++f) fill_ghosts(f_[static_cast<std::size_t>(f)]);
}

template <typename T>
void HostHydro3D<T>::step(int n) {
  for (int t = 0; t < n; ++t) {
    if (recomputes_next()) take_dt();
    for (int s = 0; s < 3; ++s) substep(s);
    force();
    ++steps_;
  }
}

template <typename T>
HydroState<T> HostHydro3D<T>::state() const {
  const Grid3D& g = setup_.grid;
  HydroState<T> st;
  for (std::size_t f = 0; f < kHydroFields; ++f) {
    st[f].resize(g.points());
    std::size_t o = 0;
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) st[f][o++] = f_[f][g.index(i, j, k)];
  }
  return st;
}

template <typename T>
void HostHydro3D<T>::load_state(const HydroState<T>& st, long steps_done, const std::optional<HydroClock>& clock) {
  const Grid3D& g = setup_.grid;
  for (std::size_t f = 0; f < kHydroFields; ++f) {
    if (st[f].size() != g.points())
      throw Error(fmt::format("a hydro3d state of {} cells does not fit this {} x {} x {} grid", st[f].size(), g.nx, g.ny, g.nz));
    std::size_t o = 0;
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) f_[f][g.index(i, j, k)] = st[f][o++];
    fill_ghosts(f_[f]);
  }
  steps_ = steps_done;
  clock_ = clock ? *clock : HydroClock{setup_.dt, 0, 0};
  c_.dt = static_cast<T>(clock_.dt);
  dt_stale_ = !clock;
}

template <typename T>
void HostHydro3D<T>::kick(const HydroKick& kick) {
  const Grid3D& g = setup_.grid;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const auto du = hydro_kick_at(kick, g, i, j, k);
        const std::size_t n = g.index(i, j, k);
        for (int a = 0; a < 3; ++a) f_[static_cast<std::size_t>(a) + 1][n] += static_cast<T>(du[static_cast<std::size_t>(a)]);
      }
  for (int f = 1; f < kHydroFields; ++f) fill_ghosts(f_[static_cast<std::size_t>(f)]);
  dt_stale_ = true;
}

template <typename T>
T hydro_quantity(const T* const (&f)[kHydroFields], const Grid3D& g, const HydroWeights<T>& w, int q,
                 int i, int j, int k) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(g.index(i, j, k));
  const std::ptrdiff_t st[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  auto d = [&](int field, int axis) {
    const T* v = f[field] + n;
    const std::ptrdiff_t s = st[axis];
    return hydro_d1(w, v[-3 * s], v[-2 * s], v[-s], v[s], v[2 * s], v[3 * s]);
  };
  switch (q) {
    case 0: return f[0][n];
    case 1: return std::exp(f[0][n]);
    case 2: {
      const T ux = f[1][n], uy = f[2][n], uz = f[3][n];
      return std::sqrt(ux * ux + uy * uy + uz * uz);
    }
    case 3: case 4: case 5: return f[q - 2][n];
    case 6: {
      const T cx = d(3, 1) - d(2, 2), cy = d(1, 2) - d(3, 0), cz = d(2, 0) - d(1, 1);
      return std::sqrt(cx * cx + cy * cy + cz * cz);
    }
    default: return hydro_sum3(d(1, 0), d(2, 1), d(3, 2));
  }
}

template float hydro_quantity<float>(const float* const (&)[kHydroFields], const Grid3D&, const HydroWeights<float>&, int, int, int, int);
template double hydro_quantity<double>(const double* const (&)[kHydroFields], const Grid3D&, const HydroWeights<double>&, int, int, int, int);

template class HostHydro3D<float>;
template class HostHydro3D<double>;

int hydro_quantity_index(const std::string& quantity) {
  if (quantity.empty()) return 0;
  for (std::size_t k = 0; k < kHydroQuantities.size(); ++k)
    if (kHydroQuantities[k] == quantity) return static_cast<int>(k);
  throw Error(fmt::format("hydro3d has no view quantity '{}'", quantity));
}

std::vector<float> hydro_box_quantity(const float* const (&f)[kHydroFields], const Grid3D& g,
                                      const HydroWeights<float>& w, const std::string& quantity) {
  const int q = hydro_quantity_index(quantity);
  std::vector<float> out(g.points());
  std::size_t e = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) out[e++] = hydro_quantity(f, g, w, q, i, j, k);
  return out;
}

void hydro_box_paint(const Sphere& s, const Hydro3DSetup& setup, const std::array<int, 3>& lo, const Grid3D& g,
                     float* ux, float* uy, float* uz) {
  HydroKick kick;
  kick.cx = s.x - 0.5, kick.cy = s.y - 0.5, kick.cz = s.z - 0.5;
  kick.sigma = std::max(1.0, s.radius / 2);
  kick.amp = s.value * setup.config.cs;
  float* const u[3] = {ux, uy, uz};
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const auto du = hydro_kick_at(kick, setup.grid, lo[0] + i, lo[1] + j, lo[2] + k);
        const std::size_t n = g.index(i, j, k);
        for (int a = 0; a < 3; ++a) u[a][n] += static_cast<float>(du[static_cast<std::size_t>(a)]);
      }
}

void hydro_box_take_dt(const Hydro3DSetup& setup, const HydroSpeed& local, long steps, HaloFill& halo, HydroClock& clock) {
  const float u2max = halo.max_over_ranks(local.finite ? local.u2max : std::numeric_limits<float>::infinity());
  if (std::isfinite(u2max)) clock.set_dt(hydro_dt_rule(setup).dt_for(u2max), steps);
}

void check_hydro_box_state(const std::vector<std::vector<float>>& in, const Box& box) {
  const std::size_t cells = static_cast<std::size_t>(box.cells());
  bool fits = in.size() == kHydroFields;
  for (const auto& f : in) fits = fits && f.size() == cells;
  if (!fits)
    throw Error(fmt::format("a hydro3d box state holds {} fields of {} cells; this one has {} fields", kHydroFields,
                            cells, in.size()));
}

namespace {

// One rank's box of a distributed run: HostHydro3D's substeps on the box's layout, the
// forcing at global positions, and the halo exchange (every axis periodic, edges included,
// width 3) after each substep, between the two-pass method's passes and after the forcing.
class HostHydro3DBox final : public BoxSimulation {
 public:
  HostHydro3DBox(const Hydro3DSetup& setup, const BoxPlacement& where, HydroMethod method)
      : setup_(setup), where_(where), method_(method),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])), w_(hydro_weights<float>(setup.h)),
        c_(hydro_constants<float>(setup)), forcing_tables_(hydro_forcing_tables<float>(setup)) {
    // The whole grid's initial fields, then this box's cells (a first version: each rank
    // holds the whole initial state once, while it starts).
    const auto whole = hydro3d_initial_fields<float>(setup_);
    const Grid3D& g = setup_.grid;
    const Box& b = where_.box;
    for (std::size_t q = 0; q < kHydroFields; ++q) {
      f_[q].assign(grid_.elements(), 0.0f);
      rk_[q].assign(grid_.elements(), 0.0f);
      out_[q].assign(grid_.elements(), 0.0f);
      for (int k = 0; k < b.n[2]; ++k)
        for (int j = 0; j < b.n[1]; ++j)
          for (int i = 0; i < b.n[0]; ++i) f_[q][grid_.index(i, j, k)] = whole[q][g.index(b.lo[0] + i, b.lo[1] + j, b.lo[2] + k)];
    }
    div_.assign(grid_.elements(), 0.0f);
  }
  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_; }
  void refresh_ghosts(HaloFill& halo) override { exchange(halo); }
  void step(int n, HaloFill& halo) override {
    for (int t = 0; t < n; ++t) {
      hydro_box_step(
          setup_, steps_, dt_stale_, [&] { take_dt(halo); },
          [&](int s) {
            hydro_substep_host(grid_, method_, w_, c_, s, f_, rk_, out_, div_, [&](std::vector<float>& d) {
              float* const fields[] = {d.data()};
              halo.fill(fields);
            });
          },
          [&] { exchange(halo); }, [&] { force(); });
      ++steps_;
    }
  }
  std::vector<std::vector<float>> interiors() const override {
    std::vector<std::vector<float>> out;
    for (const auto& f : f_) out.push_back(extract_interior3d(f, grid_));
    return out;
  }

  // What the window asks of a box: the one-rank HostSim's answers on the box's cells.
  double dt() const override { return clock_.dt; }
  double time() const override { return clock_.time(steps_); }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {3.0 * kHydroValuesPerCellSubstep * sizeof(float) * cells, cells};
  }
  /// hydro_quantity on the box: the derivatives (vorticity, divergence) read 3 ghosts along
  /// one axis, which hold the neighbours' fields (exchanged after every step, kick and load).
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    const float* const fields[kHydroFields] = {f_[0].data(), f_[1].data(), f_[2].data(), f_[3].data()};
    return hydro_box_quantity(fields, grid_, w_, quantity);
  }
  void paint(const Sphere& s) override {
    hydro_box_paint(s, setup_, where_.box.lo, grid_, f_[1].data(), f_[2].data(), f_[3].data());
    dt_stale_ = true;
  }
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    check_hydro_box_state(in, where_.box);
    const std::array<int, 3>& n = where_.box.n;
    for (std::size_t f = 0; f < kHydroFields; ++f)
      for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
          for (int i = 0; i < n[0]; ++i)
            f_[f][grid_.index(i, j, k)] = in[f][(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i];
    steps_ = steps_done;
    clock_ = HydroClock{setup_.dt, 0, steps_done};  // a loaded state brings no dt: an adaptive one is taken from it
    c_.dt = static_cast<float>(clock_.dt);
    dt_stale_ = true;
  }

 private:
  /// HostHydro3D::take_dt over every rank: |u|^2 max of this box (rounded to float as
  /// there), then hydro_box_take_dt.
  void take_dt(HaloFill& halo) {
    const float* const f[kHydroFields] = {f_[0].data(), f_[1].data(), f_[2].data(), f_[3].data()};
    hydro_box_take_dt(setup_, hydro_max_speed(f, grid_), steps_, halo, clock_);
    c_.dt = static_cast<float>(clock_.dt);
    dt_stale_ = false;
  }
  void exchange(HaloFill& halo) {
    float* const fields[kHydroFields] = {f_[0].data(), f_[1].data(), f_[2].data(), f_[3].data()};
    halo.fill(fields);
  }
  // HostHydro3D::force on the box: the same point function, the tables at global positions.
  void force() {
    const HydroForcingStep fs = hydro_forcing_step(setup_, steps_);
    const Grid3D& g = setup_.grid;
    const float* tab = forcing_tables_.data() + static_cast<std::size_t>(fs.index) * hydro_forcing_stride(g);
    const float amp[3] = {static_cast<float>(fs.amp_dt(clock_.dt, 0)), static_cast<float>(fs.amp_dt(clock_.dt, 1)),
                          static_cast<float>(fs.amp_dt(clock_.dt, 2))};
    const float cph = static_cast<float>(fs.cos_phase), sph = static_cast<float>(fs.sin_phase);
    const Box& b = where_.box;
#pragma omp parallel for if (grid_.points() >= kParallelCells)
    for (int k = 0; k < b.n[2]; ++k)
      for (int j = 0; j < b.n[1]; ++j)
        for (int i = 0; i < b.n[0]; ++i) {
          const std::size_t n = grid_.index(i, j, k);
          hydro_force_point(tab, g, b.lo[0] + i, b.lo[1] + j, b.lo[2] + k, amp, cph, sph, f_[1][n], f_[2][n], f_[3][n]);
        }
  }

  Hydro3DSetup setup_;
  BoxPlacement where_;
  HydroMethod method_;
  Grid3D grid_;
  HydroWeights<float> w_;
  HydroConstants<float> c_;
  std::array<std::vector<float>, kHydroFields> f_, rk_, out_;
  std::vector<float> div_;
  std::vector<float> forcing_tables_;
  long steps_ = 0;
  HydroClock clock_{setup_.dt, 0, 0};  // dt and time (an adaptive dt follows the flow)
  bool dt_stale_ = false;              // a kick or a loaded state: an adaptive dt is taken again
};

}  // namespace

std::unique_ptr<BoxSimulation> make_hydro3d_box(const Hydro3DSetup& setup, const BoxPlacement& where, HydroMethod method) {
  return std::make_unique<HostHydro3DBox>(setup, where, method);
}

}  // namespace ss
