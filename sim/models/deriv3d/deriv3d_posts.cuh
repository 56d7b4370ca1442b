#pragma once
// The posts' six derivative kernels as built for 64^3 and 256^3 (deriv3d_posts.cu),
// reached from DeviceDeriv3D's posts_spencil and posts_lpencil. They work on dense
// n*n*n float arrays, x fastest (index k*n*n + j*n + i): the posts' own layout.
#include <cuda_runtime.h>

#include "sim/models/deriv3d/deriv3d.hpp"

namespace ss::posts {

/// True for the sides the kernels are compiled for (64 and 256).
bool built_for(int n);

/// The posts' setDerivativeParameters, coefficients part: c_ax .. c_dz of the
/// side-n build for a unit cube of n distinct points per axis (spacing 1/n), in
/// float as the posts compute them; enqueued on `stream`. Throws unless built_for(n).
void set_derivative_parameters(int n, cudaStream_t stream);

/// Launches derivative_{x,y,z} (large_pencils: derivative_{x,y,z}_lPencils) of the
/// side-n build with the posts' execution configuration, reading f and writing df
/// (dense n^3 arrays), on `stream`. Throws unless built_for(n).
void launch(int n, Axis a, bool large_pencils, float* f, float* df, cudaStream_t stream);

}  // namespace ss::posts
