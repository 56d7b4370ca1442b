// Elastic 3D: the setup and its checks, the media (isotropic, Thomsen, stiffnesses), the
// dt limit, the sources, the sponge.
#include "sim/models/elastic3d/elastic3d.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <tuple>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/parse_word.hpp"
#include "sim/core/wavelet.hpp"

namespace ss {

std::string_view to_string(Elastic3DVariant v) {
  switch (v) {
    case Elastic3DVariant::steps: return "steps";
    case Elastic3DVariant::fused: return "fused";
    case Elastic3DVariant::stream25d: return "stream25d";
    case Elastic3DVariant::register25d: return "register25d";
    case Elastic3DVariant::cpu: return "cpu";
    case Elastic3DVariant::reference: return "reference";
  }
  return "?";
}
Elastic3DVariant parse_elastic3d_variant(std::string_view s) { return parse_word(s, kAllElastic3DVariants, "variant"); }
bool is_gpu(Elastic3DVariant v) {
  return v == Elastic3DVariant::steps || v == Elastic3DVariant::fused || v == Elastic3DVariant::stream25d ||
         v == Elastic3DVariant::register25d;
}

std::string_view to_string(ElasticMedium m) {
  switch (m) {
    case ElasticMedium::homogeneous: return "homogeneous";
    case ElasticMedium::layered: return "layered";
    case ElasticMedium::vti_layer: return "vti_layer";
    case ElasticMedium::random: return "random";
  }
  return "?";
}
ElasticMedium parse_elastic_medium(std::string_view s) { return parse_word(s, kAllElasticMedia, "medium"); }

std::string_view to_string(Anisotropy a) {
  switch (a) {
    case Anisotropy::isotropic: return "isotropic";
    case Anisotropy::thomsen: return "thomsen";
    case Anisotropy::stiffness: return "stiffness";
  }
  return "?";
}
Anisotropy parse_anisotropy(std::string_view s) { return parse_word(s, kAllAnisotropies, "anisotropy"); }

std::string_view to_string(ElasticBoundary b) {
  switch (b) {
    case ElasticBoundary::sponge: return "sponge";
    case ElasticBoundary::periodic: return "periodic";
    case ElasticBoundary::periodic_sides: return "periodic_sides";
    case ElasticBoundary::cpml: return "cpml";
  }
  return "?";
}
ElasticBoundary parse_elastic_boundary(std::string_view s) { return parse_word(s, kAllElasticBoundaries, "boundary"); }
std::string_view to_string(ElasticTop t) { return t == ElasticTop::free ? "free" : "absorbing"; }
ElasticTop parse_elastic_top(std::string_view s) { return parse_word(s, kAllElasticTops, "top"); }
std::string_view to_string(ElasticSource s) {
  return s == ElasticSource::force ? "force" : s == ElasticSource::explosion ? "explosion" : "moment";
}
ElasticSource parse_elastic_source(std::string_view s) { return parse_word(s, kAllElasticSources, "source"); }

Vti isotropic_stiffness(double vp, double vs, double rho) {
  const double mu = rho * vs * vs, m = rho * vp * vp;
  return {m, m - 2 * mu, m, mu, mu};
}

Vti thomsen_stiffness(double vp0, double vs0, double epsilon, double delta, double gamma, double rho) {
  Vti c;
  c.c33 = rho * vp0 * vp0;
  c.c44 = rho * vs0 * vs0;
  c.c11 = c.c33 * (1 + 2 * epsilon);
  c.c66 = c.c44 * (1 + 2 * gamma);
  const double sq = (c.c33 - c.c44) * (c.c33 * (1 + 2 * delta) - c.c44);
  if (!(sq >= 0))
    throw Error(fmt::format("Thomsen delta = {:g} with vp0 {:g} m/s, vs0 {:g} m/s gives no real C13", delta, vp0, vs0));
  c.c13 = std::sqrt(sq) - c.c44;
  return c;
}

std::array<double, 3> thomsen_parameters(const Vti& c) {
  const double a = c.c13 + c.c44, b = c.c33 - c.c44;
  return {(c.c11 - c.c33) / (2 * c.c33), (a * a - b * b) / (2 * c.c33 * b), (c.c66 - c.c44) / (2 * c.c44)};
}

double vti_max_phase_velocity(const Vti& c, double rho) {
  double best = 0;
  const int n = 2048;
  for (int k = 0; k <= n; ++k) {
    const double th = 0.5 * std::numbers::pi * k / n, s2 = std::sin(th) * std::sin(th), c2 = 1 - s2;
    const double a = (c.c11 - c.c44) * s2 - (c.c33 - c.c44) * c2, b = 2 * (c.c13 + c.c44);
    const double qp = 0.5 * ((c.c11 + c.c44) * s2 + (c.c33 + c.c44) * c2 + std::sqrt(a * a + b * b * s2 * c2));
    const double sh = c.c66 * s2 + c.c44 * c2;
    best = std::max({best, qp, sh});
  }
  // Sampling can miss a maximum between two angles by a relative O(1e-7): a margin.
  return std::sqrt(best / rho) * (1 + 1e-6);
}

double vti_max_phase_velocity_exact(const Vti& c, double rho) {
  // With s = sin^2 of the angle from z: qP = (a0 + a1 s + sqrt(Q(s))) / 2 (times rho), where
  // Q(s) = (p + q s)^2 + b^2 s (1 - s). Its stationary points solve (2 QA s + QB)^2 =
  // 4 a1^2 Q(s), a quadratic in s; squaring can add roots, which only adds candidates.
  const double a0 = c.c33 + c.c44, a1 = c.c11 - c.c33;
  const double p = -(c.c33 - c.c44), q = c.c11 + c.c33 - 2 * c.c44, b = 2 * (c.c13 + c.c44);
  const double qa = q * q - b * b, qb = 2 * p * q + b * b, qc = p * p;
  const auto qp = [&](double s) { return 0.5 * (a0 + a1 * s + std::sqrt(std::max(0.0, (qa * s + qb) * s + qc))); };
  double best = std::max({qp(0), qp(1), c.c44, c.c66});  // SH: c66 s + c44 (1 - s), largest at an end
  const double k = qa - a1 * a1;
  const double A = 4 * qa * k, B = 4 * qb * k, C = qb * qb - 4 * a1 * a1 * qc;
  const auto consider = [&](double s) {
    if (s > 0 && s < 1) best = std::max(best, qp(s));
  };
  if (A != 0) {
    const double disc = B * B - 4 * A * C;
    if (disc >= 0) {
      const double r = std::sqrt(disc);
      consider((-B + r) / (2 * A));
      consider((-B - r) / (2 * A));
    }
  } else if (B != 0) {
    consider(-C / B);
  }
  return std::sqrt(best / rho);
}

double first_derivative_spectral_radius(int order) {
  const auto w = first_derivative_weights_runtime(order);
  const int R = radius_of_order(order);
  auto kappa = [&](double th) {
    double s = 0;
    for (int k = 1; k <= R; ++k) s += 2 * w[k] * std::sin(k * th);
    return std::abs(s);
  };
  double best = 0, at = 0;
  const int n = 4096;
  for (int k = 0; k <= n; ++k) {
    const double th = std::numbers::pi * k / n;
    if (kappa(th) > best) best = kappa(th), at = th;
  }
  double lo = std::max(0.0, at - std::numbers::pi / n), hi = std::min(std::numbers::pi, at + std::numbers::pi / n);
  for (int it = 0; it < 100; ++it) {  // golden-section refinement of the maximum
    const double a = lo + 0.382 * (hi - lo), b = lo + 0.618 * (hi - lo);
    if (kappa(a) < kappa(b)) lo = a;
    else hi = b;
  }
  return std::max(best, kappa(0.5 * (lo + hi)));
}

std::array<double, 2 * kSourceRadius + 1> band_limited_source_weights() {
  // Normal equations of the weighted least-squares fit in the unknowns w0, w1..wM of
  // S(theta) = w0 + 2 sum_m w_m cos(m theta), sampled on 2001 angles.
  constexpr int M = kSourceRadius, N = 2000;
  double a[M + 1][M + 2] = {};
  for (int s = 0; s <= N; ++s) {
    const double th = std::numbers::pi * s / N;
    double target, weight;
    if (th <= 0.35 * std::numbers::pi) target = 1, weight = 1;
    else if (th >= 0.75 * std::numbers::pi) target = 0, weight = 10;
    else continue;
    double phi[M + 1];
    phi[0] = 1;
    for (int m = 1; m <= M; ++m) phi[m] = 2 * std::cos(m * th);
    for (int r = 0; r <= M; ++r) {
      for (int c = 0; c <= M; ++c) a[r][c] += weight * phi[r] * phi[c];
      a[r][M + 1] += weight * phi[r] * target;
    }
  }
  for (int c = 0; c <= M; ++c) {  // Gauss-Jordan with partial pivoting
    int p = c;
    for (int r = c + 1; r <= M; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    for (int k = 0; k <= M + 1; ++k) std::swap(a[c][k], a[p][k]);
    for (int r = 0; r <= M; ++r)
      if (r != c) {
        const double f = a[r][c] / a[c][c];
        for (int k = c; k <= M + 1; ++k) a[r][k] -= f * a[c][k];
      }
  }
  double w[M + 1], sum = 0;
  for (int m = 0; m <= M; ++m) w[m] = a[m][M + 1] / a[m][m], sum += (m == 0 ? 1 : 2) * w[m];
  std::array<double, 2 * M + 1> out{};
  for (int m = -M; m <= M; ++m) out[m + M] = w[std::abs(m)] / sum;
  return out;
}

double elastic3d_dt_limit(int order, double vmax, double h) {
  return 2.0 * h / (vmax * std::sqrt(3.0) * first_derivative_spectral_radius(order));
}

namespace {

Vti base_stiffness(const Elastic3DConfig& c) {
  switch (c.anisotropy) {
    case Anisotropy::isotropic: return isotropic_stiffness(c.vp, c.vs, c.rho);
    case Anisotropy::thomsen: return thomsen_stiffness(c.vp, c.vs, c.epsilon, c.delta, c.gamma, c.rho);
    case Anisotropy::stiffness: return c.stiffness;
  }
  return {};
}

Vti scaled(const Vti& c, double f) { return {c.c11 * f, c.c13 * f, c.c33 * f, c.c44 * f, c.c66 * f}; }

// A smooth random field in [-1, 1]: 24 seeded plane waves (as acoustic3d's).
std::vector<double> smooth_random(const Elastic3DConfig& c) {
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
  std::vector<double> n(static_cast<std::size_t>(c.nx) * c.ny * c.nz);
  double peak = 0;
  for (int k = 0; k < c.nz; ++k)
    for (int j = 0; j < c.ny; ++j)
      for (int i = 0; i < c.nx; ++i) {
        double sum = 0;
        for (const Wave& w : waves) sum += std::cos(w.kx * i + w.ky * j + w.kz * k + w.phase);
        n[(static_cast<std::size_t>(k) * c.ny + j) * c.nx + i] = sum;
        peak = std::max(peak, std::abs(sum));
      }
  for (double& x : n) x /= std::max(peak, 1e-300);
  return n;
}

// Throws naming the node when its medium is not a positive-definite VTI medium.
void check_node(const Vti& c, double rho, int i, int j, int k) {
  const auto where = [&] { return fmt::format("node (x {}, y {}, z {})", i, j, k); };
  if (!(std::isfinite(rho) && rho > 0)) throw Error(fmt::format("density {:g} kg/m^3 at {} must be positive", rho, where()));
  if (c.c44 > c.c33)
    throw Error(fmt::format("vs = {:g} m/s is above vp = {:g} m/s at {}", std::sqrt(c.c44 / rho), std::sqrt(c.c33 / rho),
                            where()));
  if (!(c.c33 > 0 && c.c44 > 0 && c.c66 > 0 && c.c11 - c.c66 > 0 && (c.c11 - c.c66) * c.c33 > c.c13 * c.c13 &&
        std::isfinite(c.c11 + c.c13 + c.c33 + c.c44 + c.c66)))
    throw Error(fmt::format("the stiffness at {} (C11 {:g}, C13 {:g}, C33 {:g}, C44 {:g}, C66 {:g} Pa) is not "
                            "positive definite",
                            where(), c.c11, c.c13, c.c33, c.c44, c.c66));
}

}  // namespace

void load_elastic_files(Elastic3DConfig& c, const ElasticMediaPaths& paths) {
  auto load = [&](const std::string& path, const char* param) -> std::shared_ptr<const std::vector<float>> {
    if (path.empty()) return nullptr;
    try {
      return std::make_shared<const std::vector<float>>(read_npy_volume(path, c.nx, c.ny, c.nz));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", param, e.what()));
    }
  };
  auto& f = c.files;
  f.vp = load(paths.vp, "vp_file");
  f.vs = load(paths.vs, "vs_file");
  f.rho = load(paths.rho, "rho_file");
  f.epsilon = load(paths.epsilon, "epsilon_file");
  f.delta = load(paths.delta, "delta_file");
  f.gamma = load(paths.gamma, "gamma_file");
  f.vp_path = paths.vp;
  f.vs_path = paths.vs;
  f.rho_path = paths.rho;
  f.epsilon_path = paths.epsilon;
  f.delta_path = paths.delta;
  f.gamma_path = paths.gamma;
}

namespace {

// The medium of the files (each quantity from its file, or the parameter everywhere):
// isotropic, or VTI from Thomsen's parameters under anisotropy thomsen; checked per node
// naming the file and the node. dt comes from the node of the fastest phase velocity
// (ranked in closed form), evaluated as for a homogeneous medium of that node, so a file
// of constant values gives exactly the homogeneous medium's dt.
ElasticMediumField medium_from_files(const Elastic3DConfig& c) {
  const auto& f = c.files;
  if (c.anisotropy == Anisotropy::stiffness)
    throw Error("the medium files give vp, vs, rho (and Thomsen's epsilon, delta, gamma); anisotropy stiffness needs "
                "them empty (choose isotropic or thomsen)");
  const bool thomsen = c.anisotropy == Anisotropy::thomsen;
  if (!thomsen && f.thomsen())
    throw Error(fmt::format("{} gives a Thomsen parameter per node: it needs anisotropy thomsen (now {})",
                            f.epsilon ? "epsilon_file" : f.delta ? "delta_file" : "gamma_file", to_string(c.anisotropy)));
  const std::size_t n = static_cast<std::size_t>(c.nx) * c.ny * c.nz;
  ElasticMediumField m;
  for (auto* v : {&m.c11, &m.c13, &m.c33, &m.c44, &m.c66, &m.rho}) v->resize(n);
  const auto value = [](const std::shared_ptr<const std::vector<float>>& file, double fallback, std::size_t e) {
    return file ? static_cast<double>((*file)[e]) : fallback;
  };
  const auto source = [](const std::string& path, const char* param) {
    return path.empty() ? fmt::format("the parameter {}", param) : fmt::format("{}_file '{}'", param, path);
  };
  // The stiffness and density of node e, in double, from its file values.
  const auto node = [&](std::size_t e) {
    const double vp = value(f.vp, c.vp, e), vs = value(f.vs, c.vs, e), rho = value(f.rho, c.rho, e);
    const Vti v = thomsen ? thomsen_stiffness(vp, vs, value(f.epsilon, c.epsilon, e), value(f.delta, c.delta, e),
                                              value(f.gamma, c.gamma, e), rho)
                          : isotropic_stiffness(vp, vs, rho);
    return std::pair{v, rho};
  };
  std::size_t fastest = 0, slowest = 0;
  double v_max = -1, vs_min = 1e300;
  for (int k = 0; k < c.nz; ++k)
    for (int j = 0; j < c.ny; ++j)
      for (int i = 0; i < c.nx; ++i) {
        const std::size_t e = (static_cast<std::size_t>(k) * c.ny + j) * c.nx + i;
        const double vp = value(f.vp, c.vp, e), vs = value(f.vs, c.vs, e), rho = value(f.rho, c.rho, e);
        const std::string where = fmt::format("node (x {}, y {}, z {})", i, j, k);
        if (!(std::isfinite(vp) && vp > 0))
          throw Error(fmt::format("{}: vp at {} is {} m/s; it must be a positive finite number", source(f.vp_path, "vp"),
                                  where, vp));
        if (!(std::isfinite(vs) && vs > 0))
          throw Error(fmt::format("{}: vs at {} is {} m/s; it must be a positive finite number", source(f.vs_path, "vs"),
                                  where, vs));
        if (!(std::isfinite(rho) && rho > 0))
          throw Error(fmt::format("{}: the density at {} is {} kg/m^3; it must be a positive finite number",
                                  source(f.rho_path, "rho"), where, rho));
        if (vs > vp)
          throw Error(fmt::format("vs = {:g} m/s ({}) is above vp = {:g} m/s ({}) at {}", vs, source(f.vs_path, "vs"), vp,
                                  source(f.vp_path, "vp"), where));
        if (thomsen)
          for (const auto& [file, path, name, fallback] :
               {std::tuple{&f.epsilon, &f.epsilon_path, "epsilon", c.epsilon},
                std::tuple{&f.delta, &f.delta_path, "delta", c.delta}, std::tuple{&f.gamma, &f.gamma_path, "gamma", c.gamma}}) {
            const double x = value(*file, fallback, e);
            if (!(std::isfinite(x) && x > -0.5 && x < 10))
              throw Error(fmt::format("{}: {} at {} is {}; it must be finite, above -0.5 and below 10", source(*path, name),
                                      name, where, x));
          }
        const auto [v, node_rho] = node(e);
        if (thomsen) {
          try {
            check_node(v, node_rho, i, j, k);
          } catch (const Error& err) {
            throw Error(fmt::format("the Thomsen medium of the files: {}", err.what()));
          }
        }
        m.c11[e] = static_cast<float>(v.c11);
        m.c13[e] = static_cast<float>(v.c13);
        m.c33[e] = static_cast<float>(v.c33);
        m.c44[e] = static_cast<float>(v.c44);
        m.c66[e] = static_cast<float>(v.c66);
        m.rho[e] = static_cast<float>(rho);
        const double fast = thomsen ? vti_max_phase_velocity_exact(v, rho) : vp;
        const double slow = std::sqrt(std::min(v.c44, v.c66) / rho);
        if (fast > v_max) v_max = fast, fastest = e;
        if (slow < vs_min) vs_min = slow, slowest = e;
      }
  const auto [fast, fast_rho] = node(fastest);
  const auto [slow, slow_rho] = node(slowest);
  m.vmax = vti_max_phase_velocity(fast, fast_rho);
  m.vs_min = std::sqrt(std::min(slow.c44, slow.c66) / slow_rho);
  return m;
}

}  // namespace

ElasticMediumField elastic3d_medium(const Elastic3DConfig& c) {
  if (c.files.any()) return medium_from_files(c);
  const std::size_t n = static_cast<std::size_t>(c.nx) * c.ny * c.nz;
  ElasticMediumField m;
  for (auto* v : {&m.c11, &m.c13, &m.c33, &m.c44, &m.c66, &m.rho}) v->resize(n);
  const Vti base = base_stiffness(c);
  const Vti iso = isotropic_stiffness(c.vp, c.vs, c.rho);
  const bool slab = c.medium == ElasticMedium::vti_layer;
  const Vti layer_vti = !slab || c.anisotropy == Anisotropy::stiffness
                            ? c.stiffness
                            : thomsen_stiffness(c.vp, c.vs, c.epsilon, c.delta, c.gamma, c.rho);
  // The base media a node scales: its fastest phase velocity and slowest S velocity.
  auto speeds = [&](const Vti& v) {
    return std::array<double, 2>{c.rho > 0 ? vti_max_phase_velocity(v, c.rho) : 0.0,
                                 c.rho > 0 ? std::sqrt(std::max(0.0, std::min(v.c44, v.c66)) / c.rho) : 0.0};
  };
  const std::array<double, 2> base_v = speeds(base);
  const std::array<double, 2> iso_v = slab ? speeds(iso) : base_v;
  const std::array<double, 2> layer_v = slab ? speeds(layer_vti) : base_v;
  m.vmax = 0;
  m.vs_min = 1e300;
  const std::vector<double> noise = c.medium == ElasticMedium::random ? smooth_random(c) : std::vector<double>{};
  for (int k = 0; k < c.nz; ++k)
    for (int j = 0; j < c.ny; ++j)
      for (int i = 0; i < c.nx; ++i) {
        const std::size_t e = (static_cast<std::size_t>(k) * c.ny + j) * c.nx + i;
        Vti v = base;
        double rho = c.rho, scale = 1;
        std::array<double, 2> kind = base_v;
        switch (c.medium) {
          case ElasticMedium::homogeneous: break;
          case ElasticMedium::layered: {
            constexpr double speed[4] = {1.0, 1.25, 1.5, 1.75}, density[4] = {1.0, 1.1, 1.2, 1.3};
            const int layer = std::min(3, 4 * k / c.nz);
            rho = c.rho * density[layer];
            v = scaled(base, density[layer] * speed[layer] * speed[layer]);
            scale = speed[layer];
            break;
          }
          case ElasticMedium::vti_layer: {
            const bool inside = 3 * k >= c.nz && 3 * k < 2 * c.nz;
            v = inside ? layer_vti : iso;
            kind = inside ? layer_v : iso_v;
            break;
          }
          case ElasticMedium::random: {
            scale = 1 + c.perturbation * noise[e];
            v = scaled(base, scale * scale);
            break;
          }
        }
        m.vmax = std::max(m.vmax, kind[0] * scale);
        m.vs_min = std::min(m.vs_min, kind[1] * scale);
        check_node(v, rho, i, j, k);
        m.c11[e] = static_cast<float>(v.c11);
        m.c13[e] = static_cast<float>(v.c13);
        m.c33[e] = static_cast<float>(v.c33);
        m.c44[e] = static_cast<float>(v.c44);
        m.c66[e] = static_cast<float>(v.c66);
        m.rho[e] = static_cast<float>(rho);
      }
  return m;
}

double Elastic3DSetup::ricker(double t) const { return ricker_wavelet(t, config.f0); }

double Elastic3DSetup::force_increment(long n, std::size_t s, int c) const {
  return strengths[s] * patterns[s][static_cast<std::size_t>(c)] * sources[s].wavelet(static_cast<double>(n) * dt) /
         config.h;
}

double Elastic3DSetup::stress_increment(long n, std::size_t s, int c) const {
  return -strengths[s] * patterns[s][static_cast<std::size_t>(c)] * sources[s].wavelet(static_cast<double>(n) * dt) /
         (config.h * config.h);
}

void set_elastic3d_sources(Elastic3DSetup& s, std::vector<SourceSpec> sources) {
  if (sources.size() > static_cast<std::size_t>(kMaxSources))
    throw Error(fmt::format("at most {} sources (there would be {})", kMaxSources, sources.size()));
  const std::array<int, 3> size{s.grid.nx, s.grid.ny, s.grid.nz};
  std::vector<double> strengths;
  std::vector<std::array<double, 6>> patterns;
  for (const SourceSpec& src : sources) {
    check_source(src, size, {SourceKind::force, SourceKind::explosion, SourceKind::moment});
    const std::size_t at = s.node(src.node[0], src.node[1], src.node[2]);
    std::array<double, 6> pattern{};
    if (src.kind == SourceKind::force) {
      const double norm = std::hypot(src.direction[0], src.direction[1], src.direction[2]);
      for (int a = 0; a < 3; ++a) pattern[a] = src.direction[a] / norm;
      strengths.push_back(4 * std::numbers::pi * s.medium->c44[at] * s.config.h);  // 4 pi rho vs^2 h
    } else {
      pattern = src.kind == SourceKind::explosion ? std::array<double, 6>{1, 1, 1, 0, 0, 0} : src.moment;
      strengths.push_back(4 * std::numbers::pi * s.medium->c33[at] * s.config.h * s.config.h);  // 4 pi rho vp^2 h^2
    }
    patterns.push_back(pattern);
  }
  s.config.source = !sources.empty();
  s.config.sources = sources;
  s.sources = std::move(sources);
  s.strengths = std::move(strengths);
  s.patterns = std::move(patterns);
}

Seismogram elastic3d_seismogram_head(const Elastic3DSetup& s) {
  return Seismogram{{"u_x", "u_y", "u_z"}, "m", s.receivers, 0, s.dt, {}};
}

void set_elastic3d_receivers(Elastic3DSetup& s, const ReceiverLayout& layout) {
  std::vector<std::array<int, 3>> nodes = receiver_nodes(layout, {s.grid.nx, s.grid.ny, s.grid.nz});
  s.config.receivers = layout;
  s.receiver_layout = layout;
  s.receivers = std::move(nodes);
  s.trace_steps = trace_steps_for(3LL * static_cast<long long>(s.receivers.size()), kElasticTraceSteps);
}

template <typename T>
ElasticForceStep<T> elastic3d_force_step(const Elastic3DSetup& s, long n) {
  ElasticForceStep<T> l;
  for (std::size_t r = 0; r < s.sources.size(); ++r) {
    if (s.sources[r].kind != SourceKind::force) continue;
    for (int a = 0; a < 3; ++a) {
      l.node[l.n][a] = s.sources[r].node[a];
      l.f[l.n][a] = static_cast<T>(s.force_increment(n, r, a));
    }
    ++l.n;
  }
  return l;
}

template <typename T>
ElasticStressStep<T> elastic3d_stress_step(const Elastic3DSetup& s, long n) {
  ElasticStressStep<T> l;
  for (std::size_t r = 0; r < s.sources.size(); ++r) {
    if (s.sources[r].kind == SourceKind::force) continue;
    for (int a = 0; a < 3; ++a) l.node[l.n][a] = s.sources[r].node[a];
    l.mask[l.n] = 0;
    for (int c = 0; c < 6; ++c) {
      l.add[l.n][c] = static_cast<T>(s.stress_increment(n, r, c));
      if (s.patterns[r][static_cast<std::size_t>(c)] != 0) l.mask[l.n] |= 1u << c;
    }
    ++l.n;
  }
  return l;
}
template ElasticForceStep<float> elastic3d_force_step<float>(const Elastic3DSetup&, long);
template ElasticForceStep<double> elastic3d_force_step<double>(const Elastic3DSetup&, long);
template ElasticStressStep<float> elastic3d_stress_step<float>(const Elastic3DSetup&, long);
template ElasticStressStep<double> elastic3d_stress_step<double>(const Elastic3DSetup&, long);

double Elastic3DSetup::damping(int axis, int i) const {
  if (sponge == 0) return 1.0;
  const int n = axis == 0 ? grid.nx : axis == 1 ? grid.ny : grid.nz;
  if (axis < 2 && !absorbing_sides()) return 1.0;
  const int d = axis == 2 && free_top() ? n - 1 - i : std::min(i, n - 1 - i);
  return cerjan_damping(d, sponge, kCerjanA * kDefaultSpongeWidth / sponge);
}

ElasticGhostRule ghost_rule_of(const Elastic3DSetup& s) {
  ElasticGhostRule r;
  r.periodic = s.config.boundary == ElasticBoundary::periodic || s.config.boundary == ElasticBoundary::periodic_sides;
  r.periodic_z = s.config.boundary == ElasticBoundary::periodic;
  r.free_top = s.free_top();
  return r;
}

bool elastic3d_stream25d_runs(const Elastic3DSetup& s) { return s.config.boundary == ElasticBoundary::sponge; }

Elastic3DSetup make_elastic3d_setup(const Elastic3DConfig& c) {
  check_order(c.order);
  auto positive = [](double x, const char* what, const char* unit) {
    if (!(std::isfinite(x) && x > 0)) throw Error(fmt::format("{} must be positive (got {}{})", what, x, unit));
  };
  positive(c.h, "h (grid spacing)", " m");
  positive(c.f0, "f0 (source peak frequency)", " Hz");
  if (c.anisotropy != Anisotropy::stiffness) {
    positive(c.vp, "vp", " m/s");
    positive(c.vs, "vs", " m/s");
  }
  if (!(c.perturbation >= 0 && c.perturbation < 1))
    throw Error(fmt::format("perturbation = {} must lie in [0, 1)", c.perturbation));
  Elastic3DSetup s;
  s.config = c;
  s.grid = Grid3D::make(c.nx, c.ny, c.nz);
  auto medium = std::make_shared<ElasticMediumField>(elastic3d_medium(c));
  s.vmax = medium->vmax * (1 + 1e-6);  // the float rounding of the stored medium
  s.vs_min = medium->vs_min;
  s.medium = std::move(medium);
  s.dt_limit = elastic3d_dt_limit(c.order, s.vmax, c.h);
  if (c.dt == 0) {
    s.dt = kElasticDtFraction * elastic3d_dt_limit(kMaxOrder, s.vmax, c.h);
  } else if (!(std::isfinite(c.dt) && c.dt > 0)) {
    throw Error(fmt::format("dt must be positive (got {})", c.dt));
  } else if (c.dt > s.dt_limit) {
    throw Error(fmt::format("dt {:.6g} s is above the stability limit {:.6g} s of order {} (fastest wave {:g} m/s, h {:g} m)",
                            c.dt, s.dt_limit, c.order, s.vmax, c.h));
  } else {
    s.dt = c.dt;
  }
  if (c.boundary == ElasticBoundary::cpml) {
    s.cpml_layout = make_cpml_layout(c.cpml_width, c.cpml_reflection, c.nx, c.ny, c.nz, c.top == ElasticTop::free);
    s.cpml = s.cpml_layout.hi[0];
  } else if (c.boundary != ElasticBoundary::periodic) {
    const int smallest = c.boundary == ElasticBoundary::sponge ? std::min({c.nx, c.ny, c.nz}) : c.nz;
    if (c.sponge_width < 0) throw Error(fmt::format("sponge width {} must not be negative", c.sponge_width));
    s.sponge = c.sponge_width == 0 ? std::min(kDefaultSpongeWidth, smallest / 3) : c.sponge_width;
    if (3 * s.sponge > smallest)
      throw Error(fmt::format("sponge width {} nodes is wider than a third of the smallest side ({} of {}x{}x{})",
                              s.sponge, smallest / 3, c.nx, c.ny, c.nz));
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
  if (c.rec_z < 0 || c.rec_z >= c.nz)
    throw Error(fmt::format("rec_z = {} puts the receivers outside the grid (nodes 0 to {})", c.rec_z, c.nz - 1));
  const double norm = std::hypot(c.force_dir[0], c.force_dir[1], c.force_dir[2]);
  if (!(norm > 0 && std::isfinite(norm))) throw Error("the force direction must be a non-zero vector");
  for (int a = 0; a < 3; ++a) s.force_dir[a] = c.force_dir[a] / norm;
  const std::size_t centre = s.node(s.src[0], s.src[1], s.src[2]);
  const double rho0 = s.medium->rho[centre];
  const double vs0 = std::sqrt(s.medium->c44[centre] / rho0), vp0 = std::sqrt(s.medium->c33[centre] / rho0);
  const auto w = band_limited_source_weights();
  constexpr int W = 2 * kSourceRadius + 1;
  s.source_weights.assign(static_cast<std::size_t>(W) * W * W, 0.0);
  for (int kk = 0; kk < W; ++kk)
    for (int jj = 0; jj < W; ++jj)
      for (int ii = 0; ii < W; ++ii) s.source_weights[(static_cast<std::size_t>(kk) * W + jj) * W + ii] = w[ii] * w[jj] * w[kk];
  s.source_strength = c.source_kind == ElasticSource::force ? 4 * std::numbers::pi * rho0 * vs0 * vs0 * c.h
                                                            : 4 * std::numbers::pi * rho0 * vp0 * vp0 * c.h * c.h;
  std::vector<SourceSpec> sources = c.sources;
  if (sources.empty() && c.source) {
    SourceSpec p;
    p.kind = c.source_kind == ElasticSource::force       ? SourceKind::force
             : c.source_kind == ElasticSource::explosion ? SourceKind::explosion
                                                         : SourceKind::moment;
    p.node = s.src;
    p.f0_hz = c.f0;
    p.direction = s.force_dir;
    p.moment = c.moment;
    sources.push_back(p);
  }
  set_elastic3d_sources(s, std::move(sources));
  ReceiverLayout line;  // along x on the plane z = rec_z, at y = src_y
  line.position = c.rec_z;
  line.line_at = s.src[1];
  set_elastic3d_receivers(s, c.receivers.value_or(line));
  return s;
}

template <typename T>
std::vector<T> elastic_damping_tables(const Elastic3DSetup& s) {
  std::vector<T> t;
  const int n[3] = {s.grid.nx, s.grid.ny, s.grid.nz};
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < n[a]; ++i) t.push_back(static_cast<T>(s.damping(a, i)));
  return t;
}

template <typename T>
PaddedMedium<T> padded_medium(const Elastic3DSetup& s) {
  const Grid3D& g = s.grid;
  PaddedMedium<T> p;
  for (auto* v : {&p.c11, &p.c13, &p.c33, &p.c44, &p.c66, &p.q}) v->assign(g.elements(), T(0));
  const ElasticMediumField& m = *s.medium;
  const double f = s.dt * s.dt / (s.config.h * s.config.h);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t e = s.node(i, j, k), at = g.index(i, j, k);
        p.c11[at] = static_cast<T>(m.c11[e]);
        p.c13[at] = static_cast<T>(m.c13[e]);
        p.c33[at] = static_cast<T>(m.c33[e]);
        p.c44[at] = static_cast<T>(m.c44[e]);
        p.c66[at] = static_cast<T>(m.c66[e]);
        p.q[at] = static_cast<T>(f / static_cast<double>(m.rho[e]));
      }
  return p;
}

std::vector<float> elastic_vp_field(const Elastic3DSetup& s) {
  const Grid3D& g = s.grid;
  std::vector<float> f(g.elements(), 0.0f);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t e = s.node(i, j, k);
        f[g.index(i, j, k)] = static_cast<float>(std::sqrt(static_cast<double>(s.medium->c33[e]) / s.medium->rho[e]));
      }
  return f;
}

