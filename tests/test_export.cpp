// `stencilscope export`: the .npy it writes holds exactly the field (or the slice) that the
// model's CPU simulation has after the same steps, in NumPy's layout; numpy.load reads it
// where numpy is installed; bad requests are one line and a non-zero exit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cli_run.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"

using namespace ss;
using ss::test::run_cli;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("stencilscope-export-" + name)).string();
}

/// True when a Python with numpy answers (Debian's python3-numpy).
bool have_numpy() { return std::system("python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

}  // namespace

TEST(Export, Heat2DFieldIsTheCpuFieldAfterTheSameStepsInNumpysLayout) {
  const std::string path = temp_path("heat2d.npy");
  const auto r = run_cli("export --model heat2d --size 40x30 --order 4 --boundary periodic --initial hot-spots --steps 5 "
                         "--device cpu --out " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray a = read_npy(path);
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{30, 40}));
  const Model& m = find_model("heat2d");
  auto sim = m.create(make_config(m, {40, 30, 1}, 4, {{"boundary", std::string("periodic")}, {"initial", std::string("hot-spots")}}),
                      Backend::cpu, "cpu");
  sim->start_steps(5);
  const SimState st = sim->copy_state();
  ASSERT_EQ(st.fields.at(0).size(), a.values.size());
  EXPECT_EQ(0, std::memcmp(st.fields[0].data(), a.values.data(), a.values.size() * sizeof(float)));
  if (have_numpy()) {
    const std::string check = "python3 -c \"import numpy as n, sys; a = n.load('" + path +
                              "'); sys.exit(0 if a.shape == (30, 40) and a.dtype == n.float32 and a[2, 7] == " +
                              fmt::format("{:.9g}", a.values[2 * 40 + 7]) + " else 1)\"";
    EXPECT_EQ(std::system(check.c_str()), 0) << "numpy.load disagrees: " << check;
  } else {
    std::printf("[ NOTE     ] numpy is not installed: the file was checked by our reader only\n");
  }
  std::filesystem::remove(path);
}

TEST(Export, A3DSliceIsTheViewTheSimulationShows) {
  const std::string path = temp_path("heat3d-xz.npy");
  const auto r = run_cli("export --model heat3d --size 21x17x13 --steps 3 --view xz --slice-y 5 --device cpu --out " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray a = read_npy(path);
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{13, 21})) << "(nz, nx): v rows of u";
  const Model& m = find_model("heat3d");
  auto sim = m.create(make_config(m, {21, 17, 13}, 8, {}), Backend::cpu, "cpu");
  sim->start_steps(3);
  std::vector<float> want(21 * 13);
  sim->copy_view(1, ViewPlacement{{6, 5, 10}, {}}, want.data());
  EXPECT_EQ(0, std::memcmp(want.data(), a.values.data(), want.size() * sizeof(float)));
  std::filesystem::remove(path);
}

TEST(Export, BadRequestsAreOneLineAndANonZeroExit) {
  for (const std::string args : {"export --model heat2d --view xy --out x.npy", "export --model deriv3d --size 16 --out x.npy",
                                 "export --model heat3d --size 16 --view xz --slice-y 16 --out x.npy",
                                 "export --model heat2d --out /no/such/dir/x.npy", "export --model heat2d --size 16"}) {
    const auto r = run_cli(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(ss::test::count_lines(r.out), 1) << args << ": " << r.out;
  }
}

TEST(Export, ACheckpointResumesBitForBitForEveryModel) {
#ifndef STENCILSCOPE_HAVE_HDF5
  GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev): no checkpoints";
#endif
  for (const Model* m : models()) {
    const ModelInfo& info = m->info();
    SCOPED_TRACE(info.name);
    const std::string size = info.dims == 2 ? "37x29" : "19x15x13";
    const std::string view = info.dims == 2 ? "field" : "xz";  // a view every model has
    const std::string whole = temp_path(info.name + "-whole.npy"), resumed = temp_path(info.name + "-resumed.npy"),
                      checkpoint = temp_path(info.name + ".h5");
    const std::string scene = "export --model " + info.name + " --size " + size + " --device cpu --view " + view;
    ASSERT_EQ(run_cli(scene + " --steps 9 --out " + whole).status, 0);
    const auto first = run_cli("export --model " + info.name + " --size " + size + " --device cpu --steps 4 --checkpoint " + checkpoint);
    ASSERT_EQ(first.status, 0) << first.out;
    const auto second = run_cli("export --resume " + checkpoint + " --device cpu --view " + view + " --steps 5 --out " + resumed);
    ASSERT_EQ(second.status, 0) << second.out;
    EXPECT_NE(second.out.find("step 9"), std::string::npos) << second.out;
    const NpyArray a = read_npy(whole), b = read_npy(resumed);
    EXPECT_EQ(a.shape, b.shape);
    ASSERT_EQ(a.values.size(), b.values.size());
    EXPECT_EQ(0, std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float))) << "resumed != one run";
    for (const std::string& f : {whole, resumed, checkpoint}) std::filesystem::remove(f);
  }
}

