// What a whole sweep shares: the integration every case runs, what is kept of each, and what
// identifies the sweep in its results file (so that --resume and sweep-merge only join results
// of the same model and settings).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace appell::sweep {

/// What the results file keeps of each case (`--save`).
enum class Save {
  Series,   // t, q, q̇ (u), T, V, E on the common output grid, [case, time]
  Final,    // the final state and energies
  Summary,  // the final state and the extrema of every quantity over the rows
};

/// "series", "final", "summary".
std::string save_name(Save save);
/// Parses a save name; nullopt if unknown.
std::optional<Save> parse_save(const std::string& name);

struct SweepSettings {
  double t_end = 1.0;
  double output_step = 0.01;
  double rtol = 1e-8, atol = 1e-8;
  std::string integrator = "bdf";
  Save save = Save::Summary;

  // Identity (results file attributes).
  std::string model_name;
  std::string model_hash;      // SHA-256 of the model's canonical content (not of its file's bytes)
  std::string appell_version;  // APPELL_VERSION_STRING
  std::string command_line;    // as the user typed it (metadata only: never compared)
  std::vector<std::string> coordinates;  // the model's coordinate names, in order
  std::vector<std::string> speeds;       // its generalized speeds' names (empty without)
  /// The sweep's common values, as given (`--set NAME=VALUE`, `--input NAME=EXPR`), sorted by
  /// name: part of what a resumed sweep must repeat.
  std::vector<std::string> common_values;
};

/// The common output grid of every case: 0, H, 2H, ... and t_end last (the rows num::simulate
/// delivers for t_start = 0, output_step = H: num::output_times).
std::vector<double> output_times(const SweepSettings& settings);

}  // namespace appell::sweep
