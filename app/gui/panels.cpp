#include "panels.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <cfloat>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "side_bar.hpp"
#include "stencilscope/render/gl.hpp"

namespace ss::app {

namespace {

template <typename Enum, std::size_t N>
bool enum_combo(const char* label, Enum& value, const std::array<Enum, N>& all) {
  bool changed = false;
  const std::string current(to_string(value));
  if (ImGui::BeginCombo(label, current.c_str())) {
    for (Enum e : all) {
      const std::string name(to_string(e));
      if (ImGui::Selectable(name.c_str(), e == value)) {
        value = e;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

/// The tooltip of the last item.
void tip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

/// The tooltip of a parameter: its help, unit and range.
std::string param_tooltip(const ParamSpec& p) {
  std::string t = p.help;
  if (!p.unit.empty()) t += fmt::format(" [{}]", p.unit);
  if (!p.takes_text()) {
    const bool lo = p.min > -1e299, hi = p.max < 1e299;
    if (lo && hi) t += fmt::format(" (range {:g} to {:g})", p.min, p.max);
    else if (lo) t += fmt::format(" (at least {:g})", p.min);
  }
  if (p.rebuilds) t += ". Changing it restarts the field.";
  return t;
}

/// True unless the parameter is only meaningful under another's word ("boundary=fixed").
bool param_shown(const ParamSpec& p, const ParamValues& values) {
  if (p.shown_when.empty()) return true;
  const auto eq = p.shown_when.find('=');
  const auto it = values.find(p.shown_when.substr(0, eq));
  return it != values.end() && ss::to_string(it->second) == p.shown_when.substr(eq + 1);
}

/// One widget per parameter, drawn from its spec; edits go into s.params.
void param_widget(const ParamSpec& p, ParamValues& values) {
  ImGui::PushID(p.name.c_str());
  const std::string label = p.unit.empty() ? p.label : p.label;
  auto it = values.find(p.name);
  if (p.kind == ParamKind::file) {
    // The text as typed stays here until "load" (or Enter) puts it into the settings; the
    // simulation then reads the file, and a bad one is refused with a note, the run kept.
    struct Typed {
      std::array<char, 1024> text{};
      std::string seen;  // the value the text was last taken from
    };
    static std::map<std::string, Typed> typed;
    const std::string current = it != values.end() ? ss::to_string(it->second) : std::string();
    auto [entry, fresh] = typed.try_emplace(fmt::format("{}@{}", p.name, static_cast<const void*>(&values)));
    Typed& t = entry->second;
    if (fresh || current != t.seen) {  // first drawn, or changed elsewhere (a scene file, a preset, a load)
      std::snprintf(t.text.data(), t.text.size(), "%s", current.c_str());
      t.seen = current;
    }
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    const bool enter = ImGui::InputTextWithHint(label.c_str(), "none (a .npy path)", t.text.data(), t.text.size(),
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    const bool load = ImGui::SmallButton("load");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Read the file now (an empty path: none)");
    if (enter || load) values[p.name] = std::string(t.text.data());
  } else if (p.kind == ParamKind::choice) {
    const std::string current = it != values.end() ? ss::to_string(it->second) : p.default_choice;
    if (ImGui::BeginCombo(label.c_str(), current.c_str())) {
      for (const std::string& c : p.choices)
        if (ImGui::Selectable(c.c_str(), c == current)) values[p.name] = c;
      ImGui::EndCombo();
    }
  } else {
    double x = it != values.end() && std::holds_alternative<double>(it->second) ? std::get<double>(it->second)
                                                                                 : p.default_number;
    bool changed = false;
    if (p.kind == ParamKind::integer) {
      changed = ImGui::InputScalar(label.c_str(), ImGuiDataType_Double, &x, nullptr, nullptr, "%.0f",
                                   ImGuiInputTextFlags_EnterReturnsTrue);
    } else {
      changed = ImGui::InputDouble(label.c_str(), &x, 0, 0, p.zero_means_auto && x == 0 ? "auto" : "%.4g",
                                   ImGuiInputTextFlags_EnterReturnsTrue);
    }
    if (changed) values[p.name] = x;
    if (p.zero_means_auto) {
      ImGui::SameLine();
      if (ImGui::SmallButton("auto")) values[p.name] = 0.0;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("0: the model's default");
    }
  }
  help_marker(param_tooltip(p).c_str());
  ImGui::PopID();
}

void simulation_panel(SimSettings& s, const SimStatus& status, bool gpu_available, PanelActions& a) {
  const ModelInfo& info = model_of(s).info();
  ImGui::TextUnformatted(status.headline.c_str());

  if (ImGui::BeginCombo("model", info.name.c_str())) {
    for (const Model* m : models()) {
      const ModelInfo& mi = m->info();
      if (ImGui::Selectable(mi.name.c_str(), mi.name == info.name) && mi.name != info.name)
        switch_model(s, *m, status.backend.rfind("GPU", 0) == 0);  // each model's default scene
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", mi.description.c_str());
    }
    ImGui::EndCombo();
  }
  help_marker((info.description + ". Changing the model starts its default scene.").c_str());

  if (info.dims == 3) {
    int size[3] = {s.nx, s.ny, s.nz};
    if (ImGui::InputInt3("grid nx, ny, nz", size, ImGuiInputTextFlags_EnterReturnsTrue)) {
      s.nx = std::max(1, size[0]);
      s.ny = std::max(1, size[1]);
      s.nz = std::max(1, size[2]);
    }
    help_marker("Press Enter to apply. Resizing restarts the field.");
    for (int n : info.quick_sides) {
      if (ImGui::SmallButton(std::to_string(n).c_str())) s.nx = s.ny = s.nz = n;
      tip("A cubic grid of this side; the field restarts.");
      ImGui::SameLine();
    }
    ImGui::NewLine();
    // Slice positions: the XY slice moves along z, XZ along y, YZ along x.
    static constexpr const char* kSliceNames[] = {"XY slice z", "XZ slice y", "YZ slice x"};
    const int depth[3] = {s.nz, s.ny, s.nx};
    for (int k = 0; k < 3; ++k) {
      int pos = s.slice[k] < 0 ? depth[k] / 2 : s.slice[k];
      if (ImGui::SliderInt(kSliceNames[k], &pos, 0, std::max(0, depth[k] - 1))) s.slice[k] = pos;
      tip("The cell index the slice passes through (Ctrl+click to type it).");
    }
    help_marker("Drag to move a slice; painting on a slice paints a sphere in the volume.");
  } else {
    int size[2] = {s.nx, s.ny};
    if (ImGui::InputInt2("grid nx, ny", size, ImGuiInputTextFlags_EnterReturnsTrue)) {
      s.nx = std::max(1, size[0]);
      s.ny = std::max(1, size[1]);
    }
    help_marker("Press Enter to apply. Resizing restarts the field.");
    for (int n : info.quick_sides) {
      if (ImGui::SmallButton(std::to_string(n).c_str())) s.nx = s.ny = n;
      tip("A square grid of this side; the field restarts.");
      ImGui::SameLine();
    }
    ImGui::NewLine();
  }

  const std::string order_name = std::to_string(s.order);
  if (ImGui::BeginCombo("order", order_name.c_str())) {
    for (int o : info.orders)
      if (ImGui::Selectable(std::to_string(o).c_str(), o == s.order)) s.order = o;
    ImGui::EndCombo();
  }
  help_marker("Changes the stencil on the live field.");

  if (ImGui::BeginCombo("variant", s.variant.c_str())) {
    for (const VariantSpec& v : info.variants) {
      const bool unavailable = (v.gpu && !gpu_available) || !v.live;
      const std::string name = v.name + (v.gpu ? "  (GPU)" : "  (CPU)");
      ImGui::BeginDisabled(unavailable);
      if (ImGui::Selectable(name.c_str(), v.name == s.variant)) s.variant = v.name;
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        if (v.gpu && !gpu_available) ImGui::SetTooltip("needs a CUDA device: %s", status.gpu_unavailable.c_str());
        else ImGui::SetTooltip("%s", v.help.c_str());
      }
    }
    ImGui::EndCombo();
  }
  help_marker("Same device: changes on the live field. Between CPU and GPU: the field carries over.");

  for (const ParamSpec& p : info.params)
    if (param_shown(p, s.params)) param_widget(p, s.params);
  if (!info.presets.empty()) {
    if (ImGui::BeginCombo("preset", "choose...")) {
      for (const Preset& pr : info.presets) {
        if (ImGui::Selectable(pr.name.c_str()))
          for (const auto& [name, value] : pr.values) s.params[name] = value;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", pr.help.c_str());
      }
      ImGui::EndCombo();
    }
    help_marker("Sets several parameters at once; the field restarts.");
  }
  if (info.steps_in_time) {
    ImGui::Text("dt in use %.4e", status.dt);
    ImGui::Text("stability limit %.4e (dt = %.2f x limit)", status.dt_limit,
                status.dt_limit > 0 ? status.dt / status.dt_limit : 0.0);
  }
  ImGui::Separator();
  ImGui::Checkbox("adaptive steps per frame", &s.adaptive_steps);
  tip("Grow or shrink the steps per batch so stepping takes about the budget each frame.");
  if (s.adaptive_steps) {
    float budget = static_cast<float>(frame_budget_ms(s, status.on_gpu));
    if (ImGui::SliderFloat("budget (ms)", &budget, 1.0f, 50.0f, s.frame_budget_ms > 0 ? "%.1f" : "%.1f (auto)"))
      s.frame_budget_ms = budget;
    tip(fmt::format("Stepping time each batch aims at. Automatic: {:g} ms on the GPU (one batch, and one snapshot of "
                    "the views, a frame of a 60 Hz display), {:g} ms on the CPU. Right-click: back to automatic.",
                    kGpuFrameBudgetMs, kCpuFrameBudgetMs)
            .c_str());
    if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) s.frame_budget_ms = 0;
    ImGui::Text("%d steps per batch", status.batch_steps);
  } else {
    ImGui::SliderInt("steps per frame", &s.steps_per_frame, 1, 2000, "%d", ImGuiSliderFlags_Logarithmic);
    tip("A fixed number of time steps between two frames.");
  }
  bool max_speed = s.draw_every > 1;
  if (ImGui::Checkbox("max speed", &max_speed)) s.draw_every = max_speed ? 10 : 1;
  tip("For long runs: refresh the views only after every k-th batch, so the device steps while the window waits.");
  if (max_speed) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::SliderInt("k", &s.draw_every, 2, 1000, "draw every %d", ImGuiSliderFlags_Logarithmic);
    tip("Batches between two refreshes of the views.");
  }
  ImGui::Checkbox("pause (space)", &s.paused);
  tip("Stop stepping; the view, painting and the panels keep working.");
  ImGui::SameLine();
  if (ImGui::Button("step once")) a.step_once = true;
  tip("One batch of steps, then stay paused.");
  ImGui::SameLine();
  if (ImGui::Button("reset (R)")) a.reset = true;
  tip("Restart the field from its initial condition (time 0).");
}

/// Save and open a scene file (TOML) at a typed path.
void scene_file_section(SceneFileStatus& f, PanelActions& a) {
  ImGui::Separator();
  ImGui::InputText("scene file", f.path.data(), f.path.size());
  help_marker("A TOML file with the model, size, order, variant, parameters and view (docs in README).");
  if (ImGui::Button("save scene (Ctrl+S)")) a.save_scene = true;
  tip("Write the model, grid, order, variant, parameters and view to the scene file.");
  ImGui::SameLine();
  if (ImGui::Button("open scene (Ctrl+O)")) a.open_scene = true;
  tip("Read the scene file and restart from it; a bad file changes nothing.");
  if (ImGui::Button("save checkpoint")) a.save_checkpoint = true;
  tip("Write the scene and the running state (every field, step and time) to an HDF5 file next to the scene file "
      "(.h5 for .toml); `stencilscope --resume FILE.h5` goes on from it bit for bit.");
  if (!f.last_message.empty()) {
    if (f.last_failed) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.35f, 0.35f, 1));
    ImGui::TextWrapped("%s", f.last_message.c_str());
    if (f.last_failed) ImGui::PopStyleColor();
  }
}

/// The medium overlay's toggle and opacity, for models that name their medium's quantity.
void medium_overlay_controls(const ModelInfo& info, ViewSettings& v) {
  if (info.views.overlay_quantity.empty() || info.dims != 3) return;
  ImGui::Checkbox("medium overlay", &v.style.medium_overlay);
  tip(fmt::format("The medium ({}) as a translucent grey layer over each slice: dark slow, light fast.",
                  info.views.overlay_quantity)
          .c_str());
  if (v.style.medium_overlay) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::SliderFloat("opacity", &v.style.medium_opacity, 0.05f, 1.0f, "%.2f");
    tip("How much of the grey medium covers the field's colours.");
  }
}

void view_panel(ViewSettings& v, BrushSettings& brush, bool& screenshot_with_ui, const RecordingStatus& rec,
                const render::ValueRange& drawn, SceneFileStatus* scene_file, PanelActions& a) {
  enum_combo("colormap", v.style.colormap, render::kAllColormaps);
  tip("The colours values map to.");
  if (enum_combo("range", v.range_mode, render::kAllRangeModes)) a.reset_range = true;
  tip("auto: each frame's min and max; expanding: grows, never shrinks; fixed: the values typed below.");
  if (v.range_mode == render::RangeMode::fixed) {
    double r[2] = {v.fixed_range.lo, v.fixed_range.hi};
    if (ImGui::InputScalarN("min, max", ImGuiDataType_Double, r, 2, nullptr, nullptr, "%.4g",
                            ImGuiInputTextFlags_EnterReturnsTrue))
      v.fixed_range = {r[0], r[1]};
    tip("The values at the two ends of the colormap (Enter to apply).");
  } else if (v.range_mode == render::RangeMode::expanding) {
    if (ImGui::SmallButton("restart range")) a.reset_range = true;
    tip("Start the expanding range again from the current field.");
  }
  ImGui::Text("drawn range [%.4g, %.4g]", drawn.lo, drawn.hi);
  int sampling = v.style.sampling == render::Sampling::nearest ? 0 : 1;
  ImGui::RadioButton("nearest", &sampling, 0);
  tip("Each cell a flat square: what the solver holds.");
  ImGui::SameLine();
  ImGui::RadioButton("linear", &sampling, 1);
  tip("Colours blended between cell centres: smoother when zoomed in.");
  v.style.sampling = sampling == 0 ? render::Sampling::nearest : render::Sampling::linear;
  ImGui::Checkbox("colorbar", &v.style.colorbar);
  tip("The colour scale with its values, right of the views.");
  ImGui::Text("zoom %.2fx (wheel; pan: middle or ctrl+left drag)", v.style.transform.zoom);
  ImGui::SameLine();
  if (ImGui::SmallButton("fit")) a.reset_view = true;
  tip("Zoom 1, no pan: the whole field in view (F).");

  ImGui::Separator();
  ImGui::TextUnformatted("brush: left drag hot, right drag cold");
  float radius = static_cast<float>(brush.radius_cells);
  if (ImGui::SliderFloat("radius (cells)", &radius, 1.0f, 256.0f, "%.0f", ImGuiSliderFlags_Logarithmic))
    brush.radius_cells = radius;
  tip("The brush's radius, in cells (a sphere on a 3D model).");
  ImGui::InputDouble("hot", &brush.hot, 0.1, 1.0, "%.3g");
  tip("The value a left drag paints.");
  ImGui::InputDouble("cold", &brush.cold, 0.1, 1.0, "%.3g");
  tip("The value a right drag paints.");

  ImGui::Separator();
  if (ImGui::Button("screenshot (P)")) a.screenshot = true;
  tip("Save a PNG named by the date and time in the working directory.");
  ImGui::SameLine();
  ImGui::Checkbox("with UI", &screenshot_with_ui);
  tip("Screenshots and recordings show the panels too; off: the views over the whole frame.");
  if (ImGui::Button(rec.active ? "stop recording" : "record")) a.toggle_recording = true;
  tip("Record every frame to an MP4 (ffmpeg) or a PNG sequence; steps per frame are fixed while recording.");
  if (rec.active) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "REC %d frames", rec.frames);
  }
  if (!rec.description.empty()) ImGui::TextWrapped("%s", rec.description.c_str());
  if (!rec.last_message.empty()) ImGui::TextWrapped("%s", rec.last_message.c_str());
  if (scene_file) scene_file_section(*scene_file, a);
}

