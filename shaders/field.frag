#version 330 core
// The colormap is applied here, on the raw field values, so changing the map or the
// range costs nothing on the simulation side. The table is a texture of 4096 samples of
// ss::render::colormap_color (10 bits a channel), read with texelFetch at the nearest
// sample: one 32-bit fetch a pixel, within a quarter of an 8-bit level of colormap_color
// on every GPU (no sampler filter, whose weight precision varies between GPUs).
in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_field;     // R32F, nx by ny, row 0 = cell row j = 0
uniform samplerBuffer u_field_buffer;  // or the same values in a buffer, rows nx apart
uniform int u_field_in_buffer;  // 1: read u_field_buffer, 0: u_field
uniform ivec2 u_field_size;     // nx, ny
uniform int u_field_linear;     // 1: bilinear between texel centres, 0: the nearest texel
uniform sampler2D u_colormap;  // RGB10_A2, u_colormap_size by 1
uniform int u_colormap_size;
uniform int u_ramp;            // 1: draw the colorbar (t = v_uv.y) instead of the field
uniform vec2 u_range;          // value drawn as t = 0, value drawn as t = 1
uniform sampler2D u_medium;    // R32F, the same size as u_field: the medium overlay
uniform float u_medium_opacity;  // 0: no overlay (the field's colour exactly as without one)
uniform vec2 u_medium_range;   // medium value drawn black, white

// The field is read with texelFetch from either store and filtered here, not by the
// sampler: the same texels and weights whichever store holds the field, so both draw the
// same pixels (FieldTexture).
float field_texel(ivec2 p) {
  p = clamp(p, ivec2(0), u_field_size - 1);  // clamp to edge
  if (u_field_in_buffer == 1) return texelFetch(u_field_buffer, p.y * u_field_size.x + p.x).r;
  return texelFetch(u_field, p, 0).r;
}

float field_value(vec2 uv) {
  vec2 x = uv * vec2(u_field_size);
  if (u_field_linear == 0) return field_texel(ivec2(floor(x)));
  x -= 0.5;
  ivec2 i = ivec2(floor(x));
  vec2 f = x - floor(x);
  float bottom = mix(field_texel(i), field_texel(i + ivec2(1, 0)), f.x);
  float top = mix(field_texel(i + ivec2(0, 1)), field_texel(i + ivec2(1, 1)), f.x);
  return mix(bottom, top, f.y);
}

const vec3 kNotFinite = vec3(1.0, 0.0, 1.0);  // magenta: NaN or Inf

vec3 colormap(float t) {
  int i = int(clamp(t, 0.0, 1.0) * float(u_colormap_size - 1) + 0.5);
  return texelFetch(u_colormap, ivec2(clamp(i, 0, u_colormap_size - 1), 0), 0).rgb;
}

void main() {
  float t;
  if (u_ramp == 1) {
    t = v_uv.y;
  } else {
    float v = field_value(v_uv);
    if (isnan(v) || isinf(v)) {
      frag_color = vec4(kNotFinite, 1.0);
      return;
    }
    t = (v - u_range.x) / (u_range.y - u_range.x);
  }
  vec3 rgb = colormap(t);
  if (u_ramp == 0 && u_medium_opacity > 0.0) {  // a translucent grey map of the medium on top
    float m = texture(u_medium, v_uv).r;
    float g = clamp((m - u_medium_range.x) / max(u_medium_range.y - u_medium_range.x, 1e-30), 0.0, 1.0);
    rgb = mix(rgb, vec3(g), u_medium_opacity);
  }
  frag_color = vec4(rgb, 1.0);
}
