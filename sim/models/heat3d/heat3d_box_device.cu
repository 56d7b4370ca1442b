// One rank's box of a distributed heat3d run on the GPU: the global, shared3d or stream25d
// kernel on the box's layout (the kernels step a grid's interior and read R ghost layers,
// which here hold either the neighbours' cells, from the halo exchange, or the boundary
// rule's values on the domain's own faces, from fill_box_ghosts3d_kernel at global indices;
// stream25d, which stages the whole grid's boundary itself on one GPU, runs in its box form:
// it stages the domain's faces as on one GPU, with the rules' tables moved to the box, and
// reads the ghosts of the faces between ranks from memory; see step_stream25d).
// Every cell goes through heat3d_point with the same neighbour values as on one GPU, so
// the field is bitwise that of DeviceHeat3D on the whole grid (and of HostHeat3D).
// Overlap (issue 19): a step computes the shells (the R layers the neighbours read) first,
// then the variant's kernel over the whole box on the compute stream while the exchange
// stream packs and sends the shells; the next step waits for the exchange. The shells are
// computed twice (R layers per exchanged face: 1% of a 768^3 box split in two), which keeps
// shared3d's and global's kernels as they are; both writes are the same bits.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/box_ghosts3d_kernels.cuh"
#include "sim/core/box_regions.hpp"
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

/// heat3d_step_global's loads and point function over a list of regions (a box's shells) in
/// one launch, in tiles shaped to each shell (CellRegionList): the shells are small, and a
/// launch each (and a boundary step each) cost more in launch gaps than in their cells
/// (issue 21: 4 GPUs, 1x2x2).
constexpr int kShellThreads = 256;
template <int R>
__global__ void __launch_bounds__(kShellThreads) heat3d_step_global_regions(Heat3DStepArgs<float> a, CellRegionList list) {
  int i, j, k;
  if (!region_tile_cell(list, blockIdx.x, static_cast<int>(threadIdx.x), i, j, k)) return;
  const std::ptrdiff_t pitch = a.g.pitch, plane = static_cast<std::ptrdiff_t>(a.g.plane());
  const float* p = a.in + a.g.index(i, j, k);
  float row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
  for (int m = 0; m <= 2 * R; ++m) {
    row[m] = __ldg(p + (m - R));
    col[m] = __ldg(p + (m - R) * pitch);
    dep[m] = __ldg(p + (m - R) * plane);
  }
  a.out[a.g.index(i, j, k)] = heat3d_point<float, R>(row, col, dep, a.c);
}

