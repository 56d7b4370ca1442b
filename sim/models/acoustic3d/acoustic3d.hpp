#pragma once
// Acoustic 3D: constant-density acoustic waves, p_tt = v^2 lap(p) + s(t) delta(x - x_s),
// on nx-by-ny-by-nz grid nodes of spacing h (node (i, j, k) at (i h, j h, k h); z grows
// downwards from the top plane k = 0). Leapfrog in time,
//   p^{n+1} = 2 p^n - p^{n-1} + (v dt / h)^2 lap_1(p^n) + dt^2 s(t_n) / h^3 at the source node,
// lap_1 the central second differences of order 2..8 at unit spacing (stencil.hpp), so the
// point source is a discrete delta of weight 1/h^3. The medium is a velocity per node;
// the boundaries are a Cerjan (1985) sponge or a convolutional PML (CPML), each with a
// free (p = 0) or absorbing top, or periodic. docs/acoustic3d.md derives the source
// scaling, the stability limit and the CPML.
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
#include "sim/core/sponge.hpp"  // kCerjanA, kDefaultSpongeWidth, cerjan_damping
#include "sim/core/stencil.hpp"

namespace ss {

/// Kernel variants of acoustic 3D. GPU: global (one point per thread), stream25d (an xy
/// tile in shared memory, the z column in registers, marching along z). CPU: cpu (the
/// shared point function, OpenMP) and reference (double, plain loops, bench only).
enum class Acoustic3DVariant { global, stream25d, cpu, reference };
inline constexpr std::array kAllAcoustic3DVariants = {Acoustic3DVariant::global, Acoustic3DVariant::stream25d,
                                                      Acoustic3DVariant::cpu, Acoustic3DVariant::reference};
inline constexpr std::array kGpuAcoustic3DVariants = {Acoustic3DVariant::global, Acoustic3DVariant::stream25d};

std::string_view to_string(Acoustic3DVariant v);
/// Throws ss::Error naming the bad word and the accepted ones.
Acoustic3DVariant parse_acoustic3d_variant(std::string_view s);
bool is_gpu(Acoustic3DVariant v);

/// The velocity model. homogeneous: vp everywhere. layered: four horizontal layers of
/// equal thickness, vp x 1, 1.25, 1.5, 1.75 from the top down. random: vp (1 + a n(x)),
/// n a smooth random field (a sum of seeded plane waves of wavelengths 8 cells and up)
/// scaled to [-1, 1], a the perturbation.
enum class Medium { homogeneous, layered, random };
inline constexpr std::array kAllMedia = {Medium::homogeneous, Medium::layered, Medium::random};
std::string_view to_string(Medium m);
Medium parse_medium(std::string_view s);

/// sponge: Cerjan damping in a layer along every face (the top's by `TopBoundary`),
/// p = 0 beyond it. periodic: the box wraps (tests: energy, convergence). cpml: a
/// convolutional PML in a layer along every face (the top's by `TopBoundary`), p = 0 beyond.
enum class AcousticBoundary { sponge, periodic, cpml };
inline constexpr std::array kAllAcousticBoundaries = {AcousticBoundary::sponge, AcousticBoundary::periodic,
                                                      AcousticBoundary::cpml};
std::string_view to_string(AcousticBoundary b);
AcousticBoundary parse_acoustic_boundary(std::string_view s);

/// The top face (k = 0) under the sponge or cpml boundary. free: p = 0 on the plane k = 0
/// (odd mirror ghosts, no layer there). absorbing: a layer like the other faces.
enum class TopBoundary { free, absorbing };
inline constexpr std::array kAllTopBoundaries = {TopBoundary::free, TopBoundary::absorbing};
std::string_view to_string(TopBoundary t);
TopBoundary parse_top_boundary(std::string_view s);

/// Safety factor of the automatic dt: this fraction of the stability limit of order 8,
/// the strictest order, so that dt (and the time of the field) stays the same when the
/// order changes on a live field.
inline constexpr double kAcousticDtFraction = 0.5;
/// Receiver traces kept per run: the first this many steps after a reset or a load.
inline constexpr int kTraceSteps = 4096;

struct Acoustic3DConfig {
  int nx = 128, ny = 128, nz = 128;  ///< grid nodes per axis
  int order = 8;                     ///< 2, 4, 6 or 8
  Medium medium = Medium::homogeneous;
  double vp = 2000;                  ///< m/s: the (base) velocity
  double perturbation = 0.1;         ///< random medium: relative amplitude of the perturbation
  std::uint32_t seed = 1;            ///< random medium
  double h = 10;                     ///< m: grid spacing
  double dt = 0;                     ///< s; 0 picks kAcousticDtFraction of the order-8 limit
  double f0 = 10;                    ///< Hz: peak frequency of the Ricker source
  /// Source node, 1 .. n - 1 per axis; 0: the centre of that axis (node 0, the outermost
  /// and under a free top the surface, never holds the source).
  int src_x = 0, src_y = 0, src_z = 0;
  bool source = true;                ///< false: no source (tests start from a loaded field)
  /// Point sources (kind pressure) that replace the one above when not empty.
  std::vector<SourceSpec> sources;
  /// Where the receivers are; empty: the line along x through the (first) source
  /// (j = src_y, k = src_z), or through the centre without a source.
  std::optional<ReceiverLayout> receivers;
  AcousticBoundary boundary = AcousticBoundary::sponge;
  TopBoundary top = TopBoundary::free;
  int sponge_width = 0;              ///< cells; 0: kDefaultSpongeWidth or a third of the smallest side
  int cpml_width = 0;                ///< nodes; 0: kDefaultCpmlWidth or a third of the smallest side
  double cpml_reflection = kDefaultCpmlReflection;  ///< R of the CPML's d0
  /// A velocity per node (x fastest, nx*ny*nz values) that replaces `medium`, e.g. from
  /// load_velocity_npy; null: the medium above.
  std::shared_ptr<const std::vector<float>> velocity;
};

struct Acoustic3DSetup {
  Acoustic3DConfig config;
  Grid3D grid;
  double dt = 0, dt_limit = 0;
  double vmin = 0, vmax = 0;       ///< of the medium
  int sponge = 0;                  ///< sponge width in use (0: periodic or cpml)
  int cpml = 0;                    ///< CPML width in use (0: no CPML)
  CpmlLayout cpml_layout;          ///< where the CPML's layers are (none unless cpml)
  std::array<int, 3> src{};        ///< node of the parameters' source (the centre by default)
  double source_strength = 0;      ///< A in s(t) = A ricker(t): 4 pi vp^2 h, so p peaks near 1 Pa one cell away
  std::vector<SourceSpec> sources;  ///< injected in this order (checked)
  ReceiverLayout receiver_layout;
  std::vector<std::array<int, 3>> receivers;  ///< nodes
  int trace_steps = 0;              ///< steps of traces kept (kTraceSteps, fewer for many receivers)
  std::shared_ptr<const std::vector<float>> velocity;  ///< per node, x fastest

