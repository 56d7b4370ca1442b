#include "checkpoint.hpp"

#ifdef STENCILSCOPE_HAVE_HDF5
#include <hdf5.h>
#endif

#include <cstdint>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss::app {

#ifndef STENCILSCOPE_HAVE_HDF5
namespace {
constexpr const char* kNoHdf5 = "checkpoints need HDF5, which this build left out (install libhdf5-dev and rebuild)";
}
void write_checkpoint(const std::string&, const std::string&, const std::array<int, 3>&, int, const std::string&,
                      const SimState&, double) {
  throw Error(kNoHdf5);
}
Checkpoint read_checkpoint(const std::string&) { throw Error(kNoHdf5); }
#else

namespace {

/// An HDF5 handle with its closer: one owner, closed in the destructor.
class H5 {
 public:
  H5(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id_ < 0) throw Error(what);
  }
  ~H5() {
    if (id_ >= 0) close_(id_);
  }
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error(what);
}

void write_attribute(hid_t at, const char* name, hid_t type, const void* value, const std::string& path) {
  const H5 space(H5Screate(H5S_SCALAR), H5Sclose, path + ": cannot make an attribute space");
  const H5 attr(H5Acreate2(at, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                fmt::format("{}: cannot write attribute '{}'", path, name));
  check(H5Awrite(attr, type, value), fmt::format("{}: cannot write attribute '{}'", path, name));
}

void write_text(hid_t at, const char* name, const std::string& text, const std::string& path) {
  const H5 type(H5Tcopy(H5T_C_S1), H5Tclose, path + ": cannot make a string type");
  check(H5Tset_size(type, text.empty() ? 1 : text.size()), path + ": string type");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), path + ": string type");
  write_attribute(at, name, type, text.empty() ? "" : text.data(), path);
}

template <typename T>
T read_number(hid_t at, const char* name, hid_t type, const std::string& path) {
  if (H5Aexists(at, name) <= 0) throw Error(fmt::format("{}: not a stencilscope checkpoint (no '{}')", path, name));
  const H5 attr(H5Aopen(at, name, H5P_DEFAULT), H5Aclose, fmt::format("{}: cannot read '{}'", path, name));
  T value{};
  check(H5Aread(attr, type, &value), fmt::format("{}: cannot read '{}'", path, name));
  return value;
}

std::string read_text(hid_t at, const char* name, const std::string& path) {
  if (H5Aexists(at, name) <= 0) throw Error(fmt::format("{}: not a stencilscope checkpoint (no '{}')", path, name));
  const H5 attr(H5Aopen(at, name, H5P_DEFAULT), H5Aclose, fmt::format("{}: cannot read '{}'", path, name));
  const H5 type(H5Aget_type(attr), H5Tclose, fmt::format("{}: cannot read '{}'", path, name));
  if (H5Tget_class(type) != H5T_STRING) throw Error(fmt::format("{}: '{}' is not text", path, name));
  std::string text(H5Tget_size(type), '\0');
  const H5 mem(H5Tcopy(H5T_C_S1), H5Tclose, path + ": string type");
  check(H5Tset_size(mem, text.size()), path + ": string type");
  check(H5Tset_strpad(mem, H5T_STR_NULLPAD), path + ": string type");
  check(H5Aread(attr, mem, text.data()), fmt::format("{}: cannot read '{}'", path, name));
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

/// Quiets HDF5's own error stack printing: failures become one-line ss::Errors.
void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace

void write_checkpoint(const std::string& path, const std::string& model, const std::array<int, 3>& size, int dims,
                      const std::string& scene, const SimState& state, double time) {
  quiet();
  const std::string tmp = path + ".part";  // written whole, then renamed: a failure never leaves half a file
  {
    const H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                  "cannot write checkpoint '" + path + "'");
    const std::int32_t version = 1;
    const std::int64_t steps = state.steps_done;
    write_attribute(file, "stencilscope_checkpoint", H5T_NATIVE_INT32, &version, path);
    write_text(file, "model", model, path);
    write_attribute(file, "steps", H5T_NATIVE_INT64, &steps, path);
    write_attribute(file, "time", H5T_NATIVE_DOUBLE, &time, path);
    write_text(file, "scene", scene, path);
    const H5 group(H5Gcreate2(file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                   path + ": cannot make /fields");
    std::vector<hsize_t> shape;
    if (dims == 3) shape.push_back(static_cast<hsize_t>(size[2]));
    shape.push_back(static_cast<hsize_t>(size[1]));
    shape.push_back(static_cast<hsize_t>(size[0]));
    hsize_t count = 1;
    for (hsize_t n : shape) count *= n;
    for (std::size_t f = 0; f < state.fields.size(); ++f) {
      if (state.fields[f].size() != count)
        throw Error(fmt::format("{}: field {} holds {} values, not {}", path, f, state.fields[f].size(), count));
      const H5 space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose,
                     path + ": cannot make a data space");
      const std::string name = std::to_string(f);
      const H5 set(H5Dcreate2(group, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, fmt::format("{}: cannot make /fields/{}", path, f));
      check(H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, state.fields[f].data()),
            fmt::format("{}: cannot write /fields/{}", path, f));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error(fmt::format("cannot write checkpoint '{}': {}", path, ec.message()));
}

Checkpoint read_checkpoint(const std::string& path) {
  quiet();
  if (!std::filesystem::exists(path)) throw Error("no checkpoint '" + path + "'");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error("'" + path + "' is not an HDF5 file");
  const H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "cannot read checkpoint '" + path + "'");
  const auto version = read_number<std::int32_t>(file, "stencilscope_checkpoint", H5T_NATIVE_INT32, path);
  if (version != 1) throw Error(fmt::format("{}: checkpoint version {} (this build reads 1)", path, version));
  Checkpoint c;
  c.model = read_text(file, "model", path);
  c.scene = read_text(file, "scene", path);
  c.state.steps_done = static_cast<long>(read_number<std::int64_t>(file, "steps", H5T_NATIVE_INT64, path));
  c.time = read_number<double>(file, "time", H5T_NATIVE_DOUBLE, path);
  if (H5Lexists(file, "fields", H5P_DEFAULT) <= 0) throw Error(path + ": not a stencilscope checkpoint (no /fields)");
  const H5 group(H5Gopen2(file, "fields", H5P_DEFAULT), H5Gclose, path + ": cannot open /fields");
  for (int f = 0;; ++f) {
    const std::string name = std::to_string(f);
    if (H5Lexists(group, name.c_str(), H5P_DEFAULT) <= 0) break;
    const H5 set(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose, fmt::format("{}: cannot open /fields/{}", path, f));
    const H5 space(H5Dget_space(set), H5Sclose, fmt::format("{}: /fields/{}", path, f));
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) throw Error(fmt::format("{}: /fields/{} has no size", path, f));
    std::vector<float> values(static_cast<std::size_t>(n));
    check(H5Dread(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
          fmt::format("{}: cannot read /fields/{}", path, f));
    c.state.fields.push_back(std::move(values));
  }
  return c;
}

#endif  // STENCILSCOPE_HAVE_HDF5

}  // namespace ss::app
