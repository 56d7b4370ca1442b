#include "stencilscope/render/headless_context.hpp"

#include <glad/egl.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

std::string egl_error_text() {
  const EGLint e = eglGetError();
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error " + std::to_string(e);
  }
}

GLProc egl_proc(const char* name) { return reinterpret_cast<GLProc>(eglGetProcAddress(name)); }

}  // namespace

struct HeadlessContext::Impl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  std::string description;

  ~Impl() {
    if (display == EGL_NO_DISPLAY) return;
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
    eglTerminate(display);
    gladLoaderUnloadEGL();
  }

  /// The NVIDIA device whose EGL_CUDA_DEVICE_NV is cuda_device (else the first NVIDIA one).
  /// The entry points come straight from eglGetProcAddress: glad fills extension
  /// pointers only for extensions it finds in the client string, and on the H100
  /// host (libglvnd dispatching to NVIDIA) that check reported no device platform.
  bool open_device_platform(int cuda_device, std::string& why) {
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    const auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    const auto query_string =
        reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    const auto query_attrib =
        reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(eglGetProcAddress("eglQueryDeviceAttribEXT"));
    const auto platform_display =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!query_devices || !platform_display) {
      why = std::string("no EGL device platform: eglQueryDevicesEXT ") + (query_devices ? "found" : "missing") +
            ", eglGetPlatformDisplayEXT " + (platform_display ? "found" : "missing") +
            " (client extensions: " + (client ? client : "none") + ")";
      return false;
    }
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!query_devices(16, devices, &count) || count == 0) {
      why = "eglQueryDevicesEXT found no device: " + egl_error_text();
      return false;
    }
    std::vector<std::pair<EGLDeviceEXT, EGLAttrib>> nvidia;
    for (EGLint k = 0; k < count; ++k) {
      const char* ext = query_string ? query_string(devices[k], EGL_EXTENSIONS) : nullptr;
      if (!has_extension(ext, "EGL_NV_device_cuda")) continue;  // Mesa's software device: surfaceless does it
      EGLAttrib cuda = -1;
      if (query_attrib) query_attrib(devices[k], EGL_CUDA_DEVICE_NV, &cuda);
      if (cuda == cuda_device) nvidia.insert(nvidia.begin(), {devices[k], cuda});
      else nvidia.push_back({devices[k], cuda});
    }
    if (nvidia.empty()) {
      why = "none of the " + std::to_string(count) + " EGL devices has EGL_NV_device_cuda";
      return false;
    }
    for (const auto& [device, cuda] : nvidia) {
      display = platform_display(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
      EGLint major = 0, minor = 0;
      if (display != EGL_NO_DISPLAY && eglInitialize(display, &major, &minor)) {
        description = "EGL " + std::to_string(major) + "." + std::to_string(minor) +
                      " device platform (EGL_NV_device_cuda, CUDA device " + std::to_string(cuda) + ")";
        return true;
      }
      why = "eglInitialize on the NVIDIA device failed: " + egl_error_text();
      display = EGL_NO_DISPLAY;
    }
    return false;
  }

  bool open_surfaceless(std::string& why) {
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!has_extension(client, "EGL_MESA_platform_surfaceless") || !eglGetPlatformDisplayEXT) {
      why += "; no EGL_MESA_platform_surfaceless";
      return false;
    }
    display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
      why += "; Mesa surfaceless eglInitialize failed: " + egl_error_text();
      display = EGL_NO_DISPLAY;
      return false;
    }
    description = "EGL " + std::to_string(major) + "." + std::to_string(minor) + " Mesa surfaceless platform";
    return true;
  }

  void create_context() {
    // Reload with the display: display extensions (surfaceless contexts) become visible.
    if (!gladLoaderLoadEGL(display)) throw Error("could not load EGL entry points for the display");
    if (!eglBindAPI(EGL_OPENGL_API)) throw Error("EGL has no desktop OpenGL: " + egl_error_text());
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE,    EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_RED_SIZE,        8,               EGL_GREEN_SIZE,      8,
                                     EGL_BLUE_SIZE,       8,               EGL_ALPHA_SIZE,      8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs == 0)
      throw Error("no EGL config for desktop OpenGL with a pbuffer: " + egl_error_text());
    for (const auto& [major, minor] : {std::pair{4, 5}, std::pair{3, 3}}) {
      const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
      context = eglCreateContext(display, config, EGL_NO_CONTEXT, ctx_attribs);
      if (context != EGL_NO_CONTEXT) break;
    }
    if (context == EGL_NO_CONTEXT) throw Error("eglCreateContext (GL 4.5 and 3.3 core) failed: " + egl_error_text());
    // Everything is drawn into framebuffer objects; a surface is only needed when the
    // display cannot make a context current without one.
    const char* display_ext = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(display_ext, "EGL_KHR_surfaceless_context")) {
      const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
      if (surface == EGL_NO_SURFACE) throw Error("eglCreatePbufferSurface failed: " + egl_error_text());
    }
    if (!eglMakeCurrent(display, surface, surface, context))
      throw Error("eglMakeCurrent failed: " + egl_error_text());
    description += "; " + load_gl(&egl_proc);
  }
};

HeadlessContext::HeadlessContext(int cuda_device) : impl_(std::make_unique<Impl>()) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) throw Error("could not load libEGL (install libegl1 and a driver: Mesa or NVIDIA)");
  const char* forced = std::getenv("STENCILSCOPE_EGL_PLATFORM");
  const std::string force = forced ? forced : "";
  if (!force.empty() && force != "device" && force != "surfaceless")
    throw Error("STENCILSCOPE_EGL_PLATFORM must be 'device' or 'surfaceless', not '" + force + "'");
  std::string why;
  bool open = false;
  if (force != "surfaceless") open = impl_->open_device_platform(cuda_device, why);
  const std::string device_why = why;
  if (!open && force != "device") open = impl_->open_surfaceless(why);
  if (!open) throw Error("no headless EGL display: " + why);
  impl_->create_context();
  // Say why the device platform was passed over: on an NVIDIA machine that is worth knowing.
  if (force != "surfaceless" && !device_why.empty()) impl_->description += " (device platform: " + device_why + ")";
}

HeadlessContext::~HeadlessContext() = default;

const std::string& HeadlessContext::description() const { return impl_->description; }

}  // namespace ss::render
