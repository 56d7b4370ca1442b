// `stencilscope export`: the .npy it writes holds exactly the field (or the slice) that the
// model's CPU simulation has after the same steps, in NumPy's layout; numpy.load reads it
// where numpy is installed; bad requests are one line and a non-zero exit.
#include <gtest/gtest.h>

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
