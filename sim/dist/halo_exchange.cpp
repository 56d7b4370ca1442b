#include "sim/dist/halo_exchange.hpp"

#include <climits>

#include <fmt/format.h>

namespace ss::dist {

float HaloExchange::max_over_ranks(float local) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_FLOAT, MPI_MAX, comm_), "MPI_Allreduce");
  return local;
}

HaloExchange::HaloExchange(const CartComm& comm, const BoxPlacement& where, const Grid3D& g, int width, bool edges,
                           std::size_t fields)
    : comm_(comm.get()), grid_(g), fields_(fields), faces_(plan_halo(where, width, edges)),
      phases_(halo_phases(faces_)) {
  for (const HaloFace& f : faces_) {
    const long long count = f.send.cells() * static_cast<long long>(fields_);
    if (count > INT_MAX) throw Error(fmt::format("a halo face of {} values is too large for one MPI message", count));
    send_.emplace_back(static_cast<std::size_t>(count));
    recv_.emplace_back(static_cast<std::size_t>(count));
  }
}

long long HaloExchange::bytes_sent_per_fill() const {
  long long bytes = 0;
  for (const auto& b : send_) bytes += static_cast<long long>(b.size() * sizeof(float));
  return bytes;
}

void HaloExchange::fill(std::span<float* const> fields) {
  if (fields.size() > fields_)
    throw Error(fmt::format("halo exchange set up for {} fields was given {}", fields_, fields.size()));
  const std::size_t nf = fields.size();  // fewer is fine (a model's extra field between passes); every rank gives as many
  const double t0 = MPI_Wtime();
  std::vector<MPI_Request> requests;
  for (int phase = 0; phase < phases_; ++phase) {
    requests.clear();
    for (std::size_t k = 0; k < faces_.size(); ++k) {
      const HaloFace& f = faces_[k];
      if (f.phase != phase) continue;
      MPI_Request r;
      check_mpi(MPI_Irecv(recv_[k].data(), static_cast<int>(f.recv.cells() * static_cast<long long>(nf)), MPI_FLOAT, f.peer,
                          f.recv_tag, comm_, &r),
                "MPI_Irecv");
      requests.push_back(r);
    }
    for (std::size_t k = 0; k < faces_.size(); ++k) {
      const HaloFace& f = faces_[k];
      if (f.phase != phase) continue;
      const std::size_t cells = static_cast<std::size_t>(f.send.cells());
      for (std::size_t q = 0; q < nf; ++q) pack_region_host(fields[q], grid_, f.send, send_[k].data() + q * cells);
      MPI_Request r;
      check_mpi(MPI_Isend(send_[k].data(), static_cast<int>(cells * nf), MPI_FLOAT, f.peer, f.send_tag, comm_, &r),
                "MPI_Isend");
      requests.push_back(r);
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (std::size_t k = 0; k < faces_.size(); ++k) {
      const HaloFace& f = faces_[k];
      if (f.phase != phase) continue;
      const std::size_t cells = static_cast<std::size_t>(f.recv.cells());
      for (std::size_t q = 0; q < nf; ++q)
        unpack_region_host(fields[q], grid_, f.recv, recv_[k].data() + q * cells);
    }
  }
  seconds_ += MPI_Wtime() - t0;
  ++calls_;
}

}  // namespace ss::dist
