// hydro3d GPU variants against the CPU: bit for bit with the CPU variant of the same
// method (float and double), within 1e-12 of the double reference in double and 1e-4
// in float, on sizes that are not multiples of any tile, with every buffer a step
// writes poisoned first; the forcing and the kick too. Skips without a device.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>

#include "sim/core/decomposition.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/models/hydro3d/hydro3d_physics.hpp"
#include "sim/models/hydro3d/hydro3d_solver.hpp"
#include "hydro3d_box_calls.hpp"

namespace ss {
namespace {

#define SKIP_WITHOUT_DEVICE()                         \
  do {                                                \
    std::string why_;                                 \
    if (!cuda_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

Hydro3DSetup setup_of(int nx, int ny, int nz, HydroInit init, int dt_every = 0) {
  Hydro3DConfig c;
  c.dt_every = dt_every;
  c.nx = nx, c.ny = ny, c.nz = nz;
  c.init = init;
  c.nu = 0.02;
  c.box = 2 * M_PI * nx / 32.0;  // h as on a 32^3 box of 2 pi: the explosion's shell is resolved
  c.f0 = 0.2;
  return make_hydro3d_setup(c);
}

template <typename T>
bool same_bits(const HydroState<T>& a, const HydroState<T>& b) {
  for (std::size_t f = 0; f < kHydroFields; ++f)
    if (a[f].size() != b[f].size() || std::memcmp(a[f].data(), b[f].data(), a[f].size() * sizeof(T)) != 0) return false;
  return true;
}

double rel_l2(const HydroState<double>& a, const HydroState<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t f = 0; f < kHydroFields; ++f)
    for (std::size_t c = 0; c < a[f].size(); ++c) {
      const double d = a[f][c] - ref[f][c];
      num += d * d;
      den += ref[f][c] * ref[f][c];
    }
  return std::sqrt(num / den);
}

template <typename T>
HydroState<double> widen(const HydroState<T>& s) {
  HydroState<double> d;
  for (std::size_t f = 0; f < kHydroFields; ++f) d[f].assign(s[f].begin(), s[f].end());
  return d;
}

template <typename T>
void check_variants(const Hydro3DSetup& s, int steps, double tolerance) {
  HydroState<double> ref[2];
  HydroState<T> cpu[2];
  HydroClock clock[2];
  for (HydroMethod m : {HydroMethod::single_pass, HydroMethod::two_pass}) {
    const int i = m == HydroMethod::single_pass ? 0 : 1;
    HostHydro3D<double> r(s, m);
    r.step(steps);
    ref[i] = r.state();
    HostHydro3D<T> h(s, m);
    h.poison_scratch();
    h.step(steps);
    cpu[i] = h.state();
    clock[i] = h.clock();
  }
  const Grid3D& g = s.grid;
  for (HydroVariant v : kGpuHydroVariants) {
    const int i = method_of(v) == HydroMethod::single_pass ? 0 : 1;
    DeviceHydro3D<T> gpu(s, v);
    gpu.poison_scratch();
    gpu.step(steps);
    const HydroState<T> out = gpu.state();
    const std::string what = std::string(to_string(v)) + " (" + (sizeof(T) == 4 ? "float" : "double") + "), " +
                             std::string(to_string(s.config.init)) + ", " + std::to_string(g.nx) + "x" +
                             std::to_string(g.ny) + "x" + std::to_string(g.nz);
    EXPECT_TRUE(same_bits(out, cpu[i])) << what << " differs from the CPU variant of its method";
    const HydroClock c = gpu.clock();  // an adaptive dt: taken on the device from the same reduction
    EXPECT_EQ(c.dt, clock[i].dt) << what;
    EXPECT_EQ(c.time(steps), clock[i].time(steps)) << what;
    const double e = rel_l2(widen(out), ref[i]);
    EXPECT_LT(e, tolerance) << what;
    std::printf("%-40s rel L2 against the double reference %.3e\n", what.c_str(), e);
  }
}

TEST(Hydro3DGpu, FloatVariantsMatchTheCpuBitwiseOnOddSizes) {
  SKIP_WITHOUT_DEVICE();
  check_variants<float>(setup_of(37, 29, 23, HydroInit::explosion), 3, 1e-4);
  check_variants<float>(setup_of(45, 20, 70, HydroInit::explosion), 2, 1e-4);
}

TEST(Hydro3DGpu, DoubleVariantsMatchTheReferenceTo1e12After10Steps) {
  SKIP_WITHOUT_DEVICE();
  check_variants<double>(setup_of(37, 29, 23, HydroInit::explosion), 10, 1e-12);
}

TEST(Hydro3DGpu, ForcingIsBitwiseTheSameAsOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  check_variants<float>(setup_of(33, 24, 17, HydroInit::turbulence), 4, 1e-4);
}

TEST(Hydro3DGpu, AnAdaptiveDtIsBitwiseTheSameAsOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  check_variants<float>(setup_of(37, 29, 23, HydroInit::explosion, 1), 5, 1e-4);
  check_variants<float>(setup_of(33, 24, 17, HydroInit::turbulence, 2), 5, 1e-4);
  check_variants<double>(setup_of(37, 29, 23, HydroInit::explosion, 1), 5, 1e-12);
}

TEST(Hydro3DGpu, KickAndSlicesMatchTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Hydro3DSetup s = setup_of(37, 29, 23, HydroInit::decay);
  HostHydro3D<float> host(s, HydroMethod::single_pass);
  DeviceHydro3D<float> gpu(s, HydroVariant::stream25d);
  HydroKick k;
  k.cx = 10, k.cy = 7, k.cz = 20, k.sigma = 2.5, k.amp = 0.7;  // near the z face: the kick wraps
  host.kick(k);
  gpu.kick(k);
  host.step(2);
  gpu.step(2);
  EXPECT_TRUE(same_bits(gpu.state(), host.state()));
  const HydroWeights<float> w = hydro_weights<float>(s.h);
  const float* f[kHydroFields] = {host.field(0).data(), host.field(1).data(), host.field(2).data(), host.field(3).data()};
  const Grid3D& g = s.grid;
  for (int q = 0; q < static_cast<int>(kHydroQuantities.size()); ++q)
    for (int axis = 0; axis < 3; ++axis) {
      const int nu = axis == 2 ? g.ny : g.nx, nv = axis == 0 ? g.ny : g.nz, index = 5 + axis;
      std::vector<float> slice(static_cast<std::size_t>(nu) * nv);
      gpu.copy_slice(q, axis, index, slice.data());
      double worst = 0, scale = 0;
      for (int b = 0; b < nv; ++b)
        for (int a = 0; a < nu; ++a) {
          const int i = axis == 2 ? index : a, j = axis == 0 ? b : (axis == 1 ? index : a), kk = axis == 0 ? index : b;
          const double want = hydro_quantity(f, g, w, q, i, j, kk);
          worst = std::max(worst, std::abs(slice[static_cast<std::size_t>(b) * nu + a] - want));
          scale = std::max(scale, std::abs(want));
        }
      // exp and sqrt may round differently on the device: a few ulps
      EXPECT_LE(worst, 1e-6 * std::max(scale, 1.0)) << kHydroQuantities[static_cast<std::size_t>(q)] << ", axis " << axis;
    }
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

TEST(Hydro3DGpu, CuFftSpectrumMatchesFftwOnTheHost) {
  SKIP_WITHOUT_DEVICE();
  for (auto [nx, ny, nz] : {std::array<int, 3>{37, 29, 23}, std::array<int, 3>{32, 24, 20}}) {
    const Hydro3DSetup s = setup_of(nx, ny, nz, HydroInit::turbulence);
    HostHydro3D<double> host(s, HydroMethod::single_pass);
    DeviceHydro3D<double> gpu(s, HydroVariant::stream25d);
    host.step(5);
    gpu.step(5);
    const std::vector<double> a = gpu.energy_spectrum(), b = hydro_energy_spectrum(host.state(), s);
    ASSERT_EQ(a.size(), b.size());
    double total = 0;
    for (double x : b) total += x;
    ASSERT_GT(total, 0.0);
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-9 * total) << "shell " << k << ", " << nx << "x" << ny << "x" << nz;
  }
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

// The GPU box (global and 55pt) against the CPU box, both as the whole grid in one box with
// a fill that fills nothing (the MPI test, mpi_gpu_boxes_*, checks the exchange): the same
// collective calls with the same |u|^2 maxima, and bitwise the same interiors, since both
// compute every cell with the same point functions from the same values (the ghosts stay
// 0 in both). Then a paint and a loaded state through the same host functions, and the
// views: the GPU box's are the one-GPU run's kernel (exp rounds differently on the device:
// a few ulps of the CPU box's; mpi_gpu_simulation_* checks them bitwise against one GPU).
TEST(Hydro3DGpuBox, StepsAsTheCpuBoxCallForCall) {
  SKIP_WITHOUT_DEVICE();
  for (HydroInit init : {HydroInit::explosion, HydroInit::turbulence}) {
    const Hydro3DSetup s = setup_of(37, 29, 23, init, init == HydroInit::explosion ? 1 : 2);
    const Grid3D& g = s.grid;
    const BoxPlacement where = place_box(make_decomposition({g.nx, g.ny, g.nz}, 1, std::nullopt, 1), 0, {true, true, true});
    auto cpu = make_hydro3d_box(s, where, HydroMethod::single_pass);
    test::RecordingFill cpu_fill;
    cpu->refresh_ghosts(cpu_fill);
    cpu->step(3, cpu_fill);
    for (HydroVariant v : {HydroVariant::global, HydroVariant::p55}) {
      const std::string what = std::string(to_string(v)) + ", " + std::string(to_string(init));
      auto gpu = make_hydro3d_device_box(s, where, v);
      ASSERT_NE(gpu->device_stream(), nullptr);
      test::RecordingFill gpu_fill;
      gpu->refresh_ghosts(gpu_fill);
      gpu->step(3, gpu_fill);
      gpu->synchronize();
      EXPECT_EQ(gpu_fill.calls, cpu_fill.calls) << what;
      EXPECT_EQ(gpu->interiors(), cpu->interiors()) << what;  // float ==: also false for NaN, never expected here
      EXPECT_EQ(gpu->dt(), cpu->dt()) << what;
      EXPECT_EQ(gpu->time(), cpu->time()) << what;
    }
  }
  for (const char* name : {"global", "55pt"}) {
    const Hydro3DSetup s = setup_of(30, 20, 18, HydroInit::decay, 1);
    const Grid3D& g = s.grid;
    const BoxPlacement where = place_box(make_decomposition({g.nx, g.ny, g.nz}, 1, std::nullopt, 1), 0, {true, true, true});
    auto cpu = make_hydro3d_box(s, where, HydroMethod::single_pass);
    auto gpu = make_hydro3d_device_box(s, where, parse_hydro_variant(name));
    test::RecordingFill cpu_fill, gpu_fill;
    const Sphere sphere{12.5, 3.5, 16.5, 4.0, 0.3};
    cpu->paint(sphere);
    gpu->paint(sphere);
    cpu->step(2, cpu_fill);
    gpu->step(2, gpu_fill);
    EXPECT_EQ(gpu_fill.calls, cpu_fill.calls) << name;
    for (std::string_view q : kHydroQuantities) {
      const std::vector<float> a = gpu->quantity_interior(std::string(q)), b = cpu->quantity_interior(std::string(q));
      ASSERT_EQ(a.size(), b.size()) << name << " " << q;
      double worst = 0, scale = 0;
      for (std::size_t e = 0; e < a.size(); ++e) {
        worst = std::max(worst, std::abs(static_cast<double>(a[e]) - b[e]));
        scale = std::max(scale, std::abs(static_cast<double>(b[e])));
      }
      EXPECT_LE(worst, 1e-6 * std::max(scale, 1.0)) << name << " " << q;
    }
    const auto state = cpu->interiors();
    gpu->load_interiors(state, 7);
    cpu->load_interiors(state, 7);
    cpu->step(1, cpu_fill);
    gpu->step(1, gpu_fill);
    EXPECT_EQ(gpu->interiors(), cpu->interiors()) << name << " after a loaded state";
    EXPECT_EQ(gpu->steps_done(), 8);
    EXPECT_THROW(make_hydro3d_device_box(s, where, HydroVariant::stream25d), Error);
    EXPECT_THROW(make_hydro3d_device_box(s, where, HydroVariant::p19), Error);
  }
}

}  // namespace
}  // namespace ss
