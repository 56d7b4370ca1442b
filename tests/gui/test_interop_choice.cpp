// Which CUDA-GL upload path a texture takes (render/interop.hpp): the map path where there
// is a device, else the host copy; the queued frames' slots go to shared memory where the
// GL context advertises the two memory-object extensions and CUDA can export memory;
// STENCILSCOPE_INTEROP forces one and refuses other values in one clear line. No GPU
// needed; the last tests ask a headless GL context (Mesa here) and skip without one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/interop.hpp"

using namespace ss;
using namespace ss::render;
using Paths = std::vector<InteropPath>;

namespace {

const std::vector<std::string> kAllFour{"GL_ARB_texture_float", "GL_EXT_memory_object", "GL_EXT_memory_object_fd",
                                        "GL_EXT_semaphore", "GL_EXT_semaphore_fd", "GL_KHR_debug"};

/// The support a context with `extensions` and a device of these abilities reports.
InteropSupport support(const std::vector<std::string>& extensions, bool device, bool exports) {
  InteropSupport s;
  s.gl_external_objects = missing_external_gl_extensions(extensions).empty();
  s.gl_memory_objects = missing_gl_extensions(shared_gl_extensions(), extensions).empty();
  s.cuda_device = device;
  s.cuda_export = exports;
  return s;
}

/// Sets STENCILSCOPE_INTEROP for one scope, restoring what was there.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* value) {
    if (const char* old = std::getenv("STENCILSCOPE_INTEROP")) old_ = old;
    if (value) setenv("STENCILSCOPE_INTEROP", value, 1);
    else unsetenv("STENCILSCOPE_INTEROP");
  }
  ~ScopedEnv() {
    if (old_) setenv("STENCILSCOPE_INTEROP", old_->c_str(), 1);
    else unsetenv("STENCILSCOPE_INTEROP");
  }

 private:
  std::optional<std::string> old_;
};

}  // namespace

TEST(InteropChoice, TheEnvironmentValuesNameThePaths) {
  EXPECT_EQ(parse_interop_path("map"), InteropPath::map);
  EXPECT_EQ(parse_interop_path("external"), InteropPath::external);
  EXPECT_EQ(parse_interop_path("shared"), InteropPath::shared);
  EXPECT_EQ(parse_interop_path("host"), InteropPath::host);
  EXPECT_EQ(parse_interop_path(""), std::nullopt) << "empty: automatic";
  for (InteropPath p : {InteropPath::shared, InteropPath::map, InteropPath::external, InteropPath::host})
    EXPECT_EQ(parse_interop_path(to_string(p)), p) << "to_string gives the value that forces it";
}

