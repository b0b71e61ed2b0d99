#include "appell/io/state_writer.hpp"

#include <nlohmann/json.hpp>
#include <vector>

#include "appell/io/printed_numbers.hpp"

namespace appell::io {

namespace {

// -0.0 as 0.0: JSON never reads "-0.0".
double number(double v) { return v == 0.0 ? 0.0 : v; }

std::vector<double> as_vector(const Eigen::VectorXd& v) {
  std::vector<double> out;
  for (Eigen::Index k = 0; k < v.size(); ++k) out.push_back(number(v[k]));
  return out;
}

nlohmann::json rows_of(const Eigen::MatrixXd& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const Eigen::VectorXd row = m.row(i).transpose();
    rows.push_back(as_vector(row));
  }
  return rows;
}

/// "coordinates": the names in order; "limits": NAME -> {lower, upper, velocity, effort} for the
/// coordinates that have limits (none: no key).
void describe_coordinates(const model::Model& model, nlohmann::json& j) {
  nlohmann::json names = nlohmann::json::array();
  nlohmann::json limits = nlohmann::json::object();
  for (const auto& c : model.coordinates) {
    names.push_back(c.name);
    if (!c.limits) continue;
    nlohmann::json l = nlohmann::json::object();
    if (c.limits->lower) l["lower"] = *c.limits->lower;
    if (c.limits->upper) l["upper"] = *c.limits->upper;
    if (c.limits->velocity) l["velocity"] = *c.limits->velocity;
    if (c.limits->effort) l["effort"] = *c.limits->effort;
    limits[c.name] = l;
  }
  j["coordinates"] = names;
  if (!limits.empty()) j["limits"] = limits;
}

}  // namespace

namespace {

// What every state's JSON begins with: the coordinates, t, q, q̇ and M.
template <typename State>
nlohmann::json state_head(const model::Model& model, const State& s) {
  nlohmann::json j;
  describe_coordinates(model, j);
  j["t"] = number(s.t);
  j["q"] = as_vector(s.q);
  j["qd"] = as_vector(s.qd);
  j["mass_matrix"] = rows_of(s.mass_matrix);
  return j;
}

nlohmann::json state_json(const model::Model& model, const num::StateEvaluation& s) {
  nlohmann::json j = state_head(model, s);
  j["forcing"] = as_vector(s.forcing);
  j["qdd"] = as_vector(s.qdd);
  if (s.lambda.size() > 0) j["lambda"] = as_vector(s.lambda);
  return j;
}

}  // namespace

std::string write_state_json(const model::Model& model, const num::StateEvaluation& s) {
  return state_json(model, s).dump();
}

std::string write_split_state_json(const model::Model& model, const num::SplitEvaluation& s) {
  nlohmann::json j = state_head(model, s);
  j["coriolis"] = rows_of(s.coriolis);
  j["gravity"] = as_vector(s.gravity);
  j["loads"] = as_vector(s.loads);
  j["nonlinear_effects"] = as_vector(s.nonlinear_effects());
  if (s.moving) {
    j["mass_rate"] = rows_of(s.mass_rate);
    j["gyroscopic"] = rows_of(s.gyroscopic);
    j["prescribed_motion"] = as_vector(s.prescribed_motion);
  }
  return j.dump();
}

std::string write_state_json(const model::Model& model, const num::StateEvaluation& s,
                             const std::vector<num::Reaction>& reactions) {
  nlohmann::json j = state_json(model, s);
  nlohmann::json all = nlohmann::json::object();
  for (const auto& r : reactions) {
    const Eigen::VectorXd force = r.force, moment = r.moment;
    all[r.frame] = {{"force", as_vector(force)}, {"moment", as_vector(moment)}};
  }
  j["reactions"] = all;
  if (!model.constraints.empty()) {
    nlohmann::json constraint_forces = nlohmann::json::object();
    // Products of λ and A: without their rounding noise, as `appell eval` prints them.
    const auto forces = without_rounding_noise(num::generalized_constraint_forces(s));
    for (std::size_t c = 0; c < forces.size(); ++c)
      constraint_forces[model.constraints[c].name] = as_vector(forces[c]);
    j["constraint_forces"] = constraint_forces;
  }
  return j.dump();
}

std::string write_minimal_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                     const num::CompiledEquations::State& state) {
  nlohmann::json j;
  describe_coordinates(model, j);
  j["t"] = number(t);
  j["q"] = as_vector(q);
  j["qd"] = as_vector(state.qd);
  nlohmann::json names = nlohmann::json::array();
  for (std::size_t k : model.independent) names.push_back(model.coordinates[k].name);
  j["independent"] = names;
  j["mass_matrix"] = rows_of(state.mass_matrix);
  j["forcing"] = as_vector(state.forcing);
  j["qdd"] = as_vector(state.qdd);
  return j.dump();
}

std::string write_speed_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& u,
                                   const num::CompiledEquations::State& state) {
  nlohmann::json j;
  describe_coordinates(model, j);
  j["t"] = number(t);
  j["q"] = as_vector(q);
  nlohmann::json names = nlohmann::json::array();
  for (const auto& speed : model.speeds) names.push_back(speed.name);
  j["speeds"] = names;
  j["u"] = as_vector(u);
  j["qd"] = as_vector(state.qd);
  j["mass_matrix"] = rows_of(state.mass_matrix);
  j["forcing"] = as_vector(state.forcing);
  j["udot"] = as_vector(state.vdot);
  j["qdd"] = as_vector(state.qdd);
  if (state.lambda.size() > 0) j["lambda"] = as_vector(state.lambda);
  return j.dump();
}

std::string write_derivatives_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd,
                                   const num::ForwardDynamicsDerivatives& forward,
                                   const num::InverseDynamicsDerivatives& inverse) {
  nlohmann::json j;
  describe_coordinates(model, j);
  j["t"] = number(t);
  j["q"] = as_vector(q);
  j["qd"] = as_vector(qd);
  j["qdd"] = as_vector(forward.qdd);
  j["dtau_dq"] = rows_of(inverse.dtau_dq);
  j["dtau_dqd"] = rows_of(inverse.dtau_dqd);
  j["dqdd_dq"] = rows_of(forward.dqdd_dq);
  j["dqdd_dqd"] = rows_of(forward.dqdd_dqd);
  j["minv"] = rows_of(forward.minv);
  return j.dump();
}

}  // namespace appell::io
