// stencilscope: watch and measure finite-difference stencils.
//   stencilscope                 the default scene in a window (without the GUI: `bench heat2d`)
//   stencilscope record ...      frames to MP4 or PNGs, headless where there is no display
//   stencilscope bench heat2d    the benchmark table
//   stencilscope info            devices, copy bandwidth, build options
//   stencilscope models          the registered models, their variants and parameters
//   stencilscope export ...      a field or a slice after N steps, as .npy
#include <cstdio>
#include <exception>
#include <memory>
#include <string_view>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "param_options.hpp"
#include "sim/core/error.hpp"
#ifdef STENCILSCOPE_WITH_MPI
#include "sim/dist/distributed_simulation.hpp"
#include "sim/dist/mpi_comm.hpp"
#endif
#ifdef STENCILSCOPE_WITH_GUI
#include "gui.hpp"
#endif

namespace {

/// Prints a failure once: in a run of several ranks, an error every rank met the same way
/// (bad input) is printed by rank 0 and every rank leaves with status 1; a failure of one
/// rank alone is printed with its rank and ends the whole job (MPI_Abort), so that no rank
/// waits forever for it.
int report_error(const char* kind, const std::exception& e) {
  const int ranks = ss::app::world_ranks(), rank = ss::app::this_rank();
#ifdef STENCILSCOPE_WITH_MPI
  if (ranks > 1 && ss::dist::launched_by_mpi() && !dynamic_cast<const ss::dist::CollectiveError*>(&e)) {
    std::fprintf(stderr, "stencilscope: %s: rank %d: %s\n", kind, rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#endif
  if (rank == 0 || ranks == 1) std::fprintf(stderr, "stencilscope: %s: %s\n", kind, e.what());
  return 1;
}

#if defined(STENCILSCOPE_WITH_MPI) && defined(STENCILSCOPE_WITH_GUI)
/// The window or `record` on several ranks: rank 0 runs it with a simulation whose field is
/// split over the ranks; the others serve rank 0's commands (no window) until it leaves,
/// and leave with its exit status. An error on rank 0 reaches every rank as one line.
int run_gui_distributed(const ss::app::GuiCommands& gui, const std::shared_ptr<ss::dist::DistributedService>& service,
                        bool record) {
  if (ss::app::this_rank() != 0) return ss::dist::serve_distributed_simulation();
  try {
    const int status = record ? gui.record() : gui.window();
    service->finish(status);
    return status;
  } catch (const ss::dist::CollectiveError&) {
    service->finish(1);
    throw;
  } catch (const ss::Error& e) {  // rank 0's own (bad input, no display): the others leave with it
    service->finish(1);
    throw ss::dist::CollectiveError(e.what());
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef STENCILSCOPE_WITH_MPI
  // Started by mpirun: one rank of a distributed run. Otherwise MPI is never touched.
  std::optional<ss::dist::MpiSession> mpi;
  if (ss::dist::launched_by_mpi()) mpi.emplace(&argc, &argv);
#endif
  CLI::App app{"Stencilscope: finite-difference stencils on the GPU, measured and checked"};
  app.require_subcommand(0, 1);
  auto bench = ss::app::add_bench_command(app);
  auto info = ss::app::add_info_command(app);
  auto list_models = ss::app::add_models_command(app);
  auto export_field = ss::app::add_export_command(app);
#ifdef STENCILSCOPE_WITH_GUI
  ss::app::SimulationFactory factory;
#ifdef STENCILSCOPE_WITH_MPI
  // Several ranks: the window and record run on rank 0 with the field split over every rank.
  std::shared_ptr<ss::dist::DistributedService> service;
  if (ss::app::world_ranks() > 1 && ss::dist::launched_by_mpi()) {
    const int ranks = ss::app::world_ranks();
    factory.check = [ranks](const ss::Model& m, const ss::ModelConfig& c, ss::Backend b, std::string_view v,
                            std::string_view transport) {
      ss::dist::check_distributed_simulation(m, c, b, v, ranks, transport);
    };
    factory.create = [&service](const ss::Model& m, const ss::ModelConfig& c, ss::Backend b, std::string_view v,
                                std::string_view transport) {
      return ss::dist::create_distributed_simulation(*service, m, c, b, v, transport);
    };
    factory.default_variant = ss::dist::distributed_variant;
    factory.note = fmt::format(
        "a run on {} MPI ranks: every rank steps a box of the grid on the CPU (the model's CPU variant) or, with "
        "--device gpu, on a GPU of its own (the variant the model's GPU boxes step), rank 0 shows the slices gathered "
        "from them; the order, the slices and painting change live, the model, the size and the parameters rebuild "
        "the run on every rank; 2D models and models whose boxes give no views are refused",
        ranks);
  }
#endif
  auto gui = ss::app::add_gui_commands(app, factory);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (ss::app::this_rank() == 0) std::fprintf(stderr, "stencilscope: error: %s\n", e.what());
    return 2;
  }
  try {
    if (ss::app::world_ranks() > 1) {
      // Several ranks: what the others would print is rank 0's; bench, and with the GUI the
      // window and record, run distributed.
      const bool listing = app.got_subcommand("info") || app.got_subcommand("models");
      if (listing && ss::app::this_rank() != 0) return 0;
#if defined(STENCILSCOPE_WITH_MPI) && defined(STENCILSCOPE_WITH_GUI)
      if (!listing && !app.got_subcommand("bench") && !app.got_subcommand("export")) {
        // The command channel first (rank 0's service and the others' serve loop make it
        // together), before rank 0 can fail alone.
        if (ss::app::this_rank() == 0) service = std::make_shared<ss::dist::DistributedService>();
        return run_gui_distributed(gui, service, app.got_subcommand("record"));
      }
#endif
      if (!listing && !app.got_subcommand("bench")) {
#if defined(STENCILSCOPE_WITH_MPI) && defined(STENCILSCOPE_WITH_GUI)
        const char* why = "only bench, the window and record run on several MPI ranks (export runs on one: "
                          "leave out mpirun)";
#else
        const char* why = "only bench runs on several MPI ranks in this build (export runs on one: leave out mpirun)";
#endif
#ifdef STENCILSCOPE_WITH_MPI
        throw ss::dist::CollectiveError(why);
#else
        throw ss::Error(why);
#endif
      }
    }
    if (app.got_subcommand("info")) return info();
    if (app.got_subcommand("models")) return list_models();
    if (app.got_subcommand("export")) return export_field();
    if (app.got_subcommand("bench")) return bench();
#ifdef STENCILSCOPE_WITH_GUI
    if (app.got_subcommand("record")) return gui.record();
    return gui.window();  // no subcommand: the default scene in a window
#else
    // Built without the GUI: the default is the benchmark of the default scene's model.
    CLI::App defaults;
    auto run = ss::app::add_bench_command(defaults);
    const std::string model = ss::app::default_model();
    const char* args[] = {"stencilscope", "bench", model.c_str()};
    defaults.parse(3, const_cast<char**>(args));
    return run();
#endif
  } catch (const ss::Error& e) {
    return report_error("error", e);
  } catch (const std::exception& e) {
    return report_error("internal error", e);
  }
}