TEST(InteropChoice, ABadValueIsRefusedInOneLineNamingTheVariableAndTheChoices) {
  for (const char* bad : {"MAP", "interop", "external ", "host-copy", "auto", "0"}) {
    SCOPED_TRACE(bad);
    try {
      parse_interop_path(bad);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("STENCILSCOPE_INTEROP='" + std::string(bad) + "'"), std::string::npos) << m;
      EXPECT_NE(m.find("shared, map, external or host"), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(InteropChoice, TheOverrideComesFromTheEnvironment) {
  {
    const ScopedEnv unset(nullptr);
    EXPECT_EQ(interop_override(), std::nullopt);
  }
  {
    const ScopedEnv empty("");
    EXPECT_EQ(interop_override(), std::nullopt);
  }
  {
    const ScopedEnv map("map");
    EXPECT_EQ(interop_override(), InteropPath::map);
  }
  {
    const ScopedEnv bad("surface");
    EXPECT_THROW(interop_override(), Error);
  }
}

TEST(InteropChoice, TheExternalPathNeedsAllFourGlExtensions) {
  EXPECT_TRUE(missing_external_gl_extensions(kAllFour).empty());
  EXPECT_EQ(external_gl_extensions().size(), 4u);
  for (std::size_t k = 0; k < external_gl_extensions().size(); ++k) {
    std::vector<std::string> three;
    for (std::size_t j = 0; j < external_gl_extensions().size(); ++j)
      if (j != k) three.emplace_back(external_gl_extensions()[j]);
    const auto missing = missing_external_gl_extensions(three);
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_EQ(missing[0], external_gl_extensions()[k]);
  }
  // Prefixes and look-alikes are not the extension.
  const auto missing = missing_external_gl_extensions(std::vector<std::string>{
      "GL_EXT_memory_object_win32", "GL_EXT_semaphore_win32", "GL_EXT_memory_objec", "GL_NV_semaphore"});
  EXPECT_EQ(missing.size(), 4u);
  EXPECT_EQ(missing_external_gl_extensions({}).size(), 4u);
}

// Automatic: the map path wherever there is a device (the faster on the GPUs measured, even
// where the context and the device allow the external one), else the host copy.
TEST(InteropChoice, AutomaticTakesTheMapPathWhereThereIsADevice) {
  using enum InteropPath;
  EXPECT_EQ(interop_paths_to_try(support(kAllFour, true, true), std::nullopt), (Paths{map, host}));
  const std::vector<std::string> no_semaphores{"GL_EXT_memory_object", "GL_EXT_memory_object_fd"};
  EXPECT_EQ(interop_paths_to_try(support(no_semaphores, true, true), std::nullopt), (Paths{map, host}));
  EXPECT_EQ(interop_paths_to_try(support(kAllFour, true, false), std::nullopt), (Paths{map, host}));
  // No device: the host copy only, whatever GL advertises.
  EXPECT_EQ(interop_paths_to_try(support(kAllFour, false, false), std::nullopt), (Paths{host}));
  EXPECT_EQ(interop_paths_to_try(support({}, false, false), std::nullopt), (Paths{host}));
}

TEST(InteropChoice, AForcedPathIsTriedAloneThenTheHostCopy) {
  using enum InteropPath;
  for (const InteropSupport& s : {support(kAllFour, true, true), support({}, true, false), support({}, false, false)}) {
    EXPECT_EQ(interop_paths_to_try(s, map), (Paths{map, host}));
    EXPECT_EQ(interop_paths_to_try(s, external), (Paths{external, host})) << "tried, and fails saying why";
    EXPECT_EQ(interop_paths_to_try(s, host), (Paths{host}));
  }
}

// The queued frames' slots: shared memory where the context has GL_EXT_memory_object and
// _fd (no semaphores needed) and CUDA exports memory; forced shared always (it fails at
// its first slot, saying why, where it cannot), any other forced path never. A texture's
// own store then takes the map path (a forced shared included).
TEST(InteropChoice, TheSlotsAreSharedWhereGlImportsMemoryAndCudaExportsIt) {
  using enum InteropPath;
  const std::vector<std::string> memory_only{"GL_EXT_memory_object", "GL_EXT_memory_object_fd"};
  EXPECT_TRUE(use_shared_slots(support(memory_only, true, true), std::nullopt));
  EXPECT_TRUE(use_shared_slots(support(kAllFour, true, true), std::nullopt));
  EXPECT_FALSE(use_shared_slots(support({"GL_EXT_memory_object"}, true, true), std::nullopt));
  EXPECT_FALSE(use_shared_slots(support(memory_only, true, false), std::nullopt)) << "CUDA cannot export";
  EXPECT_FALSE(use_shared_slots(support(memory_only, false, false), std::nullopt)) << "no device";
  for (const InteropSupport& s : {support(kAllFour, true, true), support({}, false, false)}) {
    EXPECT_TRUE(use_shared_slots(s, shared));
    for (InteropPath p : {map, external, host}) EXPECT_FALSE(use_shared_slots(s, p)) << to_string(p);
    EXPECT_EQ(texture_paths_to_try(s, shared), (Paths{map, host}));
    EXPECT_EQ(texture_paths_to_try(s, external), interop_paths_to_try(s, external));
    EXPECT_EQ(texture_paths_to_try(s, std::nullopt), interop_paths_to_try(s, std::nullopt));
  }
  EXPECT_EQ(shared_gl_extensions().size(), 2u);
  EXPECT_EQ(missing_gl_extensions(shared_gl_extensions(), std::vector<std::string>{"GL_EXT_memory_object_fd"}).size(), 1u);
}

TEST(InteropChoice, TheEnvironmentDecidesThroughTheSameFunction) {
  using enum InteropPath;
  const InteropSupport all = support(kAllFour, true, true);
  const std::vector<std::pair<const char*, Paths>> cases{
      {nullptr, {map, host}}, {"", {map, host}}, {"map", {map, host}},
      {"external", {external, host}}, {"host", {host}}};
  for (const auto& [value, expected] : cases) {
    SCOPED_TRACE(value ? value : "(unset)");
    const ScopedEnv env(value);
    EXPECT_EQ(interop_paths_to_try(all, interop_override()), expected);
  }
}

// The real query on this machine's headless context: what the context advertises decides
// gl_external_objects; without a CUDA device (or without CUDA) only the host copy is left,
// and connecting a texture by either interop path fails saying why.
TEST(InteropChoice, TheQueryReadsTheCurrentContext) {
  std::unique_ptr<HeadlessContext> context;
  try {
    context = std::make_unique<HeadlessContext>();
  } catch (const Error& e) {
    GTEST_SKIP() << "no headless GL context: " << e.what();
  }
  std::string why;
  std::string why_shared;
  const InteropSupport s = query_interop_support(&why, &why_shared);
  EXPECT_EQ(s.gl_external_objects, missing_external_gl_extensions(gl_extensions()).empty()) << context->description();
  EXPECT_EQ(s.gl_memory_objects, missing_gl_extensions(shared_gl_extensions(), gl_extensions()).empty());
  if (s.cuda_device) GTEST_SKIP() << "a CUDA device is here: the GPU test covers it";
  EXPECT_FALSE(s.cuda_export);
  EXPECT_FALSE(why.empty()) << "says why the external path is out";
  EXPECT_FALSE(why_shared.empty()) << "says why the shared path is out";
  EXPECT_FALSE(use_shared_slots(s, std::nullopt));
  EXPECT_EQ(interop_paths_to_try(s, std::nullopt), (Paths{InteropPath::host}));
  try {
    SharedFieldBuffer b(37, 11);
    ADD_FAILURE() << "shared memory without a CUDA device";
  } catch (const Error& e) {
    EXPECT_GT(std::string(e.what()).size(), 5u);
  }
  const FieldTexture texture(37, 11);
  for (InteropPath p : {InteropPath::shared, InteropPath::external, InteropPath::map, InteropPath::host}) {
    SCOPED_TRACE(to_string(p));
    try {
      FieldInterop interop(texture, p);
      ADD_FAILURE() << "connected without a CUDA device";
    } catch (const Error& e) {
      EXPECT_GT(std::string(e.what()).size(), 5u);
    }
  }
}
