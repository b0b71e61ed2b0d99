#include "appell/io/statics_writer.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "appell/io/equation_writer.hpp"
#include "appell/sym/readable.hpp"

namespace appell::io {

namespace {

// -0.0 as 0.0: JSON never reads "-0.0".
double number(double v) { return v == 0.0 ? 0.0 : v; }

std::vector<double> numbers(const Eigen::VectorXd& v) {
  std::vector<double> out;
  for (Eigen::Index k = 0; k < v.size(); ++k) out.push_back(number(v[k]));
  return out;
}

nlohmann::ordered_json texts(const GiNaC::matrix& column, const sym::ReadableContext& context) {
  const GiNaC::matrix readable = sym::readable(column, context);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (unsigned i = 0; i < readable.rows(); ++i)
    out.push_back(expression_text(readable(i, 0), context));
  return out;
}

}  // namespace

std::string relative_motion_text(const model::Model& model, const num::RelativeStatics& relative) {
  std::string text;
  for (const auto& name : relative.prescribed)
    for (const auto& p : model.prescribed)
      if (p.name == name)
        text += (text.empty() ? "" : ", ") + name +
                (p.expression ? " = " + expression_text(*p.expression, model) : "(t)");
  text = text.empty() ? "the frames' motion in t" : "the prescribed motion " + text;
  if (!relative.carrier.empty()) text += " (carrier frame " + relative.carrier + ")";
  return text;
}

std::string write_statics_json(const model::Model& model, const num::StaticsResult& result,
                               const std::vector<num::EquilibriumDynamics>* dynamics) {
  const auto context = readable_context(model);
  const auto& relative = result.relative;
  nlohmann::ordered_json j;
  j["generalized_forces"] = texts(result.generalized_forces, context);
  // A moving model (only then, so that the JSON of others is unchanged): the inertial forces of
  // its prescribed motion at rest, and what moves.
  if (relative) {
    j["inertial_forces"] = texts(relative->inertial_forces, context);
    j["relative"] = {{"motion", relative_motion_text(model, *relative)},
                     {"prescribed", relative->prescribed},
                     {"carrier", relative->carrier},
                     {"steady", relative->steady_by}};
  }
  j["equilibria"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < result.equilibria.size(); ++k) {
    const auto& e = result.equilibria[k];
    const num::Stability verdict = dynamics ? (*dynamics)[k].stability : e.stability;
    nlohmann::ordered_json entry = {{"q", numbers(e.q)},
                                    {"stable", verdict == num::Stability::Stable}};
    // With holonomic constraints, their multipliers (as `eval` names them in its JSON).
    if (e.lambda.size() > 0) entry["lambda"] = numbers(e.lambda);
    if (e.lambda.size() > 0) entry["redundant_constraints"] = e.redundant_constraints;
    entry["stability"] = num::stability_name(verdict);
    if (relative) entry["gyroscopic_stabilization"] = e.gyroscopic_stabilization;
    entry["stiffness_eigenvalues"] = numbers(e.stiffness_eigenvalues);
    entry["neutral_directions"] = nlohmann::ordered_json::array();
    for (Eigen::Index c = 0; c < e.neutral_directions.cols(); ++c)
      entry["neutral_directions"].push_back(numbers(e.neutral_directions.col(c)));
    entry["degenerate_directions"] = nlohmann::ordered_json::array();
    for (Eigen::Index c = 0; c < e.degenerate_directions.cols(); ++c)
      entry["degenerate_directions"].push_back(numbers(e.degenerate_directions.col(c)));
    if (dynamics) {
      entry["modes"] = nlohmann::ordered_json::array();
      for (const auto& mode : (*dynamics)[k].modes) {
        nlohmann::ordered_json m;
        m["eigenvalue"] = {number(mode.eigenvalue.real()), number(mode.eigenvalue.imag())};
        m["natural_frequency"] = number(mode.natural_frequency);
        if (std::isnan(mode.damping_ratio))
          m["damping_ratio"] = nullptr;
        else
          m["damping_ratio"] = number(mode.damping_ratio);
        m["unstable"] = mode.unstable;
        entry["modes"].push_back(m);
      }
      if (!(*dynamics)[k].unavailable.empty())
        entry["modes_unavailable"] = (*dynamics)[k].unavailable;
    }
    j["equilibria"].push_back(entry);
  }
  std::vector<std::string> free_names;
  for (const std::size_t c : result.free_coordinates)
    free_names.push_back(model.coordinates[c].name);
  j["free_coordinates"] = free_names;
  return j.dump();
}

}  // namespace appell::io
