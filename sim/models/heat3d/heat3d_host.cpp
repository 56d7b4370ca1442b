// CPU backend of heat 3D: the `cpu` variant (shared point function, OpenMP, then
// the boundary step) and the double reference (independent plain loops).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/model.hpp"  // StepAccounting
#include "sim/models/heat2d/heat_params.hpp"  // heat_accounting
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

template <typename T>
HostHeat3D<T>::HostHeat3D(const Heat3DSetup& setup) : setup_(setup), tables_(analytic_tables3d<T>(setup)) {
  reset();
  field_[1 - current_] = field_[current_];
}

template <typename T>
void HostHeat3D<T>::reset() {
  field_[current_] = heat3d_initial_field<T>(setup_);
  steps_done_ = 0;
  refresh_ghosts();  // the first step reads ghosts that match the boundary, as every later one
}

template <typename T>
void HostHeat3D<T>::poison_scratch() {
  std::fill(field_[1 - current_].begin(), field_[1 - current_].end(), std::numeric_limits<T>::quiet_NaN());
}

template <typename T>
void HostHeat3D<T>::refresh_ghosts() {
  fill_ghosts3d_host(field_[current_].data(), setup_.grid, make_ghost_rule3d<T>(setup_, time(), tables_.data()));
}

template <typename T>
bool HostHeat3D<T>::all_finite() const {
  const Grid3D& g = setup_.grid;
  const std::vector<T>& f = field_[current_];
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        if (!std::isfinite(f[g.index(i, j, k)])) return false;
  return true;
}

namespace {

// One step of the interior of a padded field (layout g) by the shared point function,
// OpenMP over planes: what HostHeat3D and a rank's HostHeat3DBox both run.
template <typename T, int R>
void step_interior(const T* in, T* out, const Grid3D& g, T c) {
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const T* p = in + g.index(i, j, k);
        T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
        for (int m = 0; m <= 2 * R; ++m) {
          row[m] = p[m - R];
          col[m] = p[(m - R) * pitch];
          dep[m] = p[(m - R) * plane];
        }
        out[g.index(i, j, k)] = heat3d_point<T, R>(row, col, dep, c);
      }
}

}  // namespace

template <typename T>
void HostHeat3D<T>::step(int n) {
  const Grid3D g = setup_.grid;
  const T c = static_cast<T>(setup_.courant());
  dispatch_radius(setup_.config.order, [&]<int R>() {
    for (int s = 0; s < n; ++s) {
      T* out = field_[1 - current_].data();
      step_interior<T, R>(field_[current_].data(), out, g, c);
      fill_ghosts3d_host(out, g, make_ghost_rule3d<T>(setup_, (steps_done_ + 1) * setup_.dt, tables_.data()));
      current_ = 1 - current_;
      ++steps_done_;
    }
  });
}

template <typename T>
void HostHeat3D<T>::set_order(int order) {
  Heat3DConfig c = setup_.config;
  c.order = order;
  setup_ = make_heat3d_setup(c);  // throws for a bad order; the old setup stays
  refresh_ghosts();                // the time of the field (steps x dt) moves with dt
}

template <typename T>
void HostHeat3D<T>::paint(const Sphere& s) {
  const Grid3D& g = setup_.grid;
  const CellBox b = sphere_cells(s, g);
  std::vector<T>& f = field_[current_];
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (in_sphere(s, i, j, k)) f[g.index(i, j, k)] = static_cast<T>(s.value);
  refresh_ghosts();
}

