#include "sim/core/vti.hpp"

#include <bit>
#include <cstdint>
#include <fstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss {

static_assert(std::endian::native == std::endian::little, "write_vti writes the host's bytes as LittleEndian");

void write_vti(const std::string& path, const VtiImage& image, const std::vector<VtiArray>& arrays) {
  for (const VtiArray& a : arrays)
    if (a.name.empty() || a.name.find_first_of("<>&\"'") != std::string::npos)
      throw Error(fmt::format("{}: '{}' cannot name a VTK array", path, a.name));
  const auto& n = image.size;
  const std::uint64_t count = static_cast<std::uint64_t>(n[0]) * n[1] * n[2];
  const std::uint64_t bytes = count * sizeof(float);
  const std::string extent = fmt::format("0 {} 0 {} 0 {}", n[0] - 1, n[1] - 1, n[2] - 1);
  std::string xml = fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <ImageData WholeExtent=\"{0}\" Origin=\"{1:.17g} {2:.17g} {3:.17g}\" Spacing=\"{4:.17g} {5:.17g} {6:.17g}\" "
      "Direction=\"1 0 0 0 1 0 0 0 1\">\n"
      "    <FieldData>\n"
      "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">{7:.17g}</DataArray>\n"
      "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">{8}</DataArray>\n"
      "    </FieldData>\n"
      "    <Piece Extent=\"{0}\">\n",
      extent, image.origin[0], image.origin[1], image.origin[2], image.spacing[0], image.spacing[1], image.spacing[2],
      image.time, image.step);
  xml += arrays.empty() ? "      <PointData>\n" : fmt::format("      <PointData Scalars=\"{}\">\n", arrays.front().name);
  for (std::size_t k = 0; k < arrays.size(); ++k)
    xml += fmt::format(
        "        <DataArray type=\"Float32\" Name=\"{}\" NumberOfComponents=\"1\" format=\"appended\" offset=\"{}\"/>\n",
        arrays[k].name, k * (sizeof(std::uint64_t) + bytes));
  xml += "      </PointData>\n"
         "      <CellData>\n"
         "      </CellData>\n"
         "    </Piece>\n"
         "  </ImageData>\n"
         "  <AppendedData encoding=\"raw\">\n"
         "   _";
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot write '" + path + "'");
  f.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  for (const VtiArray& a : arrays) {  // each block: its byte count (UInt64, little-endian as on every host here), then the values
    f.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    f.write(reinterpret_cast<const char*>(a.values), static_cast<std::streamsize>(bytes));
  }
  const std::string tail = "\n  </AppendedData>\n</VTKFile>\n";
  f.write(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (!f.flush()) throw Error("cannot write '" + path + "' (disk full?)");
}

}  // namespace ss
