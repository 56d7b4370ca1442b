#pragma once
// Command-line options drawn from the model registry, shared by `bench`, `record` and
// the window: `--param NAME=VALUE` (repeatable) and one flag per parameter name of any
// registered model (`--alpha`, `--fixed-value`, `--axis`, ...), checked against the
// chosen model's description when the command runs.
#include <array>
#include <map>
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

}  // namespace ss::app
