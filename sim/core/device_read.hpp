#pragma once
// A few bytes of device memory read back to the host (a probe's single value), apart from
// device.hpp so that the kernels' translation units do not depend on it.
#include <cstddef>

namespace ss {

/// Copies `bytes` from device memory at `src` to host memory at `dst`, ordered after the
/// work queued on `stream` (a cudaStream_t; nullptr: the default stream), and waits for
/// it. Throws ss::Error (CUDA's message, or no CUDA backend in this build).
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, void* stream);

}  // namespace ss
