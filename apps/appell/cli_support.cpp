#include "cli_support.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <locale>
#include <sstream>

#include "appell/io/model_file.hpp"
#include "appell/model/closest_name.hpp"
#include "appell/model/massless_coordinates.hpp"
#include "appell/principles/derive.hpp"

namespace appell::cli {

model::ModelError usage_error(const std::string& option, const std::string& message,
                              const std::string& offending) {
  return model::ModelError(model::SourceLocation{option, 0, 0}, message, offending);
}

model::ModelError at_option(const model::ModelError& error,
                            const std::map<std::string, std::string>& options) {
  const auto option = options.find(error.where().file);
  if (option == options.end()) return error;
  // what() is "WHERE: message", then " (offending)" when there is an offending name.
  const std::string prefix = error.where().str() + ": ";
  const std::string suffix = error.offending().empty() ? "" : " (" + error.offending() + ")";
  std::string message = error.what();
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (message.size() >= suffix.size() &&
      message.compare(message.size() - suffix.size(), suffix.size(), suffix) == 0)
    message.erase(message.size() - suffix.size());
  model::SourceLocation where = error.where();
  where.file = option->second;
  return model::ModelError(where, message, error.offending());
}

namespace {

// Any double as written, nan and inf included (model::bind names a non-finite --set value).
double parse_double(const std::string& option, const std::string& text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  while (begin < end && *begin == ' ') ++begin;
  if (begin < end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range && ptr == end && begin != end) {
    // from_chars reports an overflow and an underflow alike; 1e-400 is 0, 1e400 is no number.
    const double magnitude = std::strtod(std::string(begin, end).c_str(), nullptr);
    if (std::isinf(magnitude)) throw usage_error(option, "not a finite number", text);
    return magnitude;
  }
  if (ec != std::errc() || ptr != end || begin == end)
    throw usage_error(option, "not a number", text);
  return value;
}

}  // namespace

double parse_number(const std::string& option, const std::string& text) {
  const double value = parse_double(option, text);
  if (!std::isfinite(value)) throw usage_error(option, "not a finite number", text);
  return value;
}

std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (item.find_first_not_of(' ') == std::string::npos)
      throw usage_error(option, "expected numbers V1,V2,.. with no empty item", text);
    values.push_back(parse_number(option, item));
    if (comma == std::string::npos) return values;
    start = comma + 1;
  }
}

model::Values parse_assignments(const std::vector<std::string>& items) {
  model::Values values;
  std::map<std::string, std::string> given;  // name -> the item that set it first
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error("--set", "expected NAME=VALUE", item);
    // The last one silently winning hides a typo or a stale script line: two values are an error.
    const std::string name = item.substr(0, eq);
    if (const auto [first, fresh] = given.emplace(name, item); !fresh)
      throw usage_error("--set",
                        "given twice, as --set " + first->second + " and as --set " + item +
                            "; give each name once",
                        name);
    // Located at the option: model::bind reports a bad name or number there.
    values.set(item.substr(0, eq), parse_double("--set", item.substr(eq + 1)),
               model::SourceLocation{"--set", 0, 0});
  }
  return values;
}

void warn_coordinates_moving_no_mass(const model::Model& model) {
  for (std::size_t j : model::coordinates_moving_no_mass(model))
    std::cerr << "warning: coordinate " << model.coordinates[j].name
              << " moves no mass (no body or particle moves with it): its row of M is 0, so its "
                 "equation has no acceleration in it\n";
}

void reject_constraints(const model::Model& model, const std::string& command) {
  if (model.constraints.empty()) return;
  throw model::ModelError(
      model.constraints.front().where,
      "constraints are not supported by '" + command +
          "' yet (use derive, verify, eval, simulate, sweep, statics or codegen)",
      model.constraints.front().name);
}

