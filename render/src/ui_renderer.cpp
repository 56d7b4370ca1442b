#include "stencilscope/render/ui_renderer.hpp"

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

UiRenderer::UiRenderer() {
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) throw GLError("ImGui's OpenGL 3 backend failed to initialize");
}

UiRenderer::~UiRenderer() { ImGui_ImplOpenGL3_Shutdown(); }

void UiRenderer::new_frame() { ImGui_ImplOpenGL3_NewFrame(); }

void UiRenderer::render(ImDrawData* data) {
  ImGui_ImplOpenGL3_RenderDrawData(data);
  check_gl("drawing the UI");
}

}  // namespace ss::render
