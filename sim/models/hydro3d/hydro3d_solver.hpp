#pragma once
// Hydro 3D backends. HostHydro3D steps the four fields on the CPU with either method
// (float: the `cpu` and `cpu19pt` variants; double: the `reference` yardstick);
// DeviceHydro3D runs the GPU variants. Both run the point functions of hydro3d.hpp.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/box_simulation.hpp"
#include "sim/models/hydro3d/hydro3d.hpp"

namespace ss {

/// Kernel variants. GPU: global (one point per thread, every value from global memory),
/// p55 ("55pt": a 3D tile plus halo in shared memory with a rolling cache along z, as the
/// paper's Sect. 4.1), p19 ("19pt": two passes, each a 2.5D xy slab in shared memory with
/// the z column in registers, Sect. 4.2), stream25d (ours: one pass, a ring of xy planes
/// of u in shared memory so the mixed derivatives come from the ring, the block marching
/// along z). CPU: cpu and cpu19pt (float, OpenMP), reference (double, single pass).
enum class HydroVariant { global, p55, p19, stream25d, cpu, cpu19pt, reference };
inline constexpr std::array kAllHydroVariants = {HydroVariant::global, HydroVariant::p55,    HydroVariant::p19,
                                                 HydroVariant::stream25d, HydroVariant::cpu, HydroVariant::cpu19pt,
                                                 HydroVariant::reference};
inline constexpr std::array kGpuHydroVariants = {HydroVariant::global, HydroVariant::p55, HydroVariant::p19,
                                                 HydroVariant::stream25d};
std::string_view to_string(HydroVariant v);
HydroVariant parse_hydro_variant(std::string_view s);
bool is_gpu(HydroVariant v);
/// The method a variant discretises grad div u with.
HydroMethod method_of(HydroVariant v);

/// The interiors of the four fields (x fastest) in one vector each.
template <typename T>
using HydroState = std::array<std::vector<T>, kHydroFields>;

/// Summary numbers of a state: kinetic energy 1/2 sum rho |u|^2 h^3, mass, |u|max.
struct HydroStats {
  double kinetic = 0, mass = 0, umax = 0;
  bool finite = true;
};
template <typename T>
HydroStats hydro_stats(const HydroState<T>& st, double h);

/// |u|max and whether the four fields are finite. u2max is the largest |u|^2 as the
/// device computes it (in T, rounded to float), which an adaptive dt is taken from.
struct HydroSpeed {
  double umax = 0;
  float u2max = 0;
  bool finite = true;
};
/// The same from padded fields on the host (OpenMP over planes).
template <typename T>
HydroSpeed hydro_max_speed(const T* const (&f)[kHydroFields], const Grid3D& g);
/// The reason to pause a run at |u|max = s.umax (NaN, or a dt above the Courant limit it
/// allows); empty when it may go on. `dt` is the dt in use; `recomputes_next`: the next
/// step takes a new dt from this state (an adaptive run), so only a NaN pauses it.
std::string hydro_health(const Hydro3DSetup& setup, const HydroSpeed& s, long steps, double dt, bool recomputes_next);

/// CPU backend: the fields, the RK3 intermediates and the output buffers in host
/// memory; OpenMP over z planes.
template <typename T>
class HostHydro3D {
 public:
  HostHydro3D(const Hydro3DSetup& setup, HydroMethod method);

  void reset();
  /// n steps; an adaptive run (Hydro3DSetup::adaptive) first takes dt from |u|max of the
  /// state before each step the schedule says (and before the first after a kick or load).
  void step(int n);
  void set_method(HydroMethod m) { method_ = m; }
  HydroMethod method() const { return method_; }
  /// Field f (0 ln rho, 1..3 u) on the padded grid.
  const std::vector<T>& field(int f) const { return f_[static_cast<std::size_t>(f)]; }
  HydroState<T> state() const;
  /// Replaces the fields. `clock`: the dt and time to go on with (from clock() of a run
  /// of the same setup, on either backend: bit for bit); empty: steps_done x the t = 0 dt,
  /// and an adaptive run takes a new dt at the next step.
  void load_state(const HydroState<T>& st, long steps_done, const std::optional<HydroClock>& clock = std::nullopt);
  void kick(const HydroKick& k);
  /// The dt in use (the last one taken) and the simulated time.
  const HydroClock& clock() const { return clock_; }
  double time() const { return clock_.time(steps_); }
  /// True when the next step takes a new dt from the state (an adaptive run).
  bool recomputes_next() const { return setup_.recomputes_dt_at(steps_) || (setup_.adaptive() && dt_stale_); }
  /// Fills every buffer a step writes (intermediates, outputs, divergence) with NaN.
  void poison_scratch();
  const Hydro3DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_; }