/// A run over MPI ranks: each rank's box and its step and exchange time in the last batch.
void distributed_table(const SimStatus& st) {
  ImGui::Text("distributed: %s", st.distributed.c_str());
  if (!st.distributed_note.empty()) help_marker(st.distributed_note.c_str());
  if (st.ranks.empty()) return;
  if (ImGui::BeginTable("ranks", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    // Widths given, not measured: the table appears with the first batch (and in a recording's frame).
    const char* columns[4][2] = {{"rank", "rank"}, {"box", "999x999x999"}, {"ms/step", "ms/step 00"},
                                 {"exchange", "exchange 0"}};
    for (const auto& [name, widest] : columns)
      ImGui::TableSetupColumn(name, ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(widest).x);
    ImGui::TableHeadersRow();
    for (const RankTiming& r : st.ranks) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.rank);
      ImGui::TableNextColumn();
      ImGui::Text("%dx%dx%d", r.box.n[0], r.box.n[1], r.box.n[2]);
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", r.step_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", r.exchange_ms);
    }
    ImGui::EndTable();
  }
  tip("Per step in the last batch: the rank's wall time, and the part of it in the halo exchange (waiting for a "
      "slower neighbour included). Only the three slices travel to rank 0.");
}

void performance_panel(SimSettings& s, const SimStatus& st, const FrameInfo& frame) {
  ImGui::Text("backend: %s", st.backend.c_str());
  ImGui::Text("upload: %s", st.upload_path ? std::string(to_string(*st.upload_path)).c_str() : "-");
  if (!st.interop_failure.empty()) ImGui::TextWrapped("not used: %s", st.interop_failure.c_str());
  tip("CUDA-GL interop: the staging slots in memory GL draws in place (shared, no map per frame) where the GL "
      "context and CUDA can, else the map path; STENCILSCOPE_INTEROP=shared|map|external|host forces one.");
  if (st.backend.rfind("GPU", 0) == 0) {
    bool host_copy = s.upload == UploadChoice::host_copy;
    if (ImGui::Checkbox("host copy instead of interop", &host_copy))
      s.upload = host_copy ? UploadChoice::host_copy : UploadChoice::automatic;
    help_marker("Copies device -> host -> texture every frame, to compare its cost with interop.");
  }
  ImGui::Text("copy bandwidth (start-up): %.1f GB/s", st.copy_gbps);
  if (!st.history.empty()) {
    const PerfSample& p = st.history.back();
    ImGui::Text("%.4f ms/step (%d steps per batch)", p.ms_per_step, p.steps);
    ImGui::Text("%.1f GB/s effective, %.2f x copy", p.gbps, p.copy_ratio);
    ImGui::Text("%.1f million cell updates/s", p.mcups);
    // The last ten seconds of batches.
    std::vector<float> gbps;
    const double now = st.history.back().t_s;
    for (const PerfSample& s : st.history)
      if (now - s.t_s <= 10.0) gbps.push_back(static_cast<float>(s.gbps));
    const float top = *std::max_element(gbps.begin(), gbps.end());
    ImGui::PlotLines("##gbps", gbps.data(), static_cast<int>(gbps.size()), 0, "GB/s, last 10 s", 0.0f, top * 1.2f + 1e-3f,
                     ImVec2(ImGui::GetContentRegionAvail().x, 70));
  } else {
    ImGui::TextDisabled("no batch measured yet");
  }
  if (!st.distributed.empty()) distributed_table(st);
  if (st.ab.active) {
    ImGui::Text("A/B run B: %s", st.ab.backend_b.c_str());
    if (!st.ab.history_b.empty()) {
      const PerfSample& b = st.ab.history_b.back();
      ImGui::Text("B %.4f ms/step, %.1f GB/s, %.2f x copy", b.ms_per_step, b.gbps, b.copy_ratio);
    }
    tip("Run B's last batch (A's figures are above); both step together, one after the other on the same device.");
  }
  ImGui::Separator();
  ImGui::Text("frame %.2f ms (%.0f fps)", frame.frame_ms, frame.frame_ms > 0 ? 1000.0 / frame.frame_ms : 0.0);
  ImGui::Text("upload %.3f ms, render %.3f ms (CPU side)", st.upload_ms, frame.render_ms);
  if (frame.render_gpu_ms >= 0) ImGui::Text("render %.3f ms (GPU, timer query)", frame.render_gpu_ms);
  bool checks = render::gl_error_checks();
  if (ImGui::Checkbox("GL error checks", &checks)) render::set_gl_error_checks(checks);
  help_marker("glGetError after each group of GL calls; off saves the round trips.");
}

