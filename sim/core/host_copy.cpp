// The host copy every CPU row's bandwidth is divided by.
#include <algorithm>
#include <chrono>
#include <vector>

#include "sim/core/device.hpp"

namespace ss {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

double measure_host_copy_gbps(std::size_t bytes) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(double), 1);
  std::vector<double> a(n, 1.5), b(n, 0.0);
  std::vector<double> times;
  for (int r = 0; r < 4; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < n; ++k) b[k] = a[k];
    times.push_back(ms_since(t0));
  }
  times.erase(times.begin());  // first touch
  std::sort(times.begin(), times.end());
  return 2.0 * n * sizeof(double) / (times[times.size() / 2] * 1e6);
}

}  // namespace ss
