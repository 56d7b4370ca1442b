#pragma once
// What a model offers to a distributed run (sim/dist/): one rank steps one box of the
// global grid (decomposition.hpp) with the model's own point function; the ghost faces
// the box shares with other ranks are filled by someone else (the halo exchange, through
// HaloFill), the domain's own faces by the model's boundary step. No MPI here: a model
// describes what it needs, and sim/dist/ (built only with MPI) moves the data.
//
// Bitwise equality with one rank follows from three things a model keeps: the same
// point function on the same neighbour values, boundary values computed from global
// indices (fill_box_ghosts3d_host), and an exchange after every (sub)step whose result
// the next one reads.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/decomposition.hpp"
#include "sim/core/grid3d.hpp"
#include "sim/core/slice3d.hpp"  // Sphere
#include "sim/core/sources.hpp"  // SourceSpec, ReceiverLayout, Seismogram

namespace ss {

struct StepAccounting;  // model.hpp

/// How a model runs over several ranks, for one configuration.
struct DistributedSpec {
  bool supported = false;          ///< false: the model runs on one rank only (why_not says why)
  std::string why_not;             ///< when not supported
  int ghost_width = 0;             ///< cells a (sub)step reads across a face: the stencil radius
  std::array<bool, 3> periodic{};  ///< per axis: the domain wraps, so the end boxes are neighbours
  bool edges = false;              ///< the stencil reads edge and corner ghosts (mixed derivatives):
                                   ///< the exchange then goes axis by axis, carrying earlier axes' ghosts
  std::size_t fields = 1;          ///< the most fields one exchange carries
  /// The GPU variant that steps boxes on the GPU (create_box with it gives a box whose fields
  /// live in device memory); empty: this model's boxes run on the CPU only.
  std::string gpu_variant;
  /// The boxes give views, paints and loaded states (BoxSimulation::quantity_interior, paint,
  /// load_interiors): the window and `record` can show the run from rank 0.
  bool boxes_show = false;
  /// What the GPU boxes (gpu_variant) give of that: views (quantity_interior, dt,
  /// accounting), and paints and loaded states (paint, load_interiors, carry_over: also an
  /// order change, which loads the field into a box of the new order). The window and
  /// `record` run GPU boxes when gpu_boxes_show, and refuse a paint, an order change or a
  /// loaded state in one line unless gpu_boxes_paint.
  bool gpu_boxes_show = false;
  bool gpu_boxes_paint = false;
};

/// Where one rank's box sits.
struct BoxPlacement {
  Decomposition decomposition;
  int rank = 0;
  Box box;
  /// [axis][0: low, 1: high]: true where the box's face is the domain's own face (the model's
  /// boundary step writes its ghosts); false where a neighbour's halo fills them.
  std::array<std::array<bool, 2>, 3> domain_face{};
};

/// The placement of `rank`'s box: a periodic axis has no domain faces (its end boxes are
/// each other's neighbours; an axis that is not split wraps onto the box itself, through
/// the same exchange, so that edges and corners come out as on one rank); the other rules
/// keep the grid's faces for the model's boundary step.
BoxPlacement place_box(const Decomposition& d, int rank, const std::array<bool, 3>& periodic);

/// What one box recorded at the run's receivers that lie in it (BoxSimulation::traces): rank 0
/// puts the boxes' parts together into the one-rank Seismogram (sim/dist/gather.hpp).
struct BoxTraces {
  /// The run's Seismogram without its values: components, unit, every receiver's node (the
  /// whole run's list, in its order), first_step and dt, as on one rank.
  Seismogram head;
  int rows = 0;            ///< steps recorded since first_step (the same on every box)
  std::vector<int> held;   ///< indices into head.nodes of the receivers in this box, ascending
  std::vector<float> values;  ///< the rows asked for, each components x held.size() (Seismogram's order)
};

/// A box's receivers and their traces, for the models' boxes: the receivers of the run's
/// list whose node lies in the box (a node on a face between boxes lies in exactly one),
/// recorded from the box's own fields at their box index, a row per step as on one rank.
class BoxTraceRecorder {
 public:
  BoxTraceRecorder() = default;
  /// Holds the nodes of `nodes` (global indices) inside `box`, whose layout is `grid`; no rows,
  /// traces starting after step `first_step`.
  BoxTraceRecorder(const std::vector<std::array<int, 3>>& nodes, const Box& box, const Grid3D& grid,
                   int components, long first_step);
  /// Records one row (each component's field at each held receiver) while fewer than
  /// `max_rows` rows are kept; a box that holds none counts the row too.
  void record(std::span<const float* const> fields, int max_rows);
  /// Drops the rows; traces start again after step `first_step`.
  void restart(long first_step);
  int rows() const { return rows_; }
  long first_step() const { return first_step_; }
  /// Indices into the run's list of the receivers in the box (ascending), and their box
  /// indices: what a box recording on the GPU gathers from (its rows then live there).
  const std::vector<int>& held() const { return held_; }
  const std::vector<std::size_t>& box_indices() const { return at_; }
  /// Fills rows, held and the values of rows from_row on (0 to rows()) into `t`; head.first_step too.
  void fill(BoxTraces& t, int from_row) const;

