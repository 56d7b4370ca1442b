#pragma once
// One rank's box of a distributed acoustic3d run (docs/distributed.md): the `cpu` variant's
// step on the box, with everything that depends on position read at global indices.
#include <memory>
#include <string>
#include <vector>

#include "sim/core/box_simulation.hpp"
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

/// Steps `where`'s box of the grid `setup` describes (float, CPU), bitwise as HostAcoustic3D<float>
/// steps the whole grid: the same point functions on the same values. p is exchanged after
/// each step; under cpml the three psi fields are exchanged too, between the CPML's passes.
/// The setup's sources (all of them, in list order) are injected by the box holding their
/// node; so are the receivers (p after each step, BoxSimulation::traces). interiors() is
/// {p, p_prev}, as the model's SimState.
std::unique_ptr<BoxSimulation> make_acoustic3d_box(const Acoustic3DSetup& setup, const BoxPlacement& where);

/// The same box on the current CUDA device (acoustic3d_box_device.cu): the `global` or
/// `stream25d` kernel, bitwise equal to DeviceAcoustic3D's on the whole grid, every rule (under
/// cpml psi and zeta are box fields on the device, psi exchanged between the passes); its
/// fields and its receivers' traces live in device memory (copied out by traces()) and the
/// exchange is a DeviceHaloExchange on device_stream() carrying up to
/// DistributedSpec::fields fields. Throws ss::Error for another variant or without a device.
std::unique_ptr<BoxSimulation> make_acoustic3d_device_box(const Acoustic3DSetup& setup, const BoxPlacement& where,
                                                          Acoustic3DVariant variant);

/// What a box shows and paints, as the one-rank run does on the box's nodes (both boxes):
/// vp of the global nodes (the "velocity" view, x fastest), and a paint's pulse: the sphere's
/// cells clipped to the box (global indices) with their increments (acoustic3d_paint_pulse at
/// global indices, x fastest), which the box adds to p^n and p^{n-1}; no cells when the
/// sphere misses the box.
std::vector<float> acoustic3d_box_velocity(const Acoustic3DSetup& setup, const Box& box);
struct AcousticBoxPulse {
  CellBox cells;
  std::vector<double> add;
};
AcousticBoxPulse acoustic3d_box_pulse(const Acoustic3DSetup& setup, const Box& box, const Sphere& sphere);
/// The model's view quantities on a box: the name (empty: pressure) is pressure or velocity;
/// throws ss::Error naming both otherwise. True for velocity.
bool acoustic3d_box_shows_velocity(const std::string& quantity);

/// How a setup runs distributed: ghost width R, periodic axes under the periodic rule, no
/// edges, one field (three under cpml: the psi exchange); its GPU boxes step `global`.
DistributedSpec acoustic3d_distributed_spec(const Acoustic3DSetup& setup);

}  // namespace ss
