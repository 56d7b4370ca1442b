#pragma once
// Elastic 3D (Weiss & Shragge 2013): the stress-stiffness formulation of the elastic wave
// equation on a regular (collocated) grid,
//   eps_kl = (d_k u_l + d_l u_k) / 2,   sigma_ij = c_ijkl eps_kl,   rho u_i,tt = d_j sigma_ij + F_i,
// leapfrog in time, central first derivatives of order 2..8 (radius 1..4) in space, on
// nx-by-ny-by-nz nodes of spacing h (node (i, j, k) at (i h, j h, k h); z grows downwards
// from the top plane k = 0). The medium is VTI per node (C11, C13, C33, C44, C66 and rho;
// isotropic is the special case C11 = C33 = lambda + 2 mu, C13 = lambda, C44 = C66 = mu).
// Derivatives are taken at unit spacing, so the code carries e = h eps and s = h sigma:
//   u^{n+1} = d (2 u^n - d u^{n-1} + q (D1 s + F / h)),   q = dt^2 / (rho h^2) per node,
// d the sponge's damping. docs/elastic3d.md derives the scaling, the dt limit and the
// boundaries (stress-imaging free surface, Clayton-Engquist + Cerjan on the other faces,
// or a convolutional PML).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/cpml.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"
#include "sim/core/sources.hpp"
#include "sim/core/sponge.hpp"
#include "sim/core/stencil.hpp"

