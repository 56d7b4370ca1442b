// Acoustic 3D: the setup and its checks, the media, the Ricker source, the sponge.
#include "sim/models/acoustic3d/acoustic3d.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <random>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/parse_word.hpp"
#include "sim/core/wavelet.hpp"

namespace ss {

std::string_view to_string(Acoustic3DVariant v) {
  switch (v) {
    case Acoustic3DVariant::global: return "global";
    case Acoustic3DVariant::stream25d: return "stream25d";
    case Acoustic3DVariant::cpu: return "cpu";
    case Acoustic3DVariant::reference: return "reference";
  }
  return "?";
}
Acoustic3DVariant parse_acoustic3d_variant(std::string_view s) { return parse_word(s, kAllAcoustic3DVariants, "variant"); }
bool is_gpu(Acoustic3DVariant v) { return v == Acoustic3DVariant::global || v == Acoustic3DVariant::stream25d; }

std::string_view to_string(Medium m) {
  switch (m) {
    case Medium::homogeneous: return "homogeneous";
    case Medium::layered: return "layered";
    case Medium::random: return "random";
  }
  return "?";
}
Medium parse_medium(std::string_view s) { return parse_word(s, kAllMedia, "medium"); }

std::string_view to_string(AcousticBoundary b) {
  switch (b) {
    case AcousticBoundary::sponge: return "sponge";
    case AcousticBoundary::periodic: return "periodic";
    case AcousticBoundary::cpml: return "cpml";
  }
  return "?";
}
AcousticBoundary parse_acoustic_boundary(std::string_view s) { return parse_word(s, kAllAcousticBoundaries, "boundary"); }

std::string_view to_string(TopBoundary t) { return t == TopBoundary::free ? "free" : "absorbing"; }
TopBoundary parse_top_boundary(std::string_view s) { return parse_word(s, kAllTopBoundaries, "top"); }

double acoustic3d_dt_limit(int order, double vmax, double h) {
  return 2.0 * h / (vmax * std::sqrt(3.0 * second_derivative_spectral_radius(order)));
}

std::vector<float> acoustic3d_medium(const Acoustic3DConfig& c) {
  std::vector<float> v(static_cast<std::size_t>(c.nx) * c.ny * c.nz);
  auto at = [&](int i, int j, int k) -> float& { return v[(static_cast<std::size_t>(k) * c.ny + j) * c.nx + i]; };
  switch (c.medium) {
    case Medium::homogeneous:
      std::fill(v.begin(), v.end(), static_cast<float>(c.vp));
      break;
    case Medium::layered: {
      constexpr double factor[4] = {1.0, 1.25, 1.5, 1.75};
      for (int k = 0; k < c.nz; ++k) {
        const float layer = static_cast<float>(c.vp * factor[std::min(3, 4 * k / c.nz)]);
        for (int j = 0; j < c.ny; ++j)
          for (int i = 0; i < c.nx; ++i) at(i, j, k) = layer;
      }
      break;
    }
    case Medium::random: {
      // 24 plane waves of random direction, phase and wavelength (8 cells to half the
      // largest side): smooth at the grid's scale, different at every seed.
      constexpr double pi = std::numbers::pi;
      std::mt19937 rng(c.seed);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const double longest = std::max(8.0, 0.5 * std::max({c.nx, c.ny, c.nz}));
      struct Wave { double kx, ky, kz, phase; };
      std::vector<Wave> waves(24);
      for (Wave& w : waves) {
        const double cz = 2 * u(rng) - 1, az = 2 * pi * u(rng), s = std::sqrt(1 - cz * cz);
        const double k = 2 * pi / (8.0 + (longest - 8.0) * u(rng));
        w = {k * s * std::cos(az), k * s * std::sin(az), k * cz, 2 * pi * u(rng)};
      }
      std::vector<double> n(v.size());
      double peak = 0;
#pragma omp parallel for schedule(static) reduction(max : peak)
      for (int k = 0; k < c.nz; ++k)
        for (int j = 0; j < c.ny; ++j)
          for (int i = 0; i < c.nx; ++i) {
            double sum = 0;
            for (const Wave& w : waves) sum += std::cos(w.kx * i + w.ky * j + w.kz * k + w.phase);
            n[(static_cast<std::size_t>(k) * c.ny + j) * c.nx + i] = sum;
            peak = std::max(peak, std::abs(sum));
          }
      for (std::size_t e = 0; e < v.size(); ++e)
        v[e] = static_cast<float>(c.vp * (1.0 + c.perturbation * n[e] / std::max(peak, 1e-300)));
      break;
    }
  }
  return v;
}

std::shared_ptr<const std::vector<float>> load_velocity_npy(const std::string& path, int nx, int ny, int nz) {
  std::vector<float> v = read_npy_volume(path, nx, ny, nz);
  for (std::size_t e = 0; e < v.size(); ++e)
    if (!(std::isfinite(v[e]) && v[e] > 0)) {
      const std::size_t i = e % nx, j = e / nx % ny, k = e / (static_cast<std::size_t>(nx) * ny);
      throw Error(fmt::format("'{}': the velocity at node (x {}, y {}, z {}) is {} m/s; it must be a positive finite number", path, i, j,
                              k, v[e]));
    }
  return std::make_shared<const std::vector<float>>(std::move(v));
}

double Acoustic3DSetup::ricker(double t) const { return ricker_wavelet(t, config.f0); }

double Acoustic3DSetup::source_increment(long n, std::size_t s) const {
  const double h = config.h;
  return dt * dt / (h * h * h) * source_strength * sources[s].wavelet(static_cast<double>(n) * dt);
}

void set_acoustic3d_sources(Acoustic3DSetup& s, std::vector<SourceSpec> sources) {
  if (sources.size() > static_cast<std::size_t>(kMaxSources))
    throw Error(fmt::format("at most {} sources (there would be {})", kMaxSources, sources.size()));
  const std::array<int, 3> size{s.grid.nx, s.grid.ny, s.grid.nz};
  for (const SourceSpec& src : sources) check_source(src, size, {SourceKind::pressure});
  s.config.source = !sources.empty();
  s.config.sources = sources;
  s.sources = std::move(sources);
}

Seismogram acoustic3d_seismogram_head(const Acoustic3DSetup& s) {
  return Seismogram{{"p"}, "Pa", s.receivers, 0, s.dt, {}};
}

void set_acoustic3d_receivers(Acoustic3DSetup& s, const ReceiverLayout& layout) {
  std::vector<std::array<int, 3>> nodes = receiver_nodes(layout, {s.grid.nx, s.grid.ny, s.grid.nz});
  s.config.receivers = layout;
  s.receiver_layout = layout;
  s.receivers = std::move(nodes);
  s.trace_steps = trace_steps_for(static_cast<long long>(s.receivers.size()), kTraceSteps);
}

template <typename T>
AcousticSourceStep<T> acoustic3d_source_step(const Acoustic3DSetup& s, long n) {
  AcousticSourceStep<T> l;
  for (std::size_t r = 0; r < s.sources.size(); ++r) {
    const auto& node = s.sources[r].node;
    l.at[l.n] = static_cast<long long>(s.grid.index(node[0], node[1], node[2]));
    l.add[l.n] = static_cast<T>(s.source_increment(n, r));
    ++l.n;
  }
  return l;
}
template AcousticSourceStep<float> acoustic3d_source_step<float>(const Acoustic3DSetup&, long);
template AcousticSourceStep<double> acoustic3d_source_step<double>(const Acoustic3DSetup&, long);

double Acoustic3DSetup::damping(int axis, int i) const {
  if (sponge == 0) return 1.0;
  const int n = axis == 0 ? grid.nx : axis == 1 ? grid.ny : grid.nz;
  const bool free_top = axis == 2 && config.top == TopBoundary::free;
  const int d = free_top ? n - 1 - i : std::min(i, n - 1 - i);  // nodes from the outermost
  return cerjan_damping(d, sponge);
}

double Acoustic3DSetup::courant2(int i, int j, int k) const {
  const double c = static_cast<double>(velocity_at(i, j, k)) * dt / config.h;
  return c * c;
}

AcousticGhostRule ghost_rule_of(const Acoustic3DSetup& s) {
  AcousticGhostRule r;
  r.periodic = s.config.boundary == AcousticBoundary::periodic;
  r.free_top = !r.periodic && s.config.top == TopBoundary::free;
  return r;
}

Acoustic3DSetup make_acoustic3d_setup(const Acoustic3DConfig& c) {
  check_order(c.order);
  auto positive = [](double x, const char* what, const char* unit) {
    if (!(std::isfinite(x) && x > 0)) throw Error(fmt::format("{} must be positive (got {}{})", what, x, unit));
  };
  positive(c.vp, "vp", " m/s");
  positive(c.h, "h (grid spacing)", " m");
  positive(c.f0, "f0 (source peak frequency)", " Hz");
  if (!(c.perturbation >= 0 && c.perturbation < 1))
    throw Error(fmt::format("perturbation = {} must lie in [0, 1) (velocities stay positive)", c.perturbation));
  Acoustic3DSetup s;
  s.config = c;
  s.grid = Grid3D::make(c.nx, c.ny, c.nz);
  if (c.velocity) {
    if (c.velocity->size() != s.grid.points())
      throw Error(fmt::format("the velocity model holds {} values; the grid has {} nodes", c.velocity->size(),
                              s.grid.points()));
    s.velocity = c.velocity;
  } else {
    s.velocity = std::make_shared<const std::vector<float>>(acoustic3d_medium(c));
  }
  const auto [lo, hi] = std::minmax_element(s.velocity->begin(), s.velocity->end());
  s.vmin = *lo;
  s.vmax = *hi;
  if (!(s.vmin > 0 && std::isfinite(s.vmax))) throw Error(fmt::format("velocities must be positive (found {})", s.vmin));
  s.dt_limit = acoustic3d_dt_limit(c.order, s.vmax, c.h);
  if (c.dt == 0) {
    s.dt = kAcousticDtFraction * acoustic3d_dt_limit(kMaxOrder, s.vmax, c.h);
  } else if (!(std::isfinite(c.dt) && c.dt > 0)) {
    throw Error(fmt::format("dt must be positive (got {})", c.dt));
  } else if (c.dt > s.dt_limit) {
    throw Error(fmt::format("dt {:.6g} s is above the stability limit {:.6g} s of order {} (vmax {:g} m/s, h {:g} m)",
                            c.dt, s.dt_limit, c.order, s.vmax, c.h));
  } else {
    s.dt = c.dt;
  }
  if (c.boundary == AcousticBoundary::sponge) {
    const int smallest = std::min({c.nx, c.ny, c.nz});
    if (c.sponge_width < 0) throw Error(fmt::format("sponge width {} must not be negative", c.sponge_width));
    s.sponge = c.sponge_width == 0 ? std::min(kDefaultSpongeWidth, smallest / 3) : c.sponge_width;
    if (3 * s.sponge > smallest)
      throw Error(fmt::format("sponge width {} cells is wider than a third of the smallest side ({} of {}x{}x{})",
                              s.sponge, smallest / 3, c.nx, c.ny, c.nz));
  }
  if (c.boundary == AcousticBoundary::cpml) {
    s.cpml_layout = make_cpml_layout(c.cpml_width, c.cpml_reflection, c.nx, c.ny, c.nz, c.top == TopBoundary::free);
    s.cpml = s.cpml_layout.hi[0];
  }
  const int n[3] = {c.nx, c.ny, c.nz};
  const int given[3] = {c.src_x, c.src_y, c.src_z};
  const char* axis[3] = {"src_x", "src_y", "src_z"};
  for (int a = 0; a < 3; ++a) {
    s.src[a] = given[a] == 0 ? n[a] / 2 : given[a];
    if (s.src[a] < 1 || s.src[a] >= n[a])
      throw Error(fmt::format("{} = {} puts the source outside the grid (nodes 1 to {}, or 0 for the centre)", axis[a],
                              given[a], n[a] - 1));
  }
  s.source_strength = 4 * std::numbers::pi * c.vp * c.vp * c.h;
  std::vector<SourceSpec> sources = c.sources;
  if (sources.empty() && c.source) sources.push_back(SourceSpec{SourceKind::pressure, s.src, c.f0});
  set_acoustic3d_sources(s, std::move(sources));
  const std::array<int, 3> through = s.sources.empty() ? s.src : s.sources.front().node;
  ReceiverLayout line;  // along x on the plane z = through z, at y = through y
  line.position = through[2];
  line.line_at = through[1];
  set_acoustic3d_receivers(s, c.receivers.value_or(line));
  return s;
}

template <typename T>
std::vector<T> damping_tables(const Acoustic3DSetup& s) {
  std::vector<T> t;
  const int n[3] = {s.grid.nx, s.grid.ny, s.grid.nz};
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < n[a]; ++i) t.push_back(static_cast<T>(s.damping(a, i)));
  return t;
}