/// A model's curve (hydro3d's E(k)) on log or linear axes, with its guide line through
/// the peak; points a log axis cannot show (non-positive) are left out.
void draw_curve(const Curve& c, long step) {
  std::vector<std::pair<double, double>> pts;
  for (std::size_t n = 0; n < c.x.size() && n < c.y.size(); ++n) {
    if ((c.log_x && !(c.x[n] > 0)) || (c.log_y && !(c.y[n] > 0)) || !std::isfinite(c.x[n]) || !std::isfinite(c.y[n])) continue;
    pts.emplace_back(c.log_x ? std::log10(c.x[n]) : c.x[n], c.log_y ? std::log10(c.y[n]) : c.y[n]);
  }
  ImGui::Text("%s at step %ld%s", c.name.c_str(), step, c.log_x && c.log_y ? " (log-log)" : "");
  if (pts.size() < 2) {
    ImGui::TextDisabled("  not enough points to draw");
    return;
  }
  double x0 = pts[0].first, x1 = x0, y0 = pts[0].second, y1 = y0;
  std::size_t peak = 0;
  for (std::size_t n = 0; n < pts.size(); ++n) {
    x0 = std::min(x0, pts[n].first), x1 = std::max(x1, pts[n].first);
    y0 = std::min(y0, pts[n].second), y1 = std::max(y1, pts[n].second);
    if (pts[n].second > pts[peak].second) peak = n;
  }
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float w = std::max(60.0f, ImGui::GetContentRegionAvail().x), h = 120.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(origin, ImVec2(origin.x + w, origin.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  auto to_px = [&](double x, double y) {
    return ImVec2(origin.x + static_cast<float>((x - x0) / (x1 - x0)) * (w - 8) + 4,
                  origin.y + h - 4 - static_cast<float>((y - y0) / (y1 - y0)) * (h - 8));
  };
  if (c.guide_slope != 0 && c.log_x && c.log_y) {  // y = y_peak (x / x_peak)^slope, from the peak on
    const auto [xp, yp] = pts[peak];
    const ImVec2 a = to_px(xp, yp), b = to_px(x1, yp + c.guide_slope * (x1 - xp));
    dl->PushClipRect(origin, ImVec2(origin.x + w, origin.y + h), true);
    dl->AddLine(a, b, IM_COL32(200, 200, 200, 160), 1.0f);
    dl->PopClipRect();
    dl->AddText(ImVec2(origin.x + w - 60, origin.y + 4), IM_COL32(200, 200, 200, 200), c.guide_label.c_str());
  }
  for (std::size_t n = 1; n < pts.size(); ++n)
    dl->AddLine(to_px(pts[n - 1].first, pts[n - 1].second), to_px(pts[n].first, pts[n].second),
                ImGui::GetColorU32(ImGuiCol_PlotLines), 1.5f);
  ImGui::Dummy(ImVec2(w, h));
  auto axis = [](double v, bool log) { return log ? std::pow(10.0, v) : v; };
  ImGui::TextDisabled("%s %.3g..%.3g, %s %.3g..%.3g", c.x_label.c_str(), axis(x0, c.log_x), axis(x1, c.log_x),
                      c.y_label.c_str(), axis(y0, c.log_y), axis(y1, c.log_y));
}

/// The probes: each one's value over time (the last samples), a remove button each, clear.
void probes_section(const SimStatus& st, PanelActions& a) {
  const ProbeSeries& p = st.probes;
  ImGui::Separator();
  ImGui::TextUnformatted("probes");
  if (p.cells.empty()) {
    ImGui::TextDisabled("Shift+click on a view places a probe");
    return;
  }
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const auto& c = p.cells[k];
    std::vector<float> v;
    for (double x : p.values[k])
      if (!std::isnan(x)) v.push_back(static_cast<float>(x));
    if (v.size() > 400) v.erase(v.begin(), v.end() - 400);
    const std::string where = fmt::format("({}, {}, {})", c[0], c[1], c[2]);
    const std::string overlay = fmt::format("{} {:.6g}", where, v.empty() ? 0.0 : v.back());
    ImGui::PushID(static_cast<int>(k));
    ImGui::PlotLines("##probe", v.data(), static_cast<int>(v.size()), 0, overlay.c_str(), FLT_MAX, FLT_MAX,
                     ImVec2(std::max(60.0f, ImGui::GetContentRegionAvail().x - 30), 40));
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) a.remove_probe = static_cast<int>(k);
    tip("Remove this probe.");
    ImGui::PopID();
  }
  if (ImGui::SmallButton("clear probes")) a.clear_probes = true;
  tip("Remove every probe (Shift+click on a view places one).");
}

