#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/equation_writer.hpp"
#include "appell/principles/derivation.hpp"
#include "cost_json.hpp"
#include "form_writers.hpp"
#include "matrix_listing.hpp"

namespace appell::io {

using GiNaC::ex;

namespace {

const model::Model& model_of(const principles::Equations& eq) {
  if (!eq.model) throw std::invalid_argument("equations in speeds without a model");
  return *eq.model;
}

std::string method_title(const principles::Equations& eq) {
  return eq.method == principles::Method::Dalembert ? "kane (dalembert)"
                                                    : "gibbs-appell with quasi-accelerations";
}

// Row k of M̃ u̇: Σ_l M̃_kl dot(u_l).
ex inertia_side(const principles::Equations& eq, unsigned k) {
  GiNaC::exvector terms;
  for (unsigned l = 0; l < eq.mass_matrix.cols(); ++l)
    terms.push_back(eq.mass_matrix(k, l) * eq.model->speed_symbol(l, 1));
  return GiNaC::add(terms);
}

// (W u)_j: the rate of coordinate j.
ex coordinate_rate(const principles::Equations& eq, unsigned j) {
  GiNaC::exvector terms;
  for (unsigned l = 0; l < eq.speed_matrix.cols(); ++l)
    terms.push_back(eq.speed_matrix(j, l) * eq.model->speed_symbol(l));
  return GiNaC::add(terms);
}

// Row i of Ã u̇: Σ_l Ã_il dot(u_l).
ex constraint_side(const principles::Equations& eq, unsigned i) {
  GiNaC::exvector terms;
  for (unsigned l = 0; l < eq.constraint_matrix.cols(); ++l)
    terms.push_back(eq.constraint_matrix(i, l) * eq.model->speed_symbol(l, 1));
  return GiNaC::add(terms);
}

}  // namespace

namespace detail {

std::string speeds_text(const principles::Equations& eq, const WriteOptions& options) {
  const model::Model& model = model_of(eq);
  const auto context = principles::readable_context(model);
  auto print = [&](const ex& e) { return expression_text(e, context); };
  std::ostringstream out;
  out << "# " << model.name << ": equations in the speeds by " << method_title(eq)
      << ", M(q) u' = f(q, u, t)\n# speeds u:";
  for (std::size_t k = 0; k < model.speeds.size(); ++k)
    out << (k ? ", " : " ") << model.speeds[k].name;
  out << "\n# " << (eq.simplified ? "simplified" : "as formed, not simplified") << "\n";
  out << "kinematic equations dot(q) = W(q) u:\n";
  for (unsigned j = 0; j < model.dof(); ++j)
    out << "  " << print(model.coordinate_symbol(j, 1)) << " = " << print(coordinate_rate(eq, j))
        << "\n";
  const auto p = static_cast<unsigned>(eq.size());
  const auto m = static_cast<unsigned>(eq.constraint_count());
  for (unsigned k = 0; k < p; ++k) {
    out << "eq " << k + 1 << " (" << model.speeds[k].name << "): " << print(inertia_side(eq, k))
        << " = " << print(eq.forcing(k, 0));
    // The constraint forces Ãᵀλ, one multiplier per constraint.
    for (unsigned i = 0; i < m; ++i)
      if (!eq.constraint_matrix(i, k).is_zero())
        out << detail::force_term(eq.constraint_matrix(i, k), eq.multipliers[i], print, false);
    out << "\n";
  }
  if (m > 0) {
    out << "\nconstraints at acceleration level, A u' = b:\n";
    for (unsigned i = 0; i < m; ++i)
      out << "  " << model.constraints.at(i).name << ": " << print(constraint_side(eq, i)) << " = "
          << print(eq.constraint_rhs(i, 0)) << "\n";
  }
  out << "\n" << detail::mass_and_forcing_text(eq.mass_matrix, eq.forcing, print);
  out << "\n" << detail::cost_text(eq.cost, eq.simplified, options);
  return out.str();
}

std::string speeds_latex(const principles::Equations& eq) {
  const model::Model& model = model_of(eq);
  const auto context = principles::readable_context(model);
  auto print = [&](const ex& e) { return expression_latex(e, context); };
  std::vector<std::string> lines;
  for (unsigned j = 0; j < model.dof(); ++j)
    lines.push_back(print(model.coordinate_symbol(j, 1)) + " &= " + print(coordinate_rate(eq, j)));
  const auto m = static_cast<unsigned>(eq.constraint_count());
  for (unsigned k = 0; k < eq.size(); ++k) {
    std::string right = print(eq.forcing(k, 0));
    for (unsigned i = 0; i < m; ++i)
      if (!eq.constraint_matrix(i, k).is_zero())
        right += detail::force_term(eq.constraint_matrix(i, k),
                                    detail::multiplier_latex(eq.multipliers[i]), print, true);
    lines.push_back(print(inertia_side(eq, k)) + " &= " + right);
  }
  for (unsigned i = 0; i < m; ++i)
    lines.push_back(print(constraint_side(eq, i)) + " &= " + print(eq.constraint_rhs(i, 0)));
  std::ostringstream out;
  out << "% " << model.name << ": equations in the speeds by " << method_title(eq) << "\n";
  out << detail::align_block(lines);
  return out.str();
}

std::string speeds_json(const principles::Equations& eq, const WriteOptions& options) {
  const model::Model& model = model_of(eq);
  const auto context = principles::readable_context(model);
  auto print = [&](const ex& e) { return expression_text(e, context); };
  nlohmann::ordered_json json;
  json["model"] = model.name;
  json["method"] = principles::method_name(eq.method);
  json["form"] = "speeds";
  json["coordinates"] = nlohmann::ordered_json::array();
  for (const auto& coordinate : model.coordinates) json["coordinates"].push_back(coordinate.name);
  json["speeds"] = nlohmann::ordered_json::array();
  for (const auto& speed : model.speeds) json["speeds"].push_back(speed.name);
  nlohmann::ordered_json kinematic = nlohmann::ordered_json::object();
  for (unsigned j = 0; j < model.dof(); ++j)
    kinematic[model.coordinates[j].name] = print(coordinate_rate(eq, j));
  json["kinematic_equations"] = kinematic;
  detail::mass_and_forcing_json(json, eq.mass_matrix, eq.forcing, print);
  // M̃ u̇ = f̃ + Ãᵀλ with Ã u̇ = b̃.
  detail::constraints_json(json, eq.multipliers, eq.constraint_matrix, eq.constraint_rhs, print);
  json["simplified"] = eq.simplified;
  json["cost"] = detail::cost_json(eq.cost, options);
  return json.dump(2);
}

}  // namespace detail

}  // namespace appell::io
