#pragma once
// One 16-byte vector of values (4 floats or 2 doubles): the unit the streaming
// kernels load, stage and store, so a warp moves 512 contiguous bytes at a time.
namespace ss {

template <typename T>
struct alignas(16) Pack {
  static constexpr int n = 16 / sizeof(T);
  T v[n];
};

}  // namespace ss