CeFaces ce_faces_of(const Elastic3DSetup& s) { return {s.absorbing_sides(), s.absorbing_bottom() && !s.free_top()}; }

long long elastic_ce_nodes(const Grid3D& g, CeFaces f) {
  const long long z_faces = f.top ? 2 : 1;
  if (!f.sides) return z_faces * g.nx * g.ny;
  return 2LL * g.ny * g.nz + 2LL * (g.nx - 2) * g.nz + z_faces * (g.nx - 2) * (g.ny - 2);
}

template <typename T>
std::vector<T> source_weights_as(const Elastic3DSetup& s) {
  return std::vector<T>(s.source_weights.begin(), s.source_weights.end());
}

template std::vector<float> source_weights_as<float>(const Elastic3DSetup&);
template std::vector<double> source_weights_as<double>(const Elastic3DSetup&);
template <typename T>
std::vector<T> elastic_cpml_table(const Elastic3DSetup& s) {
  if (!s.cpml_layout.any()) return {};
  const int n[3] = {s.grid.nx, s.grid.ny, s.grid.nz};
  const std::vector<double> t =
      cpml_table(s.cpml_layout, n, s.vmax, s.config.h, s.dt, s.config.f0, s.config.cpml_reflection);
  return std::vector<T>(t.begin(), t.end());
}
template std::vector<float> elastic_cpml_table<float>(const Elastic3DSetup&);
template std::vector<double> elastic_cpml_table<double>(const Elastic3DSetup&);

template std::vector<float> elastic_damping_tables<float>(const Elastic3DSetup&);
template std::vector<double> elastic_damping_tables<double>(const Elastic3DSetup&);
template PaddedMedium<float> padded_medium<float>(const Elastic3DSetup&);
template PaddedMedium<double> padded_medium<double>(const Elastic3DSetup&);

}  // namespace ss
