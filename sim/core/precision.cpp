#include "sim/core/precision.hpp"

#include <array>

#include "sim/core/parse_word.hpp"

namespace ss {

std::string_view to_string(Precision p) { return p == Precision::f32 ? "float" : "double"; }

Precision parse_precision(std::string_view s) {
  static constexpr std::array kPrecisions = {Precision::f32, Precision::f64};
  return parse_word(s, kPrecisions, "precision");
}

}  // namespace ss
