// One rank's box of a distributed hydro3d run on the GPU (hydro3d_solver.hpp): the one-GPU
// run's `global` (or `55pt`) kernel on the box's layout, in HostHydro3DBox's order. A step:
// the adaptive dt (the box's |u|^2 max by hydro_max_speed2, the maximum over the ranks
// through HaloFill::max_over_ranks, the dt rule on the host), three RK3 substeps each
// followed by the exchange of the four fields (width 3, edges and corners: every axis is
// periodic, so the exchange writes every ghost, an axis that is not split wrapping onto
// the box itself), then the forcing (the whole grid's tables at global positions) and its
// exchange. Both kernels read every ghost from memory and compute each cell with the
// point functions of hydro3d.hpp from the same neighbour values as on one GPU, so the
// field is bitwise that of DeviceHydro3D of the same variant on the whole grid.
// Overlap (issue 21): a substep computes the shells first (the cells within 3 of a face,
// which the exchange reads: every face, since every axis is periodic), with
// hydro_global_regions, then the core with the variant's kernel on the compute stream while
// the exchange stream sends the shells. Each cell is computed once (the RK3 register is
// updated in place), and global and 55pt compute a cell from the same values through the
// same point functions, so the split changes no bit. The next substep waits for the
// exchange; the compute stream is one priority below the exchange's, so that the
// exchange's pack kernels (the x rows) get in among the core's blocks.
// Not here: stream25d (it reads the whole grid's periodic images inside its kernel, not
// ghosts), 19pt (the two-pass method: its divergence would be exchanged between the
// passes).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sim/core/box_regions.hpp"
#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/core/model.hpp"  // StepAccounting
#include "sim/models/hydro3d/hydro3d_bench.hpp"  // kHydroValuesPerCellSubstep
#include "sim/models/hydro3d/hydro3d_kernels.cuh"
#include "sim/models/hydro3d/hydro3d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridZ = 65535;

