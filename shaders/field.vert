#version 330 core
// One rectangle from four vertices, no vertex buffer: gl_VertexID picks the corner.
// u_rect is the rectangle in normalized device coordinates (x0, y0, x1, y1); v_uv runs
// 0..1 from its bottom-left corner, which is field cell (0, 0) or the colorbar's low end.
uniform vec4 u_rect;
out vec2 v_uv;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = corner;
  gl_Position = vec4(mix(u_rect.xy, u_rect.zw, corner), 0.0, 1.0);
}