namespace ss {

/// Kernel variants of elastic 3D. GPU: steps (the paper's nine kernels, strains and
/// stresses through global memory), fused (stresses computed from u per point and
/// written once, then one divergence-and-update kernel), stream25d (one kernel streaming
/// along z with the xy tile in shared memory: strains and stresses never reach memory;
/// under the sponge boundary only, else it steps as fused), register25d (stream25d with
/// the tile's u columns in registers and every load one plane ahead; the same boundaries
/// and fallback). CPU: cpu (OpenMP, the shared point functions) and reference (double,
/// plain loops, bench only).
enum class Elastic3DVariant { steps, fused, stream25d, register25d, cpu, reference };
inline constexpr std::array kAllElastic3DVariants = {Elastic3DVariant::steps,       Elastic3DVariant::fused,
                                                     Elastic3DVariant::stream25d,   Elastic3DVariant::register25d,
                                                     Elastic3DVariant::cpu,         Elastic3DVariant::reference};
inline constexpr std::array kGpuElastic3DVariants = {Elastic3DVariant::steps, Elastic3DVariant::fused,
                                                     Elastic3DVariant::stream25d, Elastic3DVariant::register25d};
std::string_view to_string(Elastic3DVariant v);
Elastic3DVariant parse_elastic3d_variant(std::string_view s);
bool is_gpu(Elastic3DVariant v);

/// homogeneous: the base medium everywhere. layered: four horizontal layers of equal
/// thickness, velocities x 1, 1.25, 1.5, 1.75 and density x 1, 1.1, 1.2, 1.3 from the top
/// down. vti_layer: isotropic (vp, vs, rho) with its middle third in depth VTI (the
/// Thomsen parameters on vp, vs; the given stiffnesses when anisotropy = stiffness).
/// random: velocities x (1 + a n(x)), n a smooth seeded random field in [-1, 1].
enum class ElasticMedium { homogeneous, layered, vti_layer, random };
inline constexpr std::array kAllElasticMedia = {ElasticMedium::homogeneous, ElasticMedium::layered,
                                                ElasticMedium::vti_layer, ElasticMedium::random};
std::string_view to_string(ElasticMedium m);
ElasticMedium parse_elastic_medium(std::string_view s);

/// How the base medium is given: isotropic (vp, vs, rho), thomsen (vp0 = vp, vs0 = vs,
/// epsilon, delta, gamma, rho) or stiffness (C11, C13, C33, C44, C66, rho).
enum class Anisotropy { isotropic, thomsen, stiffness };
inline constexpr std::array kAllAnisotropies = {Anisotropy::isotropic, Anisotropy::thomsen, Anisotropy::stiffness};
std::string_view to_string(Anisotropy a);
Anisotropy parse_anisotropy(std::string_view s);

/// sponge: Clayton-Engquist on the outermost nodes and a Cerjan sponge along every face
/// (the top's by `ElasticTop`), u = 0 beyond. periodic: the box wraps. periodic_sides: x and
/// y wrap, the bottom absorbs as under `sponge`, the top by `ElasticTop` (a half-space
/// infinite sideways: the Rayleigh test). cpml: a convolutional PML along every face (the
/// top's by `ElasticTop`), u = 0 beyond; no Clayton-Engquist, no sponge.
enum class ElasticBoundary { sponge, periodic, periodic_sides, cpml };
inline constexpr std::array kAllElasticBoundaries = {ElasticBoundary::sponge, ElasticBoundary::periodic,
                                                     ElasticBoundary::periodic_sides, ElasticBoundary::cpml};
std::string_view to_string(ElasticBoundary b);
ElasticBoundary parse_elastic_boundary(std::string_view s);

/// The top face under the sponge boundary: free (sigma_zj = 0 on k = 0) or absorbing.
enum class ElasticTop { free, absorbing };
inline constexpr std::array kAllElasticTops = {ElasticTop::free, ElasticTop::absorbing};
std::string_view to_string(ElasticTop t);
ElasticTop parse_elastic_top(std::string_view s);

/// force: a point force along `force_dir` (an acceleration source). explosion: an
/// isotropic moment tensor M0 (a stress source on sigma_xx, sigma_yy, sigma_zz). moment: a
/// general moment tensor `moment` in units of M0 (a stress source).
enum class ElasticSource { force, explosion, moment };
inline constexpr std::array kAllElasticSources = {ElasticSource::force, ElasticSource::explosion, ElasticSource::moment};
std::string_view to_string(ElasticSource s);
ElasticSource parse_elastic_source(std::string_view s);

/// The five independent stiffnesses of a VTI medium (Pa), symmetry axis z.
struct Vti {
  double c11 = 0, c13 = 0, c33 = 0, c44 = 0, c66 = 0;
  double c12() const { return c11 - 2 * c66; }
};
/// lambda + 2 mu = rho vp^2, mu = rho vs^2.
Vti isotropic_stiffness(double vp, double vs, double rho);
/// Thomsen (1986): C33 = rho vp0^2, C44 = rho vs0^2, C11 = C33 (1 + 2 eps),
/// C66 = C44 (1 + 2 gamma), (C13 + C44)^2 = (C33 - C44)^2 + 2 delta C33 (C33 - C44).
Vti thomsen_stiffness(double vp0, double vs0, double epsilon, double delta, double gamma, double rho);
/// The inverse: epsilon, delta, gamma of a VTI medium.
std::array<double, 3> thomsen_parameters(const Vti& c);
/// Largest phase velocity over all directions (qP and SH; sampled finely in angle).
double vti_max_phase_velocity(const Vti& c, double rho);
/// The same maximum in closed form (the qP branch's stationary points in sin^2 of the
/// angle, and the ends): a few square roots, for ranking the nodes of a medium file.
double vti_max_phase_velocity_exact(const Vti& c, double rho);

/// Half width of the band-limited source: a point source is spread over (2 M + 1)^3 nodes.
inline constexpr int kSourceRadius = 8;
/// The per-axis weights w[m], m = -M..M, of the band-limited point source: the least-squares
/// fit of its response S(theta) = sum_m w[m] cos(m theta) to 1 on [0, 0.35 pi] and to 0 on
/// [0.75 pi, pi], scaled to sum 1. A discrete delta would also excite wavenumbers near the
/// grid's Nyquist wavenumber, where the collocated first derivative is ~0: those modes form
/// a spurious checkerboard wave (group velocity 2.66 v at order 8) that swamps the field
/// near the source. (docs/elastic3d.md)
std::array<double, 2 * kSourceRadius + 1> band_limited_source_weights();

/// Safety factor of the automatic dt: this fraction of the order-8 limit (the strictest),
/// so dt stays when the order changes on a live field.
inline constexpr double kElasticDtFraction = 0.5;
/// Receiver traces kept per run: the first this many steps after a reset or a load.
inline constexpr int kElasticTraceSteps = 4096;

struct Elastic3DConfig {
  int nx = 96, ny = 96, nz = 96;  ///< grid nodes per axis
  int order = 8;                  ///< 2, 4, 6 or 8
  ElasticMedium medium = ElasticMedium::homogeneous;
  Anisotropy anisotropy = Anisotropy::isotropic;
  double vp = 3000, vs = 1732, rho = 2000;       ///< m/s, m/s, kg/m^3 (thomsen: vp0, vs0)
  double epsilon = 0.2, delta = 0.1, gamma = 0.1;  ///< Thomsen
  Vti stiffness{};                                 ///< anisotropy = stiffness (Pa)
  double perturbation = 0.1;                       ///< random medium
  std::uint32_t seed = 1;                          ///< random medium
  double h = 10;    ///< m
  double dt = 0;    ///< s; 0 picks kElasticDtFraction of the order-8 limit
  double f0 = 10;   ///< Hz: Ricker peak frequency
  ElasticSource source_kind = ElasticSource::force;
  std::array<double, 3> force_dir{0, 0, 1};  ///< unit vector (normalised by the setup)
  std::array<double, 6> moment{1, 1, 1, 0, 0, 0};  ///< moment source: xx, yy, zz, xy, xz, yz in units of M0
  /// Source node, 1 .. n - 1 per axis; 0: the centre of that axis.
  int src_x = 0, src_y = 0, src_z = 0;
  int rec_z = 0;       ///< depth node of the receiver line (along x through src_y); 0: the surface
  bool source = true;  ///< false: no source (tests start from a loaded field)
  /// Point sources (force, explosion, moment) that replace the one above when not empty.
  std::vector<SourceSpec> sources;
  /// Where the receivers are; empty: the line along x at (j = src_y, k = rec_z).
  std::optional<ReceiverLayout> receivers;
  ElasticBoundary boundary = ElasticBoundary::sponge;
  ElasticTop top = ElasticTop::free;
  int sponge_width = 0;  ///< nodes; 0: kDefaultSpongeWidth or a third of the smallest side
  int cpml_width = 0;    ///< nodes; 0: kDefaultCpmlWidth or a third of the smallest side
  double cpml_reflection = kDefaultCpmlReflection;  ///< R of the CPML's d0
  /// A medium per node read from files (load_elastic_files) that replaces `medium` when
  /// any of them is set: isotropic (vp, vs, rho) under anisotropy isotropic, VTI (vp0 = vp,
  /// vs0 = vs, epsilon, delta, gamma, rho) under anisotropy thomsen; a quantity without a
  /// file takes its parameter everywhere.
  struct Files {
    /// Per node, x fastest; a null one takes its parameter above.
    std::shared_ptr<const std::vector<float>> vp, vs, rho, epsilon, delta, gamma;
    std::string vp_path, vs_path, rho_path, epsilon_path, delta_path, gamma_path;  ///< named in messages
    bool any() const { return vp || vs || rho || thomsen(); }
    bool thomsen() const { return epsilon || delta || gamma; }
  } files;
};

/// The paths of a medium's files; an empty one: no file for that quantity.
struct ElasticMediaPaths {
  std::string vp, vs, rho, epsilon, delta, gamma;
};
/// Reads the non-empty paths of (nz, ny, nx) float32 .npy files into c.files; throws
/// ss::Error naming the file and the shape found and needed. The values are checked per
/// node by elastic3d_medium.
void load_elastic_files(Elastic3DConfig& c, const ElasticMediaPaths& paths);

/// The medium per node, x fastest (unpadded), in float: what every solver reads.
struct ElasticMediumField {
  std::vector<float> c11, c13, c33, c44, c66, rho;
  /// The fastest phase velocity over all directions and nodes, and the slowest S velocity:
  /// from the (at most two) base media times each node's velocity scale, so a random
  /// medium costs no angle search per node.
  double vmax = 0, vs_min = 0;
};

/// The medium of `c` (checked: refused naming the first bad node).
ElasticMediumField elastic3d_medium(const Elastic3DConfig& c);

struct Elastic3DSetup {
  Elastic3DConfig config;
  Grid3D grid;
  double dt = 0, dt_limit = 0;
  double vmax = 0;       ///< fastest phase velocity of the medium
  double vs_min = 0;     ///< slowest S velocity (sqrt(min(C44, C66) / rho))
  int sponge = 0;        ///< width in use (0: periodic or cpml)
  int cpml = 0;          ///< CPML width in use (0: no CPML)
  CpmlLayout cpml_layout;  ///< where the CPML's layers are (none unless cpml)
  std::array<int, 3> src{};             ///< node of the parameters' source (the centre by default)
  std::array<double, 3> force_dir{};    ///< the parameters' force direction, normalised
  double source_strength = 0;  ///< the parameters' source: force A (N) = 4 pi rho vs^2 h; else M0 (N m) = 4 pi rho vp^2 h^2
  std::shared_ptr<const ElasticMediumField> medium;
  /// The source's weight per node of the box src - M .. src + M (x fastest, (2M + 1)^3
  /// values): the product of the per-axis weights (the same for every source; the box is
  /// clipped at the faces, never wrapped).
  std::vector<double> source_weights;
  std::vector<SourceSpec> sources;      ///< injected in this order (checked)
  /// Per source: the natural strength at its node (force: 4 pi rho vs^2 h; stress sources:
  /// M0 = 4 pi rho vp^2 h^2) and the unit direction (force) or moment tensor (stress).
  std::vector<double> strengths;
  std::vector<std::array<double, 6>> patterns;
  ReceiverLayout receiver_layout;
  std::vector<std::array<int, 3>> receivers;  ///< nodes
  int trace_steps = 0;                  ///< steps of traces kept

