// One rank's box of a distributed heat3d run on the GPU: the global or shared3d kernel
// on the box's layout (the kernels step a grid's interior and read R ghost layers, which
// here hold either the neighbours' cells, from the halo exchange, or the boundary rule's
// values on the domain's own faces, from fill_box_ghosts3d_kernel at global indices).
// Every cell goes through heat3d_point with the same neighbour values as on one GPU, so
// the field is bitwise that of DeviceHeat3D on the whole grid (and of HostHeat3D).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/box_ghosts3d_kernels.cuh"
#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/models/heat3d/heat3d_kernels.cuh"
#include "sim/models/heat3d/heat3d_solver.hpp"

namespace ss {

namespace {

constexpr unsigned kMaxGridYZ = 65535;

template <int R>
void launch_box_step(Heat3DVariant v, const Heat3DStepArgs<float>& a, cudaStream_t s) {
  const Grid3D& g = a.g;
  if (v == Heat3DVariant::global) {
    const dim3 grid(blocks_for(g.nx, kHeatGlobalBX), blocks_for(g.ny, kHeatGlobalBY), std::min<unsigned>(g.nz, kMaxGridYZ));
    if (grid.y > kMaxGridYZ) throw Error("global: ny " + std::to_string(g.ny) + " is too large for this launch");
    heat3d_step_global<float, R><<<grid, dim3(kHeatGlobalBX, kHeatGlobalBY), 0, s>>>(a);
    SS_CUDA_LAUNCH_CHECK("heat3d_step_global");
  } else {
    const dim3 grid(blocks_for(g.nx, kShared3BX), blocks_for(g.ny, kShared3BY),
                    std::min<unsigned>(blocks_for(g.nz, kShared3BZ), kMaxGridYZ));
    if (grid.y > kMaxGridYZ) throw Error("shared3d: ny " + std::to_string(g.ny) + " is too large for this launch");
    heat3d_step_shared3d<float, R><<<grid, dim3(kShared3BX, kShared3BY, kShared3BZ), 0, s>>>(a);
    SS_CUDA_LAUNCH_CHECK("heat3d_step_shared3d");
  }
}

class DeviceHeat3DBox final : public BoxSimulation {
 public:
  DeviceHeat3DBox(const Heat3DSetup& setup, const BoxPlacement& where, Heat3DVariant variant)
      : setup_(setup), where_(where), variant_(variant),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        faces_(box_ghost_faces(grid_, where.domain_face, radius_of_order(setup.config.order))) {
    const std::vector<float> host_tables = analytic_tables3d<float>(setup);
    check_device_memory((2 * grid_.elements() + host_tables.size()) * sizeof(float), "heat3d on this rank's box");
    tables_ = DeviceBuffer<float>(std::max<std::size_t>(host_tables.size(), 1));
    if (!host_tables.empty())
      SS_CUDA_CHECK(cudaMemcpyAsync(tables_.get(), host_tables.data(), host_tables.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream_.get()));
    std::vector<float> initial(grid_.elements(), 0.0f);  // as HostHeat3DBox: edges and padding zero
    heat3d_initial_box(setup_, where_.box, grid_, initial.data());
    for (auto& f : field_) {
      f = DeviceBuffer<float>(grid_.elements());
      SS_CUDA_CHECK(cudaMemcpyAsync(f.get(), initial.data(), initial.size() * sizeof(float), cudaMemcpyHostToDevice,
                                    stream_.get()));
    }
    synchronize();  // on the box's own (non-blocking) stream, before the host buffers go
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  void* device_stream() const override { return stream_.get(); }
  void synchronize() override { SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

  void refresh_ghosts(HaloFill& halo) override {
    upload_rules(steps_done_, 1);
    fill_ghosts(field_[current_].get(), rules_.get(), halo);
  }

  void step(int n, HaloFill& halo) override {
    const float c = static_cast<float>(setup_.courant());
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int done = 0; done < n;) {
        const int chunk = std::min(n - done, kRuleRing);
        upload_rules(steps_done_ + 1, chunk);  // slot k: the rule at the time of step k's output
        for (int k = 0; k < chunk; ++k) {
          float* out = field_[1 - current_].get();
          launch_box_step<R>(variant_, Heat3DStepArgs<float>{field_[current_].get(), out, grid_, c}, stream_.get());
          fill_ghosts(out, rules_.get() + k, halo);
          current_ = 1 - current_;
          ++steps_done_;
        }
        done += chunk;
      }
    });
  }

  std::vector<std::vector<float>> interiors() const override {
    const Grid3D& g = grid_;
    std::vector<float> out(g.points());
    for (int k = 0; k < g.nz; ++k)  // rows of nx out of the padded pitch, one 2D copy per plane
      SS_CUDA_CHECK(cudaMemcpy2DAsync(out.data() + static_cast<std::size_t>(k) * g.ny * g.nx, g.nx * sizeof(float),
                                      field_[current_].get() + g.index(0, 0, k), g.pitch * sizeof(float),
                                      g.nx * sizeof(float), g.ny, cudaMemcpyDeviceToHost, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return {std::move(out)};
  }

 private:
  // Ghost rules in device memory, uploaded per chunk of steps (stream-ordered: a slot is
  // rewritten only after the kernels queued before the copy have read it).
  static constexpr int kRuleRing = 256;

  void upload_rules(long first_step, int count) {
    rules_host_.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k)
      rules_host_[static_cast<std::size_t>(k)] =
          make_ghost_rule3d<float>(setup_, (first_step + k) * setup_.dt, tables_.get());
    // From pageable memory: the copy has read rules_host_ when the call returns.
    SS_CUDA_CHECK(cudaMemcpyAsync(rules_.get(), rules_host_.data(), count * sizeof(GhostRule3D<float>),
                                  cudaMemcpyHostToDevice, stream_.get()));
  }

  // The domain's faces by the rule, then the faces between ranks by the exchange (which
  // sends interior cells only, so it never reads what the boundary step writes).
  void fill_ghosts(float* f, const GhostRule3D<float>* rule, HaloFill& halo) {
    launch_fill_box_ghosts3d(f, grid_, where_.box.lo, faces_, rule, stream_.get());
    float* const fields[] = {f};
    halo.fill(fields);
  }

  Heat3DSetup setup_;
  BoxPlacement where_;
  Heat3DVariant variant_;
  Grid3D grid_;
  BoxGhostFaces faces_;
  CudaStream stream_;
  DeviceBuffer<float> tables_;
  DeviceBuffer<float> field_[2];
  DeviceBuffer<GhostRule3D<float>> rules_{kRuleRing};
  std::vector<GhostRule3D<float>> rules_host_;
  int current_ = 0;
  long steps_done_ = 0;
};

}  // namespace

std::unique_ptr<BoxSimulation> make_heat3d_device_box(const Heat3DSetup& setup, const BoxPlacement& where,
                                                      Heat3DVariant variant) {
  if (variant != Heat3DVariant::global && variant != Heat3DVariant::shared3d)
    throw Error("heat3d's boxes on the GPU step with global or shared3d, not " + std::string(to_string(variant)) +
                " (its boundary is staged inside the kernel for the whole grid's faces)");
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  return std::make_unique<DeviceHeat3DBox>(setup, where, variant);
}

}  // namespace ss