class DeviceHydro3DBox final : public BoxSimulation {
 public:
  DeviceHydro3DBox(const Hydro3DSetup& setup, const BoxPlacement& where, HydroVariant variant)
      : setup_(setup), where_(where), variant_(variant),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])), w_(hydro_weights<float>(setup.h)),
        c_(hydro_constants<float>(setup)) {
    shells_ = CellRegionList(exchanged_shells(grid_, where_, kHydroRadius), kHydroRegionThreads);
    const CellRegion core = exchange_core(grid_, where_, kHydroRadius);
    core_ = {make_int3(core.lo[0], core.lo[1], core.lo[2]), make_int3(core.n[0], core.n[1], core.n[2])};
    if (static_cast<unsigned>(grid_.nz) > kMaxGridZ)
      throw Error("hydro3d's GPU box: nz " + std::to_string(grid_.nz) + " is too large for a launch");
    int dev = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, dev));
    const std::vector<float> tables = hydro_forcing_tables<float>(setup_);
    const std::size_t n = grid_.elements();
    check_device_memory((3 * kHydroFields * n + tables.size()) * sizeof(float), "hydro3d on this rank's box");
    cudaStream_t s = stream_.get();
    // The whole grid's initial fields, then this box's cells (as HostHydro3DBox); ghosts and
    // padding 0 until refresh_ghosts. rk and out are zeroed, as on one GPU.
    const auto whole = hydro3d_initial_fields<float>(setup_);
    const Grid3D& g = setup_.grid;
    const Box& b = where_.box;
    std::vector<float> cut(n);
    for (int q = 0; q < kHydroFields; ++q) {
      std::fill(cut.begin(), cut.end(), 0.0f);
      for (int k = 0; k < b.n[2]; ++k)
        for (int j = 0; j < b.n[1]; ++j)
          for (int i = 0; i < b.n[0]; ++i)
            cut[grid_.index(i, j, k)] = whole[static_cast<std::size_t>(q)][g.index(b.lo[0] + i, b.lo[1] + j, b.lo[2] + k)];
      f_[q] = DeviceBuffer<float>(n);
      rk_[q] = DeviceBuffer<float>(n);
      out_[q] = DeviceBuffer<float>(n);
      SS_CUDA_CHECK(cudaMemcpyAsync(f_[q].get(), cut.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
      SS_CUDA_CHECK(cudaMemsetAsync(rk_[q].get(), 0, n * sizeof(float), s));
      SS_CUDA_CHECK(cudaMemsetAsync(out_[q].get(), 0, n * sizeof(float), s));
      synchronize();  // `cut` is pageable and reused
    }
    if (!tables.empty()) {
      tables_ = DeviceBuffer<float>(tables.size());
      SS_CUDA_CHECK(cudaMemcpyAsync(tables_.get(), tables.data(), tables.size() * sizeof(float), cudaMemcpyHostToDevice, s));
    }
    synchronize();  // on the box's own (non-blocking) stream, before the host buffers go
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_; }
  // The exchange runs on a stream of its own, so that it overlaps the core's compute.
  void* device_stream() const override { return exchange_stream_.get(); }
  void synchronize() override {
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(exchange_stream_.get()));
  }
  void refresh_ghosts(HaloFill& halo) override { exchange(halo); }

  // HostHydro3DBox's step (hydro_box_step), with the kernels of DeviceHydro3D.
  void step(int n, HaloFill& halo) override {
    for (int t = 0; t < n; ++t) {
      hydro_box_step(
          setup_, steps_, dt_stale_, [&] { take_dt(halo); }, [&](int s) { substep(s); }, [&] { exchange(halo); },
          [&] { force(); });
      ++steps_;
    }
  }

  std::vector<std::vector<float>> interiors() const override {
    std::vector<std::vector<float>> out;
    for (const auto& f : f_) out.push_back(interior(f.get()));
    return out;
  }

  // What the window asks of a box: HostHydro3DBox's answers (the views from the fields
  // copied to the host, through the same host functions).
  double dt() const override { return clock_.dt; }
  double time() const override { return clock_.time(steps_); }
  double dt_limit() const override { return setup_.dt_limit; }
  StepAccounting accounting() const override {
    const double cells = static_cast<double>(where_.box.cells());
    return {3.0 * kHydroValuesPerCellSubstep * sizeof(float) * cells, cells};
  }
  /// The one-GPU run's view kernel (hydro_slice_quantity), an XY plane of the box at a time:
  /// the same bits as the one GPU's views (rho = exp(ln rho) on the device differs from the
  /// host's exp in the last bit). The derivatives read 3 ghosts, exchanged after every step,
  /// paint and load.
  std::vector<float> quantity_interior(const std::string& quantity) const override {
    const int q = hydro_quantity_index(quantity);
    const Grid3D& g = grid_;
    if (view_.size() != g.points()) view_ = DeviceBuffer<float>(g.points());
    const dim3 block(32, 8), blocks((g.nx + 31) / 32, (g.ny + 7) / 8);
    for (int k = 0; k < g.nz; ++k) {
      hydro_slice_quantity<float><<<blocks, block, 0, stream_.get()>>>(
          f_[0].get(), f_[1].get(), f_[2].get(), f_[3].get(), g, w_, q, 0, k,
          view_.get() + static_cast<std::size_t>(k) * g.nx * g.ny, g.nx, g.ny);
      SS_CUDA_LAUNCH_CHECK("hydro_slice_quantity");
    }
    std::vector<float> out(g.points());
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), view_.get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                  stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }
  /// hydro_box_paint on the velocity copied to the host, then back.
  void paint(const Sphere& s) override {
    std::array<std::vector<float>, 3> u;
    for (int a = 0; a < 3; ++a) u[static_cast<std::size_t>(a)] = padded(f_[a + 1].get());
    hydro_box_paint(s, setup_, where_.box.lo, grid_, u[0].data(), u[1].data(), u[2].data());
    for (int a = 0; a < 3; ++a) upload(f_[a + 1].get(), u[static_cast<std::size_t>(a)]);
    dt_stale_ = true;
  }
  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    check_hydro_box_state(in, where_.box);
    const Grid3D& g = grid_;
    std::vector<float> cut(g.elements(), 0.0f);  // ghosts stale (0) until refresh_ghosts
    for (int q = 0; q < kHydroFields; ++q) {
      const std::vector<float>& v = in[static_cast<std::size_t>(q)];
      std::size_t o = 0;
      for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
          for (int i = 0; i < g.nx; ++i) cut[g.index(i, j, k)] = v[o++];
      upload(f_[q].get(), cut);
    }
    steps_ = steps_done;
    clock_ = HydroClock{setup_.dt, 0, steps_done};  // as HostHydro3DBox: an adaptive dt is taken from the state
    c_.dt = static_cast<float>(clock_.dt);
    dt_stale_ = true;
  }

 private:
  /// DeviceHydro3D's substep on the box (the dt as HostHydro3DBox holds it, in c_.dt: the
  /// same float the one-GPU run's dt_dev holds): the shells, then (the exchange may start)
  /// the core; then f and out swapped.
  void substep(int s) {
    const HydroRk<float> r = hydro_rk<float>();
    const HydroStep<float> st{grid_, w_, c_, s, r.alpha[s], r.beta[s], nullptr};
    HydroBuffers<float> b;
    for (int q = 0; q < kHydroFields; ++q) {
      b.f[q] = f_[q].get();
      b.rk[q] = rk_[q].get();
      b.out[q] = out_[q].get();
    }
    b.div = nullptr;  // single pass
    launch_hydro_global_regions(b, st, shells_, stream_.get());
    SS_CUDA_CHECK(cudaEventRecord(shells_done_.get(), stream_.get()));
    shells_queued_ = true;
    if (variant_ == HydroVariant::global) launch_hydro_global(b, st, stream_.get(), core_);
    else launch_hydro_p55(b, st, stream_.get(), core_);
    for (int q = 0; q < kHydroFields; ++q) std::swap(f_[q], out_[q]);
  }

  /// HostHydro3DBox::take_dt: |u|^2 max of this box (hydro_max_speed2, as on one GPU), then
  /// hydro_box_take_dt on the host.
  void take_dt(HaloFill& halo) {
    cudaStream_t s = stream_.get();
    SS_CUDA_CHECK(cudaMemsetAsync(speed_acc_.get(), 0, 2 * sizeof(unsigned), s));
    hydro_max_speed2<float><<<4 * sm_count_, 256, 0, s>>>(f_[0].get(), f_[1].get(), f_[2].get(), f_[3].get(), grid_,
                                                          speed_acc_.get());
    SS_CUDA_LAUNCH_CHECK("hydro_max_speed2");
    SS_CUDA_CHECK(cudaMemcpyAsync(speed_host_.get(), speed_acc_.get(), 2 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    synchronize();
    HydroSpeed local;
    std::memcpy(&local.u2max, speed_host_.get(), sizeof(local.u2max));
    local.finite = speed_host_.get()[1] == 0;
    hydro_box_take_dt(setup_, local, steps_, halo, clock_);
    c_.dt = static_cast<float>(clock_.dt);
    dt_stale_ = false;
  }

  /// The ghosts of f, on the exchange stream: after the shells of a substep (the exchange
  /// reads only cells within 3 of a face, and ghosts it wrote itself) or after everything
  /// queued on the compute stream (the forcing, refresh_ghosts); the compute stream's next
  /// work waits for it.
  void exchange(HaloFill& halo) {
    if (!shells_queued_) SS_CUDA_CHECK(cudaEventRecord(shells_done_.get(), stream_.get()));
    shells_queued_ = false;
    SS_CUDA_CHECK(cudaStreamWaitEvent(exchange_stream_.get(), shells_done_.get(), 0));
    float* const fields[kHydroFields] = {f_[0].get(), f_[1].get(), f_[2].get(), f_[3].get()};
    halo.fill(fields);
    SS_CUDA_CHECK(cudaEventRecord(exchange_done_.get(), exchange_stream_.get()));
    SS_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), exchange_done_.get(), 0));
  }

  /// HostHydro3DBox::force with DeviceHydro3D's kernel: amplitudes from the host's clock,
  /// the tables of the whole grid read at the global position of each box cell.
  void force() {
    const HydroForcingStep fs = hydro_forcing_step(setup_, steps_);
    const float* tab = tables_.get() + static_cast<std::size_t>(fs.index) * hydro_forcing_stride(setup_.grid);
    const Grid3D& g = grid_;
    const dim3 block(32, 4), blocks((g.nx + 31) / 32, (g.ny + 3) / 4, g.nz);
    const Box& b = where_.box;
    hydro_force<float><<<blocks, block, 0, stream_.get()>>>(
        f_[1].get(), f_[2].get(), f_[3].get(), g, setup_.grid, make_int3(b.lo[0], b.lo[1], b.lo[2]), tab, nullptr,
        static_cast<float>(fs.amp_dt(clock_.dt, 0)), static_cast<float>(fs.amp_dt(clock_.dt, 1)),
        static_cast<float>(fs.amp_dt(clock_.dt, 2)), static_cast<float>(fs.cos_phase), static_cast<float>(fs.sin_phase));
    SS_CUDA_LAUNCH_CHECK("hydro_force");
  }

  /// The interior of a device field (x fastest), after the queued work.
  std::vector<float> interior(const float* f) const {
    const Grid3D& g = grid_;
    std::vector<float> out(g.points());
    for (int k = 0; k < g.nz; ++k)  // rows of nx out of the padded pitch, one 2D copy per plane
      SS_CUDA_CHECK(cudaMemcpy2DAsync(out.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                      f + g.index(0, 0, k), g.pitch * sizeof(float), g.nx * sizeof(float), g.ny,
                                      cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }
  /// A whole padded device field on the host, after the queued work.
  std::vector<float> padded(const float* f) const {
    std::vector<float> out(grid_.elements());
    SS_CUDA_CHECK(cudaMemcpyAsync(out.data(), f, out.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return out;
  }
  void upload(float* f, const std::vector<float>& v) {
    SS_CUDA_CHECK(cudaMemcpyAsync(f, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice, stream_.get()));
    synchronize();  // v is pageable and the caller's
  }

  Hydro3DSetup setup_;
  BoxPlacement where_;
  HydroVariant variant_;
  Grid3D grid_;
  HydroWeights<float> w_;
  HydroConstants<float> c_;
  int sm_count_ = 0;
  CellRegionList shells_;   ///< the cells the exchange reads, computed first
  HydroRegion core_{};      ///< the rest of the interior
  bool shells_queued_ = false;  ///< a substep's shells were queued since the last exchange
  CudaStream stream_{CudaStream::Priority::second};  ///< compute: the kernels, the copies
  CudaStream exchange_stream_;                        ///< the halo exchange (device_stream())
  CudaEvent shells_done_, exchange_done_;
  DeviceBuffer<float> f_[kHydroFields], rk_[kHydroFields], out_[kHydroFields];
  DeviceBuffer<float> tables_;
  mutable DeviceBuffer<float> view_;  ///< a view quantity over the box's interior (quantity_interior)
  DeviceBuffer<unsigned> speed_acc_{2};
  PinnedBuffer<unsigned> speed_host_{2};
  long steps_ = 0;
  HydroClock clock_{setup_.dt, 0, 0};  // dt and time (an adaptive dt follows the flow)
  bool dt_stale_ = false;              // a kick or a loaded state: an adaptive dt is taken again
};

}  // namespace

std::unique_ptr<BoxSimulation> make_hydro3d_device_box(const Hydro3DSetup& setup, const BoxPlacement& where,
                                                       HydroVariant variant) {
  if (variant != HydroVariant::global && variant != HydroVariant::p55)
    throw Error("hydro3d's boxes on the GPU step with global or 55pt, not " + std::string(to_string(variant)));
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  return std::make_unique<DeviceHydro3DBox>(setup, where, variant);
}

}  // namespace ss
