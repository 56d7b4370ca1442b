// The posts' kernels (deriv3d_posts_kernels.inc) compiled once per grid side, since
// their mx, my, mz are compile-time constants, and the posts' host set-up for them:
// the coefficients and the execution configurations of setDerivativeParameters.
#include "sim/core/cuda_check.cuh"
#include "sim/models/deriv3d/deriv3d_posts.cuh"

namespace ss::posts {

namespace side64 {
const int mx = 64, my = 64, mz = 64;
#include "sim/models/deriv3d/deriv3d_posts_kernels.inc"
}  // namespace side64

namespace side256 {
const int mx = 256, my = 256, mz = 256;
#include "sim/models/deriv3d/deriv3d_posts_kernels.inc"
}  // namespace side256

namespace {

// The posts refuse sizes that are not whole multiples of the tiles (no bounds checks).
static_assert(side64::mx % side64::lPencils == 0 && side256::mx % side256::lPencils == 0);
static_assert(side256::mx * side256::sPencils <= 1024, "one block holds sPencils whole pencils");

using Kernel = void (*)(float*, float*);

// One side's build: its kernels per axis (the posts' fpDeriv table) and the host
// shadows of its constant coefficients, for cudaMemcpyToSymbolAsync.
struct Build {
  int n;
  Kernel small[3];  // derivative_x, _y, _z
  Kernel large[3];  // derivative_x_lPencils, _y_, _z_
  // c_ax, c_bx, c_cx, c_dx; then y; then z. As `const void*`, so that
  // cudaMemcpyToSymbolAsync takes them as symbols (its template overload would
  // take the address of a `const float*` variable instead).
  const void* coeff[3][4];
  int s_pencils, l_pencils;
};

#define SS_POSTS_BUILD(ns)                                                                              \
  Build {                                                                                               \
    ns::mx, {ns::derivative_x, ns::derivative_y, ns::derivative_z},                                     \
        {ns::derivative_x_lPencils, ns::derivative_y_lPencils, ns::derivative_z_lPencils},              \
        {{&ns::c_ax, &ns::c_bx, &ns::c_cx, &ns::c_dx},                                                  \
         {&ns::c_ay, &ns::c_by, &ns::c_cy, &ns::c_dy},                                                  \
         {&ns::c_az, &ns::c_bz, &ns::c_cz, &ns::c_dz}},                                                 \
        ns::sPencils, ns::lPencils                                                                      \
  }

const Build& build_of(int n) {
  static const Build b64 = SS_POSTS_BUILD(side64);
  static const Build b256 = SS_POSTS_BUILD(side256);
  if (n == 64) return b64;
  if (n == 256) return b256;
  throw Error("the posts' kernels are compiled for sides 64 and 256, not " + std::to_string(n));
}
#undef SS_POSTS_BUILD

}  // namespace

bool built_for(int n) { return n == 64 || n == 256; }

void set_derivative_parameters(int n, cudaStream_t stream) {
  const Build& b = build_of(n);
  // stencil weights (for unit length problem); the posts' dsinv is mx-1.f, their
  // grid repeating its first point as its last. Ours has n distinct points: 1/h = n.
  const float dsinv = static_cast<float>(n);
  const float w[4] = {4.f / 5.f * dsinv, -1.f / 5.f * dsinv, 4.f / 105.f * dsinv, -1.f / 280.f * dsinv};
  for (int axis = 0; axis < 3; ++axis)
    for (int m = 0; m < 4; ++m)
      SS_CUDA_CHECK(cudaMemcpyToSymbolAsync(b.coeff[axis][m], &w[m], sizeof(float), 0, cudaMemcpyHostToDevice, stream));
}

void launch(int n, Axis a, bool large_pencils, float* f, float* df, cudaStream_t stream) {
  const Build& b = build_of(n);
  const int mx = n, my = n, mz = n, sPencils = b.s_pencils, lPencils = b.l_pencils;
  // The execution configurations of the posts' setDerivativeParameters (grid_sp,
  // block_sp, grid_lp, block_lp). The lPencils y and z blocks keep the thread count
  // of the sPencils ones: (lPencils, my * sPencils / lPencils).
  dim3 grid, block;
  switch (a) {
    case Axis::x:
      grid = dim3(my / (large_pencils ? lPencils : sPencils), mz, 1);
      block = dim3(mx, sPencils, 1);
      break;
    case Axis::y:
      grid = dim3(mx / (large_pencils ? lPencils : sPencils), mz, 1);
      block = large_pencils ? dim3(lPencils, my * sPencils / lPencils, 1) : dim3(sPencils, my, 1);
      break;
    case Axis::z:
      grid = dim3(mx / (large_pencils ? lPencils : sPencils), my, 1);
      block = large_pencils ? dim3(lPencils, mz * sPencils / lPencils, 1) : dim3(sPencils, mz, 1);
      break;
  }
  const int axis = static_cast<int>(a);
  const Kernel kernel = large_pencils ? b.large[axis] : b.small[axis];
  kernel<<<grid, block, 0, stream>>>(f, df);
  SS_CUDA_LAUNCH_CHECK("the posts' derivative kernel");
}

}  // namespace ss::posts
