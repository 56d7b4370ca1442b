#include "stencilscope/render/gl.hpp"

#include <glad/gl.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace ss::render {

namespace {
std::atomic<bool> g_checks{true};

const char* error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: return "unknown GL error";
  }
}
}  // namespace

std::string load_gl(GLProcLoader loader) {
  const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(loader));
  if (version == 0) throw GLError("could not load OpenGL entry points for the current context");
  const int major = GLAD_VERSION_MAJOR(version), minor = GLAD_VERSION_MINOR(version);
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string desc = "GL " + std::to_string(major) + "." + std::to_string(minor) + " core, " +
                           (renderer ? renderer : "unknown renderer");
  if (major < 3 || (major == 3 && minor < 3)) throw GLError("OpenGL 3.3 core or newer is needed; got " + desc);
  return desc;
}

std::vector<std::string> gl_extensions() {
  if (glad_glGetStringi == nullptr) return {};  // GL not loaded: no context, no extensions
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  std::vector<std::string> out;
  for (GLint i = 0; i < n; ++i)
    if (const GLubyte* e = glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)))
      out.emplace_back(reinterpret_cast<const char*>(e));
  return out;
}

void set_gl_error_checks(bool on) { g_checks = on; }
bool gl_error_checks() { return g_checks; }

void check_gl(const char* what) {
  if (!g_checks) return;
  std::string errors;
  for (int k = 0; k < 8; ++k) {  // a lost context can raise errors forever; report a few
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    if (!errors.empty()) errors += ", ";
    errors += error_name(e);
  }
  if (!errors.empty()) throw GLError(std::string(what) + ": " + errors);
}

void gl_delete(GLKind kind, unsigned name) noexcept {
  if (name == 0) return;
  if (glad_glGetError == nullptr) {  // GL never loaded or already gone: nothing we can delete
    std::fprintf(stderr, "stencilscope: warning: GL object %u outlived its context\n", name);
    return;
  }
  switch (kind) {
    case GLKind::texture: glDeleteTextures(1, &name); break;
    case GLKind::buffer: glDeleteBuffers(1, &name); break;
    case GLKind::vertex_array: glDeleteVertexArrays(1, &name); break;
    case GLKind::framebuffer: glDeleteFramebuffers(1, &name); break;
    case GLKind::program: glDeleteProgram(name); break;
    case GLKind::query: glDeleteQueries(1, &name); break;
    // Only made where the context has the extension, so the entry points are loaded.
    case GLKind::memory_object: glDeleteMemoryObjectsEXT(1, &name); break;
    case GLKind::semaphore: glDeleteSemaphoresEXT(1, &name); break;
  }
}

void finish_gl() { glFinish(); }
void flush_gl() { glFlush(); }

void clear_bound_framebuffer() {
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
}

GLFence::~GLFence() {
  if (sync_ && glad_glDeleteSync) glDeleteSync(static_cast<GLsync>(sync_));
}

GLFence& GLFence::operator=(GLFence&& o) noexcept {
  if (this != &o) {
    if (sync_ && glad_glDeleteSync) glDeleteSync(static_cast<GLsync>(sync_));
    sync_ = std::exchange(o.sync_, nullptr);
  }
  return *this;
}

void GLFence::set() {
  if (sync_) glDeleteSync(static_cast<GLsync>(sync_));
  sync_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!sync_) throw GLError("glFenceSync failed");
}

void GLFence::wait(double timeout_s) {
  if (!sync_) return;
  const GLsync sync = static_cast<GLsync>(sync_);
  const GLenum r = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, static_cast<GLuint64>(timeout_s * 1e9));
  glDeleteSync(sync);
  sync_ = nullptr;
  if (r == GL_WAIT_FAILED) throw GLError("glClientWaitSync failed");
  if (r == GL_TIMEOUT_EXPIRED) throw GLError("the GPU did not pass a GL fence in " + std::to_string(timeout_s) + " s");
}

}  // namespace ss::render
