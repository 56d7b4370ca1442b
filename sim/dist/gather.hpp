#pragma once
// Gathering a distributed field to rank 0: for the equality checks against one rank,
// and for whatever rank 0 shows or writes.
#include <vector>

#include "sim/dist/mpi_comm.hpp"

namespace ss::dist {

/// Every rank's box interiors (BoxSimulation::interiors(): per field, x fastest) put
/// together on rank 0 as the whole grid's (per field, x fastest, as SimState::fields);
/// the other ranks get an empty vector. Collective over `comm`, whose ranks are d's.
std::vector<std::vector<float>> gather_interiors(const CartComm& comm, const Decomposition& d,
                                                 const std::vector<std::vector<float>>& box_interiors);

}  // namespace ss::dist