TEST(Export, AMissingOrForeignCheckpointIsOneLine) {
#ifndef STENCILSCOPE_HAVE_HDF5
  GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev): no checkpoints";
#endif
  const std::string npy = temp_path("not-a-checkpoint.npy");
  ASSERT_EQ(run_cli("export --model heat2d --size 16 --device cpu --out " + npy).status, 0);
  for (const std::string& args : {std::string("export --resume /no/such.h5 --out x.npy"), "export --resume " + npy + " --out x.npy"}) {
    const auto r = run_cli(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(ss::test::count_lines(r.out), 1) << args << ": " << r.out;
  }
  std::filesystem::remove(npy);
}


namespace {

/// A Python that has VTK's readers (Debian's python3-vtk9 installs them for /usr/bin/python3,
/// which need not be the python3 first on PATH); empty when none has.
std::string python_with_vtk() {
  for (const std::string py : {"python3", "/usr/bin/python3"})
    if (std::system((py + " -c 'from vtkmodules.vtkIOXML import vtkXMLImageDataReader' >/dev/null 2>&1").c_str()) == 0)
      return py;
  return {};
}

/// Reads `path` with vtkXMLImageDataReader and prints "dims nx ny nz", "origin ...",
/// "spacing ...", "time T", then per point array "array NAME N v(i0) v(i1) ..." at the
/// point ids `ids`; returns the output (empty when the reader failed).
std::string read_with_vtk(const std::string& python, const std::string& path, const std::vector<long>& ids) {
  std::string id_list;
  for (long i : ids) id_list += std::to_string(i) + ",";
  const std::string out = path + ".txt";
  const std::string script =
      "from vtkmodules.vtkIOXML import vtkXMLImageDataReader\n"
      "r = vtkXMLImageDataReader(); r.SetFileName('" + path + "'); r.Update()\n"
      "im = r.GetOutput(); pd = im.GetPointData()\n"
      "print('dims', *im.GetDimensions()); print('origin', *('%.17g' % v for v in im.GetOrigin()))\n"
      "print('spacing', *('%.17g' % v for v in im.GetSpacing()))\n"
      "print('time', '%.17g' % im.GetFieldData().GetArray('TimeValue').GetValue(0))\n"
      "for k in range(pd.GetNumberOfArrays()):\n"
      "  a = pd.GetArray(k)\n"
      "  print('array', a.GetName(), a.GetNumberOfTuples(), *('%.9g' % a.GetValue(i) for i in [" + id_list + "]))\n";
  const std::string script_path = path + ".py";
  FILE* f = std::fopen(script_path.c_str(), "w");
  std::fputs(script.c_str(), f);
  std::fclose(f);
  if (std::system((python + " " + script_path + " > " + out + " 2>&1").c_str()) != 0) return {};
  std::string text;
  if (FILE* g = std::fopen(out.c_str(), "r")) {
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, g)) text.append(buf, n);
    std::fclose(g);
  }
  std::filesystem::remove(out);
  std::filesystem::remove(script_path);
  return text;
}

}  // namespace