/// The model's diagnostics over time: a plot per quantity (the last 10 s of samples) and
/// the CSV export of everything sampled.
void plots_panel(const SimStatus& st, PanelActions& a) {
  a.plots_visible = true;
  const DiagnosticSeries& d = st.diagnostics;
  if (d.names.empty()) {
    ImGui::TextDisabled(d.time.empty() ? "sampling..." : "this model reports no diagnostics");
    probes_section(st, a);
    return;
  }
  ImGui::Text("%zu samples, t = %.6g", d.time.size(), d.time.empty() ? 0.0 : d.time.back());
  for (std::size_t k = 0; k < d.names.size(); ++k) {
    std::vector<float> v(d.values[k].begin(), d.values[k].end());
    if (v.size() > 400) v.erase(v.begin(), v.end() - 400);
    const std::string overlay = fmt::format("{} {:.6g}", d.names[k], d.values[k].empty() ? 0.0 : d.values[k].back());
    ImGui::PlotLines(("##diag" + std::to_string(k)).c_str(), v.data(), static_cast<int>(v.size()), 0, overlay.c_str(),
                     FLT_MAX, FLT_MAX, ImVec2(-1, 46));
  }
  for (const Curve& c : d.curves) draw_curve(c, d.curves_step);
  probes_section(st, a);
  if (ImGui::Button("export CSV")) a.export_plots = true;
  tip("Write every sample so far (time, step and each quantity) to stencilscope-diagnostics.csv in the working folder, "
      "and the probes' values to stencilscope-probes.csv.");
}