  double ricker(double t) const;

  /// Force source s, component c: what the step from t_n adds to the unit-spacing
  /// divergence of its box's nodes, times their weights: F_c(t_n) / h.
  double force_increment(long n, std::size_t s, int c) const;
  /// Stress source s (explosion, moment), component c (xx, yy, zz, xy, xz, yz): what the
  /// step from t_n adds to h sigma_c of its box's nodes, times their weights: -M_c(t_n) / h^2.
  double stress_increment(long n, std::size_t s, int c) const;
  double damping(int axis, int i) const;
  bool free_top() const { return config.boundary != ElasticBoundary::periodic && config.top == ElasticTop::free; }
  /// Which faces absorb by the cascade (Clayton-Engquist and the sponge); none under cpml.
  bool absorbing_sides() const { return config.boundary == ElasticBoundary::sponge; }
  bool absorbing_bottom() const {
    return config.boundary == ElasticBoundary::sponge || config.boundary == ElasticBoundary::periodic_sides;
  }
  std::size_t node(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * grid.ny + j) * grid.nx + i;
  }
};

/// max over theta of |2 sum_k w_k sin(k theta)|: the largest wavenumber (unit spacing) the
/// first-derivative stencil of `order` represents (1 at order 2).
double first_derivative_spectral_radius(int order);
/// Leapfrog stability limit: dt <= 2 h / (vmax sqrt(3) rho1).
double elastic3d_dt_limit(int order, double vmax, double h);