template <typename T>
std::vector<T> acoustic_cpml_table(const Acoustic3DSetup& s) {
  if (!s.cpml_layout.any()) return {};
  const int n[3] = {s.grid.nx, s.grid.ny, s.grid.nz};
  const std::vector<double> t =
      cpml_table(s.cpml_layout, n, s.vmax, s.config.h, s.dt, s.config.f0, s.config.cpml_reflection);
  return std::vector<T>(t.begin(), t.end());
}

template <typename T>
std::vector<T> courant2_field(const Acoustic3DSetup& s) {
  const Grid3D& g = s.grid;
  std::vector<T> f(g.elements(), T(0));
#pragma omp parallel for schedule(static)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j, k)] = static_cast<T>(s.courant2(i, j, k));
  return f;
}

std::vector<float> velocity_field(const Acoustic3DSetup& s) {
  const Grid3D& g = s.grid;
  std::vector<float> f(g.elements(), 0.0f);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) f[g.index(i, j, k)] = s.velocity_at(i, j, k);
  return f;
}

int acoustic3d_slab_planes(long long tiles, int nz, int sms) {
  tiles = std::max<long long>(tiles, 1);
  const long long slabs = std::max<long long>(1, (2LL * std::max(sms, 1) + tiles - 1) / tiles);
  const int len = static_cast<int>((nz + slabs - 1) / slabs);
  return std::max(len, std::min(16, nz));
}

