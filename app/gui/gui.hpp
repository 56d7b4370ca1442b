#pragma once
// The desktop app's entry points, for app/main.cpp.
//
//   stencilscope [SCENE.toml] [--frames N --screenshot FILE [--screenshot-ui]] [scene options]
//       opens the window on the scene; with --frames it runs N frames, saves FILE and exits.
//       SCENE.toml (or --scene FILE, also on record): a scene file (app/scene_file.hpp);
//       the scene options given override its values.
//   stencilscope record --frames N --out FILE.mp4|DIR [--width W --height H] [--ui]
//                       [--headless] [--steps-per-frame S] [--fps F] [scene options]
//       renders N frames (S steps each, so videos are reproducible) to an MP4 through
//       ffmpeg, or to numbered PNGs in DIR (also when ffmpeg is missing, saying so).
//       --headless (automatic without DISPLAY / WAYLAND_DISPLAY, or without GLFW in
//       the build) uses its own EGL context: no GLFW, no X.
//   scene options (as bench): --model heat2d|heat3d --size NXxNY (heat3d: NXxNYxNZ)
//       --order 2|4|6|8 --variant NAME|auto, heat3d: --slice-z K --slice-y J --slice-x I
//       --boundary B --initial IC --alpha A --dt DT --fixed-value V --seed S
//       --device auto|gpu|cpu, and the view: --colormap NAME --range auto|expanding|LO:HI
//       --sampling nearest|linear --steps-per-frame S (0: adaptive, the window's default)
//       --upload auto|interop|host-copy (GPU backend: how the field reaches the texture;
//       interop makes its absence an error, host-copy forces the fallback to compare)
//   environment: STENCILSCOPE_INTEROP=shared|map|external|host forces one CUDA-GL upload path
//       (render/interop.hpp; unset: external memory where the GL context and CUDA can,
//       else map, else the host copy); another value is refused before a window opens.
//
// Usage in main():
//   auto gui = ss::app::add_gui_commands(app);   // before app.parse
//   if (app.got_subcommand("record")) return gui.record();
//   return gui.window();                          // no subcommand
// Both callbacks throw ss::Error for bad input or failures (main prints one line, exits 1).
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "param_options.hpp"  // SourceArgs
#include "settings.hpp"
#include "simulation_factory.hpp"

namespace ss::app {

/// The scene and how it is shown; the defaults are the default scene (heat 2D,
/// 1024x1024, order 8, the fastest variant for the device, analytic initial condition;
/// heat 3D: 128^3, slices through the middle).
struct SceneOptions {
  SimSettings sim;
  ViewSettings view;
  BrushSettings brush;
  std::string device = "auto";  ///< auto (GPU when there is one), gpu, cpu
  bool variant_given = false;   ///< false: the fastest variant of the chosen device
  std::optional<SimState> resume;  ///< --resume: the state to load once the simulation is built
  /// The scene file's sources and receivers (apply_scene_sources once the simulation is built,
  /// after a resumed state, before --point-source and --receivers); absent without a file of the model.
  std::optional<SceneFile> scene_file;
  SourceArgs sources;  ///< --point-source, --receivers (put on the simulation once built), --seismogram (written at the end)
  SimulationFactory factory;  ///< empty: the model's own; under mpirun: the field split over the ranks
  std::string transport;      ///< --transport: how halos travel between the GPUs under mpirun (empty: the default)
};

struct WindowOptions {
  SceneOptions scene;
  int width = 1280, height = 800;  ///< window size in screen coordinates
  int frames = 0;                  ///< > 0: run this many frames, save `screenshot`, exit
  std::string screenshot;          ///< PNG written after `frames` frames
  bool screenshot_ui = false;      ///< that PNG includes the panels
  std::string scene_path;          ///< the scene file opened at start-up (the View panel's Save/Open path)
};

struct RecordOptions {
  SceneOptions scene;
  int frames = 120;
  std::string out;                 ///< FILE.mp4 (or .mkv/.mov/.webm) or a directory
  int width = 1280, height = 720;  ///< frame size in pixels
  bool ui = false;                 ///< draw the panels into the frames
  bool headless = false;           ///< own EGL context (automatic without a display)
  int fps = 30;
  bool measure = false;            ///< no files: run the window's loop (adaptive steps, no waiting) and report fps
  bool against_bench = false;      ///< with measure: also time the kernel alone (`bench`) and print the ratio
  double display_hz = 60;          ///< with measure: frames paced as a display with vsync at this rate (0: unpaced)
  bool measure_no_draw = false;    ///< with measure: no drawing (uploads still run): what the GL frame costs
  std::string checkpoint;          ///< write a checkpoint (HDF5) here at the end, and every checkpoint_every steps
  long checkpoint_every = 0;       ///< 0: only at the end
  std::string probes_csv;          ///< --probes-csv: the probes' values at every frame, written at the end
};

/// The callbacks add_gui_commands returns; each returns the exit code.
struct GuiCommands {
  std::function<int()> window;  ///< the default command (no subcommand)
  std::function<int()> record;  ///< `record`
};

/// Adds the window's options to `app` itself and the `record` subcommand. `factory`
/// (empty: Model::create) makes the simulations both show: main passes one under mpirun.
GuiCommands add_gui_commands(CLI::App& app, SimulationFactory factory = {});

/// Opens the window; returns 0 when it is closed (or after options.frames frames).
/// Throws ss::Error when no window can be opened (no display, no GL 3.3).
int run_window(const WindowOptions& options);

/// Records options.frames frames; throws ss::Error on failure.
int run_record(const RecordOptions& options);

/// Chooses the backend's variant when none was given and checks the combination
/// (e.g. --device cpu with a GPU variant is an error). Throws ss::Error.
void resolve_device(SceneOptions& scene);

}  // namespace ss::app
