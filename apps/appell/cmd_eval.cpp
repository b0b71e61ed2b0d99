// appell eval: M, f and q̈ at one state; --json prints the object of MODEL_FORMAT.md.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

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
  Eigen::VectorXd qdd, lambda;
  Eigen::MatrixXd A;
  Eigen::VectorXd b;
  compiled.constraints(A, b);
  compiled.accelerations_and_multipliers(M, f, A, b, qdd, lambda);

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
    if (compiled.constraint_count() > 0) j["lambda"] = vec(lambda);
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

void add_eval_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<EvalOptions>();
  auto* e = app.add_subcommand("eval", "M, f and ddot(q) at a state");
  e->add_option("MODEL", o->model, "model file (YAML)")->required();
  e->add_option("--q", o->q, "coordinates V1,V2,.. (default: the model's initial values)");
  e->add_option("--qd", o->qd, "velocities V1,V2,.. (default: the model's initial values)");
  e->add_option("--t", o->t, "time (default 0)");
  e->add_option("--set", o->set,
                "NAME=VALUE for a parameter, an input or an unspecified prescribed function "
                "(also dot(NAME)=VALUE); repeatable");
  e->add_option("--method", o->method,
                "lagrange | gibbs-appell (default) | dalembert | gauss | nielsen");
  e->add_flag("--json", o->json, "print one JSON object (MODEL_FORMAT.md)");
  commands.push_back({e, [o] { return run_eval(*o); }});
}

}  // namespace appell::cli