template <typename T>
std::vector<T> HostHeat3D<T>::interior() const {
  const Grid3D& g = setup_.grid;
  std::vector<T> out(g.points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        out[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = field_[current_][g.index(i, j, k)];
  return out;
}

template <typename T>
void HostHeat3D<T>::load_interior(const T* interior, long steps_done) {
  const Grid3D& g = setup_.grid;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        field_[current_][g.index(i, j, k)] = interior[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i];
  steps_done_ = steps_done;
  refresh_ghosts();
}

template class HostHeat3D<float>;
template class HostHeat3D<double>;

namespace {

// One rank's box: the same interior step as HostHeat3D on the box's layout, the boundary
// step on the domain's faces only (from global indices), and the halo exchange for the rest.
class HostHeat3DBox final : public BoxSimulation {
 public:
  HostHeat3DBox(const Heat3DSetup& setup, const BoxPlacement& where)
      : setup_(setup), where_(where), grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        tables_(analytic_tables3d<float>(setup)), radius_(radius_of_order(setup.config.order)) {
    for (auto& f : field_) f.assign(grid_.elements(), 0.0f);
    heat3d_initial_box(setup_, where_.box, grid_, field_[0].data());
  }
  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  void refresh_ghosts(HaloFill& halo) override { fill_ghosts(field_[current_].data(), steps_done_, halo); }
  void step(int n, HaloFill& halo) override {
    const float c = static_cast<float>(setup_.courant());
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int s = 0; s < n; ++s) {
        float* out = field_[1 - current_].data();
        step_interior<float, R>(field_[current_].data(), out, grid_, c);
        fill_ghosts(out, steps_done_ + 1, halo);
        current_ = 1 - current_;
        ++steps_done_;
      }
    });
  }
  std::vector<std::vector<float>> interiors() const override { return {extract_interior3d(field_[current_], grid_)}; }

  double dt() const override { return setup_.dt; }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override { return heat_accounting(static_cast<std::size_t>(where_.box.cells())); }
  std::vector<float> quantity_interior(const std::string&) const override {  // one quantity: the temperature
    return extract_interior3d(field_[current_], grid_);
  }
  // The one-rank paint (HostHeat3D::paint) on the box's cells, read at global indices.
  void paint(const Sphere& s) override {
    const std::array<int, 3>& lo = where_.box.lo;
    const std::array<double, 3> centre{s.x, s.y, s.z};
    std::array<int, 3> from{}, to{};  // the box's cells (local) the sphere's bounds cover
    for (std::size_t a = 0; a < 3; ++a) {
      from[a] = std::max(0, static_cast<int>(std::floor(centre[a] - 0.5 - s.radius)) - lo[a]);
      to[a] = std::min(where_.box.n[a] - 1, static_cast<int>(std::ceil(centre[a] - 0.5 + s.radius)) - lo[a]);
    }
    std::vector<float>& f = field_[current_];
    for (int k = from[2]; k <= to[2]; ++k)
      for (int j = from[1]; j <= to[1]; ++j)
        for (int i = from[0]; i <= to[0]; ++i)
          if (in_sphere(s, lo[0] + i, lo[1] + j, lo[2] + k)) f[grid_.index(i, j, k)] = static_cast<float>(s.value);
  }
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    if (in.size() != 1 || in[0].size() != static_cast<std::size_t>(where_.box.cells()))
      throw Error(fmt::format("a heat3d box state of {} fields does not fit this box ({} cells)", in.size(),
                              where_.box.cells()));
    const std::array<int, 3>& n = where_.box.n;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i)
          field_[current_][grid_.index(i, j, k)] = in[0][(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i];
    steps_done_ = steps_done;
  }

 private:
  void fill_ghosts(float* f, long steps, HaloFill& halo) {
    fill_box_ghosts3d_host(f, grid_, where_.box.lo, where_.domain_face, radius_,
                           make_ghost_rule3d<float>(setup_, steps * setup_.dt, tables_.data()));
    float* const fields[] = {f};
    halo.fill(fields);
  }

  Heat3DSetup setup_;
  BoxPlacement where_;
  Grid3D grid_;
  std::vector<float> tables_;
  int radius_;
  std::vector<float> field_[2];
  int current_ = 0;
  long steps_done_ = 0;
};

}  // namespace

std::unique_ptr<BoxSimulation> make_heat3d_box(const Heat3DSetup& setup, const BoxPlacement& where) {
  return std::make_unique<HostHeat3DBox>(setup, where);
}

namespace {

// A GPU box with what the window reads of a box added around it: everything else goes to
// the box as it is (its stepping, streams and exchange are the box's own).
class Heat3DBoxWithViews final : public BoxSimulation {
 public:
  Heat3DBoxWithViews(std::unique_ptr<BoxSimulation> box, const Heat3DSetup& setup, const BoxPlacement& where)
      : box_(std::move(box)), dt_(setup.dt), dt_limit_(setup.dt_limit), cells_(where.box.cells()) {}
  const Grid3D& grid() const override { return box_->grid(); }
  long steps_done() const override { return box_->steps_done(); }
  void refresh_ghosts(HaloFill& halo) override { box_->refresh_ghosts(halo); }
  void step(int n, HaloFill& halo) override { box_->step(n, halo); }
  std::vector<std::vector<float>> interiors() const override { return box_->interiors(); }
  void* device_stream() const override { return box_->device_stream(); }
  void synchronize() override { box_->synchronize(); }