/// A/B: a second run B of the same model from the same state, what differs for it, and
/// the live difference.
void ab_panel(SimSettings& s, const SimStatus& st, bool gpu_available) {
  const ModelInfo& info = model_of(s).info();
  AbSettings& ab = s.ab;
  ImGui::PushID("ab");
  ImGui::Checkbox("compare with a run B", &ab.enabled);
  tip("Run B beside this run (A) from the same state, stepping together; the views show A, B and B - A.");
  if (ab.enabled) {
    const std::string order = ab.order > 0 ? std::to_string(ab.order) : "same as A";
    if (ImGui::BeginCombo("B order", order.c_str())) {
      if (ImGui::Selectable("same as A", ab.order == 0)) ab.order = 0;
      for (int o : info.orders)
        if (ImGui::Selectable(std::to_string(o).c_str(), o == ab.order)) ab.order = o;
      ImGui::EndCombo();
    }
    tip("B's stencil order (e.g. 2 against A's 8: what the order buys).");
    const std::string variant = ab.variant.empty() ? "same as A" : ab.variant;
    if (ImGui::BeginCombo("B variant", variant.c_str())) {
      if (ImGui::Selectable("same as A", ab.variant.empty())) ab.variant.clear();
      for (const VariantSpec& v : info.variants) {
        ImGui::BeginDisabled((v.gpu && !gpu_available) || !v.live);
        if (ImGui::Selectable((v.name + (v.gpu ? "  (GPU)" : "  (CPU)")).c_str(), v.name == ab.variant)) ab.variant = v.name;
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", v.help.c_str());
      }
      ImGui::EndCombo();
    }
    tip("B's kernel variant (another kernel, the CPU, or a double-precision reference where the model has one).");
    std::string erase;
    for (const ParamSpec& p : info.params) {
      if (!ab.params.count(p.name)) continue;
      param_widget(p, ab.params);
      ImGui::SameLine();
      if (ImGui::SmallButton(("same##" + p.name).c_str())) erase = p.name;
      tip("B takes A's value again.");
    }
    if (!erase.empty()) ab.params.erase(erase);
    if (ImGui::BeginCombo("B parameter", "change one...")) {
      for (const ParamSpec& p : info.params)
        if (!ab.params.count(p.name) && ImGui::Selectable(p.label.c_str())) {
          const auto it = s.params.find(p.name);
          ab.params[p.name] = it != s.params.end() ? it->second
                                                            : p.default_value();
        }
      ImGui::EndCombo();
    }
    tip("Give B its own value of a parameter (B starts again from A's state).");
    const AbStatus& r = st.ab;
    if (r.active) {
      ImGui::TextWrapped("A: %s\nB: %s", r.a_label.c_str(), r.b_label.c_str());
      ImGui::Text("B - A at step %ld over %s:", r.steps, r.compared.c_str());
      ImGui::Text("relative L2 %.3e, max |B - A| %.3e", r.rel_l2, r.max_abs);
    } else {
      ImGui::TextDisabled("B is not running (see the note)");
    }
  }
  ImGui::PopID();
}