 private:
  void fill_ghosts(std::vector<T>& v) const;
  void substep(int s);
  void force();
  void take_dt();

  Hydro3DSetup setup_;
  HydroMethod method_;
  HydroWeights<T> w_;
  HydroConstants<T> c_;
  std::array<std::vector<T>, kHydroFields> f_, rk_, out_;
  std::vector<T> div_;
  std::vector<T> forcing_tables_;
  long steps_ = 0;
  HydroClock clock_;
  bool dt_stale_ = false;  ///< a kick or load changed the state since dt was taken
};

/// One rank's box of a distributed run on the CPU (sim/core/box_simulation.hpp): HostHydro3D's
/// substeps of `method` on the box, the halo exchange (width 3, edges and corners, every axis
/// periodic) after each substep, between the two-pass method's passes and after the forcing;
/// bitwise equal to HostHydro3D on the whole grid.
std::unique_ptr<BoxSimulation> make_hydro3d_box(const Hydro3DSetup& setup, const BoxPlacement& where, HydroMethod method);

/// One step of a box, in the order both boxes (CPU and GPU) keep, so that their collective
/// calls agree and the fields are those of one rank: the adaptive dt when the one-rank run
/// takes one (`take_dt()`: the box's |u|^2 max, then hydro_box_take_dt), three RK3
/// substeps (`substep(s)`; the two-pass method exchanges its divergence inside) each
/// followed by `exchange()` of the four fields, then under turbulence `force()` and
/// `exchange()`. The caller counts the step.
template <typename TakeDt, typename Substep, typename Exchange, typename Force>
void hydro_box_step(const Hydro3DSetup& setup, long steps, bool dt_stale, TakeDt&& take_dt, Substep&& substep,
                    Exchange&& exchange, Force&& force) {
  if (setup.recomputes_dt_at(steps) || (setup.adaptive() && dt_stale)) take_dt();
  for (int s = 0; s < 3; ++s) {
    substep(s);
    exchange();
  }
  if (!setup.forcing_k.empty()) {
    force();
    exchange();
  }
}

/// HostHydro3D::take_dt over every rank, from this box's |u|^2 max and finiteness (`local`,
/// as hydro_max_speed or hydro_max_speed2 give it): the maximum over the ranks through
/// halo.max_over_ranks (collective; a box that is not finite counts as infinity), then
/// `clock.set_dt` by the same rule at step `steps`; a NaN anywhere keeps dt.
void hydro_box_take_dt(const Hydro3DSetup& setup, const HydroSpeed& local, long steps, HaloFill& halo, HydroClock& clock);

/// One rank's box on the current CUDA device (hydro3d_box_device.cu): the `global` or `55pt`
/// kernel (single pass: they read every ghost from memory) on the box's layout, the halo
/// exchange (a DeviceHaloExchange on device_stream()) after each substep, overlapping the
/// computation of the box's core (the shells it sends are computed first), and after the
/// forcing, the adaptive dt from the maximum over the ranks; bitwise equal to DeviceHydro3D
/// of the same variant (and HostHydro3D's single pass) on the whole grid. Throws ss::Error
/// for another variant (19pt: the two-pass method; stream25d reads the periodic images of
/// the whole grid inside its kernel) or without a CUDA device.
std::unique_ptr<BoxSimulation> make_hydro3d_device_box(const Hydro3DSetup& setup, const BoxPlacement& where,
                                                       HydroVariant variant);