/// Validates and derives; throws ss::Error naming the offending value (or node).
Elastic3DSetup make_elastic3d_setup(const Elastic3DConfig& config);

/// Replaces the sources (checked: force, explosion or moment, nodes 1 .. n - 1, at most
/// kMaxSources); throws ss::Error and leaves `s` unchanged when one is refused.
void set_elastic3d_sources(Elastic3DSetup& s, std::vector<SourceSpec> sources);
/// Moves the receivers; throws ss::Error (outside the grid) and leaves `s` unchanged.
void set_elastic3d_receivers(Elastic3DSetup& s, const ReceiverLayout& layout);
/// The seismogram of `s` without values (u_x, u_y, u_z in m at the setup's receivers, dt;
/// first_step 0): what one rank and the boxes of a distributed run label their traces with.
Seismogram elastic3d_seismogram_head(const Elastic3DSetup& s);

/// The force sources' increments of one step, by value for the kernels, in list order.
template <typename T>
struct ElasticForceStep {
  int n = 0;
  int node[kMaxSources][3];
  T f[kMaxSources][3];
};
/// The stress sources' increments of one step; `mask` bit c: the source loads component c
/// (its moment tensor's non-zero components: an explosion and an isotropic moment tensor
/// load the same three, so they write the same bits).
template <typename T>
struct ElasticStressStep {
  int n = 0;
  int node[kMaxSources][3];
  T add[kMaxSources][6];
  unsigned mask[kMaxSources];
};
template <typename T>
ElasticForceStep<T> elastic3d_force_step(const Elastic3DSetup& s, long n);
template <typename T>
ElasticStressStep<T> elastic3d_stress_step(const Elastic3DSetup& s, long n);

// ---- point functions (host and device, the same bits) -------------------------

/// Index into the source box of node (i, j, k) (x fastest), or -1 outside the box.
SS_HD SS_FORCEINLINE int source_box_index(int i, int j, int k, int sx, int sy, int sz) {
  constexpr int M = kSourceRadius, W = 2 * kSourceRadius + 1;
  const int a = i - sx + M, b = j - sy + M, c = k - sz + M;
  if (a < 0 || a >= W || b < 0 || b >= W || c < 0 || c >= W) return -1;
  return (c * W + b) * W + a;
}

/// Adds the force sources whose box holds node (i, j, k) to its divergence a, in list
/// order: a_c + f_c w[box index], one source after another.
template <typename T>
SS_HD SS_FORCEINLINE void elastic_add_forces(const ElasticForceStep<T>& l, int i, int j, int k, const T* w, T (&a)[3]) {
  for (int r = 0; r < l.n; ++r) {
    const int b = source_box_index(i, j, k, l.node[r][0], l.node[r][1], l.node[r][2]);
    if (b < 0) continue;
    a[0] = a[0] + l.f[r][0] * w[b];
    a[1] = a[1] + l.f[r][1] * w[b];
    a[2] = a[2] + l.f[r][2] * w[b];
  }
}
/// As elastic_add_forces for the stress sources, on the six stresses s of the node.
template <typename T>
SS_HD SS_FORCEINLINE void elastic_add_stresses(const ElasticStressStep<T>& l, int i, int j, int k, const T* w,
                                               T (&s)[6]) {
  for (int r = 0; r < l.n; ++r) {
    const int b = source_box_index(i, j, k, l.node[r][0], l.node[r][1], l.node[r][2]);
    if (b < 0) continue;
    for (int c = 0; c < 6; ++c)
      if (l.mask[r] >> c & 1u) s[c] = s[c] + l.add[r][c] * w[b];
  }
}
/// Source r of a list owns node (i, j, k) of its box when no earlier source's box holds
/// it: the box-parallel kernels add every source of a node from its owner, so the sum is
/// the same however many threads run.
template <typename L>
SS_HD SS_FORCEINLINE bool elastic_source_owner(const L& l, int r, int i, int j, int k) {
  for (int q = 0; q < r; ++q)
    if (source_box_index(i, j, k, l.node[q][0], l.node[q][1], l.node[q][2]) >= 0) return false;
  return true;
}

/// sum_k w_k (f[R + k] - f[R - k]) over a line of 2R + 1 values (explicit FMAs, fixed order).
template <typename T, int R>
SS_HD SS_FORCEINLINE T first_derivative(const T* f) {
  constexpr auto w = first_derivative_weights<R>();
  T d = static_cast<T>(w[1]) * (f[R + 1] - f[R - 1]);
SS_UNROLL
  for (int k = 2; k <= R; ++k) d = fma_t(static_cast<T>(w[k]), f[R + k] - f[R - k], d);
  return d;
}

