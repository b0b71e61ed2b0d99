// Shared pieces of the command line: each command lives in its own cmd_*.cpp and registers
// itself with add_*_command(); main() parses and runs the chosen one.
#pragma once

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "appell/io/urdf_reader.hpp"
#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::cli {

/// A registered subcommand and what to run when it was chosen (returns the exit code).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
using Commands = std::vector<Command>;

void add_demo_command(CLI::App& app, Commands& commands);
void add_derive_command(CLI::App& app, Commands& commands);
void add_eval_command(CLI::App& app, Commands& commands);
void add_codegen_command(CLI::App& app, Commands& commands);
void add_simulate_command(CLI::App& app, Commands& commands);
void add_inverse_command(CLI::App& app, Commands& commands);
void add_verify_command(CLI::App& app, Commands& commands);
void add_statics_command(CLI::App& app, Commands& commands);
void add_fem_command(CLI::App& app, Commands& commands);
void add_import_command(CLI::App& app, Commands& commands);
void add_report_command(CLI::App& app, Commands& commands);
void add_check_command(CLI::App& app, Commands& commands);
void add_linearize_command(CLI::App& app, Commands& commands);
void add_regressor_command(CLI::App& app, Commands& commands);
void add_sweep_merge_command(CLI::App& app, Commands& commands);
/// `sweep` records its command line (argv) in the results file.
void add_sweep_command(CLI::App& app, Commands& commands, int argc, char** argv);

/// How a URDF model is read (--gravity GX,GY,GZ, --joint-damping, --symbolic-inertia,
/// --floating-base, --exact-angles): options of
/// every command that reads a model, refused for a YAML model (which says all of it itself).
struct UrdfFlags {
  std::string gravity;
  bool joint_damping = false;
  bool symbolic_inertia = false;
  bool floating_base = false;
  bool exact_angles = false;
};
void add_urdf_options(CLI::App& command, UrdfFlags& flags);
/// The flags as the library's options (--gravity checked: three finite numbers).
io::UrdfOptions urdf_options(const UrdfFlags& flags);
/// The model file at `path`, YAML or URDF by its content (io::read_model), its warnings printed
/// on stderr; a URDF flag with a YAML model is a usage error.
std::shared_ptr<const model::Model> read_model(const std::string& path, const UrdfFlags& flags);

/// Bad command-line usage: exit code 2 like a bad model, "located" at the option.
model::ModelError usage_error(const std::string& option, const std::string& message,
                              const std::string& offending = "");
/// A library error located at a name of the library's (e.g. "t_end", "trajectory": library errors
/// never name a flag) relocated at the option that gave the value, by `options` (library name ->
/// option, e.g. {"t_end", "--t-end"}): the same line, column, message and offending name. An
/// error located anywhere else (a model file, an option already) is returned as it is.
model::ModelError at_option(const model::ModelError& error,
                            const std::map<std::string, std::string>& options);
/// A finite number as written (no trailing characters), or usage_error: "not a number", or "not
/// a finite number" for nan, inf and what overflows a double (1e999).
double parse_number(const std::string& option, const std::string& text);
/// "V1,V2,.." as numbers (parse_number each); an empty item ("1,,2", "1,", "") is a usage_error.
std::vector<double> parse_list(const std::string& option, const std::string& text);

/// The model's initial coordinates and velocities (`initial`, `velocity`; 0 when not given).
Eigen::VectorXd initial_coordinates(const model::Model& model);
Eigen::VectorXd initial_velocities(const model::Model& model);
/// One value per coordinate from `text` ("V1,V2,.."; parse_list) into `into`; nothing when `text`
/// is empty. A count other than the model's coordinates is a usage_error naming `option`.
void read_coordinate_values(const model::Model& model, const std::string& option,
                            const std::string& text, Eigen::VectorXd& into);
/// A warning on stderr for each coordinate that moves no mass (model::coordinates_moving_no_mass):
/// its equation reads 0 = f_j with no acceleration, a mistake in the model more often than not.
void warn_coordinates_moving_no_mass(const model::Model& model);
/// --set NAME=VALUE items, each located at "--set" for model::bind's errors; a name given twice
/// is a usage_error naming both items.
model::Values parse_assignments(const std::vector<std::string>& items);
/// Commands that do not handle constraints yet say so instead of ignoring them (exit 2).
void reject_constraints(const model::Model& model, const std::string& command);
/// --method NAME.
principles::Method method_option(const std::string& name);
/// Adds --method to `command`, setting `given` when the command line names it (then the command
/// forms that principle's equations instead of taking the recursions).
void add_method_option(CLI::App& command, std::string& method, bool& given,
                       const std::string& help);
/// "a, b and c".
std::string join_names(const std::vector<std::string>& names);
/// What every command's options share, set once all commands are registered: each occurrence of
/// an option takes one value (`--set a=1 --set b=2`, so that `--set a=1 MODEL` leaves MODEL to
/// the command); a value is never empty; a FLOAT option's value is a finite number.
void apply_option_rules(CLI::App& app);
/// The subcommand `argv[1]` names when it names none, or an empty string: for `appell derve`,
/// "unknown command 'derve'; did you mean 'derive'?" (the one command the word begins, else the
/// first nearest by edit distance within a third of the command's length, at least one edit),
/// else "unknown command 'x' (commands: a, b, ..)".
std::string unknown_command(const CLI::App& app, int argc, char** argv);
/// "1.23 ms", "45.6 us", "2.345 s".
std::string format_seconds(double seconds);
/// Makes every floating-point number `out` prints free of a negative zero: -0.0, and in fixed
/// notation a negative number that rounds to zero ("-0.000"), print as 0 (a num_put facet, so
/// `<<` of a double, Eigen's matrices included, all benefit). main() sets it on std::cout and
/// std::cerr; a command writing a file of numbers sets it on its stream.
void print_no_negative_zero(std::ostream& out);
/// `value` with -0.0 as 0.0, for numbers printed without a stream (nlohmann::json's dump).
double no_negative_zero(double value);

/// Whether the user asked for timings (--timing): without it no command prints a time, so the same
/// input gives the same bytes in every run.
bool timing_requested();
/// Adds --timing to a command that measures what it does.
void add_timing_flag(CLI::App& command);

}  // namespace appell::cli