void add_urdf_options(CLI::App& command, UrdfFlags& flags) {
  // Their own group: the help lists groups in the order of their first option, and every
  // command's "Options" group opens with --help, so these come after the command's own options
  // instead of heading them.
  const std::string group = "URDF options";
  command
      .add_option("--gravity", flags.gravity,
                  "URDF model: gravity GX,GY,GZ in m/s^2, root link axes (default 0,0,-9.81)")
      ->group(group);
  command
      .add_flag("--joint-damping", flags.joint_damping,
                "URDF model: each joint's <dynamics damping=c> as the generalized force -c*dot(q)")
      ->group(group);
  command
      .add_flag("--symbolic-inertia", flags.symbolic_inertia,
                "URDF model: each link's mass, centre of mass and inertia as parameters "
                "(m_LINK, cx_LINK .., Ixx_LINK ..) with the URDF's values as defaults")
      ->group(group);
  command
      .add_flag("--floating-base", flags.floating_base,
                "URDF model: the root link floats free (ROOT_x, ROOT_y, ROOT_z and a unit "
                "quaternion ROOT_e0..ROOT_e3, speeds ROOT_vx.. and ROOT_wx..) instead of being "
                "the world")
      ->group(group);
  command
      .add_flag("--exact-angles", flags.exact_angles,
                "URDF model: <origin rpy> angles as written (by default an angle within 1e-9 of "
                "a multiple of pi/12 is read as that multiple: 1.57079632679 as pi/2)")
      ->group(group);
}

io::UrdfOptions urdf_options(const UrdfFlags& flags) {
  io::UrdfOptions options;
  if (!flags.gravity.empty()) {
    const auto g = parse_list("--gravity", flags.gravity);
    if (g.size() != 3) throw usage_error("--gravity", "expected GX,GY,GZ", flags.gravity);
    options.gravity = {g[0], g[1], g[2]};
  }
  options.joint_damping = flags.joint_damping;
  options.symbolic_inertia = flags.symbolic_inertia;
  options.floating_base = flags.floating_base;
  options.exact_angles = flags.exact_angles;
  return options;
}

std::shared_ptr<const model::Model> read_model(const std::string& path, const UrdfFlags& flags) {
  io::ModelFile file = io::read_model(path, urdf_options(flags));
  if (file.format == io::ModelFormat::Yaml) {
    const char* given = !flags.gravity.empty()   ? "--gravity"
                        : flags.joint_damping    ? "--joint-damping"
                        : flags.symbolic_inertia ? "--symbolic-inertia"
                        : flags.floating_base    ? "--floating-base"
                        : flags.exact_angles     ? "--exact-angles"
                                                 : nullptr;
    if (given)
      throw usage_error(given,
                        "applies to a URDF model; a model file says this itself (gravity:, "
                        "loads:, parameters:)",
                        path);
  }
  for (const auto& warning : file.warnings) std::cerr << "warning: " << warning << "\n";
  return file.model;
}

void add_method_option(CLI::App& command, std::string& method, bool& given,
                       const std::string& help) {
  command.add_option("--method", method, help)->each([&given](const std::string&) {
    given = true;
  });
}

principles::Method method_option(const std::string& name) {
  auto m = principles::parse_method(name);
  if (!m)
    throw usage_error("--method",
                      "unknown method (lagrange, gibbs-appell, dalembert, gauss, nielsen)", name);
  return *m;
}

void apply_option_rules(CLI::App& app) {
  const CLI::Validator not_empty(
      [](std::string& value) { return value.empty() ? std::string("an empty value") : ""; }, "");
  const CLI::Validator finite(
      [](std::string& value) {
        // strtod reads nan, inf and an overflow (1e999 -> inf) as CLI11 will.
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        const bool whole = end == value.c_str() + value.size();
        return whole && !std::isfinite(number) ? "not a finite number (" + value + ")"
                                               : std::string();
      },
      "");
  std::vector<CLI::App*> apps{&app};
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) apps.push_back(sub);
  for (CLI::App* a : apps)
    for (CLI::Option* option : a->get_options()) {
      if (option->get_items_expected_max() == 0) continue;  // a flag
      // A vector option would otherwise take every following word, the model's path included
      // (a positional list, sweep-merge's SHARDS, takes every word that is left by design).
      if (option->get_items_expected_max() > 1 && option->nonpositional())
        option->allow_extra_args(false);
      option->check(not_empty);
      if (option->get_type_name() == "FLOAT") option->check(finite);
    }
}

