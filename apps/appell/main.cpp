// appell: the command line. Parses arguments, calls the library, prints. Nothing else.
//
// Exit codes: 0 success; 1 a computation failed (singular mass matrix, ...); 2 bad input or
// usage, reported as FILE:LINE:COLUMN: message (name).
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"
#include "demo_model.hpp"

namespace {

using namespace appell;

/// Bad command-line usage: exit code 2 like a bad model, located at the option.
model::ModelError usage_error(const std::string& option, const std::string& message,
                              const std::string& offending = "") {
  return model::ModelError(model::SourceLocation{option, 0, 0}, message, offending);
}

double parse_number(const std::string& option, const std::string& text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  while (begin < end && *begin == ' ') ++begin;
  if (begin < end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end)
    throw usage_error(option, "not a number", text);
  return value;
}

std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(parse_number(option, item));
  return values;
}

std::map<std::string, double> parse_assignments(const std::vector<std::string>& items) {
  std::map<std::string, double> values;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error("--set", "expected NAME=VALUE", item);
    values[item.substr(0, eq)] = parse_number("--set", item.substr(eq + 1));
  }
  return values;
}

/// Parameters given with --set are substituted into the printed equations.
principles::Equations with_parameters(const principles::Equations& eq,
                                      const std::map<std::string, double>& values) {
  if (values.empty()) return eq;
  GiNaC::exmap substitution;
  for (const auto& [name, value] : values) {
    const model::Parameter* p = eq.model->find_parameter(name);
    if (!p) throw usage_error("--set", "unknown parameter", name);
    // Whole numbers stay exact so that the printed equations keep rational coefficients.
    const double whole = std::round(value);
    substitution[p->symbol] = whole == value && std::abs(whole) < 1e15
                                  ? GiNaC::numeric(static_cast<long>(whole))
                                  : GiNaC::numeric(value);
  }
  principles::Equations result = eq;
  result.mass_matrix = sym::substitute(eq.mass_matrix, substitution);
  result.forcing = sym::substitute(eq.forcing, substitution);
  return result;
}

principles::Method method_option(const std::string& name) {
  auto m = principles::parse_method(name);
  if (!m) throw usage_error("--method", "unknown method (lagrange, gibbs-appell)", name);
  return *m;
}

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

void print_cost_table(const std::vector<principles::Equations>& all) {
  std::printf("%-14s %16s %16s %12s %12s %12s %14s\n", "method", "differentiations",
              "derivative nodes", "size before", "size after", "derive", "simplify");
  for (const auto& eq : all) {
    std::printf(
        "%-14s %16zu %16zu %12zu %12zu %12s %14s\n", principles::method_name(eq.method).c_str(),
        eq.cost.differentiations, eq.cost.derivative_nodes, eq.cost.size_before, eq.cost.size_after,
        format_seconds(eq.cost.seconds).c_str(), format_seconds(eq.cost.simplify_seconds).c_str());
  }
}

int run_demo() {
  auto model = io::parse_model(demo::planar_2r_yaml, "planar_2r.yaml (built in)");
  std::cout << "appell demo: the planar 2-DOF robot of seed 000 (Fig. 4): two homogeneous rods of\n"
               "mass M and length l, revolute joints q1, q2, gravity g and a point force M_S*g at "
               "the tip P.\n\n";
  std::vector<principles::Equations> all;
  for (auto method : {principles::Method::Lagrange, principles::Method::GibbsAppell}) {
    auto eq = principles::simplify(principles::derive(model, method));
    std::cout << io::write_text(eq) << "\n";
    all.push_back(eq);
  }
  const auto raw_a = principles::derive(model, principles::Method::Lagrange);
  const auto raw_b = principles::derive(model, principles::Method::GibbsAppell);
  const auto agreement = num::compare(raw_a, raw_b);
  std::cout << "Lagrange II and Gibbs-Appell give "
            << (agreement.symbolic ? "identical equations" : "DIFFERENT equations")
            << ": M_lagrange - M_gibbs-appell and f_lagrange - f_gibbs-appell simplify to "
            << (agreement.symbolic ? "0" : "non-zero (" + agreement.first_difference + ")")
            << "; largest difference at " << agreement.states
            << " random states: " << agreement.max_numeric_error << "\n\n";
  std::cout << "What each derivation cost (differentiations include the kinematics):\n";
  print_cost_table(all);
  return agreement.symbolic && agreement.max_numeric_error <= 1e-12 ? 0 : 1;
}

struct DeriveOptions {
  std::string model, method = "gibbs-appell", format = "text";
  std::vector<std::string> set;
  bool raw = false;
};

int run_derive(const DeriveOptions& o) {
  auto model = io::read_model_file(o.model);
  const auto values = parse_assignments(o.set);
  auto eq = with_parameters(principles::derive(model, method_option(o.method)), values);
  if (!o.raw) eq = principles::simplify(eq);
  if (o.format == "text")
    std::cout << io::write_text(eq);
  else if (o.format == "latex")
    std::cout << io::write_latex(eq);
  else if (o.format == "json")
    std::cout << io::write_json(eq) << "\n";
  else
    throw usage_error("--format", "unknown format (text, latex, json)", o.format);
  return 0;
}

