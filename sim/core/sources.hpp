#pragma once
// Point sources, receivers and seismograms of the wave models (acoustic3d, elastic3d), as
// the model interface, the app and the command line see them. A model lists the source
// kinds it injects (ModelInfo::source_kinds); what each kind does to its field, and its
// natural strength, is the model's (docs/acoustic3d.md, docs/elastic3d.md).
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/wavelet.hpp"

namespace ss {

/// pressure: a monopole on p (acoustic). force: a point force along a direction (an
/// acceleration source). explosion: an isotropic moment tensor. moment: a general moment
/// tensor (the last two stress sources; elastic).
enum class SourceKind { pressure, force, explosion, moment };
std::string_view to_string(SourceKind k);
/// Throws ss::Error naming the bad word and the accepted ones.
SourceKind parse_source_kind(std::string_view s);

/// Sources a simulation injects at most (the GPU kernels take the list by value).
inline constexpr int kMaxSources = 16;

/// One point source: a Ricker wavelet of peak frequency f0_hz, delayed by 1.5 / f0 plus
/// delay_s, times `amplitude` times the model's natural strength.
struct SourceSpec {
  SourceKind kind = SourceKind::pressure;
  std::array<int, 3> node{};                        ///< grid node (i, j, k)
  double f0_hz = 10;                                ///< Ricker peak frequency
  double amplitude = 1;                             ///< times the model's natural strength
  double delay_s = 0;                               ///< added to the wavelet's own 1.5 / f0
  std::array<double, 3> direction{0, 0, 1};         ///< force: a non-zero vector (normalised by the model)
  std::array<double, 6> moment{1, 1, 1, 0, 0, 0};   ///< moment: xx, yy, zz, xy, xz, yz, in units of the natural M0

  /// amplitude * ricker(t - delay_s) (the natural strength not included).
  double wavelet(double t) const { return amplitude * ricker_wavelet(t - delay_s, f0_hz); }
};

/// "force (0, 0, 1) at (x 12, y 20, z 8), 10 Hz".
std::string describe(const SourceSpec& s);
/// Throws ss::Error ("source at (x 200, y 5, z 5) is outside the grid: x runs 1 to 127")
/// when the node lies outside lo..n-1 on an axis, the kind is not in `kinds`, f0 or the
/// amplitude is not a finite positive (amplitude: finite) number, the delay is negative,
/// a force direction or a moment tensor is zero.
void check_source(const SourceSpec& s, const std::array<int, 3>& size, const std::vector<SourceKind>& kinds, int lo = 1);

/// Reads "KIND:X,Y,Z[:f0=HZ][:amp=A][:delay=S][:dir=DX,DY,DZ][:m=XX,YY,ZZ,XY,XZ,YZ]", e.g.
/// "force:40,32,10:f0=12:dir=1,0,0" or "moment:20,20,8:m=0,0,0,1,0,0" (the command
/// line's --point-source); f0 defaults to `f0_hz`. Throws ss::Error naming what is wrong. The
/// node is checked against a grid only by the model (check_source).
SourceSpec parse_source_spec(std::string_view text, double f0_hz = 10);
/// `list` with `source` appended (a model's add_source checks the result).
std::vector<SourceSpec> with_source(std::vector<SourceSpec> list, const SourceSpec& source);
/// `list` without source `index`; throws ss::Error naming the index and the count when
/// there is no such source.
std::vector<SourceSpec> without_source(std::vector<SourceSpec> list, int index);

/// Receivers on a plane of the grid: the plane normal to `axis` (0 x: the YZ plane,
/// 1 y: XZ, 2 z: XY, as the slice views) at index `position`; on it either a line along
/// the plane's first axis (x for XY and XZ, y for YZ) at index `line_at` of its second,
/// or a grid; every `spacing`-th node.
struct ReceiverLayout {
  enum class Shape { line, grid };
  int axis = 2;
  int position = 0;
  Shape shape = Shape::line;
  int line_at = 0;
  int spacing = 1;
};
/// "line along x on XY z 0 at y 32, every node" and the like.
std::string describe(const ReceiverLayout& r);
/// Reads "xy:0", "xy:0:line:32", "xz:10:grid:4" or "yz:5:line:12:2" (plane:position
/// [:line:at[:spacing] | :grid[:spacing]]); throws ss::Error naming what is wrong.
ReceiverLayout parse_receiver_layout(std::string_view text);
/// The receiver nodes, first in-plane axis fastest; throws ss::Error (one line) when the
/// plane or the line lies outside the grid or the spacing is not positive.
std::vector<std::array<int, 3>> receiver_nodes(const ReceiverLayout& r, const std::array<int, 3>& size);

/// Trace values a simulation keeps at most (rows times receivers times components): a
/// grid of receivers keeps fewer steps than a line.
inline constexpr long long kTraceValueBudget = 1LL << 24;
/// Steps kept for `per_step` values a step (at most `max_steps`, at least 1).
int trace_steps_for(long long per_step, int max_steps);

/// What the receivers recorded: row r is step first_step + r + 1 (time (first_step + r +
/// 1) dt); in a row, the component's block of one value per receiver.
struct Seismogram {
  std::vector<std::string> components;     ///< "p"; "u_x", "u_y", "u_z"
  std::string unit;                        ///< "Pa", "m"
  std::vector<std::array<int, 3>> nodes;   ///< one per receiver
  long first_step = 0;
  double dt = 0;
  std::vector<float> values;               ///< rows x components x receivers

  int receivers() const { return static_cast<int>(nodes.size()); }
  int rows() const;
  float at(int row, int component, int receiver) const {
    return values[(static_cast<std::size_t>(row) * components.size() + component) * nodes.size() + receiver];
  }
};

/// Writes a (rows, components, receivers) float32 .npy file; throws ss::Error.
void write_seismogram_npy(const std::string& path, const Seismogram& s);
/// Writes a CSV: a header "step,t_s,<component>@<x>:<y>:<z>,..." then one line per step
/// (values in %.9g, which reads back to the same float); throws ss::Error.
void write_seismogram_csv(const std::string& path, const Seismogram& s);
/// Reads a CSV that write_seismogram_csv wrote (dt from the time column); throws ss::Error.
Seismogram read_seismogram_csv(const std::string& path);

}  // namespace ss