/// Unit-spacing strains of a node: xx, yy, zz, xy, xz, yz (tensor components).
template <typename T>
struct Strain6 {
  T xx, yy, zz, xy, xz, yz;
};
/// Stresses (h sigma): xx, yy, zz, xy, xz, yz.
template <typename T>
struct Stress6 {
  T xx, yy, zz, xy, xz, yz;
};
/// The medium of one node.
template <typename T>
struct VtiNode {
  T c11, c13, c33, c44, c66;
};

/// Strains from the nine first derivatives g[c][a] = d_a u_c (unit spacing).
template <typename T>
SS_HD SS_FORCEINLINE Strain6<T> elastic_strain(const T (&g)[3][3]) {
  const T half = T(0.5);
  return {g[0][0], g[1][1], g[2][2], half * (g[0][1] + g[1][0]), half * (g[0][2] + g[2][0]),
          half * (g[1][2] + g[2][1])};
}

/// Stresses from strains. On the free surface (`surface`): sigma_zj = 0, and the
/// horizontal stresses take the strain eps_zz = -C13 / C33 (eps_xx + eps_yy) that
/// sigma_zz = 0 implies (plane stress).
template <typename T>
SS_HD SS_FORCEINLINE Stress6<T> elastic_stress(const Strain6<T>& e, const VtiNode<T>& c, bool surface) {
  const T c12 = fma_t(T(-2), c.c66, c.c11);
  Stress6<T> s;
  if (surface) {
    const T r = c.c13 / c.c33;
    const T a = fma_t(-r, c.c13, c.c11), b = fma_t(-r, c.c13, c12);
    s.xx = fma_t(a, e.xx, b * e.yy);
    s.yy = fma_t(b, e.xx, a * e.yy);
    s.zz = T(0);
    s.xz = T(0);
    s.yz = T(0);
  } else {
    s.xx = fma_t(c.c11, e.xx, fma_t(c12, e.yy, c.c13 * e.zz));
    s.yy = fma_t(c12, e.xx, fma_t(c.c11, e.yy, c.c13 * e.zz));
    s.zz = fma_t(c.c13, e.xx + e.yy, c.c33 * e.zz);
    s.xz = T(2) * c.c44 * e.xz;
    s.yz = T(2) * c.c44 * e.yz;
  }
  s.xy = T(2) * c.c66 * e.xy;
  return s;
}

/// The displacement update of one component: d (2 u - d u_prev + q a), a the unit-spacing
/// stress divergence plus any force source.
template <typename T>
SS_HD SS_FORCEINLINE T elastic_update(T u, T prev, T q, T a, T damp) {
  return damp * fma_t(q, a, fma_t(-damp, prev, u + u));
}

/// Clayton-Engquist (1977) A1 on an outermost node: u' = d (u - c (u - u_inner)), c = v dt / h
/// of the wave leaving along the face normal (P for the normal component, S otherwise).
template <typename T>
SS_HD SS_FORCEINLINE T clayton_engquist(T u, T inner, T c, T damp) {
  return damp * fma_t(-c, u - inner, u);
}

/// How ghost faces are written: wrapped (x and y when `periodic`, z when `periodic_z`),
/// else 0; on a free top, a mirror about k = 0 with `top_sign` (+1 for u and the
/// horizontal stresses, -1 for sigma_zj).
struct ElasticGhostRule {
  bool periodic = false;
  bool periodic_z = false;
  bool free_top = false;
};

SS_HD SS_FORCEINLINE int elastic_ghost_index(int m, int n) { return m < kGhost ? -1 - m : n + m - kGhost; }
SS_HD SS_FORCEINLINE int elastic_wrap(int gi, int n) { return gi < 0 ? gi + n : gi - n; }

/// Writes ghost face cell e in [0, ghost_face_cells(g)) of f (x faces, then y, then z).
template <typename T>
SS_HD SS_FORCEINLINE void write_elastic_ghost(T* f, const Grid3D& g, long long e, ElasticGhostRule r, T top_sign) {
  constexpr int G2 = 2 * kGhost;
  const long long x_cells = static_cast<long long>(G2) * g.ny * g.nz;
  const long long y_cells = static_cast<long long>(G2) * g.nx * g.nz;
  if (e < x_cells) {
    const long long row = e / G2;
    const int gi = elastic_ghost_index(static_cast<int>(e - row * G2), g.nx);
    const int j = static_cast<int>(row % g.ny), k = static_cast<int>(row / g.ny);
    f[g.index(gi, j, k)] = r.periodic ? f[g.index(elastic_wrap(gi, g.nx), j, k)] : T(0);
    return;
  }
  e -= x_cells;
  if (e < y_cells) {
    const long long rest = e / g.nx;
    const int i = static_cast<int>(e - rest * g.nx);
    const int gj = elastic_ghost_index(static_cast<int>(rest % G2), g.ny), k = static_cast<int>(rest / G2);
    f[g.index(i, gj, k)] = r.periodic ? f[g.index(i, elastic_wrap(gj, g.ny), k)] : T(0);
    return;
  }
  e -= y_cells;
  const long long rest = e / g.nx;
  const int i = static_cast<int>(e - rest * g.nx);
  const int j = static_cast<int>(rest % g.ny), gk = elastic_ghost_index(static_cast<int>(rest / g.ny), g.nz);
  T v = T(0);
  if (r.periodic_z) v = f[g.index(i, j, elastic_wrap(gk, g.nz))];
  else if (r.free_top && gk < 0) v = top_sign * f[g.index(i, j, -gk)];
  f[g.index(i, j, gk)] = v;
}

