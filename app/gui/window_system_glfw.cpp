// GLFW side of window_system.hpp (built when GLFW is found).
#include <GLFW/glfw3.h>

#include <string>

#include "sim/core/error.hpp"
#include "window_system.hpp"

namespace ss::app {

namespace {
std::string g_last_glfw_error;
void on_glfw_error(int code, const char* text) { g_last_glfw_error = std::to_string(code) + ": " + text; }
}  // namespace

bool glfw_built() { return true; }

GlfwSession::GlfwSession() {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit())
    throw Error("cannot open a window (" + g_last_glfw_error +
                "); without a display use `stencilscope record --headless`");
}

GlfwSession::~GlfwSession() { glfwTerminate(); }

GlfwWindow::GlfwWindow(int width, int height, const char* title, bool visible) {
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  for (const auto& [major, minor] : {std::pair{4, 5}, std::pair{3, 3}}) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, major);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    window_ = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (window_) break;
  }
  if (!window_) throw Error("cannot create a window with OpenGL 3.3 core or newer (" + g_last_glfw_error + ")");
  glfwMakeContextCurrent(window_);
}

GlfwWindow::~GlfwWindow() { glfwDestroyWindow(window_); }

}  // namespace ss::app
