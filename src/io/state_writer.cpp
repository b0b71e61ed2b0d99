#include "appell/io/state_writer.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace appell::io {

namespace {

std::vector<double> as_vector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

nlohmann::json rows_of(const Eigen::MatrixXd& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const Eigen::VectorXd row = m.row(i).transpose();
    rows.push_back(as_vector(row));
  }
  return rows;
}

}  // namespace

std::string write_state_json(const num::StateEvaluation& s) {
  nlohmann::json j;
  j["t"] = s.t;
  j["q"] = as_vector(s.q);
  j["qd"] = as_vector(s.qd);
  j["mass_matrix"] = rows_of(s.mass_matrix);
  j["forcing"] = as_vector(s.forcing);
  j["qdd"] = as_vector(s.qdd);
  if (s.lambda.size() > 0) j["lambda"] = as_vector(s.lambda);
  return j.dump();
}

std::string write_minimal_state_json(const model::Model& model, double t, const Eigen::VectorXd& q,
                                     const num::CompiledMinimalForm::State& state) {
  nlohmann::json j;
  j["t"] = t;
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

}  // namespace appell::io
