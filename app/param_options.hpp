#pragma once
// Command-line options drawn from the model registry, shared by `bench`, `record` and
// the window: `--param NAME=VALUE` (repeatable) and one flag per parameter name of any
// registered model (`--alpha`, `--fixed-value`, `--axis`, ...), checked against the
// chosen model's description when the command runs.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/core/model.hpp"

namespace ss::app {

/// The parameter options as typed.
struct ParamArgs {
  std::map<std::string, std::string> flags;    ///< param name -> text of its --flag
  std::map<std::string, CLI::Option*> options;  ///< param name -> its --flag (to ask whether it was given)
  std::vector<std::string> assignments;         ///< the --param NAME=VALUE texts
};

/// The model of the default scene: the first registered (sim/models/list.inc).
std::string default_model();

/// The flag of parameter `name`: "--" + the name with '_' as '-' ("--fixed-value").
std::string flag_of(const std::string& name);

/// "2048x2048" (2D) or "256x256x256" (3D).
std::string size_text(const std::array<int, 3>& n, int dims);

/// A --size as typed for `info`'s dimensions: NXxNY (2D), NXxNYxNZ (3D), or one number
/// for a square or cube (nz 1 for 2D); throws ss::Error naming the text and showing
/// `example` as the expected form.
std::array<int, 3> parse_grid_size(const std::string& text, const ModelInfo& info, const std::array<int, 3>& example);

/// Adds --param and a flag per parameter name of every registered model to `cmd`.
/// The flag is `--` + the name with '_' as '-'; boundary and initial keep their
/// aliases --bc and --ic.
void add_param_options(CLI::App* cmd, ParamArgs& args);

/// The values given for `model`, parsed and checked against its specs; throws
/// ss::Error for a flag of a parameter the model does not have ("--axis applies to
/// deriv3d only (model 'heat3d')"), a malformed --param, or a value out of range.
/// bench: parameters that sweep in bench also take "all".
ParamValues parse_params(const ParamArgs& args, const Model& model, bool bench);

/// Point sources and receivers as typed (export, bench, record and the window): --point-source
/// SPEC (repeatable; replaces the model's configured source), --receivers LAYOUT and
/// --seismogram BASE (write BASE.npy and BASE.csv).
struct SourceArgs {
  std::vector<std::string> sources;
  std::string receivers;
  std::string seismogram;
  bool any() const { return !sources.empty() || !receivers.empty() || !seismogram.empty(); }
};

/// Adds --point-source, --receivers and --seismogram to `cmd`.
void add_source_options(CLI::App* cmd, SourceArgs& args);

/// The typed sources and receivers, parsed (not yet checked against a grid); throws
/// ss::Error ("--point-source 'force:1,2': ...").
std::vector<SourceSpec> parse_sources(const SourceArgs& args);
std::optional<ReceiverLayout> parse_receivers(const SourceArgs& args);

/// Puts them on `sim`: the given sources replace its own, the receivers move. Throws
/// ss::Error naming the option (outside the grid, a kind the model lacks, no sources in
/// the model); `sim` may be half changed then (the command ends).
void apply_source_args(const SourceArgs& args, Simulation& sim);

/// Writes sim's seismogram to BASE.npy and BASE.csv (after queued work) and says so on
/// stdout; throws ss::Error.
void write_seismogram_files(const std::string& base, Simulation& sim);

}  // namespace ss::app
