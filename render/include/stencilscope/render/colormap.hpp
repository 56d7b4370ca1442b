#pragma once
// Colormaps and value ranges: host-side data and math, no GL. The fragment shader
// (shaders/field.frag) computes colormap_color() on the GPU; tests compare the two.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ss::render {

enum class Colormap { viridis, inferno, magma, blue_red, grey };
inline constexpr std::array kAllColormaps = {Colormap::viridis, Colormap::inferno, Colormap::magma,
                                             Colormap::blue_red, Colormap::grey};

/// "viridis", "inferno", "magma", "blue-red", "grey".
std::string_view to_string(Colormap c);
/// Inverse of to_string (also accepts "blue_red", "gray"); throws ss::Error naming the accepted words.
Colormap parse_colormap(std::string_view s);

struct Rgb {
  float r = 0, g = 0, b = 0;
};

/// Colours sampled uniformly over t in [0, 1]: entry k is the colour at t = k / (size - 1).
struct ColormapTable {
  std::vector<Rgb> entries;
};

/// Parses a table file: one "r g b" line per entry (components in [0, 1]), '#' starts a
/// comment, blank lines are skipped. Throws ss::Error naming `source` and the line for
/// malformed or out-of-range lines and for fewer than 2 entries.
ColormapTable parse_colormap_table(std::string_view text, std::string_view source);

/// The built-in table of `c`, parsed once from assets/colormaps/<name>.txt (embedded at build time).
const ColormapTable& colormap_table(Colormap c);

/// The colour at t (clamped to [0, 1]), linear between neighbouring entries: what the
/// shader draws, to within colormap_texel's rounding.
Rgb colormap_color(const ColormapTable& table, double t);

/// The samples the shader's colormap texture holds: `n` (at least 2) colours
/// colormap_color(k / (n - 1)), each packed as GL's RGB10_A2 (red in the low 10 bits,
/// alpha 3). The shader reads the sample nearest to t (colormap_sample).
std::vector<std::uint32_t> colormap_texels(const ColormapTable& table, int n);
/// The sample of colormap_texels' `n` that the shader reads for t (clamped to [0, 1]).
int colormap_sample(double t, int n);
/// A packed texel back as a colour.
Rgb unpack_rgb10(std::uint32_t texel);

/// How the drawn range follows the field.
enum class RangeMode {
  fixed,      ///< the range typed in
  automatic,  ///< the field's min and max, every frame
  expanding,  ///< grows to cover every value seen since the last reset, never shrinks
};
inline constexpr std::array kAllRangeModes = {RangeMode::fixed, RangeMode::automatic, RangeMode::expanding};
std::string_view to_string(RangeMode m);

/// A closed interval of field values.
struct ValueRange {
  double lo = 0, hi = 1;
  bool operator==(const ValueRange&) const = default;
};

/// The range to draw this frame with. `fixed` is the typed-in range, `previous` the range
/// drawn last frame (ignored when `reset` is set), `field` the current field's min and max
/// (non-finite bounds are ignored). Never returns an empty range: lo == hi is widened
/// symmetrically so that colours stay defined.
ValueRange next_range(RangeMode mode, const ValueRange& fixed, const ValueRange& previous, const ValueRange& field,
                      bool reset);

/// Where v lies in r: 0 at lo, 1 at hi (not clamped).
double normalized(double v, const ValueRange& r);

/// Round tick values ("nice numbers": 1, 2 or 5 times a power of ten) inside r, at most max_ticks of them.
std::vector<double> colorbar_ticks(const ValueRange& r, int max_ticks);

}  // namespace ss::render
