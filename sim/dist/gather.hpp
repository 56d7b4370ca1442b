#pragma once
// Gathering a distributed field to rank 0: for the equality checks against one rank,
// and for whatever rank 0 shows or writes.
#include <vector>

#include "sim/core/box_simulation.hpp"  // BoxTraces
#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

/// Every rank's box interiors (BoxSimulation::interiors(): per field, x fastest) put
/// together on rank 0 as the whole grid's (per field, x fastest, as SimState::fields);
/// the other ranks get an empty vector. Collective over `comm`, whose ranks are d's.
std::vector<std::vector<float>> gather_interiors(const CartComm& comm, const Decomposition& d,
                                                 const std::vector<std::vector<float>>& box_interiors);

/// One slice of the whole grid on rank 0, gathered from the boxes it cuts (only the slice
/// travels: what the window on rank 0 needs). `normal_axis` is the axis the slice cuts (z
/// for XY, y for XZ, x for YZ, as SliceAxis orders them 2, 1, 0) at global cell `position`;
/// `box_interior` is this rank's interior of the field (x fastest). Rank 0 gets nu * nv
/// values, u fastest, u and v the other two axes in x, y, z order (XY: u = x, v = y; XZ:
/// u = x, v = z; YZ: u = y, v = z); the others an empty vector. Collective.
std::vector<float> gather_slice(const CartComm& comm, const Decomposition& d, int normal_axis, int position,
                                const std::vector<float>& box_interior);

/// The receivers' traces put together on rank 0: `mine` is this rank's box's part
/// (BoxSimulation::traces(from_row), the same from_row on every rank). Rank 0 gets rank 0's
/// head with the values of rows from_row on, every receiver in the run's order (one rank's
/// Seismogram layout: rows x components x receivers); the others an empty Seismogram.
/// Collective over `comm`. Throws ss::Error on rank 0 (after the collectives, so no rank
/// waits) when the boxes recorded different row counts or do not hold each receiver once.
Seismogram gather_traces(const CartComm& comm, const BoxTraces& mine, int from_row);

}  // namespace ss::dist
