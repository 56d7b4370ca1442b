#include "sim/core/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
}

void write_npy(const std::string& path, const float* values, const std::vector<std::size_t>& shape) {
  std::size_t count = 1;
  std::string dims;
  for (std::size_t n : shape) {
    count *= n;
    dims += fmt::format("{}, ", n);
  }
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // (n,) keeps its comma, (a, b) does not
  std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}", dims);
  // Magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot write '" + path + "'");
  f.write(kMagic, 6);
  const unsigned char version[2] = {1, 0};
  f.write(reinterpret_cast<const char*>(version), 2);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  const unsigned char le[2] = {static_cast<unsigned char>(length & 0xff), static_cast<unsigned char>(length >> 8)};
  f.write(reinterpret_cast<const char*>(le), 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(count * sizeof(float)));
  if (!f.flush()) throw Error("failed writing '" + path + "'");
}

namespace {

/// read_npy; float64: also little-endian float64 arrays, rounded to float32.
NpyArray read_npy_as_float(const std::string& path, bool float64) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  char magic[6];
  unsigned char version[2], le[2];
  f.read(magic, 6);
  f.read(reinterpret_cast<char*>(version), 2);
  f.read(reinterpret_cast<char*>(le), 2);
  if (!f || std::memcmp(magic, kMagic, 6) != 0 || version[0] != 1)
    throw Error("'" + path + "' is not a version 1 .npy file");
  std::string header(static_cast<std::size_t>(le[0] | le[1] << 8), ' ');
  f.read(header.data(), static_cast<std::streamsize>(header.size()));
  static const std::regex descr(R"('descr':\s*'<f4')"), descr64(R"('descr':\s*'<f8')"), fortran(R"('fortran_order':\s*False)"),
      shape_re(R"('shape':\s*\(([0-9,\s]*)\))");
  std::smatch m;
  const bool is64 = float64 && std::regex_search(header, descr64);
  if (!(is64 || std::regex_search(header, descr)) || !std::regex_search(header, fortran) ||
      !std::regex_search(header, m, shape_re))
    throw Error("'" + path + "' is not a little-endian float" + (float64 ? "32 or float64" : std::string("32")) +
                " C-order array: " +
                header.substr(0, header.find_last_not_of(" \n") + 1));
  NpyArray a;
  std::size_t count = 1;
  const std::string dims = m[1];
  static const std::regex number(R"(\d+)");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it) {
    a.shape.push_back(std::stoull(it->str()));
    count *= a.shape.back();
  }
  a.values.resize(count);
  if (is64) {
    std::vector<double> wide(count);
    f.read(reinterpret_cast<char*>(wide.data()), static_cast<std::streamsize>(count * sizeof(double)));
    std::copy(wide.begin(), wide.end(), a.values.begin());
  } else {
    f.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(count * sizeof(float)));
  }
  if (!f) throw Error("'" + path + "' ends before its " + std::to_string(count) + " values");
  return a;
}

}  // namespace

NpyArray read_npy(const std::string& path) { return read_npy_as_float(path, false); }

std::vector<float> read_npy_volume(const std::string& path, int nx, int ny, int nz) {
  NpyArray a = read_npy_as_float(path, true);
  const std::vector<std::size_t> want = {static_cast<std::size_t>(nz), static_cast<std::size_t>(ny),
                                         static_cast<std::size_t>(nx)};
  if (a.shape != want) {
    std::string got;
    for (std::size_t n : a.shape) got += (got.empty() ? "" : ", ") + std::to_string(n);
    if (a.shape.size() == 1) got += ",";
    throw Error(fmt::format("'{}' holds an array of shape ({}); the grid needs (nz, ny, nx) = ({}, {}, {})", path, got,
                            nz, ny, nx));
  }
  return std::move(a.values);
}

}  // namespace ss