/// Sign of the top mirror of stress component s (0 xx, 1 yy, 2 zz, 3 xy, 4 xz, 5 yz).
SS_HD SS_FORCEINLINE int elastic_stress_top_sign(int s) { return s == 2 || s == 4 || s == 5 ? -1 : 1; }

/// The boundary-condition rule of a setup.
ElasticGhostRule ghost_rule_of(const Elastic3DSetup& s);
/// Whether the stream25d and register25d variants run their own kernels on this setup:
/// under the sponge boundary (free or absorbing top); the periodic wraps and the CPML step
/// as `fused`.
bool elastic3d_stream25d_runs(const Elastic3DSetup& s);

/// The CPML's coefficient table (cpml_table) rounded to T; empty without CPML.
template <typename T>
std::vector<T> elastic_cpml_table(const Elastic3DSetup& s);
/// Memory variables per CPML slab a: psi of d_a u_c (c = x, y, z), then phi of
/// d_a sigma_ca (c = x, y, z).
inline constexpr int kElasticCpmlVars = 6;

/// Per-axis damping tables rounded to T: x (nx), y (ny), z (nz).
template <typename T>
std::vector<T> elastic_damping_tables(const Elastic3DSetup& s);

/// The medium in the padded layout of s.grid, rounded to T: c11, c13, c33, c44, c66 and
/// q = dt^2 / (rho h^2) (q in T from the float rho, in double).
template <typename T>
struct PaddedMedium {
  std::vector<T> c11, c13, c33, c44, c66, q;
};
template <typename T>
PaddedMedium<T> padded_medium(const Elastic3DSetup& s);

/// The source box's weights rounded to T (Elastic3DSetup::source_weights).
template <typename T>
std::vector<T> source_weights_as(const Elastic3DSetup& s);

/// vp = sqrt(C33 / rho) per node in the padded layout (for views).
std::vector<float> elastic_vp_field(const Elastic3DSetup& s);

/// Which outermost nodes the boundary step (Clayton-Engquist) rewrites: the x and y faces
/// (`sides`), the bottom, and the top when it absorbs (`top`).
struct CeFaces {
  bool sides = true, top = false;
};
CeFaces ce_faces_of(const Elastic3DSetup& s);
/// Their count: x faces, then y faces, then the bottom, then the top; a node on several
/// faces belongs to the first.
long long elastic_ce_nodes(const Grid3D& g, CeFaces f);
/// Node of boundary cell e and the axis (0, 1, 2) and direction (-1 low face, +1 high
/// face) of its face.
struct CeNode {
  int i, j, k, axis, side;
};
SS_HD SS_FORCEINLINE CeNode elastic_ce_node(const Grid3D& g, CeFaces f, long long e) {
  int i0 = 0, nxi = g.nx, j0 = 0, nyi = g.ny;  // the z faces' extent
  if (f.sides) {
    const long long xf = 2LL * g.ny * g.nz;
    if (e < xf) {
      const int side = static_cast<int>(e % 2);
      const long long r = e / 2;
      return {side ? g.nx - 1 : 0, static_cast<int>(r % g.ny), static_cast<int>(r / g.ny), 0, side ? 1 : -1};
    }
    e -= xf;
    const long long yf = 2LL * (g.nx - 2) * g.nz;  // x faces already own i = 0 and nx - 1
    if (e < yf) {
      const int side = static_cast<int>(e % 2);
      const long long r = e / 2;
      return {1 + static_cast<int>(r % (g.nx - 2)), side ? g.ny - 1 : 0, static_cast<int>(r / (g.nx - 2)), 1,
              side ? 1 : -1};
    }
    e -= yf;
    i0 = 1, nxi = g.nx - 2, j0 = 1, nyi = g.ny - 2;
  }
  const long long per_face = static_cast<long long>(nxi) * nyi;
  const bool bottom = e < per_face;  // the bottom (k = nz - 1) first, then the top
  const long long r = bottom ? e : e - per_face;
  return {i0 + static_cast<int>(r % nxi), j0 + static_cast<int>(r / nxi), bottom ? g.nz - 1 : 0, 2, bottom ? 1 : -1};
}

}  // namespace ss