  double dt() const override { return dt_; }
  double dt_limit() const override { return dt_limit_; }
  StepAccounting accounting() const override { return heat_accounting(static_cast<std::size_t>(cells_)); }
  /// One quantity, the temperature: the box's field (the interior copied from the device).
  std::vector<float> quantity_interior(const std::string&) const override { return box_->interiors().front(); }
  void paint(const Sphere& s) override { box_->paint(s); }
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    box_->load_interiors(in, steps_done);
  }

 private:
  std::unique_ptr<BoxSimulation> box_;
  double dt_, dt_limit_;
  long long cells_;
};

}  // namespace

std::unique_ptr<BoxSimulation> heat3d_box_with_views(std::unique_ptr<BoxSimulation> box, const Heat3DSetup& setup,
                                                     const BoxPlacement& where) {
  return std::make_unique<Heat3DBoxWithViews>(std::move(box), setup, where);
}

namespace {

// The reference's own padded layout: (n + 2G) per axis, no alignment.
struct RefField3D {
  int nx, ny, nz, wx, wy;
  std::vector<double> v;
  RefField3D(int nx_, int ny_, int nz_)
      : nx(nx_), ny(ny_), nz(nz_), wx(nx_ + 2 * kGhost), wy(ny_ + 2 * kGhost),
        v(static_cast<std::size_t>(wx) * wy * (nz_ + 2 * kGhost)) {}
  double& at(int i, int j, int k) {
    return v[(static_cast<std::size_t>(k + kGhost) * wy + (j + kGhost)) * wx + (i + kGhost)];
  }
};

// Ghost faces by cases, one axis at a time; `pick` maps (ghost index, n) to its source.
void reference_ghosts(RefField3D& u, const Heat3DSetup& s, double t) {
  const Boundary b = s.config.boundary;
  auto value = [&](int i, int j, int k, int si, int sj, int sk) {
    switch (b) {
      case Boundary::fixed: return s.config.fixed_value;
      case Boundary::analytic: return s.analytic.value(s.coord(i), s.coord(j), s.coord(k), t, s.config.alpha);
      case Boundary::periodic:
      case Boundary::insulated: return u.at(si, sj, sk);
    }
    return 0.0;
  };
  // Source of ghost index g (g < 0 or g >= n) along an axis of n cells.
  auto source = [&](int g, int n) {
    if (b == Boundary::periodic) return g < 0 ? g + n : g - n;
    return g < 0 ? -1 - g : 2 * n - 1 - g;  // mirror about the face
  };
  const int nx = u.nx, ny = u.ny, nz = u.nz;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int m = 1; m <= kGhost; ++m) {
        for (int g : {-m, nx - 1 + m}) u.at(g, j, k) = value(g, j, k, source(g, nx), j, k);
      }
#pragma omp parallel for schedule(static)
  for (int k = 0; k < nz; ++k)
    for (int i = 0; i < nx; ++i)
      for (int m = 1; m <= kGhost; ++m) {
        for (int g : {-m, ny - 1 + m}) u.at(i, g, k) = value(i, g, k, i, source(g, ny), k);
      }
#pragma omp parallel for schedule(static)
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      for (int m = 1; m <= kGhost; ++m) {
        for (int g : {-m, nz - 1 + m}) u.at(i, j, g) = value(i, j, g, i, j, source(g, nz));
      }
}

}  // namespace

std::vector<double> heat3d_reference(const Heat3DSetup& s, int steps) {
  const Grid3D& g = s.grid;
  const int R = radius_of_order(s.config.order);
  const auto w = second_derivative_weights_runtime(s.config.order);
  const double c = s.courant();
  RefField3D u(g.nx, g.ny, g.nz), un(g.nx, g.ny, g.nz);
  {
    const std::vector<double> init = heat3d_initial_field<double>(s);
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) u.at(i, j, k) = init[g.index(i, j, k)];
  }
  reference_ghosts(u, s, 0.0);
  for (int n = 0; n < steps; ++n) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          double lap = 0;
          for (int m = -R; m <= R; ++m)
            lap += w[std::abs(m)] * (u.at(i + m, j, k) + u.at(i, j + m, k) + u.at(i, j, k + m));
          un.at(i, j, k) = u.at(i, j, k) + c * lap;
        }
    reference_ghosts(un, s, (n + 1) * s.dt);
    std::swap(u.v, un.v);
  }
  std::vector<double> out(g.points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) out[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = u.at(i, j, k);
  return out;
}

}  // namespace ss
