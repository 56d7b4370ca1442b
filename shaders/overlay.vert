#version 330 core
// Flat-coloured 2D geometry (colorbar ticks, labels) in pixels, origin at the top left.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
uniform vec2 u_target_size;  // width, height of the target in pixels
out vec4 v_color;

void main() {
  v_color = a_color;
  vec2 ndc = vec2(a_pos.x / u_target_size.x * 2.0 - 1.0, 1.0 - a_pos.y / u_target_size.y * 2.0);
  gl_Position = vec4(ndc, 0.0, 1.0);
}
