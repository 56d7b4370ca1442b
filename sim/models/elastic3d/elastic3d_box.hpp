#pragma once
// One rank's box of a distributed elastic3d run (docs/distributed.md): the `cpu` variant's
// nine steps on the box, everything that depends on position read at global indices.
#include <memory>

#include "sim/core/box_simulation.hpp"
#include "sim/models/elastic3d/elastic3d.hpp"

namespace ss {

/// How a setup runs distributed: ghost width R, no edges (strains and divergence are
/// cross-shaped), six fields (the stresses; u is three); x and y periodic under periodic
/// and periodic_sides, z under periodic. Every boundary rule (cpml included) distributes;
/// the GPU boxes step `steps`, except under cpml.
DistributedSpec elastic3d_distributed_spec(const Elastic3DSetup& setup);

/// Steps `where`'s box of the grid `setup` describes (float, CPU), bitwise as
/// HostElastic3D<float> steps the whole grid: u exchanged after each step (before the next
/// strains), the six stresses after the stress source (before the divergence); the
/// band-limited source boxes are cut to the box with the global weights and the per-node
/// summation order of one rank; Clayton-Engquist and the free surface on domain faces only;
/// the CPML's memory variables per box (its passes read only their own node's, and u and
/// the stresses whose ghosts are exchanged anyway). The receivers in the box record u after
/// each step (BoxSimulation::traces).
/// interiors() is {u_x, u_y, u_z, u_x^{n-1}, u_y^{n-1}, u_z^{n-1}}, as the model's SimState.
std::unique_ptr<BoxSimulation> make_elastic3d_box(const Elastic3DSetup& setup, const BoxPlacement& where);

/// The same box on the current CUDA device (elastic3d_box_device.cu): the `steps` kernels
/// (or `fused`'s: both read the ghosts of u and of the stresses from memory) on the box's
/// layout, the two exchanges where the CPU box has them, bitwise equal to DeviceElastic3D's
/// run of that variant on the whole grid. Its fields live in device memory and the exchange
/// is a DeviceHaloExchange on device_stream(); the receivers in the box are recorded on the
/// device and copied at traces(). Throws ss::Error for another variant, under cpml (not yet
/// on GPU boxes) or without a device.
std::unique_ptr<BoxSimulation> make_elastic3d_device_box(const Elastic3DSetup& setup, const BoxPlacement& where,
                                                         Elastic3DVariant variant);

}  // namespace ss
