#pragma once
// Binary semaphores whose payload leaves as opaque file descriptors, for the external
// CUDA-GL upload (interop.hpp). Neither CUDA (cudaImportExternalSemaphore) nor GL
// (GL_EXT_semaphore_fd) can create such a semaphore, both can only import one, so they
// come from Vulkan: libvulkan.so.1 is opened at run time (the program links no Vulkan and
// starts without it), a device is made on the GPU whose UUID is CUDA's, and its
// semaphores are made exportable (VK_KHR_external_semaphore_fd). The Vulkan device lives
// as long as this object, which must outlive the imports' use.
#include <array>
#include <memory>

namespace ss::render {

class ExportableSemaphores {
 public:
  using DeviceUuid = std::array<unsigned char, 16>;
  /// Makes `count` semaphores on the Vulkan device whose deviceUUID is `device_uuid`.
  /// Throws ss::Error saying what is missing (the Vulkan loader, a device with that
  /// UUID, VK_KHR_external_semaphore_fd) or which call failed.
  ExportableSemaphores(const DeviceUuid& device_uuid, int count);
  ~ExportableSemaphores();
  ExportableSemaphores(ExportableSemaphores&&) noexcept;
  ExportableSemaphores& operator=(ExportableSemaphores&&) noexcept;
  ExportableSemaphores(const ExportableSemaphores&) = delete;
  ExportableSemaphores& operator=(const ExportableSemaphores&) = delete;

  /// A new file descriptor for semaphore `k`'s payload. The caller owns it: an import
  /// (GL's or CUDA's) takes it over, else the caller closes it. Throws ss::Error.
  int export_fd(int k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::render