TEST(Export, A3DVolumeAsVtiIsWhatVtksReaderReads) {
  const std::string python = python_with_vtk();
  if (python.empty()) GTEST_SKIP() << "no Python with VTK (Debian's python3-vtk9): the .vti reader test cannot run";
  const std::string path = temp_path("heat3d.vti");
  const auto r = run_cli("export --model heat3d --size 11x9x8 --order 4 --steps 3 --device cpu --out " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const Model& m = find_model("heat3d");
  auto sim = m.create(make_config(m, {11, 9, 8}, 4, {}), Backend::cpu, "cpu");
  sim->start_steps(3);
  const SimState st = sim->copy_state();
  const std::vector<long> ids = {0, 5, 11 * 9 + 3, 11 * 9 * 8 - 1, 11 * 9 * 3 + 11 * 4 + 6};
  const std::string text = read_with_vtk(python, path, ids);
  ASSERT_FALSE(text.empty()) << "vtkXMLImageDataReader failed on " << path;
  EXPECT_NE(text.find("dims 11 9 8\n"), std::string::npos) << text;
  const double h = 1.0 / 11;
  EXPECT_NE(text.find(fmt::format("spacing {:.17g} {:.17g} {:.17g}\n", h, h, h)), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("time {:.17g}\n", sim->time())), std::string::npos) << text;
  std::string want = "array temperature 792";
  for (long i : ids) want += fmt::format(" {:.9g}", st.fields.at(0)[static_cast<std::size_t>(i)]);
  EXPECT_NE(text.find(want + "\n"), std::string::npos) << "want '" << want << "' in:\n" << text;
  std::filesystem::remove(path);
}

TEST(Export, A2DFieldAsVtiIsAOneCellThickImageAndQuantitiesAreNamed) {
  const std::string python = python_with_vtk();
  if (python.empty()) GTEST_SKIP() << "no Python with VTK (Debian's python3-vtk9): the .vti reader test cannot run";
  const std::string path = temp_path("heat2d.vti");
  const auto r = run_cli("export --model heat2d --size 13x8 --steps 2 --device cpu --quantity all --out " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  const Model& m = find_model("heat2d");
  auto sim = m.create(make_config(m, {13, 8, 1}, 8, {}), Backend::cpu, "cpu");
  sim->start_steps(2);
  const SimState st = sim->copy_state();
  const std::string text = read_with_vtk(python, path, {0, 13 * 7 + 12});
  EXPECT_NE(text.find("dims 13 8 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("array temperature 104 {:.9g} {:.9g}\n", st.fields[0][0], st.fields[0][103])),
            std::string::npos)
      << text;
  std::filesystem::remove(path);
}

TEST(Export, AVtiOfEveryModelOpensWithEachSteppedFieldOrQuantity) {
  const std::string python = python_with_vtk();
  if (python.empty()) GTEST_SKIP() << "no Python with VTK (Debian's python3-vtk9): the .vti reader test cannot run";
  for (const Model* m : models()) {
    const ModelInfo& info = m->info();
    SCOPED_TRACE(info.name);
    const std::string path = temp_path(info.name + ".vti");
    const std::string size = info.dims == 2 ? "12x10" : "12x10x9";
    const auto r = run_cli("export --model " + info.name + " --size " + size + " --steps 1 --device cpu --out " + path);
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string text = read_with_vtk(python, path, {0});
    EXPECT_NE(text.find(info.dims == 2 ? "dims 12 10 1\n" : "dims 12 10 9\n"), std::string::npos) << text;
    EXPECT_NE(text.find("array "), std::string::npos) << text;
    std::filesystem::remove(path);
  }
}

// Without VTK at hand: the file's XML names the extent, origin, spacing and array, and its
// appended block (a UInt64 byte count, then the float32 values) holds the field.
TEST(Export, AVtiHoldsItsHeaderAndTheFieldInItsAppendedBlock) {
  const std::string path = temp_path("heat2d-raw.vti");
  const auto r = run_cli("export --model heat2d --size 12x9 --steps 2 --device cpu --out " + path);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string bytes;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) bytes.append(buf, n);
    std::fclose(f);
  }
  const double h = 1.0 / 12;
  EXPECT_NE(bytes.find("WholeExtent=\"0 11 0 8 0 0\""), std::string::npos);
  EXPECT_NE(bytes.find(fmt::format("Origin=\"{:.17g} {:.17g} 0\"", h / 2, h / 2)), std::string::npos);
  EXPECT_NE(bytes.find("Name=\"temperature\""), std::string::npos);
  const std::size_t start = bytes.find("<AppendedData encoding=\"raw\">");
  ASSERT_NE(start, std::string::npos);
  const std::size_t data = bytes.find('_', start) + 1;
  std::uint64_t count = 0;
  std::memcpy(&count, bytes.data() + data, sizeof count);
  ASSERT_EQ(count, 12u * 9u * sizeof(float));
  const Model& m = find_model("heat2d");
  auto sim = m.create(make_config(m, {12, 9, 1}, 8, {}), Backend::cpu, "cpu");
  sim->start_steps(2);
  const SimState st = sim->copy_state();
  EXPECT_EQ(0, std::memcmp(bytes.data() + data + sizeof count, st.fields.at(0).data(), count));
  std::filesystem::remove(path);
}

