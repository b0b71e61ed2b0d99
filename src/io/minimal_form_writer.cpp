#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/equation_writer.hpp"
#include "cost_json.hpp"
#include "form_writers.hpp"
#include "matrix_listing.hpp"

namespace appell::io {

using GiNaC::ex;

namespace {

const model::Model& model_of(const principles::Equations& eq) {
  if (!eq.model) throw std::invalid_argument("minimal equations without a model");
  return *eq.model;
}

// Row k of M̃ u̇: Σ_l M̃_kl ddot(q_{i_l}).
ex inertia_side(const principles::Equations& eq, unsigned k) {
  GiNaC::exvector terms;
  for (unsigned l = 0; l < eq.mass_matrix.cols(); ++l)
    terms.push_back(eq.mass_matrix(k, l) * eq.model->coordinate_symbol(eq.independent[l], 2));
  return GiNaC::add(terms);
}

// (B u + β)_j and (B u̇ + γ)_j for a dependent coordinate j.
ex dependent_rate(const principles::Equations& eq, std::size_t j, int order) {
  const auto row = static_cast<unsigned>(j);
  ex rate = order == 1 ? eq.speed_offset(row, 0) : eq.acceleration_offset(row, 0);
  for (unsigned l = 0; l < eq.speed_matrix.cols(); ++l)
    rate += eq.speed_matrix(row, l) * eq.model->coordinate_symbol(eq.independent[l], order);
  return rate;
}

std::string names(const principles::Equations& eq, const std::vector<std::size_t>& which) {
  std::string all;
  for (std::size_t k = 0; k < which.size(); ++k)
    all +=
        (k ? ", " : "") + sym::TimeFunctions::text_name(eq.model->coordinates.at(which[k]).name, 1);
  return all;
}

}  // namespace

namespace detail {

std::string minimal_text(const principles::Equations& eq, const WriteOptions& options) {
  const model::Model& model = model_of(eq);
  const auto context = readable_context(model);
  auto print = [&](const ex& e) { return expression_text(e, context); };
  std::ostringstream out;
  out << "# " << model.name
      << ": minimal form by gibbs-appell with quasi-accelerations, M(q) u' = f(q, u, t)\n";
  out << "# independent speeds u: " << names(eq, eq.independent);
  if (!eq.dependent.empty()) out << "; dependent: " << names(eq, eq.dependent);
  out << "\n# " << (eq.simplified ? "simplified" : "as formed, not simplified") << "\n";
  if (!eq.dependent.empty()) {
    out << "dependent speeds and accelerations (from the constraints):\n";
    for (std::size_t j : eq.dependent)
      out << "  " << print(model.coordinate_symbol(j, 1)) << " = "
          << print(dependent_rate(eq, j, 1)) << "\n";
    for (std::size_t j : eq.dependent)
      out << "  " << print(model.coordinate_symbol(j, 2)) << " = "
          << print(dependent_rate(eq, j, 2)) << "\n";
  }
  const auto p = static_cast<unsigned>(eq.size());
  for (unsigned k = 0; k < p; ++k)
    out << "eq " << k + 1 << " (" << model.coordinates.at(eq.independent[k]).name
        << "): " << print(inertia_side(eq, k)) << " = " << print(eq.forcing(k, 0)) << "\n";
  out << "\n" << detail::mass_and_forcing_text(eq.mass_matrix, eq.forcing, print);
  out << "\n" << detail::cost_text(eq.cost, eq.simplified, options);
  return out.str();
}

std::string minimal_latex(const principles::Equations& eq) {
  const model::Model& model = model_of(eq);
  const auto context = readable_context(model);
  auto print = [&](const ex& e) { return expression_latex(e, context); };
  std::vector<std::string> lines;
  for (std::size_t j : eq.dependent)
    lines.push_back(print(model.coordinate_symbol(j, 1)) +
                    " &= " + print(dependent_rate(eq, j, 1)));
  for (std::size_t j : eq.dependent)
    lines.push_back(print(model.coordinate_symbol(j, 2)) +
                    " &= " + print(dependent_rate(eq, j, 2)));
  for (unsigned k = 0; k < eq.size(); ++k)
    lines.push_back(print(inertia_side(eq, k)) + " &= " + print(eq.forcing(k, 0)));
  std::ostringstream out;
  out << "% " << model.name << ": minimal form by gibbs-appell with quasi-accelerations\n";
  out << detail::align_block(lines);
  return out.str();
}

std::string minimal_json(const principles::Equations& eq, const WriteOptions& options) {
  const model::Model& model = model_of(eq);
  const auto context = readable_context(model);
  auto print = [&](const ex& e) { return expression_text(e, context); };
  nlohmann::ordered_json json;
  json["model"] = model.name;
  json["method"] = "gibbs-appell";
  json["form"] = "minimal";
  json["coordinates"] = nlohmann::ordered_json::array();
  for (const auto& coordinate : model.coordinates) json["coordinates"].push_back(coordinate.name);
  auto coordinate_names = [&](const std::vector<std::size_t>& which) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t j : which) list.push_back(model.coordinates.at(j).name);
    return list;
  };
  json["independent"] = coordinate_names(eq.independent);
  json["dependent"] = coordinate_names(eq.dependent);
  nlohmann::ordered_json speeds = nlohmann::ordered_json::object(),
                         accelerations = nlohmann::ordered_json::object();
  for (std::size_t j : eq.dependent) {
    speeds[model.coordinates.at(j).name] = print(dependent_rate(eq, j, 1));
    accelerations[model.coordinates.at(j).name] = print(dependent_rate(eq, j, 2));
  }
  json["dependent_speeds"] = speeds;
  json["dependent_accelerations"] = accelerations;
  detail::mass_and_forcing_json(json, eq.mass_matrix, eq.forcing, print);
  json["simplified"] = eq.simplified;
  json["cost"] = detail::cost_json(eq.cost, options);
  return json.dump(2);
}

}  // namespace detail

}  // namespace appell::io
