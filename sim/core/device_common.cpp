// Bandwidth accounting and host-memory checks: independent of CUDA.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"

namespace ss {

double effective_gbps(std::size_t points, int steps, std::size_t bytes_per_value, double time_ms) {
  if (time_ms <= 0) return 0;
  return 2.0 * static_cast<double>(bytes_per_value) * static_cast<double>(points) * steps / (time_ms * 1e6);
}

double mcups(std::size_t points, int steps, double time_ms) {
  if (time_ms <= 0) return 0;
  return static_cast<double>(points) * steps / (time_ms * 1e3);
}

bool switch_from_env(const char* name, bool device_default) {
  const char* e = std::getenv(name);
  const std::string v = e ? e : "";
  if (v == "1") return true;
  if (v == "0") return false;
  if (!v.empty()) std::fprintf(stderr, "stencilscope: %s=%s ignored (1 or 0)\n", name, v.c_str());
  return device_default;
}

void require_cuda_device() {
  std::string why;
  if (!cuda_available(&why)) throw Error("no CUDA device: " + why);
}

void check_host_memory(std::size_t bytes, const char* what) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;
  const double have = static_cast<double>(pages) * static_cast<double>(page);
  if (static_cast<double>(bytes) > 0.9 * have)
    throw Error(fmt::format("{} needs {:.1f} GB of host memory; this machine has {:.1f} GB", what, bytes / 1e9,
                            have / 1e9));
}

}  // namespace ss
