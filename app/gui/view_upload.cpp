#include "view_upload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/views.hpp"

namespace ss::app {

std::string_view to_string(UploadPath p) {
  switch (p) {
    case UploadPath::shared: return "CUDA-GL interop (shared slots)";
    case UploadPath::interop: return "CUDA-GL interop (map)";
    case UploadPath::external: return "CUDA-GL interop (external memory)";
    case UploadPath::host_copy: return "device -> host -> texture copy";
    case UploadPath::cpu_backend: return "CPU backend (glTexSubImage2D)";
  }
  return "?";
}

bool is_interop(UploadPath p) {
  return p == UploadPath::shared || p == UploadPath::interop || p == UploadPath::external;
}

render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  bool finite = true;
  for (int j = 0; j < ny; ++j) {
    const float* row = first_cell + static_cast<std::size_t>(j) * row_pitch;
    for (int i = 0; i < nx; ++i) {
      const float v = row[i];
      if (!std::isfinite(v)) {
        finite = false;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  render::FieldStats s;
  s.finite = finite;
  if (lo <= hi) s.range = {lo, hi};
  return s;
}

render::FieldStats merge(const render::FieldStats& a, const render::FieldStats& b) {
  render::FieldStats m;
  m.finite = a.finite && b.finite;
  m.range = {std::min(a.range.lo, b.range.lo), std::max(a.range.hi, b.range.hi)};
  return m;
}

bool ViewUploader::interop_ready(std::span<render::FieldTexture* const> textures) {
  if (paths_.empty()) {  // once: the GL context and the device stay
    const std::optional<render::InteropPath> forced = render::interop_override();
    std::string why_not_external;
    paths_ = render::texture_paths_to_try(render::query_interop_support(&why_not_external), forced);
    path_ = 0;
    failure_.clear();
    if (forced == render::InteropPath::host) failure_ = "STENCILSCOPE_INTEROP=host forces the host copy";
    else if (!forced && paths_.front() == render::InteropPath::host) failure_ = why_not_external;
  }
  interop_.resize(textures.size());
  registered_.resize(textures.size(), 0);
  bool changed = false;
  for (std::size_t v = 0; v < textures.size(); ++v) changed = changed || registered_[v] != textures[v]->gl_name();
  if (!changed)
    return std::all_of(interop_.begin(), interop_.end(), [](const auto& i) { return i.has_value(); });
  // Connect the new textures by the path in use; a path that fails one is left for the
  // next, for every texture (a frame's textures share one path).
  while (paths_[path_] != render::InteropPath::host) {
    try {
      for (std::size_t v = 0; v < textures.size(); ++v) {
        if (registered_[v] == textures[v]->gl_name() && interop_[v]) continue;
        interop_[v].reset();
        registered_[v] = 0;
        interop_[v].emplace(*textures[v], paths_[path_]);
        registered_[v] = textures[v]->gl_name();
      }
      return true;
    } catch (const Error& e) {
      failure_ += (failure_.empty() ? "" : "; ") + std::string(render::to_string(paths_[path_])) + ": " + e.what();
      for (auto& i : interop_) i.reset();
      ++path_;
    }
  }
  for (std::size_t v = 0; v < textures.size(); ++v) {  // the host copy: not tried again for these textures
    interop_[v].reset();
    registered_[v] = textures[v]->gl_name();
  }
  return false;
}

bool ViewUploader::shared_slots() {
  if (!shared_) {  // once: the GL context and the device stay
    std::string why;
    const std::optional<render::InteropPath> forced = render::interop_override();
    shared_ = render::use_shared_slots(render::query_interop_support(nullptr, &why), forced);
    if (!*shared_ && !forced) shared_failure_ = why;
  }
  return *shared_;
}

void ViewUploader::release_displayed() {
  if (displayed_ < 0) return;
  slots_.at(static_cast<std::size_t>(displayed_))->drawn.set();
  displayed_ = -1;
}

UploadPath ViewUploader::interop_path() const {
  return !paths_.empty() && paths_[path_] == render::InteropPath::external ? UploadPath::external : UploadPath::interop;
}

void ViewUploader::refresh(const Simulation& sim) {
  if (!pending_) return;
  if (pending_slot_ >= 0 ? !slots_[static_cast<std::size_t>(pending_slot_)]->released.done() : !sim.idle()) return;
  std::optional<render::FieldStats> all;
  for (const auto& i : interop_) {
    if (!i) return;
    all = all ? merge(*all, i->last_stats()) : i->last_stats();
  }
  stats_ = all;
  pending_ = false;
}

UploadPath ViewUploader::upload(Simulation& sim, std::span<render::FieldTexture* const> textures,
                                const ViewPlacement& where, bool allow_interop) {
  const int views = sim.views();
  std::optional<render::FieldStats> all;
  auto add = [&](const render::FieldStats& st) { all = all ? merge(*all, st) : st; };
  release_displayed();  // the textures' own stores from now on
  for (render::FieldTexture* t : textures) t->show_own();
  if (!sim.on_gpu()) {
    for (int v = 0; v < views; ++v) {
      const FieldView f = sim.view(v, where);
      render::FieldTexture& texture = *textures[static_cast<std::size_t>(v)];
      if (f.u_stride == 1) {  // rows are contiguous: straight from the field
        texture.upload_host(f.data + f.offset, f.v_stride);
        add(field_stats(f.data + f.offset, f.nu, f.nv, f.v_stride));
      } else {
        host_.resize(static_cast<std::size_t>(f.nu) * f.nv);
        copy_host_view(f, host_.data());
        texture.upload_host(host_.data(), static_cast<std::size_t>(f.nu));
        add(field_stats(host_.data(), f.nu, f.nv, static_cast<std::size_t>(f.nu)));
      }
    }
    stats_ = all;
    pending_ = false;
    return UploadPath::cpu_backend;
  }
  // The previous writes have finished when the stream is idle (uploads happen between
  // batches): take their stats before the next writes reuse their buffers. In the window
  // this makes the auto range and the NaN check lag one batch; recordings wait, no lag.
  if (stream_) stream_->synchronize();  // a show() still writing would race the writes below
  refresh(sim);
  pending_slot_ = -1;
  if (allow_interop && interop_ready(textures)) {
    std::vector<render::FieldInterop::Write> writes;
    void* stream = nullptr;
    for (int v = 0; v < views; ++v) {
      const FieldView f = sim.view(v, where);
      writes.push_back({&*interop_[static_cast<std::size_t>(v)], f.data + f.offset, f.u_stride, f.v_stride});
      stream = f.stream;  // every view of a simulation is on its stream
    }
    render::FieldInterop::write_all(writes, stream);  // one map (or semaphore pair) for all the views
    pending_ = true;
    return interop_path();
  }
  pending_ = false;
  for (int v = 0; v < views; ++v) {
    const auto [nu, nv] = sim.view_size(v);
    host_.resize(static_cast<std::size_t>(nu) * nv);
    sim.copy_view(v, where, host_.data());  // only the view crosses the bus
    textures[static_cast<std::size_t>(v)]->upload_host(host_.data(), static_cast<std::size_t>(nu));
    add(field_stats(host_.data(), nu, nv, static_cast<std::size_t>(nu)));
  }
  stats_ = all;
  return UploadPath::host_copy;
}

void ViewUploader::snapshot(Simulation& sim, const ViewPlacement& where, int slot_index) {
  auto& slot = slots_.at(static_cast<std::size_t>(slot_index));
  if (!slot) slot.emplace();
  if (slot_index == displayed_) throw Error("internal: a snapshot into the staging slot the views show");
  slot->drawn.wait();  // shared path: GL has passed its last draw from the slot
  const int views = sim.views();
  slot->views.resize(static_cast<std::size_t>(views));
  slot->shared.resize(static_cast<std::size_t>(views));
  slot->sizes.resize(static_cast<std::size_t>(views));
  bool to_shared = false;
  if (shared_slots()) {  // the slot's views in shared memory, made for their sizes
    try {
      for (int v = 0; v < views; ++v) {
        const auto [nu, nv] = sim.view_size(v);
        auto& b = slot->shared[static_cast<std::size_t>(v)];
        if (b && b->nx() == nu && b->ny() == nv) continue;
        slot->taken.synchronize();  // no copy still writes the old one,
        slot->released.synchronize();  // nor reads it
        b.reset();
        check_device_memory(static_cast<std::size_t>(nu) * nv * sizeof(float), "a staging slot of the window's views");
        b.emplace(nu, nv);
      }
      to_shared = true;
    } catch (const Error& e) {  // e.g. a view larger than a buffer texture: the map path from now on
      shared_ = false;
      shared_failure_ = e.what();
      for (auto& b : slot->shared) b.reset();
    }
  }
  slot->in_shared = to_shared;
  for (int v = 0; v < views; ++v) {
    const FieldView f = sim.view(v, where);
    static const bool no_wait = render::interop_probe("no-wait");  // measuring only: unsafe
    if (v == 0 && slot->shown && !no_wait) slot->released.order_before(f.stream);  // show() has finished reading it
    const std::size_t k = static_cast<std::size_t>(v);
    slot->sizes[k] = {f.nu, f.nv};
    if (to_shared) {
      slot->shared[k]->write(f.data + f.offset, f.u_stride, f.v_stride, f.stream);
      if (v == views - 1) slot->taken.record(f.stream);
      continue;
    }
    // Growing frees the buffer: only when nothing queued reads it (the stream waits for
    // the last show() above, but a cudaFree does not queue behind it).
    if (slot->views[k].size() < static_cast<std::size_t>(f.nu) * f.nv) {
      slot->taken.synchronize();
      slot->released.synchronize();
      check_device_memory(static_cast<std::size_t>(f.nu) * f.nv * sizeof(float), "a staging slot of the window's views");
      slot->views[k].reserve(static_cast<std::size_t>(f.nu) * f.nv);
    }
    gather_view_async(f, slot->views[k].data(), f.stream);
    if (v == views - 1) slot->taken.record(f.stream);
  }
}

bool ViewUploader::snapshot_done(int slot) const {
  const auto& s = slots_.at(static_cast<std::size_t>(slot));
  return !s || s->taken.done();
}

UploadPath ViewUploader::show(int slot_index, std::span<render::FieldTexture* const> textures, bool allow_interop,
                              void* sim_stream) {
  Slot& slot = *slots_.at(static_cast<std::size_t>(slot_index));
  if (!stream_) stream_.emplace();
  static const bool on_sim_stream = render::interop_probe("sim-stream");
  void* const copies = on_sim_stream && sim_stream ? sim_stream : stream_->get();
  const std::size_t views = std::min(textures.size(), slot.sizes.size());
  if (allow_interop && slot.in_shared) {  // in place: the snapshot has finished (poll saw it)
    if (displayed_ != slot_index) release_displayed();
    std::optional<render::FieldStats> all;
    for (std::size_t v = 0; v < views; ++v) {
      const render::SharedFieldBuffer& b = *slot.shared[v];
      textures[v]->show_buffer(b.buffer_texture(), b.gl_buffer());
      all = all ? merge(*all, b.last_stats()) : b.last_stats();
    }
    displayed_ = slot_index;
    stats_ = all;
    pending_ = false;
    slot.shown = false;  // no copy of show()'s reads it: nothing for a snapshot's stream to wait for
    return UploadPath::shared;
  }
  release_displayed();
  for (render::FieldTexture* t : textures) t->show_own();
  UploadPath path = UploadPath::host_copy;
  if (allow_interop && interop_ready(textures)) {  // a texture is connected only when it is to be used
    path = interop_path();
    std::vector<render::FieldInterop::Write> writes;
    for (std::size_t v = 0; v < views; ++v)  // device to device
      writes.push_back({&*interop_[v], slot.view_data(v), 1, static_cast<std::size_t>(slot.sizes[v][0])});
    render::FieldInterop::write_all(writes, copies);  // one map for all the views, for these copies only
    pending_ = true;
    pending_slot_ = slot_index;
  } else {
    path = UploadPath::host_copy;
    std::optional<render::FieldStats> all;
    for (std::size_t v = 0; v < views; ++v) {
      const auto [nu, nv] = slot.sizes[v];
      const std::size_t n = static_cast<std::size_t>(nu) * nv;
      pinned_.reserve(n);
      copy_to_host_async(pinned_.data(), slot.view_data(v), n, stream_->get());
      stream_->synchronize();  // this copy only: the simulation's stream runs on
      textures[v]->upload_host(pinned_.data(), static_cast<std::size_t>(nu));
      const render::FieldStats st = field_stats(pinned_.data(), nu, nv, static_cast<std::size_t>(nu));
      all = all ? merge(*all, st) : st;
    }
    stats_ = all;
    pending_ = false;
  }
  slot.released.record(copies);
  slot.shown = true;
  return path;
}

std::optional<render::FieldStats> ViewUploader::stats(const Simulation& sim) {
  refresh(sim);
  return stats_;
}

}  // namespace ss::app