  /// The Ricker wavelet of peak frequency f0, delayed by 1.5 / f0 (s(0) ~ 1e-8).
  double ricker(double t) const;
  /// What the step from t_n = n dt adds at the node of source `s`:
  /// dt^2 / h^3 * A * amplitude * ricker(t_n - delay).
  double source_increment(long n, std::size_t s) const;
  /// The sponge's damping factor along one axis (0 x, 1 y, 2 z) at node index i.
  double damping(int axis, int i) const;
  /// (v dt / h)^2 of node (i, j, k) in double.
  double courant2(int i, int j, int k) const;
  float velocity_at(int i, int j, int k) const {
    return (*velocity)[(static_cast<std::size_t>(k) * grid.ny + j) * grid.nx + i];
  }
};

/// Stability limit of leapfrog with central differences of `order` for the fastest
/// velocity: dt <= 2 h / (vmax sqrt(3 rho)), rho the spectral radius of the 1D
/// second-difference stencil at unit spacing (4 at order 2).
double acoustic3d_dt_limit(int order, double vmax, double h);

/// The velocity per node of `medium` (x fastest).
std::vector<float> acoustic3d_medium(const Acoustic3DConfig& c);

/// Reads an (nz, ny, nx) float32 .npy velocity file; throws ss::Error naming the path and
/// the shape it found, or the first node whose velocity is not a positive finite number.
std::shared_ptr<const std::vector<float>> load_velocity_npy(const std::string& path, int nx, int ny, int nz);

/// Validates (sizes, order, velocities, dt against the limit, sponge width, source
/// position) and derives the rest; throws ss::Error naming the offending value.
Acoustic3DSetup make_acoustic3d_setup(const Acoustic3DConfig& config);

/// Replaces the sources (checked: kind pressure, nodes 1 .. n - 1, at most kMaxSources);
/// throws ss::Error and leaves `s` unchanged when one is refused.
void set_acoustic3d_sources(Acoustic3DSetup& s, std::vector<SourceSpec> sources);
/// Moves the receivers; throws ss::Error (outside the grid) and leaves `s` unchanged.
void set_acoustic3d_receivers(Acoustic3DSetup& s, const ReceiverLayout& layout);
/// The seismogram of `s` without values (p in Pa at the setup's receivers, dt; first_step
/// 0): what one rank and the boxes of a distributed run label their traces with.
Seismogram acoustic3d_seismogram_head(const Acoustic3DSetup& s);

/// What the sources add in one step, by value for the kernels: padded node index and
/// increment per source, in injection order.
template <typename T>
struct AcousticSourceStep {
  int n = 0;
  long long at[kMaxSources];
  T add[kMaxSources];
};
/// The sources' increments of the step from t_n, rounded to T.
template <typename T>
AcousticSourceStep<T> acoustic3d_source_step(const Acoustic3DSetup& s, long n);

/// Source `s` of the list injects at its node unless an earlier one shares the node; the
/// first one adds every source of the node in list order, so the sum is the same however
/// many threads run: `v` plus each increment, one after another.
template <typename T>
SS_HD SS_FORCEINLINE bool acoustic_source_owner(const AcousticSourceStep<T>& l, int s) {
  for (int r = 0; r < s; ++r)
    if (l.at[r] == l.at[s]) return false;
  return true;
}
template <typename T>
SS_HD SS_FORCEINLINE T acoustic_add_sources(T v, long long at, const AcousticSourceStep<T>& l) {
  for (int r = 0; r < l.n; ++r)
    if (l.at[r] == at) v = v + l.add[r];
  return v;
}
/// The CPML's coefficient table (cpml_table) rounded to T; empty without CPML.
template <typename T>
std::vector<T> acoustic_cpml_table(const Acoustic3DSetup& s);
/// Memory variables per CPML slab: psi (of d_a p) and zeta (of d_a d~_a p).
inline constexpr int kAcousticCpmlVars = 2;

/// How the boundary step writes the ghost faces of p.
struct AcousticGhostRule {
  bool periodic = false;  ///< wrap around; else 0 beyond the faces ...
  bool free_top = false;  ///< ... but for the top face, an odd mirror about k = 0
};
AcousticGhostRule ghost_rule_of(const Acoustic3DSetup& s);

/// Ghost index m in [0, 2 kGhost) of an axis of n nodes: -1 - m below, n + m - kGhost above.
SS_HD SS_FORCEINLINE int acoustic_ghost_index(int m, int n) { return m < kGhost ? -1 - m : n + m - kGhost; }
/// The periodic image of ghost index gi.
SS_HD SS_FORCEINLINE int acoustic_wrap(int gi, int n) { return gi < 0 ? gi + n : gi - n; }

/// Writes ghost face cell e in [0, ghost_face_cells(g)) of f: first the x faces (2 kGhost
/// per interior row), then the y faces, then the z faces. Images are interior cells, so
/// the cells can be written in any order: this is the whole boundary step.
template <typename T>
SS_HD SS_FORCEINLINE void write_acoustic_ghost(T* f, const Grid3D& g, long long e, AcousticGhostRule r) {
  constexpr int G2 = 2 * kGhost;
  const long long x_cells = static_cast<long long>(G2) * g.ny * g.nz;
  const long long y_cells = static_cast<long long>(G2) * g.nx * g.nz;
  if (e < x_cells) {
    const long long row = e / G2;
    const int gi = acoustic_ghost_index(static_cast<int>(e - row * G2), g.nx);
    const int j = static_cast<int>(row % g.ny), k = static_cast<int>(row / g.ny);
    f[g.index(gi, j, k)] = r.periodic ? f[g.index(acoustic_wrap(gi, g.nx), j, k)] : T(0);
    return;
  }
  e -= x_cells;
  if (e < y_cells) {
    const long long rest = e / g.nx;
    const int i = static_cast<int>(e - rest * g.nx);
    const int gj = acoustic_ghost_index(static_cast<int>(rest % G2), g.ny), k = static_cast<int>(rest / G2);
    f[g.index(i, gj, k)] = r.periodic ? f[g.index(i, acoustic_wrap(gj, g.ny), k)] : T(0);
    return;
  }
  e -= y_cells;
  const long long rest = e / g.nx;
  const int i = static_cast<int>(e - rest * g.nx);
  const int j = static_cast<int>(rest % g.ny), gk = acoustic_ghost_index(static_cast<int>(rest / g.ny), g.nz);
  T v = T(0);
  if (r.periodic) v = f[g.index(i, j, acoustic_wrap(gk, g.nz))];
  else if (r.free_top && gk < 0) v = -f[g.index(i, j, -gk)];
  f[g.index(i, j, gk)] = v;
}

/// The acoustic point update every variant but the reference computes:
///   p' = d (2 p - d p_prev + c2 (D2x + D2y + D2z)(p)),
/// c2 = (v dt / h)^2 of the node, d its sponge damping (1 outside the sponge); rows as in
/// heat3d_point: row[m] = p(i + m - R, j, k), col[m] = p(i, j + m - R, k), dep[m] =
/// p(i, j, k + m - R), col[R] and dep[R] unread. With d the Cerjan scheme damps both time
/// levels once per step (p_prev was damped once when it was written). Fixed summation
/// order and explicit FMAs: the same bits on the host and the device.
template <typename T, int R>
SS_HD SS_FORCEINLINE T acoustic3d_point(const T (&row)[2 * R + 1], const T (&col)[2 * R + 1],
                                        const T (&dep)[2 * R + 1], T prev, T c2, T damp) {
  constexpr auto w = second_derivative_weights<R>();
  const T centre = row[R];
  T sx = static_cast<T>(w[0]) * centre;
  T sy = sx, sz = sx;
SS_UNROLL
  for (int k = 1; k <= R; ++k) {
    sx = fma_t(static_cast<T>(w[k]), row[R - k] + row[R + k], sx);
    sy = fma_t(static_cast<T>(w[k]), col[R - k] + col[R + k], sy);
    sz = fma_t(static_cast<T>(w[k]), dep[R - k] + dep[R + k], sz);
  }
  const T lap = (sx + sy) + sz;
  return damp * fma_t(c2, lap, fma_t(-damp, prev, centre + centre));
}

// ---- CPML (docs/acoustic3d.md): p_tt = v^2 sum_a d~_a d~_a p with d~_a = d_a + psi_a
// (cpml.hpp), in the form of Pasalic & McGarry (2010):
//   p_tt = v^2 (lap p + sum_a (d_a psi_a + zeta_a)),
//   psi_a^n = b psi_a^{n-1} + c d_a p^n,   zeta_a^n = b zeta_a^{n-1} + c (d_aa p^n + d_a psi_a^n),
// psi_a, zeta_a only in slab a. The interior update runs unchanged (damping 1); two passes
// over the slab nodes then update psi (pass 1) and add v^2 dt^2 sum_a (d_a psi_a + zeta_a)
// to p^{n+1} (pass 2, after every psi of the step). Unit spacing throughout (psi carries h,
// zeta h^2).

/// The CPML's state a pass reads and writes on one rank: the layout, the memory variables
/// (psi and zeta of each slab, CpmlLayout::slab_base with kAcousticCpmlVars, stored
/// compactly) and the coefficients. Like AcousticCpmlBox below, it tells the passes where
/// a node's variables live; the passes themselves are one pair of functions for both.
template <typename T>
struct AcousticCpml {
  CpmlLayout layout;
  T* memory;
  const T* table;

