#include <imgui.h>

#include <cstdlib>

#include "window_system.hpp"

namespace ss::app {

bool display_available() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* v = std::getenv(name);
    if (v && *v) return true;
  }
  return false;
}

ImGuiSession::ImGuiSession() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is the code's; do not litter the working directory
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = 0.88f;
}

ImGuiSession::~ImGuiSession() { ImGui::DestroyContext(); }

}  // namespace ss::app