std::string_view to_string(Acoustic3DStreamShape s) {
  switch (s) {
    case Acoustic3DStreamShape::packed16: return "packed16";
    case Acoustic3DStreamShape::packed16_ring8: return "packed16-ring8";
    case Acoustic3DStreamShape::packed8: return "packed8";
    case Acoustic3DStreamShape::scalar: return "scalar";
  }
  return "?";
}
Acoustic3DStreamShape parse_acoustic3d_stream_shape(std::string_view s) {
  return parse_word(s, kAllAcoustic3DStreamShapes, "stream25d shape");
}
Acoustic3DStreamShape acoustic3d_stream_shape_from_env() {
  const char* e = std::getenv("STENCILSCOPE_ACOUSTIC25");
  if (!e || !*e || std::string_view(e) == "all") return Acoustic3DStreamShape::packed16;
  try {
    return parse_acoustic3d_stream_shape(e);
  } catch (const Error& error) {
    throw Error(std::string("STENCILSCOPE_ACOUSTIC25: ") + error.what());
  }
}

bool acoustic3d_stream_shape_sweep() {
  const char* e = std::getenv("STENCILSCOPE_ACOUSTIC25");
  return e && std::string_view(e) == "all";
}

int acoustic3d_stream_slab_planes(long long columns, int nz, long long resident) {
  constexpr long long kSlabStart = 8;  // planes: the 2R planes read again and the wait for the first ones
  columns = std::max<long long>(columns, 1);
  resident = std::max<long long>(resident, 1);
  const int shortest = std::min(nz, 16);
  int best = nz;
  long long best_cost = std::numeric_limits<long long>::max();
  for (long long slabs = 1; slabs <= nz; ++slabs) {
    const long long len = (nz + slabs - 1) / slabs;
    if (len < shortest || (slabs > 1 && columns * slabs > 64 * resident)) break;  // past 64 waves: no gain
    const long long blocks = columns * ((nz + len - 1) / len);
    const long long waves = (blocks + resident - 1) / resident;
    const long long cost = waves * (len + kSlabStart);
    if (cost < best_cost) best_cost = cost, best = static_cast<int>(len);
  }
  return best;
}

template std::vector<float> damping_tables<float>(const Acoustic3DSetup&);
template std::vector<double> damping_tables<double>(const Acoustic3DSetup&);
template std::vector<float> acoustic_cpml_table<float>(const Acoustic3DSetup&);
template std::vector<double> acoustic_cpml_table<double>(const Acoustic3DSetup&);
template std::vector<float> courant2_field<float>(const Acoustic3DSetup&);
template std::vector<double> courant2_field<double>(const Acoustic3DSetup&);

}  // namespace ss