  /// The slot of index i along axis a of g, or -1 outside slab a (and beyond the faces).
  SS_HD int slot(int a, int i, const Grid3D& g) const {
    const int n[3] = {g.nx, g.ny, g.nz};
    return layout.slot(a, i, n[a]);
  }
  SS_HD T b(int a, int s) const { return table[layout.table_base(a) + s]; }
  SS_HD T c(int a, int s) const { return table[layout.table_base(a) + layout.slots(a) + s]; }
  /// psi_a and zeta_a of node (i, j, k), whose slot along a is s.
  SS_HD T& psi(int a, int s, int i, int j, int k, const Grid3D& g) const {
    return memory[layout.slab_base(a, kAcousticCpmlVars, g) + layout.slab_index(a, s, i, j, k, g)];
  }
  SS_HD T& zeta(int a, int s, int i, int j, int k, const Grid3D& g) const {
    return memory[layout.slab_base(a, kAcousticCpmlVars, g) + layout.slab_cells(a, g) +
                  layout.slab_index(a, s, i, j, k, g)];
  }
  /// psi_a at a node that may lie outside slab a or beyond the faces (0 there).
  SS_HD T psi_or_zero(int a, int i, int j, int k, const Grid3D& g) const {
    const int at[3] = {i, j, k};
    const int s = slot(a, at[a], g);
    return s < 0 ? T(0) : psi(a, s, i, j, k, g);
  }
};

/// The CPML's state on one box of a distributed run (acoustic3d_box.hpp): psi_a and zeta_a
/// are fields of the box's padded layout g, 0 outside slab a and in the ghosts on the
/// domain's faces, psi's ghosts between boxes the neighbour's psi (exchanged between the
/// passes); a node's slot and coefficients are those of its global index lo + i in the
/// whole grid's layout (n: the whole grid's nodes per axis).
template <typename T>
struct AcousticCpmlBox {
  CpmlLayout layout;  ///< the whole grid's
  int lo[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  T* psi_field[3] = {nullptr, nullptr, nullptr};
  T* zeta_field[3] = {nullptr, nullptr, nullptr};
  const T* table = nullptr;

  SS_HD int slot(int a, int i, const Grid3D&) const { return layout.slot(a, lo[a] + i, n[a]); }
  SS_HD T b(int a, int s) const { return table[layout.table_base(a) + s]; }
  SS_HD T c(int a, int s) const { return table[layout.table_base(a) + layout.slots(a) + s]; }
  SS_HD T& psi(int a, int, int i, int j, int k, const Grid3D& g) const { return psi_field[a][g.index(i, j, k)]; }
  SS_HD T& zeta(int a, int, int i, int j, int k, const Grid3D& g) const { return zeta_field[a][g.index(i, j, k)]; }
  SS_HD T psi_or_zero(int a, int i, int j, int k, const Grid3D& g) const { return psi_field[a][g.index(i, j, k)]; }
};

/// The box's layer nodes as a CpmlLayout of the box's own layout g (so that nodes() and
/// node() enumerate them, each once): along each axis the part of the whole grid's low
/// layer the box holds starts at the box's first node, the part of the high layer ends at
/// its last. `whole`: the whole grid's layout; lo, n: the box's first global node and the
/// whole grid's nodes per axis.
SS_HD inline CpmlLayout acoustic_cpml_box_layout(const CpmlLayout& whole, const int (&lo)[3], const int (&n)[3],
                                                 const Grid3D& g) {
  CpmlLayout b;
  const int size[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    const int first = lo[a], end = lo[a] + size[a];  // global [first, end)
    const int low_end = whole.lo[a] < end ? whole.lo[a] : end;
    b.lo[a] = low_end > first ? low_end - first : 0;
    const int high_first = n[a] - whole.hi[a] > first ? n[a] - whole.hi[a] : first;
    b.hi[a] = whole.hi[a] > 0 && end > high_first ? end - high_first : 0;
    if (b.lo[a] + b.hi[a] > size[a]) b.hi[a] = size[a] - b.lo[a];  // never: the layers are a third of a side at most
  }
  return b;
}

/// Pass 1 at node (i, j, k) of the slabs: psi_a = b psi_a + c D_a p for each slab a that
/// holds the node (p: p^n, padded). M: AcousticCpml (one rank) or AcousticCpmlBox.
template <typename T, int R, typename M>
SS_HD SS_FORCEINLINE void acoustic3d_cpml_psi(const T* p, const M& m, const Grid3D& g, int i, int j, int k) {
  constexpr auto w = first_derivative_weights<R>();
  const std::size_t e = g.index(i, j, k);
  const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  const int at[3] = {i, j, k};
SS_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int s = m.slot(a, at[a], g);
    if (s < 0) continue;
    T line[2 * R + 1];
SS_UNROLL
    for (int q = 0; q <= 2 * R; ++q) line[q] = p[static_cast<std::ptrdiff_t>(e) + (q - R) * stride[a]];
    const T d = cpml_first_derivative<T, R>(line, w);
    T& psi = m.psi(a, s, i, j, k, g);
    psi = fma_t(m.b(a, s), psi, m.c(a, s) * d);
  }
}

/// Pass 2 at node (i, j, k) of the slabs: updates zeta_a and returns
/// sum_a (D_a psi_a + zeta_a) over the slabs a that hold the node; the caller adds c2 times
/// it to p^{n+1}: out = fma(c2, term, out). M as for pass 1.
template <typename T, int R, typename M>
SS_HD SS_FORCEINLINE T acoustic3d_cpml_term(const T* p, const M& m, const Grid3D& g, int i, int j, int k) {
  constexpr auto w1 = first_derivative_weights<R>();
  constexpr auto w2 = second_derivative_weights<R>();
  const std::size_t e = g.index(i, j, k);
  const std::ptrdiff_t stride[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  const int at[3] = {i, j, k};
  T sum = T(0);
SS_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int s = m.slot(a, at[a], g);
    if (s < 0) continue;
    // d_aa p, as acoustic3d_point sums it along one axis.
    const T* c = p + e;
    T d2 = static_cast<T>(w2[0]) * c[0];
SS_UNROLL
    for (int q = 1; q <= R; ++q) d2 = fma_t(static_cast<T>(w2[q]), c[-q * stride[a]] + c[q * stride[a]], d2);
    // D_a psi_a: psi is 0 outside its slab and beyond the faces.
    T line[2 * R + 1];
SS_UNROLL
    for (int q = 0; q <= 2 * R; ++q) {
      int nb[3] = {i, j, k};
      nb[a] += q - R;
      line[q] = m.psi_or_zero(a, nb[0], nb[1], nb[2], g);
    }
    const T dpsi = cpml_first_derivative<T, R>(line, w1);
    T& zeta = m.zeta(a, s, i, j, k, g);
    zeta = fma_t(m.b(a, s), zeta, m.c(a, s) * (d2 + dpsi));
    sum = sum + (dpsi + zeta);
  }
  return sum;
}

/// Per-axis damping tables rounded to T: x (nx values), then y (ny), then z (nz); the
/// damping of node (i, j, k) is (tx[i] * ty[j]) * tz[k] in T.
template <typename T>
std::vector<T> damping_tables(const Acoustic3DSetup& s);

/// (v dt / h)^2 per node rounded to T, in the padded layout of s.grid (ghosts 0).
template <typename T>
std::vector<T> courant2_field(const Acoustic3DSetup& s);

/// The velocity per node in the padded layout of s.grid (ghosts 0), for views.
std::vector<float> velocity_field(const Acoustic3DSetup& s);

/// Stream25d's slab under the scalar shape: planes each block marches, so that `tiles` xy
/// tiles times the slabs give at least two blocks per SM (`sms`), slabs of 16 planes or
/// more (or nz).
int acoustic3d_slab_planes(long long tiles, int nz, int sms);

/// Stream25d's tile and ring on the GPU, chosen at run time (tuning, tests). The packed
/// shapes are heat 3D's ring (docs/acoustic3d.md): a thread per 16-byte pack, 32 packs by
/// `rows` rows, a ring of `ring` planes under per-slot mbarriers. ring 0: the default,
/// 2R + 1 planes in float from order 6, else 8 (heat 3D's measurements).
///   packed16 (default) | packed16-ring8 | packed8 | scalar (the first kernel: a value per
///   thread, 32x16, 2R + 2 planes, a block barrier per plane)
enum class Acoustic3DStreamShape { packed16, packed16_ring8, packed8, scalar };
inline constexpr std::array kAllAcoustic3DStreamShapes = {Acoustic3DStreamShape::packed16,
                                                          Acoustic3DStreamShape::packed16_ring8,
                                                          Acoustic3DStreamShape::packed8, Acoustic3DStreamShape::scalar};
std::string_view to_string(Acoustic3DStreamShape s);
/// Throws ss::Error naming the bad word and the accepted ones.
Acoustic3DStreamShape parse_acoustic3d_stream_shape(std::string_view s);
/// The shape STENCILSCOPE_ACOUSTIC25 names (unset, empty or `all`: packed16; `all` also
/// makes `bench acoustic3d` time stream25d in every shape); throws ss::Error for another
/// word, naming the variable.
Acoustic3DStreamShape acoustic3d_stream_shape_from_env();
/// Whether STENCILSCOPE_ACOUSTIC25 is `all`.
bool acoustic3d_stream_shape_sweep();

/// The packed stream25d's slab: planes each block marches for `columns` xy tiles on a
/// grid of nz planes when `resident` blocks fit the device at once. The fewest waves of
/// blocks times (slab + the cost of a slab's start, 8 planes), slabs of at least 16 planes
/// (or nz): heat 3D's stream25d_slab_planes, copied (the models share no library).
int acoustic3d_stream_slab_planes(long long columns, int nz, long long resident);

}  // namespace ss