struct EvalOptions {
  std::string model, method = "gibbs-appell", q, qd;
  double t = 0.0;
  std::vector<std::string> set;
  bool json = false;
};

int run_eval(const EvalOptions& o) {
  auto model = io::read_model_file(o.model);
  const auto n = model->dof();
  Eigen::VectorXd q(static_cast<Eigen::Index>(n)), qd(static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j) {
    q[static_cast<Eigen::Index>(j)] = model->coordinates[j].initial;
    qd[static_cast<Eigen::Index>(j)] = model->coordinates[j].velocity;
  }
  auto take = [&](const std::string& option, const std::string& text, Eigen::VectorXd& into) {
    if (text.empty()) return;
    const auto values = parse_list(option, text);
    if (values.size() != n)
      throw usage_error(option,
                        "expected " + std::to_string(n) + " values (one per coordinate), got " +
                            std::to_string(values.size()),
                        text);
    for (std::size_t j = 0; j < n; ++j) into[static_cast<Eigen::Index>(j)] = values[j];
  };
  take("--q", o.q, q);
  take("--qd", o.qd, qd);

  const auto eq = principles::derive(model, method_option(o.method));
  const num::CompiledEquations compiled(eq, parse_assignments(o.set));
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  compiled.evaluate(o.t, q, qd, M, f);
  const Eigen::VectorXd qdd = compiled.accelerations(M, f);

  auto vec = [](const Eigen::VectorXd& v) {
    return std::vector<double>(v.data(), v.data() + v.size());
  };
  if (o.json) {
    nlohmann::json j;
    j["t"] = o.t;
    j["q"] = vec(q);
    j["qd"] = vec(qd);
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < M.rows(); ++i) {
      Eigen::VectorXd row = M.row(i).transpose();
      rows.push_back(vec(row));
    }
    j["mass_matrix"] = rows;
    j["forcing"] = vec(f);
    j["qdd"] = vec(qdd);
    std::cout << j.dump() << "\n";
  } else {
    std::cout << std::setprecision(12) << model->name << " at t = " << o.t << "\n";
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      std::cout << "  " << model->coordinates[i].name << " = " << q[k] << ", dot = " << qd[k]
                << ", ddot = " << qdd[k] << ", f = " << f[k] << ", M row = [" << M.row(k) << "]\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"appell: equations of motion from the D'Alembert-Lagrange principle"};
  app.require_subcommand(1);

  app.add_subcommand("demo", "the seed 000 robot by Lagrange II and Gibbs-Appell: equal, costs");

  DeriveOptions derive;
  auto* d = app.add_subcommand("derive", "print M(q,t) ddot(q) = f(q, dot(q), t)");
  d->add_option("MODEL", derive.model, "model file (YAML)")->required();
  d->add_option("--method", derive.method, "lagrange | gibbs-appell (default)");
  d->add_option("--format", derive.format, "text (default) | latex | json");
  d->add_option("--set", derive.set, "override a parameter: NAME=VALUE (repeatable)");
  d->add_flag("--raw", derive.raw, "print the equations as formed, without simplification");

  EvalOptions eval;
  auto* e = app.add_subcommand("eval", "M, f and ddot(q) at a state");
  e->add_option("MODEL", eval.model, "model file (YAML)")->required();
  e->add_option("--q", eval.q, "coordinates V1,V2,.. (default: the model's initial values)");
  e->add_option("--qd", eval.qd, "velocities V1,V2,.. (default: the model's initial values)");
  e->add_option("--t", eval.t, "time (default 0)");
  e->add_option("--set", eval.set,
                "NAME=VALUE for a parameter, an input or an unspecified prescribed function "
                "(also dot(NAME)=VALUE); repeatable");
  e->add_option("--method", eval.method, "lagrange | gibbs-appell (default)");
  e->add_flag("--json", eval.json, "print one JSON object (MODEL_FORMAT.md)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& h) {
    return app.exit(h);
  } catch (const CLI::ParseError& err) {
    std::cerr << "appell: " << err.what() << "\n"
              << "Run 'appell --help' for usage.\n";
    return 2;
  }

  try {
    if (app.got_subcommand("demo")) return run_demo();
    if (app.got_subcommand("derive")) return run_derive(derive);
    if (app.got_subcommand("eval")) return run_eval(eval);
  } catch (const model::ModelError& err) {
    std::cerr << err.what() << "\n";
    return 2;
  } catch (const model::ComputationError& err) {
    std::cerr << "appell: computation failed: " << err.what() << "\n";
    return 1;
  } catch (const std::length_error& err) {
    // The writers refuse to print an unsimplified expression of hundreds of megabytes.
    std::cerr << "appell: output too large: " << err.what() << "\n";
    return 1;
  } catch (const std::exception& err) {
    std::cerr << "appell: internal error: " << err.what() << "\n";
    return 1;
  }
  return 2;
}
