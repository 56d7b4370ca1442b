#pragma once
// Dear ImGui's OpenGL 3 backend behind the render boundary (the app builds the UI,
// render/ draws it). The backend saves and restores the GL state it touches.
struct ImDrawData;

namespace ss::render {

class UiRenderer {
 public:
  /// Initializes ImGui's OpenGL 3 backend for the current ImGui context ("#version 330").
  /// Throws GLError when it cannot.
  UiRenderer();
  ~UiRenderer();
  UiRenderer(const UiRenderer&) = delete;
  UiRenderer& operator=(const UiRenderer&) = delete;

  /// Call before ImGui::NewFrame().
  void new_frame();
  /// Draws ImGui's draw data into the bound framebuffer.
  void render(ImDrawData* data);
};

}  // namespace ss::render