namespace ss {

// ---- the point computations every variant but the reference shares ------------

/// The 2R + 1 values of f along a stride around element e.
template <typename T, int R>
SS_HD SS_FORCEINLINE void elastic_line(const T* f, std::size_t e, std::ptrdiff_t stride, T (&out)[2 * R + 1]) {
SS_UNROLL
  for (int m = 0; m <= 2 * R; ++m) out[m] = f[static_cast<std::ptrdiff_t>(e) + (m - R) * stride];
}

/// d_axis f at element e (unit spacing); strides 1, pitch, plane.
template <typename T, int R>
SS_HD SS_FORCEINLINE T elastic_derivative(const T* f, std::size_t e, std::ptrdiff_t stride) {
  T line[2 * R + 1];
  elastic_line<T, R>(f, e, stride, line);
  return first_derivative<T, R>(line);
}

/// Steps 1 of a node: the nine derivatives d_a u_c and the strains.
template <typename T, int R>
SS_HD SS_FORCEINLINE Strain6<T> elastic_strain_at(const T* ux, const T* uy, const T* uz, std::size_t e,
                                                  std::ptrdiff_t pitch, std::ptrdiff_t plane) {
  const T* u[3] = {ux, uy, uz};
  const std::ptrdiff_t stride[3] = {1, pitch, plane};
  T g[3][3];
SS_UNROLL
  for (int c = 0; c < 3; ++c)
SS_UNROLL
    for (int a = 0; a < 3; ++a) g[c][a] = elastic_derivative<T, R>(u[c], e, stride[a]);
  return elastic_strain(g);
}

/// Step 5 of a node: the unit-spacing stress divergence, s = {xx, yy, zz, xy, xz, yz}:
///   a_x = (D_x s_xx + D_y s_xy) + D_z s_xz, and so on.
template <typename T, int R>
SS_HD SS_FORCEINLINE void elastic_divergence_at(const T* const (&s)[6], std::size_t e, std::ptrdiff_t pitch,
                                                std::ptrdiff_t plane, T (&a)[3]) {
  a[0] = (elastic_derivative<T, R>(s[0], e, 1) + elastic_derivative<T, R>(s[3], e, pitch)) +
         elastic_derivative<T, R>(s[4], e, plane);
  a[1] = (elastic_derivative<T, R>(s[3], e, 1) + elastic_derivative<T, R>(s[1], e, pitch)) +
         elastic_derivative<T, R>(s[5], e, plane);
  a[2] = (elastic_derivative<T, R>(s[4], e, 1) + elastic_derivative<T, R>(s[5], e, pitch)) +
         elastic_derivative<T, R>(s[2], e, plane);
}

// ---- CPML (docs/elastic3d.md): every first derivative along a inside slab a is the
// stretched one, d~_a f = d_a f + psi (cpml.hpp), in the strains (d~_a u_c) and in the
// stress divergence (d~_a sigma_ca). Both are linear, so the variants run unchanged and
// two passes over the slab nodes add the memory variables' part:
//   after the stresses:  psi_ac = b psi_ac + c D_a u_c; sigma += C : eps(psi) (the free
//                        surface's plane stress on k = 0), before the stress source;
//   after the update:    phi_ac = b phi_ac + c D_a sigma_ca; u_c^{n+1} += q sum_a phi_ac,
//                        after the force source, before the ghosts.

template <typename T>
struct ElasticCpml {
  CpmlLayout layout;
  T* memory;       ///< kElasticCpmlVars per slab (CpmlLayout::slab_base)
  const T* table;  ///< elastic_cpml_table
};

/// The CPML's stress pass at node (i, j, k) of the slabs: updates psi from u^n and adds
/// the stress of the strain of the psi (d_a u_c -> psi_ac) to the six stress arrays.
template <typename T, int R>
SS_HD SS_FORCEINLINE void elastic_cpml_stress(const T* ux, const T* uy, const T* uz, const ElasticCpml<T>& m,
                                              const VtiNode<T>& medium, bool surface, const Grid3D& g, int i, int j,
                                              int k, T* const (&s)[6]) {
  const std::size_t e = g.index(i, j, k);
  const T* u[3] = {ux, uy, uz};
  const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  const int at[3] = {i, j, k}, n[3] = {g.nx, g.ny, g.nz};
  T psi[3][3] = {{T(0), T(0), T(0)}, {T(0), T(0), T(0)}, {T(0), T(0), T(0)}};  // [c][a], as elastic_strain's g
SS_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int sl = m.layout.slot(a, at[a], n[a]);
    if (sl < 0) continue;
    const std::size_t cells = m.layout.slab_cells(a, g);
    const std::size_t base = m.layout.slab_base(a, kElasticCpmlVars, g) + m.layout.slab_index(a, sl, i, j, k, g);
    const T* tab = m.table + m.layout.table_base(a);
    const T b = tab[sl], c = tab[m.layout.slots(a) + sl];
SS_UNROLL
    for (int comp = 0; comp < 3; ++comp) {
      T& v = m.memory[base + comp * cells];
      v = fma_t(b, v, c * elastic_derivative<T, R>(u[comp], e, stride[a]));
      psi[comp][a] = v;
    }
  }
  const Stress6<T> d = elastic_stress(elastic_strain(psi), medium, surface);
  s[0][e] = s[0][e] + d.xx, s[1][e] = s[1][e] + d.yy, s[2][e] = s[2][e] + d.zz;
  s[3][e] = s[3][e] + d.xy, s[4][e] = s[4][e] + d.xz, s[5][e] = s[5][e] + d.yz;
}