 private:
  std::vector<int> held_;
  std::vector<std::size_t> at_;  ///< box index of each held receiver
  int components_ = 1;
  std::vector<float> values_;
  int rows_ = 0;
  long first_step_ = 0;
};

/// Fills the ghost faces a box shares with other ranks from their interiors (the halo
/// exchange). Collective: every rank calls it the same number of times, in the same order.
class HaloFill {
 public:
  virtual ~HaloFill() = default;
  /// Fields of the box's layout (BoxSimulation::grid()), in the memory the box steps in.
  virtual void fill(std::span<float* const> fields) = 0;
  /// The largest of every rank's `local` (a model's global reduction, e.g. hydro3d's
  /// |u|max for its dt). Collective; a single process's fill returns `local`.
  virtual float max_over_ranks(float local) { return local; }
};

/// One rank's box of a distributed run (float), on the CPU or, made with a GPU variant, on
/// the GPU current when it was created (device_stream() then says which stream it steps on).
class BoxSimulation {
 public:
  virtual ~BoxSimulation() = default;
  /// The box's padded layout (Grid3D::make_box of its extent).
  virtual const Grid3D& grid() const = 0;
  virtual long steps_done() const = 0;
  /// The simulated time (a box with a varying dt adds its dts).
  virtual double time() const { return static_cast<double>(steps_done()) * dt(); }
  /// Writes every ghost face of the current fields: the domain's own by the boundary rule,
  /// the others through `halo`. Collective; needed once before the first step.
  virtual void refresh_ghosts(HaloFill& halo) = 0;
  /// n steps; after each (sub)step the ghosts between ranks come from `halo`. Collective.
  virtual void step(int n, HaloFill& halo) = 0;
  /// The box's interior of every stepped field (x fastest), as SimState::fields holds the
  /// whole grid's.
  virtual std::vector<std::vector<float>> interiors() const = 0;
  /// nullptr for a box on the CPU; for a box on the GPU the cudaStream_t (as void*) every
  /// step runs on: the fields it hands to HaloFill::fill are device pointers, and the fill
  /// must be ordered on this stream (DeviceHaloExchange).
  virtual void* device_stream() const { return nullptr; }
  /// Returns when the steps queued so far have finished (a GPU box's steps are asynchronous).
  virtual void synchronize() {}

  // What a run watched from rank 0 asks of a box (sim/dist/distributed_simulation.hpp):
  // the window and `record` under mpirun. The defaults are those of a model whose boxes
  // offer no more than stepping: no dt, no accounting, and a one-line refusal.

  /// The time step in use and its stability limit (0: the box does not say).
  virtual double dt() const { return 0; }
  virtual double dt_limit() const { return 0; }
  /// Bytes and cell updates of one step of this box (Simulation::accounting of its cells);
  /// zero by default.
  virtual StepAccounting accounting() const;
  /// The box's interior (x fastest) of view quantity `quantity` (empty: the model's default),
  /// as the one-rank Simulation's views show it. Throws ss::Error by default.
  virtual std::vector<float> quantity_interior(const std::string& quantity) const;
  /// Paints `sphere` (global cell coordinates, as Simulation::paint means on the whole grid)
  /// into the cells of the box's interior it covers; the ghosts are stale until
  /// refresh_ghosts. Throws ss::Error by default.
  virtual void paint(const Sphere& sphere);
  /// Replaces the box's interiors (as interiors() gives them) and its step count; the ghosts
  /// are stale until refresh_ghosts. Throws ss::Error by default.
  virtual void load_interiors(const std::vector<std::vector<float>>& interiors, long steps_done);
  /// After load_interiors of `old`'s interiors into a new box of another order (set_order):
  /// takes what the one-rank set_order keeps besides the fields (the CPML's memory, the
  /// receivers' traces). Nothing by default.
  virtual void carry_over(BoxSimulation& old) { (void)old; }
  /// The run's point sources in injection order: every box holds the whole list (each injects
  /// those whose nodes it holds); empty for a model without sources.
  virtual std::vector<SourceSpec> sources() const { return {}; }
  /// Replaces the list (Simulation::add_source / remove_source on one rank); the field stays.
  /// Throws ss::Error when the model checks refuse it, or for a non-empty list by default.
  virtual void set_sources(const std::vector<SourceSpec>& sources);
  /// The run's receivers (every box holds the whole layout, each records those whose nodes
  /// it holds); empty for a model without receivers (the default).
  virtual std::optional<ReceiverLayout> receivers() const { return std::nullopt; }
  /// Moves the receivers and starts their traces again (Simulation::set_receivers on one
  /// rank). Throws ss::Error (outside the grid; by default: no receivers) and keeps them.
  virtual void set_receivers(const ReceiverLayout& layout);
  /// What the box recorded at its receivers, rows from_row on (no collective: rank 0 gathers
  /// the boxes' parts at frame time, not every step). Empty head by default.
  virtual BoxTraces traces(int from_row) const {
    (void)from_row;
    return {};
  }
};

}  // namespace ss