std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  const std::string given = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(given)) return "";
    names.push_back(sub->get_name());
  }
  // A unique command the word begins ("sim"), else the nearest within a third of its length.
  const std::string closest = model::closest_name(given, names);
  if (!closest.empty()) return "unknown command '" + given + "'; did you mean '" + closest + "'?";
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  return "unknown command '" + given + "' (commands: " + list + ")";
}

namespace {
bool timing_flag = false;
}  // namespace

bool timing_requested() { return timing_flag; }

void add_timing_flag(CLI::App& command) {
  command.add_flag("--timing", timing_flag,
                   "also print how long each step took (off by default: the output is then the "
                   "same bytes in every run)");
}

namespace {

// num_put with no negative zero (print_no_negative_zero).
class NoNegativeZero : public std::num_put<char> {
 protected:
  iter_type do_put(iter_type out, std::ios_base& stream, char fill, double v) const override {
    return std::num_put<char>::do_put(out, stream, fill,
                                      static_cast<double>(unsigned_zero(v, stream)));
  }
  iter_type do_put(iter_type out, std::ios_base& stream, char fill, long double v) const override {
    return std::num_put<char>::do_put(out, stream, fill, unsigned_zero(v, stream));
  }

 private:
  static long double unsigned_zero(long double v, const std::ios_base& stream) {
    if (v == 0) return 0.0L;  // -0 too
    // Fixed notation rounds |v| < half a unit of the last digit to zero, with v's sign.
    if ((stream.flags() & std::ios_base::floatfield) == std::ios_base::fixed &&
        std::abs(v) <= 0.5L * std::pow(10.0L, -static_cast<long double>(stream.precision())))
      return 0.0L;
    return v;
  }
};

}  // namespace

void print_no_negative_zero(std::ostream& out) {
  out.imbue(std::locale(out.getloc(), new NoNegativeZero));
}

double no_negative_zero(double value) { return value == 0.0 ? 0.0 : value; }

std::string format_seconds(double s) {
  std::ostringstream out;
  if (s < 1e-3)
    out << std::fixed << std::setprecision(1) << s * 1e6 << " us";
  else if (s < 1.0)
    out << std::fixed << std::setprecision(2) << s * 1e3 << " ms";
  else
    out << std::fixed << std::setprecision(3) << s << " s";
  return out.str();
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

Eigen::VectorXd initial_coordinates(const model::Model& model) {
  Eigen::VectorXd q(static_cast<Eigen::Index>(model.dof()));
  for (std::size_t j = 0; j < model.dof(); ++j)
    q[static_cast<Eigen::Index>(j)] = model.coordinates[j].initial;
  return q;
}

Eigen::VectorXd initial_velocities(const model::Model& model) {
  Eigen::VectorXd qd(static_cast<Eigen::Index>(model.dof()));
  for (std::size_t j = 0; j < model.dof(); ++j)
    qd[static_cast<Eigen::Index>(j)] = model.coordinates[j].velocity;
  return qd;
}

void read_coordinate_values(const model::Model& model, const std::string& option,
                            const std::string& text, Eigen::VectorXd& into) {
  if (text.empty()) return;
  const std::size_t n = model.dof();
  const auto values = parse_list(option, text);
  if (values.size() != n)
    throw usage_error(option,
                      "expected " + std::to_string(n) + " values (one per coordinate), got " +
                          std::to_string(values.size()),
                      text);
  for (std::size_t j = 0; j < n; ++j) into[static_cast<Eigen::Index>(j)] = values[j];
}

}  // namespace appell::cli
