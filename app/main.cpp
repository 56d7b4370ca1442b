// stencilscope: watch and measure finite-difference stencils.
//   stencilscope                 the default scene in a window (without the GUI: `bench heat2d`)
//   stencilscope record ...      frames to MP4 or PNGs, headless where there is no display
//   stencilscope bench heat2d    the benchmark table
//   stencilscope info            devices, copy bandwidth, build options
//   stencilscope models          the registered models, their variants and parameters
//   stencilscope export ...      a field or a slice after N steps, as .npy
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "param_options.hpp"
#include "sim/core/error.hpp"
#ifdef STENCILSCOPE_WITH_GUI
#include "gui.hpp"
#endif

int main(int argc, char** argv) {
  CLI::App app{"Stencilscope: finite-difference stencils on the GPU, measured and checked"};
  app.require_subcommand(0, 1);
  auto bench = ss::app::add_bench_command(app);
  auto info = ss::app::add_info_command(app);
  auto list_models = ss::app::add_models_command(app);
  auto export_field = ss::app::add_export_command(app);
#ifdef STENCILSCOPE_WITH_GUI
  auto gui = ss::app::add_gui_commands(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "stencilscope: error: %s\n", e.what());
    return 2;
  }
  try {
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
    std::fprintf(stderr, "stencilscope: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stencilscope: internal error: %s\n", e.what());
    return 1;
  }
}
