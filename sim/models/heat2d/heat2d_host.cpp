// CPU backend of heat 2D: the `cpu` variant (shared point function, OpenMP) and
// the double-precision reference (independent plain loops).
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"

namespace ss {

template <typename T>
HostHeat2D<T>::HostHeat2D(const Heat2DSetup& setup) : setup_(setup), tables_(analytic_tables<T>(setup)) {
  reset();
  field_[1] = field_[0];
}

template <typename T>
void HostHeat2D<T>::reset() {
  field_[current_] = heat2d_initial_field<T>(setup_);
  steps_done_ = 0;
}

template <typename T>
void HostHeat2D<T>::set_order(int order) {
  Heat2DConfig c = setup_.config;
  c.order = order;
  setup_ = make_heat2d_setup(c);  // throws for a bad order; the old setup stays
  refresh_ghosts();                // the time of the field (steps x dt) moves with dt
}

template <typename T>
void HostHeat2D<T>::poison_scratch() {
  std::fill(field_[1 - current_].begin(), field_[1 - current_].end(), std::numeric_limits<T>::quiet_NaN());
}

template <typename T>
void HostHeat2D<T>::refresh_ghosts() {
  fill_ghosts_host(field_[current_].data(), setup_.grid, make_ghost_rule<T>(setup_, time(), tables_.data()));
}

template <typename T>
void HostHeat2D<T>::paint(const Brush& b) {
  const Grid2D& g = setup_.grid;
  const T v = static_cast<T>(b.value);
  const int i0 = std::max(0, static_cast<int>(std::floor(b.x - b.radius))), i1 = std::min(g.nx - 1, static_cast<int>(std::ceil(b.x + b.radius)));
  const int j0 = std::max(0, static_cast<int>(std::floor(b.y - b.radius))), j1 = std::min(g.ny - 1, static_cast<int>(std::ceil(b.y + b.radius)));
  for (int j = j0; j <= j1; ++j)
    for (int i = i0; i <= i1; ++i)
      if (in_brush(b, i, j)) field_[current_][g.index(i, j)] = v;
  refresh_ghosts();
}

template <typename T>
void HostHeat2D<T>::load_interior(const T* interior, long steps_done) {
  const Grid2D& g = setup_.grid;
  for (int j = 0; j < g.ny; ++j)
    std::copy_n(interior + static_cast<std::size_t>(j) * g.nx, g.nx, field_[current_].begin() + g.index(0, j));
  steps_done_ = steps_done;
  refresh_ghosts();
}

template <typename T>
bool HostHeat2D<T>::all_finite() const {
  const Grid2D& g = setup_.grid;
  const std::vector<T>& f = field_[current_];
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i)
      if (!std::isfinite(f[g.index(i, j)])) return false;
  return true;
}

template <typename T>
void HostHeat2D<T>::step(int n) {
  const Grid2D g = setup_.grid;
  const T c = static_cast<T>(setup_.courant());
  dispatch_radius(setup_.config.order, [&]<int R>() {
    for (int s = 0; s < n; ++s) {
      const T* in = field_[current_].data();
      T* out = field_[1 - current_].data();
      const GhostRule<T> rule = make_ghost_rule<T>(setup_, (steps_done_ + 1) * setup_.dt, tables_.data());
#pragma omp parallel for schedule(static)
      for (int j = 0; j < g.ny; ++j) {
        for (int i = 0; i < g.nx; ++i) {
          T row[2 * R + 1], col[2 * R + 1];
          for (int k = 0; k <= 2 * R; ++k) {
            row[k] = in[g.index(i + k - R, j)];
            col[k] = in[g.index(i, j + k - R)];
          }
          out[g.index(i, j)] = heat2d_point<T, R>(row, col, c, c);
        }
      }
      fill_ghosts_host(out, g, rule);
      current_ = 1 - current_;
      ++steps_done_;
    }
  });
}

template class HostHeat2D<float>;
template class HostHeat2D<double>;

ReferenceHeat2D::ReferenceHeat2D(const Heat2DSetup& setup)
    : setup_(setup),
      width_(setup.grid.nx + 2 * kGhost),
      u_(static_cast<std::size_t>(width_) * (setup.grid.ny + 2 * kGhost)),
      next_(u_.size()) {
  reset();
}

