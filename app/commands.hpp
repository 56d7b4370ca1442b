#pragma once
// Subcommands of the stencilscope executable.
#include <CLI/CLI.hpp>

#include <functional>

namespace ss::app {

/// Registers `bench MODEL ...` (any registered model; its flags and defaults come from the
/// registry) on the parser; the returned callback runs it and returns the exit code.
std::function<int()> add_bench_command(CLI::App& app);

/// Registers `models [--json]`; the returned callback lists the registry.
std::function<int()> add_models_command(CLI::App& app);

/// Registers `export`; the returned callback runs a scene and writes a field or view as .npy.
std::function<int()> add_export_command(CLI::App& app);

/// The ranks of this run (mpirun -np N; 1 without a launcher) and this process's rank.
int world_ranks();
int this_rank();

/// Registers `info`; the returned callback prints devices, copy bandwidth and build options.
std::function<int()> add_info_command(CLI::App& app);

}  // namespace ss::app