/// The CPML's update pass at node (i, j, k) of the slabs: updates phi from the stresses
/// (ghosts written) and adds q sum_a phi_ac to u_c^{n+1}.
template <typename T, int R>
SS_HD SS_FORCEINLINE void elastic_cpml_update(const T* const (&s)[6], const ElasticCpml<T>& m, T q, const Grid3D& g,
                                              int i, int j, int k, T* const (&out)[3]) {
  constexpr int comp_of[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};  // sigma_ca: [c][a]
  const std::size_t e = g.index(i, j, k);
  const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  const int at[3] = {i, j, k}, n[3] = {g.nx, g.ny, g.nz};
  T sum[3] = {T(0), T(0), T(0)};
SS_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int sl = m.layout.slot(a, at[a], n[a]);
    if (sl < 0) continue;
    const std::size_t cells = m.layout.slab_cells(a, g);
    const std::size_t base = m.layout.slab_base(a, kElasticCpmlVars, g) + m.layout.slab_index(a, sl, i, j, k, g);
    const T* tab = m.table + m.layout.table_base(a);
    const T b = tab[sl], c = tab[m.layout.slots(a) + sl];
SS_UNROLL
    for (int comp = 0; comp < 3; ++comp) {
      T& v = m.memory[base + (3 + comp) * cells];
      v = fma_t(b, v, c * elastic_derivative<T, R>(s[comp_of[comp][a]], e, stride[a]));
      sum[comp] = sum[comp] + v;
    }
  }
SS_UNROLL
  for (int comp = 0; comp < 3; ++comp) out[comp][e] = fma_t(q, sum[comp], out[comp][e]);
}

/// What the views show besides the components: |u|, the divergence (P) and the curl's
/// magnitude (S), the derivatives at the running order divided by h.
enum class ElasticDerived { magnitude, divergence, curl };

template <typename T, int R>
SS_HD SS_FORCEINLINE float elastic_derived_at(ElasticDerived q, const T* ux, const T* uy, const T* uz, std::size_t e,
                                              std::ptrdiff_t pitch, std::ptrdiff_t plane, double inv_h) {
  if (q == ElasticDerived::magnitude) {
    const double x = ux[e], y = uy[e], z = uz[e];
    return static_cast<float>(std::sqrt(x * x + y * y + z * z));
  }
  if (q == ElasticDerived::divergence)
    return static_cast<float>(inv_h * ((static_cast<double>(elastic_derivative<T, R>(ux, e, 1)) +
                                        elastic_derivative<T, R>(uy, e, pitch)) +
                                       elastic_derivative<T, R>(uz, e, plane)));
  const double cx = static_cast<double>(elastic_derivative<T, R>(uz, e, pitch)) - elastic_derivative<T, R>(uy, e, plane);
  const double cy = static_cast<double>(elastic_derivative<T, R>(ux, e, plane)) - elastic_derivative<T, R>(uz, e, 1);
  const double cz = static_cast<double>(elastic_derivative<T, R>(uy, e, 1)) - elastic_derivative<T, R>(ux, e, pitch);
  return static_cast<float>(inv_h * std::sqrt(cx * cx + cy * cy + cz * cz));
}

/// Step 8 at boundary node n of the setup's CE list: the new value of component `comp`,
/// from u^n (cur) and the medium of the node. Face normal along axis a: the normal
/// component leaves at sqrt(C_aa / rho) (C11 for x and y, C33 for z), the others at the
/// S velocity of their polarisation (C66 for the horizontal one on an x or y face, C44
/// otherwise).
template <typename T>
SS_HD SS_FORCEINLINE T elastic_ce_value(const CeNode& n, int comp, const T* cur, const Grid3D& g, const T* c11,
                                        const T* c33, const T* c44, const T* c66, const T* q, T damp) {
  const std::size_t at = g.index(n.i, n.j, n.k);
  const int di = n.axis == 0 ? -n.side : 0, dj = n.axis == 1 ? -n.side : 0, dk = n.axis == 2 ? -n.side : 0;
  const std::size_t inner = g.index(n.i + di, n.j + dj, n.k + dk);
  T stiff;
  if (comp == n.axis) stiff = n.axis == 2 ? c33[at] : c11[at];
  else if (n.axis != 2 && comp != 2) stiff = c66[at];
  else stiff = c44[at];
  const T c = std::sqrt(stiff * q[at]);
  return clayton_engquist(cur[at], cur[inner], c, damp);
}

}  // namespace ss
