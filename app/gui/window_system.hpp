#pragma once
// Owners for the window system and ImGui's context (the windowed paths only; the
// headless recorder uses render::HeadlessContext and no GLFW).
#include <string>

struct GLFWwindow;

namespace ss::app {

/// True when DISPLAY or WAYLAND_DISPLAY is set.
bool display_available();
/// True when this build has GLFW (the window and the windowed recorder).
bool glfw_built();

/// glfwInit / glfwTerminate. Throws ss::Error with GLFW's reason when there is no display.
class GlfwSession {
 public:
  GlfwSession();
  ~GlfwSession();
  GlfwSession(const GlfwSession&) = delete;
  GlfwSession& operator=(const GlfwSession&) = delete;
};

/// A window with a GL 4.5 core context (3.3 core when 4.5 is refused), made current.
class GlfwWindow {
 public:
  GlfwWindow(int width, int height, const char* title, bool visible);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;
  GLFWwindow* get() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
};

/// ImGui::CreateContext / DestroyContext, dark style, no imgui.ini written.
class ImGuiSession {
 public:
  ImGuiSession();
  ~ImGuiSession();
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
};

}  // namespace ss::app
