#pragma once
// The GL boundary: loading entry points, error checks, and move-only handles.
// Only render/ includes glad; these declarations need no GL header.
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"

namespace ss::render {

/// A GL failure (error flag, incomplete framebuffer, shader compile or link log).
class GLError : public Error {
 public:
  using Error::Error;
};

using GLProc = void (*)();
using GLProcLoader = GLProc (*)(const char* name);

/// Loads GL entry points for the context current on this thread (e.g. glfwGetProcAddress,
/// eglGetProcAddress). Returns "GL 4.5 core, <renderer>"; throws GLError when loading
/// fails or the context is older than 3.3 core.
std::string load_gl(GLProcLoader loader);

/// The extensions the current context advertises (glGetStringi(GL_EXTENSIONS, i)).
std::vector<std::string> gl_extensions();

/// Turns glGetError checks on or off at run time (on by default; they cost a round trip).
void set_gl_error_checks(bool on);
bool gl_error_checks();
/// Throws GLError("<what>: GL_INVALID_...") when checks are on and GL has raised an error flag.
void check_gl(const char* what);
/// Waits until the GL has finished all queued work (glFinish): the end of a timed frame.
void finish_gl();
/// Sends the queued GL commands to the GPU without waiting (glFlush).
void flush_gl();
/// Clears the bound framebuffer to black: the least GL work that still takes the GPU (a
/// measuring aid: the cost of handing the GPU to GL at all, docs/perf.md).
void clear_bound_framebuffer();

enum class GLKind { texture, buffer, vertex_array, framebuffer, program, query, memory_object, semaphore };

/// Deletes one GL object; a no-op for name 0. Must run with the owning context current.
void gl_delete(GLKind kind, unsigned name) noexcept;

/// Sole owner of one GL object: copy is deleted, move transfers ownership, the
/// destructor deletes it (the context must still be current then).
template <GLKind K>
class GLHandle {
 public:
  GLHandle() = default;
  explicit GLHandle(unsigned name) : name_(name) {}
  ~GLHandle() { gl_delete(K, name_); }
  GLHandle(GLHandle&& o) noexcept : name_(std::exchange(o.name_, 0u)) {}
  GLHandle& operator=(GLHandle&& o) noexcept {
    if (this != &o) {
      gl_delete(K, name_);
      name_ = std::exchange(o.name_, 0u);
    }
    return *this;
  }
  GLHandle(const GLHandle&) = delete;
  GLHandle& operator=(const GLHandle&) = delete;

  /// The GL name (0 when empty).
  unsigned get() const { return name_; }

 private:
  unsigned name_ = 0;
};

using GLTexture = GLHandle<GLKind::texture>;
using GLBuffer = GLHandle<GLKind::buffer>;
using GLVertexArray = GLHandle<GLKind::vertex_array>;
using GLFramebuffer = GLHandle<GLKind::framebuffer>;
using GLProgram = GLHandle<GLKind::program>;
using GLQuery = GLHandle<GLKind::query>;
using GLMemoryObject = GLHandle<GLKind::memory_object>;  ///< GL_EXT_memory_object
using GLSemaphore = GLHandle<GLKind::semaphore>;         ///< GL_EXT_semaphore

/// A fence in the GL command stream (glFenceSync): set() after the commands to wait for;
/// wait() blocks the CPU until the GPU has passed them. Owns its sync object.
class GLFence {
 public:
  GLFence() = default;
  ~GLFence();
  GLFence(GLFence&& o) noexcept : sync_(std::exchange(o.sync_, nullptr)) {}
  GLFence& operator=(GLFence&& o) noexcept;
  GLFence(const GLFence&) = delete;
  GLFence& operator=(const GLFence&) = delete;

  /// A new fence behind every GL command issued so far (the old one, if any, is dropped).
  void set();
  /// Blocks until the GPU has passed the fence (flushing the commands before it), then
  /// forgets it; returns at once when none is set. Throws GLError when GL reports a
  /// failure or `timeout_s` passes.
  void wait(double timeout_s = 10.0);
  /// True when set and not yet waited for.
  bool pending() const { return sync_ != nullptr; }

 private:
  void* sync_ = nullptr;  // GLsync
};

}  // namespace ss::render
