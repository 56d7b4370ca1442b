#pragma once
// One rank's box of a distributed elastic3d run (docs/distributed.md): the `cpu` variant's
// nine steps on the box, everything that depends on position read at global indices.
#include <memory>
#include <string>
#include <vector>

#include "sim/core/box_simulation.hpp"
#include "sim/models/elastic3d/elastic3d.hpp"

namespace ss {

/// How a setup runs distributed: ghost width R, no edges (strains and divergence are
/// cross-shaped), six fields (the stresses; u is three); x and y periodic under periodic
/// and periodic_sides, z under periodic. Every boundary rule (cpml included) distributes;
/// the GPU boxes step `steps`, except under cpml.
DistributedSpec elastic3d_distributed_spec(const Elastic3DSetup& setup);

/// What a box shows and paints, as the one-rank run does on the box's nodes (both boxes).
/// A view quantity: a component of u^n (u_x, u_y, u_z: `component` 0 to 2; empty: u_z),
/// `vp`, or a derived one (magnitude, divergence, curl); throws ss::Error for another name.
struct ElasticBoxQuantity {
  int component = -1;  ///< 0..2, or -1
  bool vp = false;
  ElasticDerived derived = ElasticDerived::magnitude;  ///< when neither
};
ElasticBoxQuantity elastic3d_box_quantity(const std::string& quantity);
/// vp of the global nodes (elastic_vp_field's values), the box's interior, x fastest.
std::vector<float> elastic3d_box_vp(const Elastic3DSetup& setup, const Box& box);
/// A paint's pulse: the sphere's cells clipped to the box (global indices) and their
/// increments (elastic3d_paint_pulse at global indices, x fastest), which the box adds to
/// u_z of u^n and u^{n-1}; no cells when the sphere misses the box.
struct ElasticBoxPulse {
  CellBox cells;
  std::vector<double> add;
};
ElasticBoxPulse elastic3d_box_pulse(const Elastic3DSetup& setup, const Box& box, const Sphere& sphere);

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
/// device and copied at traces(). Views (the derived ones by the one-GPU run's view kernel
/// on the box), paints, loaded states and sources as the CPU box. Throws ss::Error for another variant, under cpml (not yet
/// on GPU boxes) or without a device.
std::unique_ptr<BoxSimulation> make_elastic3d_device_box(const Elastic3DSetup& setup, const BoxPlacement& where,
                                                         Elastic3DVariant variant);

}  // namespace ss