/// The index in kHydroQuantities of a view quantity's name (empty: 0, ln rho); throws
/// ss::Error for another name.
int hydro_quantity_index(const std::string& quantity);

/// What the CPU box shows, on its padded layout `g`: quantity `quantity` (a kHydroQuantities
/// name; empty: ln rho) through hydro_quantity over the interior, x fastest. Throws ss::Error
/// for another name. (The GPU box computes its views with the one-GPU run's kernel.)
std::vector<float> hydro_box_quantity(const float* const (&f)[kHydroFields], const Grid3D& g,
                                      const HydroWeights<float>& w, const std::string& quantity);
/// The one-rank paint (HydroSimulation::paint, HostHydro3D::kick) on a box whose cell
/// (0, 0, 0) is the whole grid's cell `lo`: hydro_kick_at on the whole grid at each interior
/// cell's global index, added to u.
void hydro_box_paint(const Sphere& s, const Hydro3DSetup& setup, const std::array<int, 3>& lo, const Grid3D& g,
                     float* ux, float* uy, float* uz);
/// Throws ss::Error unless `in` holds the four fields of `box`'s cells (load_interiors).
void check_hydro_box_state(const std::vector<std::vector<float>>& in, const Box& box);

/// GPU backend: the same buffers in device memory, on the object's own stream. T is
/// float or double. Every method throws ss::Error when there is no usable CUDA device.
template <typename T>
class DeviceHydro3D {
 public:
  DeviceHydro3D(const Hydro3DSetup& setup, HydroVariant variant);
  ~DeviceHydro3D();
  DeviceHydro3D(const DeviceHydro3D&) = delete;
  DeviceHydro3D& operator=(const DeviceHydro3D&) = delete;

  void reset();
  /// Queues n steps on the stream. An adaptive run takes dt on the device (the |u|max
  /// reduction, then one thread), as HostHydro3D::step does on the host; the host never waits.
  void step(int n);
  void set_variant(HydroVariant v);
  HydroVariant variant() const;
  HydroState<T> state();
  /// As HostHydro3D::load_state.
  void load_state(const HydroState<T>& st, long steps_done, const std::optional<HydroClock>& clock = std::nullopt);
  void kick(const HydroKick& k);
  /// The dt and time after queued work (waits for it).
  HydroClock clock();
  /// The latest dt and time read back without waiting (copied behind each batch), and
  /// the step count they belong to: a finished step, at most steps_done().
  std::pair<HydroClock, long> clock_read_back() const;
  /// As HostHydro3D::recomputes_next.
  bool recomputes_next() const;
  void poison_scratch();
  /// |u|max of the interior and whether every value is finite (a reduction on the
  /// device; only two numbers cross the bus), after queued work.
  HydroSpeed max_speed();
  /// The shell-averaged kinetic energy spectrum of the current state, as
  /// hydro_energy_spectrum computes it on the host, through cuFFT on the device (only
  /// the spectrum crosses the bus).
  std::vector<double> energy_spectrum();
  /// Queues quantity q (kHydroQuantities) on slice `axis` (0 xy, 1 xz, 2 yz) at `index`
  /// into the slice's device buffer (float, u fastest) and returns it.
  const float* slice_on_device(int q, int axis, int index);
  /// The same, copied to dst on the host (after queued work).
  void copy_slice(int q, int axis, int index, float* dst);
  void record_start();
  void record_stop();
  std::optional<double> batch_ms();
  bool idle() const;
  void synchronize();
  void* native_stream() const;
  const Hydro3DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// What a 3D view of hydro3d can show, in menu order.
inline constexpr std::array<std::string_view, 8> kHydroQuantities = {
    "ln rho", "rho", "|u|", "u_x", "u_y", "u_z", "vorticity |curl u|", "divergence"};

/// Quantity q at cell (i, j, k) of a state on the padded grid (host side of the views).
template <typename T>
T hydro_quantity(const T* const (&f)[kHydroFields], const Grid3D& g, const HydroWeights<T>& w, int q,
                 int i, int j, int k);

}  // namespace ss
