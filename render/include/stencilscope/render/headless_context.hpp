#pragma once
// An OpenGL context without a window system, made through EGL: needs no X, no
// Wayland and no GLFW. On a machine with an NVIDIA GPU it uses the EGL device
// platform (eglQueryDevicesEXT + eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT)),
// picking the device that CUDA calls `cuda_device`; otherwise Mesa's surfaceless
// platform (software rendering with llvmpipe when there is no GPU).
#include <memory>
#include <string>

namespace ss::render {

class HeadlessContext {
 public:
  /// Creates a GL 4.5 core context (3.3 core when 4.5 is refused), makes it current on
  /// this thread and loads GL. The environment variable STENCILSCOPE_EGL_PLATFORM=device
  /// or =surfaceless forces one platform. Throws ss::Error saying what failed.
  explicit HeadlessContext(int cuda_device = 0);
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  /// E.g. "EGL 1.5 device platform (EGL_NV_device_cuda, CUDA device 0); GL 4.5 core, NVIDIA H100".
  const std::string& description() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::render