// --point-source, --receivers and --seismogram: the files hold exactly the traces the
// model's CPU simulation records with the same sources and receivers.
TEST(Export, SeismogramFilesAreTheSimulationsTraces) {
  for (const Model* m : models()) {
    if (m->info().source_kinds.empty()) continue;
    const std::string kind(to_string(m->info().source_kinds.back()));
    const std::string base = temp_path("seismo-" + m->info().name);
    const std::string a = kind + ":8,9,7:f0=12", b = kind + ":15,12,10:amp=0.5";
    const auto r = run_cli(fmt::format("export --model {} --size 24x22x20 --steps 12 --device cpu --point-source {} "
                                       "--point-source {} --receivers xz:9:grid:3 --seismogram {}",
                                       m->info().name, a, b, base));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("wrote " + base + ".npy"), std::string::npos) << r.out;
    auto sim = m->create(make_config(*m, {24, 22, 20}, m->info().default_order, {}), Backend::cpu, m->info().fastest_cpu);
    while (!sim->sources().empty()) sim->remove_source(0);
    sim->add_source(parse_source_spec(a));
    sim->add_source(parse_source_spec(b));
    sim->set_receivers(parse_receiver_layout("xz:9:grid:3"));
    sim->start_steps(12);
    const Seismogram want = sim->seismogram();
    const NpyArray npy = read_npy(base + ".npy");
    EXPECT_EQ(npy.shape, (std::vector<std::size_t>{12, want.components.size(), want.nodes.size()}));
    ASSERT_EQ(npy.values.size(), want.values.size());
    EXPECT_EQ(0, std::memcmp(npy.values.data(), want.values.data(), want.values.size() * sizeof(float)));
    const Seismogram csv = read_seismogram_csv(base + ".csv");
    EXPECT_EQ(csv.values, want.values);
    EXPECT_EQ(csv.nodes, want.nodes);
    std::filesystem::remove(base + ".npy");
    std::filesystem::remove(base + ".csv");
  }
}

TEST(Export, BadSourcesAndReceiversAreOneLineAndANonZeroExit) {
  const struct {
    std::string args, words;
  } cases[] = {
      {"--model acoustic3d --size 24 --point-source pressure:24,3,3", "outside the grid: x runs 1 to 23"},
      {"--model elastic3d --size 24 --point-source force:3,3,0", "outside the grid: z runs 1 to 23"},
      {"--model elastic3d --size 24 --point-source pressure:3,3,3", "no pressure sources"},
      {"--model acoustic3d --size 24 --receivers xy:24", "outside the grid: z runs 0 to 23"},
      {"--model acoustic3d --size 24 --receivers xz:3:line:-1", "outside the grid: z runs 0 to 23"},
      {"--model acoustic3d --size 24 --point-source pressure:3,3", "the node takes 3 numbers"},
      {"--model heat3d --size 24 --point-source pressure:3,3,3", "heat3d has no point sources"},
  };
  for (const auto& c : cases) {
    const std::string base = temp_path("bad-seismo");
    const auto r = run_cli("export " + c.args + " --steps 1 --device cpu --seismogram " + base);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_NE(r.out.find(c.words), std::string::npos) << c.args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(std::filesystem::exists(base + ".npy")) << c.args;
  }
}

TEST(Export, BenchWritesTheSeismogramOfItsFirstLiveVariant) {
  const std::string base = temp_path("bench-seismo");
  const auto r = run_cli("bench acoustic3d --size 24 --steps 4 --repeat 1 --device cpu --variant cpu --receivers "
                         "xy:5:line:12 --seismogram " + base);
  ASSERT_EQ(r.status, 0) << r.out;
  const NpyArray npy = read_npy(base + ".npy");
  EXPECT_EQ(npy.shape, (std::vector<std::size_t>{4, 1, 24}));
  std::filesystem::remove(base + ".npy");
  std::filesystem::remove(base + ".csv");
}
