#pragma once
// What CUDA devices there are, and the copy kernel that every bandwidth figure
// is measured against.
#include <cstddef>
#include <string>
#include <vector>

namespace ss {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::size_t total_bytes = 0;
  std::size_t free_bytes = 0;
  std::size_t l2_bytes = 0;
  double peak_gbps = 0;  ///< from the memory clock and bus width, 0 when the driver does not say
};

/// The CUDA devices, or empty with `why` saying why (no driver, no device, built without CUDA).
std::vector<DeviceInfo> cuda_devices(std::string* why = nullptr);

/// True when a CUDA device can run kernels; otherwise `why` says why not.
bool cuda_available(std::string* why = nullptr);
/// How many CUDA devices this process sees (0 without a driver, a device or CUDA); creates no context.
int cuda_device_count();
/// True when each of the first `count` devices can read and write the others' memory directly
/// (peer access: NVLink or PCIe P2P); false without CUDA.
bool cuda_peers_reach(int count);
/// Makes device `index` current for this thread (and the CUDA work it creates from now on); throws ss::Error.
void use_cuda_device(int index);

/// Throws ss::Error "no CUDA device: <why>" unless cuda_available().
void require_cuda_device();

/// The device's name ("" without a device).
std::string cuda_device_name();

/// Peak DRAM bandwidth of the current device per multiprocessor, GB/s, from its memory
/// clock and bus width (0 when the driver does not say or there is no device). About 25
/// on an H100 SXM and 37 on an H200 (same SMs): where it is high, streaming stencils are
/// bound inside the SM rather than by DRAM (docs/perf.md, sessions 9 and 15).
double cuda_peak_gbps_per_sm();

/// The line between the two for the streaming kernels' "auto" shapes, GB/s per SM.
inline constexpr double kSmBoundPeakGbpsPerSm = 30;

/// A 0/1 switch of a kernel's form that the environment variable `name` may force ("1" or
/// "0"; another value is ignored, with a line on stderr that says so): `device_default`
/// otherwise. For A/B runs on the device; each caller reads it once per process.
bool switch_from_env(const char* name, bool device_default);

/// Throws ss::Error naming both figures when `bytes` more device memory does not fit.
void check_device_memory(std::size_t bytes, const char* what);

/// Throws ss::Error when `bytes` of host memory exceed what the machine has.
void check_host_memory(std::size_t bytes, const char* what);

/// Effective bandwidth of a device-to-device copy kernel (16-byte loads and stores)
/// over a buffer of `bytes`, counting bytes read plus bytes written: the median of
/// `repeats` timed runs after a warm-up. Throws ss::Error without a device.
double measure_copy_gbps(std::size_t bytes, int repeats = 20);

/// Host copy bandwidth (read + write) over `bytes`, parallel where OpenMP is on.
double measure_host_copy_gbps(std::size_t bytes);

/// Effective bandwidth in GB/s of a stencil that reads each input once and writes
/// each output once: 2 * bytes_per_value * points * steps / time.
double effective_gbps(std::size_t points, int steps, std::size_t bytes_per_value, double time_ms);

/// Million cell updates per second.
double mcups(std::size_t points, int steps, double time_ms);

}  // namespace ss