void ReferenceHeat2D::reset() {
  const Grid2D& g = setup_.grid;
  const std::vector<double> init = heat2d_initial_field<double>(setup_);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) at(u_, i, j) = init[g.index(i, j)];
  steps_done_ = 0;
  fill_ghosts(u_, 0.0);
}

void ReferenceHeat2D::set_order(int order) {
  Heat2DConfig c = setup_.config;
  c.order = order;
  setup_ = make_heat2d_setup(c);
  fill_ghosts(u_, steps_done_ * setup_.dt);  // the field's time moves with dt
}

void ReferenceHeat2D::fill_ghosts(std::vector<double>& u, double t) const {
  const Heat2DSetup& s = setup_;
  const int nx = s.grid.nx, ny = s.grid.ny;
  const Boundary b = s.config.boundary;
  auto exact = [&](int i, int j) { return s.analytic.value(s.x_of(i), s.y_of(j), t, s.config.alpha); };
  for (int j = 0; j < ny; ++j) {
    for (int k = 1; k <= kGhost; ++k) {
      switch (b) {
        case Boundary::periodic:
          at(u, -k, j) = at(u, nx - k, j);
          at(u, nx - 1 + k, j) = at(u, k - 1, j);
          break;
        case Boundary::insulated:
          at(u, -k, j) = at(u, k - 1, j);
          at(u, nx - 1 + k, j) = at(u, nx - k, j);
          break;
        case Boundary::fixed:
          at(u, -k, j) = at(u, nx - 1 + k, j) = s.config.fixed_value;
          break;
        case Boundary::analytic:
          at(u, -k, j) = exact(-k, j);
          at(u, nx - 1 + k, j) = exact(nx - 1 + k, j);
          break;
      }
    }
  }
  for (int i = 0; i < nx; ++i) {
    for (int k = 1; k <= kGhost; ++k) {
      switch (b) {
        case Boundary::periodic:
          at(u, i, -k) = at(u, i, ny - k);
          at(u, i, ny - 1 + k) = at(u, i, k - 1);
          break;
        case Boundary::insulated:
          at(u, i, -k) = at(u, i, k - 1);
          at(u, i, ny - 1 + k) = at(u, i, ny - k);
          break;
        case Boundary::fixed:
          at(u, i, -k) = at(u, i, ny - 1 + k) = s.config.fixed_value;
          break;
        case Boundary::analytic:
          at(u, i, -k) = exact(i, -k);
          at(u, i, ny - 1 + k) = exact(i, ny - 1 + k);
          break;
      }
    }
  }
}

void ReferenceHeat2D::step(int n) {
  const Grid2D& g = setup_.grid;
  const int R = radius_of_order(setup_.config.order);
  const auto w = second_derivative_weights_runtime(setup_.config.order);
  const double c = setup_.courant();
  for (int s = 0; s < n; ++s) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < g.ny; ++j) {
      for (int i = 0; i < g.nx; ++i) {
        double lap = 0;
        for (int k = -R; k <= R; ++k) lap += w[std::abs(k)] * (at(u_, i + k, j) + at(u_, i, j + k));
        at(next_, i, j) = at(u_, i, j) + c * lap;
      }
    }
    ++steps_done_;
    fill_ghosts(next_, steps_done_ * setup_.dt);
    std::swap(u_, next_);
  }
}

std::vector<double> ReferenceHeat2D::interior() const {
  const Grid2D& g = setup_.grid;
  std::vector<double> out(g.points());
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) out[static_cast<std::size_t>(j) * g.nx + i] = at(u_, i, j);
  return out;
}

void ReferenceHeat2D::load_interior(const double* interior, long steps_done) {
  const Grid2D& g = setup_.grid;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) at(u_, i, j) = interior[static_cast<std::size_t>(j) * g.nx + i];
  steps_done_ = steps_done;
  fill_ghosts(u_, steps_done_ * setup_.dt);
}

std::vector<double> heat2d_reference(const Heat2DSetup& s, int steps) {
  ReferenceHeat2D r(s);
  r.step(steps);
  return r.interior();
}


}  // namespace ss