/// Sources (the tool, the list with remove buttons), receivers and the seismogram picture.
void sources_panel(const SimSettings& sim, const SimStatus& st, SourceTool& tool, PanelActions& a) {
  a.seismogram_visible = true;
  const std::vector<SourceKind>& kinds = model_of(sim).info().source_kinds;
  ImGui::TextWrapped("Click a slice while 'place mode' is on to put a source at that node; it fires at once.");
  ImGui::Checkbox("place mode", &tool.place_mode);
  tip("Left clicks on a slice place sources (untick to paint with the brush instead; Shift+click places a probe).");
  tool.kind = std::clamp(tool.kind, 0, static_cast<int>(kinds.size()) - 1);
  const std::string kind(to_string(kinds[static_cast<std::size_t>(tool.kind)]));
  if (ImGui::BeginCombo("kind", kind.c_str())) {
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (ImGui::Selectable(std::string(to_string(kinds[k])).c_str(), static_cast<int>(k) == tool.kind))
        tool.kind = static_cast<int>(k);
    ImGui::EndCombo();
  }
  ImGui::InputDouble("f0 [Hz]", &tool.f0_hz, 1, 5, "%.4g");
  tip("peak frequency of the Ricker wavelet");
  ImGui::InputDouble("amplitude", &tool.amplitude, 0.1, 1, "%.4g");
  tip("times the model's natural strength (docs/acoustic3d.md, docs/elastic3d.md)");
  const SourceKind chosen = kinds[static_cast<std::size_t>(tool.kind)];
  if (chosen == SourceKind::force) {
    float d[3] = {static_cast<float>(tool.direction[0]), static_cast<float>(tool.direction[1]),
                  static_cast<float>(tool.direction[2])};
    if (ImGui::InputFloat3("direction", d))
      for (int c = 0; c < 3; ++c) tool.direction[static_cast<std::size_t>(c)] = d[c];
  } else if (chosen == SourceKind::moment) {
    float m[6];
    for (int c = 0; c < 6; ++c) m[c] = static_cast<float>(tool.moment[static_cast<std::size_t>(c)]);
    bool edited = ImGui::InputFloat3("Mxx Myy Mzz", m);
    edited |= ImGui::InputFloat3("Mxy Mxz Myz", m + 3);
    if (edited)
      for (int c = 0; c < 6; ++c) tool.moment[static_cast<std::size_t>(c)] = m[c];
  }
  ImGui::Separator();
  ImGui::TextDisabled("sources");
  if (st.sources.empty()) ImGui::TextDisabled("none");
  for (std::size_t k = 0; k < st.sources.size(); ++k) {
    ImGui::PushID(static_cast<int>(k));
    if (ImGui::SmallButton("x")) a.remove_source = static_cast<int>(k);
    tip("remove this source (the waves it sent stay)");
    ImGui::SameLine();
    ImGui::TextWrapped("%zu: %s", k + 1, st.sources[k].c_str());
    ImGui::PopID();
  }
  ImGui::Separator();
  ImGui::TextDisabled("receivers");
  ImGui::TextWrapped("%s", st.receivers.c_str());
  if (!tool.receivers_edited && st.receiver_layout) tool.receivers = *st.receiver_layout;
  static constexpr const char* kPlanes[3] = {"yz (x =)", "xz (y =)", "xy (z =)"};
  ReceiverLayout& r = tool.receivers;
  bool edited = ImGui::Combo("plane", &r.axis, kPlanes, 3);
  edited |= ImGui::InputInt("position", &r.position);
  int shape = r.shape == ReceiverLayout::Shape::grid ? 1 : 0;
  edited |= ImGui::RadioButton("line", &shape, 0);
  ImGui::SameLine();
  edited |= ImGui::RadioButton("grid", &shape, 1);
  r.shape = shape == 1 ? ReceiverLayout::Shape::grid : ReceiverLayout::Shape::line;
  if (r.shape == ReceiverLayout::Shape::line) edited |= ImGui::InputInt("line at", &r.line_at);
  tip("the line's index along the plane's second axis (y on xy, z on xz and yz)");
  edited |= ImGui::InputInt("spacing", &r.spacing);
  if (edited) tool.receivers_edited = true;
  if (ImGui::Button("apply receivers")) {
    a.set_receivers = r;
    tool.receivers_edited = false;
  }
  tip("Move the receivers there; their traces start again.");
  ImGui::Separator();
  ImGui::TextDisabled("seismogram");
  if (st.seismogram.empty()) {
    ImGui::TextDisabled("sampling...");
    return;
  }
  ImGui::TextWrapped("%s, colours +- %.3g (time down)", st.seismogram.c_str(), st.seismogram_peak);
  if (st.seismogram_texture != 0) {
    const float w = ImGui::GetContentRegionAvail().x;
    const float h = std::min(420.0f, w * static_cast<float>(st.seismogram_height) / std::max(1, st.seismogram_width));
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(st.seismogram_texture)), ImVec2(w, std::max(h, 60.0f)));
  }
  if (ImGui::Button("export .npy + CSV")) a.export_seismogram = true;
  tip("Write the traces so far to stencilscope-seismogram.npy (steps, components, receivers) and .csv in the working "
      "folder.");
}

