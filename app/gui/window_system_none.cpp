// window_system.hpp for builds without GLFW (e.g. the GPU machine): only headless recording.
#include "sim/core/error.hpp"
#include "window_system.hpp"

namespace ss::app {

bool glfw_built() { return false; }

GlfwSession::GlfwSession() {
  throw Error("this build has no window (GLFW was not found at build time); use `stencilscope record --headless`");
}
GlfwSession::~GlfwSession() = default;
GlfwWindow::GlfwWindow(int, int, const char*, bool) { throw Error("this build has no window (no GLFW)"); }
GlfwWindow::~GlfwWindow() = default;

}  // namespace ss::app

#include "gui.hpp"

namespace ss::app {

int run_window(const WindowOptions&) {
  GlfwSession no_window;  // throws, saying why
  return 1;
}

}  // namespace ss::app
