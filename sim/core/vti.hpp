#pragma once
// VTK's XML ImageData format (.vti), as ParaView and VTK's vtkXMLImageDataReader open it:
// what `stencilscope export --out F.vti` writes. One float32 point-data array per field,
// at the cell centres (origin + (i, j, k) * spacing), as raw binary appended data
// (little-endian, UInt64 block headers); the time and step as field data.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace ss {

/// One named array of nx * ny * nz values, x fastest (an interior as a model stores it).
struct VtiArray {
  std::string name;
  const float* values = nullptr;
};

/// What surrounds the arrays: the grid, where it lies, and when.
struct VtiImage {
  std::array<int, 3> size{1, 1, 1};  ///< nx, ny, nz (nz 1: a one-cell-thick image of a 2D field)
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  double time = 0;  ///< written as the field data TimeValue (ParaView's time)
  long step = 0;    ///< written as the field data step
};

/// Writes `arrays` (each image.size values) as a .vti file; throws ss::Error naming the
/// path when it cannot be written, or naming the array whose name XML cannot hold.
void write_vti(const std::string& path, const VtiImage& image, const std::vector<VtiArray>& arrays);

}  // namespace ss