void validation_panel(const SimStatus& st, PanelActions& a) {
  a.validation_visible = true;
  const Validation& v = st.validation;
  if (v.available) {
    ImGui::Text("against the analytic solution at step %ld (t = %.6g):", v.steps, v.time);
    ImGui::Text("relative L2   %.3e", v.rel_l2);
    ImGui::Text("relative Linf %.3e", v.rel_linf);
  } else if (!v.why_not.empty()) {
    ImGui::TextWrapped("no analytic solution: %s", v.why_not.c_str());
  } else {
    ImGui::TextDisabled("measuring...");
  }
}

/// The banner sits centred over the views, right of the side bar.
void error_banner(const SimStatus& st, float side_bar_width, PanelActions& a) {
  if (st.error.empty() && st.note.empty()) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float views_x = vp->Pos.x + side_bar_width, views_w = std::max(1.0f, vp->Size.x - side_bar_width);
  ImGui::SetNextWindowPos(ImVec2(views_x + views_w * 0.5f, vp->Pos.y + 10), ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowBgAlpha(0.9f);
  ImGui::Begin("##message", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings);
  if (!st.error.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextColored(ImVec4(1, 0.35f, 0.35f, 1), "Paused: %s", st.error.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::Button("dismiss")) a.clear_error = true;
    ImGui::SameLine();
    if (ImGui::Button("reset")) a.reset = true;
  } else {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextUnformatted(st.note.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton("ok")) a.clear_error = true;
  }
  ImGui::End();
}

/// The keys and mouse actions, in a window over the views (F1 or the help button).
void help_window(float side_bar_width, bool& open) {
  static constexpr const char* kKeys[][2] = {
      {"Space", "pause / run"},
      {"R", "reset the field"},
      {"P, F12", "screenshot (PNG; 'with UI' in View decides the panels)"},
      {"H", "hide / show the side bar"},
      {"F", "fit the view (zoom 1, no pan)"},
      {"Ctrl+S, Ctrl+O", "save / open the scene file named in View"},
      {"F1", "this help"},
      {"wheel", "zoom about the cursor (2D field)"},
      {"middle drag, Ctrl+left drag", "pan (2D field)"},
      {"left drag", "paint hot (the brush in View)"},
      {"right drag", "paint cold"},
      {"Shift+left click", "place a probe (its value over time in Plots)"},
      {"left click, 'place mode'", "place a point source at the clicked node (models with sources; untick to paint)"},
  };
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + side_bar_width + (vp->Size.x - side_bar_width) * 0.5f,
                                 vp->Pos.y + vp->Size.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Keys and mouse", &open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                                ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
      for (const auto& [key, what] : kKeys) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(key);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(what);
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Keys act when no text field has the keyboard.");
  }
  ImGui::End();
}

}  // namespace