/// STENCILSCOPE_BOX_RESERVE=N: stream25d's box kernel is planned for N fewer resident blocks,
/// leaving SMs to the exchange's kernels (pack, NCCL, unpack) while it runs (default 0).
/// STENCILSCOPE_BOX_OVERLAP=beside: the shells are computed on the exchange stream beside the
/// kernel instead of before it on the compute stream. For measuring (tests/device/scaling.sh).
int box_reserve() {
  static const int n = [] {
    const char* e = std::getenv("STENCILSCOPE_BOX_RESERVE");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  return n;
}
bool box_shells_beside() {
  static const bool beside = [] {
    const char* e = std::getenv("STENCILSCOPE_BOX_OVERLAP");
    return e && std::string(e) == "beside";
  }();
  return beside;
}

class DeviceHeat3DBox final : public BoxSimulation {
 public:
  DeviceHeat3DBox(const Heat3DSetup& setup, const BoxPlacement& where, Heat3DVariant variant)
      : setup_(setup), where_(where), variant_(variant),
        grid_(Grid3D::make_box(where.box.n[0], where.box.n[1], where.box.n[2])),
        faces_(box_ghost_faces(grid_, where.domain_face, radius_of_order(setup.config.order))),
        shells_(exchanged_shells(grid_, where, radius_of_order(setup.config.order))), shell_list_(shells_, kShellThreads) {
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
    if (variant_ == Heat3DVariant::stream25d) {
      const int width = radius_of_order(setup.config.order);
      for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side)
          if (!where_.domain_face[static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)])
            memory_faces_ |= 1u << (2 * axis + side);
      // The shells' domain ghosts alone, where no shell reaches the opposite face's ghosts
      // or images (a box at least twice the radius along each axis it exchanges); else the
      // whole boundary step after the kernel.
      const int ext[3] = {grid_.nx, grid_.ny, grid_.nz};
      shells_ghosts_only_ = true;
      for (int axis = 0; axis < 3; ++axis)
        if ((memory_faces_ >> (2 * axis)) & 3u) shells_ghosts_only_ = shells_ghosts_only_ && ext[axis] >= 2 * width;
      for (const BoxGhostFaces& f : shell_ghost_faces(grid_, where_.domain_face, width, shells_)) shell_faces_.append(f);
      if (setup_.config.boundary == Boundary::analytic) {
        const std::size_t face_elements = FaceGhosts<float, 1>::elements_max(grid_);
        check_device_memory(2 * face_elements * sizeof(float), "heat3d's face ghosts on this rank's box");
        for (auto& f : face_ghosts_) f = DeviceBuffer<float>(face_elements);
      }
    }
    synchronize();  // on the box's own (non-blocking) stream, before the host buffers go
  }

  const Grid3D& grid() const override { return grid_; }
  long steps_done() const override { return steps_done_; }
  // The exchange runs on a stream of its own, so that it overlaps the interior's compute.
  void* device_stream() const override { return exchange_stream_.get(); }
  void synchronize() override {
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(exchange_stream_.get()));
  }

  void refresh_ghosts(HaloFill& halo) override {
    upload_rules(steps_done_, 1);
    launch_fill_box_ghosts3d(field_[current_].get(), grid_, where_.box.lo, faces_, rules_.get(), stream_.get());
    exchange(field_[current_].get(), halo);
  }

  void step(int n, HaloFill& halo) override {
    if (variant_ == Heat3DVariant::stream25d) {
      step_stream25d(n, halo);
      return;
    }
    const float c = static_cast<float>(setup_.courant());
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int done = 0; done < n;) {
        const int chunk = std::min(n - done, kRuleRing);
        upload_rules(steps_done_ + 1, chunk);  // slot k: the rule at the time of step k's output
        for (int k = 0; k < chunk; ++k) {
          float* out = field_[1 - current_].get();
          const Heat3DStepArgs<float> a{field_[current_].get(), out, grid_, c};
          // Overlap: the shells first, then (on the same stream) the variant's kernel over the
          // whole box and the domain's faces, while the exchange stream sends the shells.
          launch_shells<R>(a, stream_.get());
          SS_CUDA_CHECK(cudaEventRecord(shells_done_.get(), stream_.get()));
          launch_box_step<R>(variant_, a, stream_.get());
          launch_fill_box_ghosts3d(out, grid_, where_.box.lo, faces_, rules_.get() + k, stream_.get());
          exchange(out, halo, /*after_shells=*/true);
          current_ = 1 - current_;
          ++steps_done_;
        }
        done += chunk;
      }
    });
  }

  // The one-rank paint (HostHeat3D::paint) on the box's cells, read at global indices: the
  // block of cells the sphere's bounds cover comes to the host, is painted and goes back
  // (a paint is a click, not a step). The caller refreshes the ghosts.
  void paint(const Sphere& s) override {
    const std::array<int, 3>& lo = where_.box.lo;
    const std::array<double, 3> centre{s.x, s.y, s.z};
    std::array<int, 3> from{}, n{};
    for (std::size_t a = 0; a < 3; ++a) {
      from[a] = std::max(0, static_cast<int>(std::floor(centre[a] - 0.5 - s.radius)) - lo[a]);
      const int to = std::min(where_.box.n[a] - 1, static_cast<int>(std::ceil(centre[a] - 0.5 + s.radius)) - lo[a]);
      n[a] = to - from[a] + 1;
      if (n[a] <= 0) return;  // the sphere misses this box
    }
    std::vector<float> block(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
    copy_block(block.data(), from, n, cudaMemcpyDeviceToHost);
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i)
          if (in_sphere(s, lo[0] + from[0] + i, lo[1] + from[1] + j, lo[2] + from[2] + k))
            block[(static_cast<std::size_t>(k) * n[1] + j) * n[0] + i] = static_cast<float>(s.value);
    copy_block(block.data(), from, n, cudaMemcpyHostToDevice);
  }

  void load_interiors(const std::vector<std::vector<float>>& in, long steps_done) override {
    if (in.size() != 1 || in[0].size() != static_cast<std::size_t>(where_.box.cells()))
      throw Error("a heat3d box state of " + std::to_string(in.size()) + " fields does not fit this box (" +
                  std::to_string(where_.box.cells()) + " cells)");
    copy_block(const_cast<float*>(in[0].data()), {0, 0, 0}, where_.box.n, cudaMemcpyHostToDevice);
    steps_done_ = steps_done;
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

  // stream25d's step: its box form stages the domain's faces itself and reads the faces
  // between ranks from memory, so the boundary step is left with the few domain ghosts the
  // shells read. Before (default): the shells, then the kernel on the compute stream while
  // the exchange stream sends the shells. Beside
  // (STENCILSCOPE_BOX_OVERLAP=beside): the kernel at once on the compute stream, the shells
  // on the exchange stream beside it (the same bits written twice, as in the other
  // variants' overlap), after the previous step's kernel, whose output they read and
  // whose input buffer they write.
  void step_stream25d(int n, HaloFill& halo) {
    const float c = static_cast<float>(setup_.courant());
    const bool analytic = setup_.config.boundary == Boundary::analytic;
    const std::optional<int> sine_modes = analytic ? std::optional<int>(setup_.analytic.modes) : std::nullopt;
    const bool beside = box_shells_beside() && shells_ghosts_only_;
    dispatch_radius(setup_.config.order, [&]<int R>() {
      for (int done = 0; done < n;) {
        const int chunk = std::min(n - done, kRuleRing);
        upload_rules(steps_done_ + 1, chunk);    // slot k: the rule at the time of step k's output
        upload_box_rules(steps_done_, chunk + 1);  // slot k: at step k's input, moved to the box
        for (int k = 0; k < chunk; ++k) {
          float* out = field_[1 - current_].get();
          Heat3DStepArgs<float> a{field_[current_].get(), out, grid_, c, face_ghosts_[face_cur_].get(),
                                  face_ghosts_[1 - face_cur_].get()};
          a.memory_faces = memory_faces_;
          Heat3DBoxFaces faces{faces_step_ == steps_done_, false};
          if (!beside) {
            launch_shells<R>(a, stream_.get());
            // The shells' domain ghosts here too, so that the exchange stream runs no kernel
            // (with the peer transport it then needs no SM while the kernel holds them all).
            if (shells_ghosts_only_)
              launch_fill_box_ghosts3d(out, grid_, where_.box.lo, shell_faces_, rules_.get() + k, stream_.get());
          }
          // Before: the shells are done. Beside: the previous step's kernel and this chunk's
          // rules are (the kernel is queued after this).
          SS_CUDA_CHECK(cudaEventRecord(shells_done_.get(), stream_.get()));
          launch_heat3d_stream25d_box(2 * R, a, sine_modes, box_rules_.get() + k, box_rules_.get() + k + 1,
                                      analytic ? &faces : nullptr, box_reserve(), stream_.get());
          if (analytic) {  // what the face ghost buffers hold now
            if (faces.produced) face_cur_ = 1 - face_cur_;
            faces_step_ = faces.produced ? steps_done_ + 1 : steps_done_;
          }
          if (!shells_ghosts_only_)
            launch_fill_box_ghosts3d(out, grid_, where_.box.lo, faces_, rules_.get() + k, stream_.get());
          // The exchange stream: (beside: the shells,) the shells' domain ghosts, the exchange.
          SS_CUDA_CHECK(cudaStreamWaitEvent(exchange_stream_.get(), shells_done_.get(), 0));
          if (beside) launch_shells<R>(a, exchange_stream_.get());
          if (beside && shells_ghosts_only_)
            launch_fill_box_ghosts3d(out, grid_, where_.box.lo, shell_faces_, rules_.get() + k, exchange_stream_.get());
          float* const fields[] = {out};
          halo.fill(fields);
          SS_CUDA_CHECK(cudaEventRecord(exchange_done_.get(), exchange_stream_.get()));
          SS_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), exchange_done_.get(), 0));
          current_ = 1 - current_;
          ++steps_done_;
        }
        done += chunk;
      }
    });
  }

  /// The block of n cells from cell `from` of the current field to or from `host` (x
  /// fastest), after everything queued; synchronous.
  void copy_block(float* host, const std::array<int, 3>& from, const std::array<int, 3>& n, cudaMemcpyKind kind) {
    synchronize();
    cudaMemcpy3DParms p{};
    float* dev = field_[current_].get() + grid_.index(from[0], from[1], from[2]);
    const cudaPitchedPtr d = make_cudaPitchedPtr(dev, grid_.pitch * sizeof(float), n[0] * sizeof(float),
                                                 grid_.rows_per_plane());
    const cudaPitchedPtr h = make_cudaPitchedPtr(host, n[0] * sizeof(float), n[0] * sizeof(float), n[1]);
    p.srcPtr = kind == cudaMemcpyDeviceToHost ? d : h;
    p.dstPtr = kind == cudaMemcpyDeviceToHost ? h : d;
    p.extent = make_cudaExtent(n[0] * sizeof(float), n[1], n[2]);
    p.kind = kind;
    SS_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream_.get()));
    SS_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  /// The rules at times first .. first + count - 1 with their analytic tables moved to the
  /// box, for stream25d's box form (which indexes them by box cell).
  void upload_box_rules(long first_step, int count) {
    box_rules_host_.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) {
      GhostRule3D<float> r = make_ghost_rule3d<float>(setup_, (first_step + k) * setup_.dt, tables_.get());
      for (int m = 0; m < r.modes; ++m) {
        if (r.table_x[m]) r.table_x[m] += where_.box.lo[0];
        if (r.table_y[m]) r.table_y[m] += where_.box.lo[1];
        if (r.table_z[m]) r.table_z[m] += where_.box.lo[2];
      }
      box_rules_host_[static_cast<std::size_t>(k)] = r;
    }
    SS_CUDA_CHECK(cudaMemcpyAsync(box_rules_.get(), box_rules_host_.data(), count * sizeof(GhostRule3D<float>),
                                  cudaMemcpyHostToDevice, stream_.get()));
  }

  void upload_rules(long first_step, int count) {
    rules_host_.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k)
      rules_host_[static_cast<std::size_t>(k)] =
          make_ghost_rule3d<float>(setup_, (first_step + k) * setup_.dt, tables_.get());
    // From pageable memory: the copy has read rules_host_ when the call returns.
    SS_CUDA_CHECK(cudaMemcpyAsync(rules_.get(), rules_host_.data(), count * sizeof(GhostRule3D<float>),
                                  cudaMemcpyHostToDevice, stream_.get()));
  }

  /// Every shell in one launch.
  template <int R>
  void launch_shells(const Heat3DStepArgs<float>& a, cudaStream_t s) {
    if (shell_list_.blocks() == 0) return;
    heat3d_step_global_regions<R><<<static_cast<unsigned>(shell_list_.blocks()), kShellThreads, 0, s>>>(a, shell_list_);
    SS_CUDA_LAUNCH_CHECK("heat3d_step_global_regions");
  }

  // The faces between ranks, on the exchange stream: after the shells of f (a step) or after
  // everything queued on the compute stream (refresh_ghosts); the next step waits for it.
  // The exchange packs only the shells' cells and unpacks only ghosts between ranks; the
  // compute stream meanwhile writes the rest of the interior (and the shells again, the same
  // bits: every variant computes heat3d_point on the same values) and the domain's ghosts.
  void exchange(float* f, HaloFill& halo, bool after_shells = false) {
    if (!after_shells) SS_CUDA_CHECK(cudaEventRecord(shells_done_.get(), stream_.get()));
    SS_CUDA_CHECK(cudaStreamWaitEvent(exchange_stream_.get(), shells_done_.get(), 0));
    float* const fields[] = {f};
    halo.fill(fields);
    SS_CUDA_CHECK(cudaEventRecord(exchange_done_.get(), exchange_stream_.get()));
    SS_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), exchange_done_.get(), 0));
  }

  Heat3DSetup setup_;
  BoxPlacement where_;
  Heat3DVariant variant_;
  Grid3D grid_;
  BoxGhostFaces faces_;
  std::vector<CellRegion> shells_;
  CellRegionList shell_list_;  ///< shells_ as one launch's argument
  CudaStream stream_;           ///< compute: the steps, the domain's faces, the copies
  CudaStream exchange_stream_;  ///< the halo exchange (device_stream())
  CudaEvent shells_done_, exchange_done_;
  DeviceBuffer<float> tables_;
  DeviceBuffer<float> field_[2];
  DeviceBuffer<GhostRule3D<float>> rules_{kRuleRing};
  // stream25d: the faces between ranks, the rules moved to the box (kRuleRing + 1: a chunk's
  // inputs and its last output), the face ghosts of the analytic rule (double buffered:
  // face_ghosts_[face_cur_] holds those of step faces_step_'s input), the shells' domain ghosts.
  unsigned memory_faces_ = 0;
  DeviceBuffer<GhostRule3D<float>> box_rules_{kRuleRing + 1};
  std::vector<GhostRule3D<float>> box_rules_host_;
  DeviceBuffer<float> face_ghosts_[2];
  int face_cur_ = 0;
  long faces_step_ = -1;
  BoxGhostFaces shell_faces_;  ///< the shells' domain ghosts, one launch
  bool shells_ghosts_only_ = false;
  std::vector<GhostRule3D<float>> rules_host_;
  int current_ = 0;
  long steps_done_ = 0;
};

}  // namespace

std::unique_ptr<BoxSimulation> make_heat3d_device_box(const Heat3DSetup& setup, const BoxPlacement& where,
                                                      Heat3DVariant variant) {
  if (variant != Heat3DVariant::global && variant != Heat3DVariant::shared3d && variant != Heat3DVariant::stream25d)
    throw Error("heat3d's boxes on the GPU step with global, shared3d or stream25d, not " +
                std::string(to_string(variant)));
  std::string why;
  if (!cuda_available(&why)) throw Error(why);
  return std::make_unique<DeviceHeat3DBox>(setup, where, variant);
}

}  // namespace ss
