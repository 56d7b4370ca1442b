#pragma once
// The ImGui panels: Simulation, View, Performance, Validation in one side bar, and the error banner.
// They edit the app's plain settings structs and return what was clicked; they own nothing.
#include <array>
#include <optional>
#include <string>

#include "live_simulation.hpp"
#include "settings.hpp"

namespace ss::app {

/// What the person asked for this frame.
struct PanelActions {
  bool reset = false;
  bool step_once = false;
  bool screenshot = false;     ///< save a PNG now
  bool toggle_recording = false;
  bool clear_error = false;
  bool reset_view = false;
  bool reset_range = false;    ///< restart the expanding range
  bool validation_visible = false;  ///< the Validation panel is open: keep its numbers fresh
  bool plots_visible = false;       ///< the Plots section is open: sample the model's diagnostics
  bool export_plots = false;        ///< write the diagnostics (and the probes) so far as CSV
  bool clear_probes = false;        ///< remove every probe
  int remove_probe = -1;            ///< >= 0: remove this probe
  bool save_scene = false;     ///< write the scene to SceneFileStatus::path (Ctrl+S)
  bool open_scene = false;     ///< read the scene from SceneFileStatus::path (Ctrl+O)
  bool save_checkpoint = false;  ///< write the scene and the state to the path with .h5 for .toml
  float side_bar_width = 0;    ///< the side bar's width this frame (ImGui units); the views start right of it
  bool seismogram_visible = false;  ///< the Sources & seismograms section is open: keep its picture fresh
  bool export_seismogram = false;   ///< write the seismogram so far as .npy and CSV
  int remove_source = -1;           ///< the source whose remove button was clicked
  std::optional<ReceiverLayout> set_receivers;  ///< the receivers' apply button was clicked
};

/// The View panel's scene file section: the path typed there, and the last result.
struct SceneFileStatus {
  std::array<char, 1024> path{"scene.toml"};  ///< as typed (ImGui edits it in place)
  std::string last_message;                   ///< "saved scene.toml", or why not
  bool last_failed = false;                   ///< last_message is an error
};

/// Per-frame times measured by the loop (CPU side), shown next to the simulation's.
struct FrameInfo {
  double frame_ms = 0;   ///< wall time between frames
  double render_ms = 0;  ///< submitting the field, colorbar and UI draws
  double render_gpu_ms = -1;  ///< GPU time of those draws (timer query); < 0: not measured yet
};

/// Recording state shown in the View panel.
struct RecordingStatus {
  bool active = false;
  std::string description;  ///< "MP4 via ffmpeg: out.mp4" / "PNG sequence in dir/ (ffmpeg not found)"
  int frames = 0;
  std::string last_message;  ///< e.g. "saved stencilscope-20261122-101500.png"
};

/// The name of the side bar's ImGui window.
inline constexpr const char* kSideBarName = "Controls";

/// Draws the side bar (the Simulation, View, Performance and Validation sections in one
/// column at the left, full height) and the error banner over the views.
/// `screenshot_with_ui` is part of the view settings' picture options.
/// `scene_file`: the View section's Save/Open scene section (none without it).
/// `help_open`: the keys-and-mouse help window is shown (F1); its button toggles it (none without it).
/// `source_tool`: the Sources & seismograms section of a model with point sources (none without it).
PanelActions draw_panels(SimSettings& sim, ViewSettings& view, BrushSettings& brush, bool& screenshot_with_ui,
                         const SimStatus& status, bool gpu_available, const RecordingStatus& recording,
                         const FrameInfo& frame, const render::ValueRange& drawn_range,
                         SceneFileStatus* scene_file = nullptr, bool* help_open = nullptr,
                         SourceTool* source_tool = nullptr);

}  // namespace ss::app