PanelActions draw_panels(SimSettings& sim, ViewSettings& view, BrushSettings& brush, bool& screenshot_with_ui,
                         const SimStatus& status, bool gpu_available, const RecordingStatus& recording,
                         const FrameInfo& frame, const render::ValueRange& drawn_range,
                         SceneFileStatus* scene_file, bool* help_open, SourceTool* source_tool) {
  PanelActions a;
  // One window pinned to the left edge, full height; only its right edge can be dragged.
  // It scrolls when the open sections are taller than the window.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float max_width = std::max(kSideBarMinWidth, vp->Size.x * kSideBarMaxFraction);
  ImGui::SetNextWindowPos(vp->Pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(kSideBarWidth, vp->Size.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSizeConstraints(ImVec2(kSideBarMinWidth, vp->Size.y), ImVec2(max_width, vp->Size.y));
  ImGui::SetNextWindowBgAlpha(1.0f);  // opaque: the views never show through
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin(kSideBarName, nullptr, flags)) {
    a.side_bar_width = ImGui::GetWindowWidth();
    if (help_open) {
      if (ImGui::SmallButton("help (F1)")) *help_open = !*help_open;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("The keys and mouse actions");
      ImGui::SameLine();
    }
    ImGui::TextDisabled("H hides this side bar");
    if (ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen))
      simulation_panel(sim, status, gpu_available, a);
    if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) {
      view_panel(view, brush, screenshot_with_ui, recording, drawn_range, scene_file, a);
      medium_overlay_controls(model_of(sim).info(), view);
    }
    if (sim.ab.enabled) ImGui::SetNextItemOpen(true, ImGuiCond_Once);  // --ab opens it
    if (ImGui::CollapsingHeader("A/B")) ab_panel(sim, status, gpu_available);
    if (ImGui::CollapsingHeader("Performance", ImGuiTreeNodeFlags_DefaultOpen)) performance_panel(sim, status, frame);
    if (ImGui::CollapsingHeader("Validation", ImGuiTreeNodeFlags_DefaultOpen)) validation_panel(status, a);
    if (!sim.probes.empty()) ImGui::SetNextItemOpen(true, ImGuiCond_Once);  // --probe opens it
    if (ImGui::CollapsingHeader("Plots")) plots_panel(status, a);  // closed: no sampling cost
    if (source_tool && !model_of(sim).info().source_kinds.empty() &&
        ImGui::CollapsingHeader("Sources & seismograms", ImGuiTreeNodeFlags_DefaultOpen))
      sources_panel(sim, status, *source_tool, a);
  } else {
    a.side_bar_width = ImGui::GetWindowWidth();
  }
  ImGui::End();
  error_banner(status, a.side_bar_width, a);
  if (help_open && *help_open) help_window(a.side_bar_width, *help_open);
  return a;
}

}  // namespace ss::app
