#pragma once
// The seismogram as a picture, like a shot gather: one column per receiver, time running
// down, one panel per component side by side (2 pixels apart), coloured with the blue-red
// colormap over +- the largest |value| of all traces (white is 0). Host-side only (no GL):
// LiveSimulation uploads it to a texture; tests read its pixels.
#include <cstdint>
#include <vector>

#include "sim/core/sources.hpp"

namespace ss::app {

struct SeismogramImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  ///< row 0 (the first step) at the top
  double peak = 0;                 ///< the colour range is +- peak
};

/// The picture of `s`, at most max_width x max_height pixels (rows and receivers are
/// sampled evenly when there are more); empty (width 0) when there is nothing recorded.
SeismogramImage seismogram_image(const Seismogram& s, int max_width = 768, int max_height = 512);

/// The seismogram resampled to width x height values for a FieldTexture drawn with the
/// views' colormap and range: components side by side (one column of 0 between them),
/// texture row height - 1 - r holding picture row r, so that the first step shows at the top
/// (cell rows grow upwards on screen). Empty when nothing is recorded.
std::vector<float> seismogram_field(const Seismogram& s, int width, int height);

}  // namespace ss::app
