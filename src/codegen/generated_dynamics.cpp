#include "generated_dynamics.hpp"

#include <cmath>
#include <stdexcept>

#include "code_writer.hpp"
#include "dynamics_program.hpp"
#include "plan.hpp"

namespace appell::codegen {

struct GeneratedDynamics::Data {
  detail::Plan plan;
  detail::DynamicsProgram program;
};

GeneratedDynamics::GeneratedDynamics(const principles::Equations& equations,
                                     const model::Values& values) {
  if (equations.constraint_count() > 0)
    throw std::invalid_argument("code generation for constrained systems is not implemented");
  auto data = std::make_shared<Data>();
  data->plan = detail::make_plan(equations, values);
  detail::claim_input_fields(data->plan);
  data->program = detail::build_dynamics(equations, data->plan);
  data_ = std::move(data);
}

std::size_t GeneratedDynamics::dof() const { return data_->plan.n; }
bool GeneratedDynamics::recursive() const { return data_->program.recursive; }
const std::string& GeneratedDynamics::fallback_reason() const {
  return data_->program.fallback_reason;
}

const std::string& GeneratedDynamics::forward_method() const {
  return data_->program.forward_method;
}

namespace {

void check_size(const std::vector<double>& v, std::size_t n, const char* what) {
  if (v.size() != n)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(v.size()) +
                                " entries, not " + std::to_string(n));
}

// The values of `nodes` at a state (q̈ and the extra forces zero when null).
std::vector<double> evaluate(const detail::Plan& plan, const detail::DynamicsProgram& program,
                             const std::vector<detail::Node>& nodes, double t,
                             const std::vector<double>& q, const double* qd, const double* qdd,
                             const double* extra) {
  check_size(q, plan.n, "q");
  const std::vector<double> v = detail::program_variables(plan, t, q.data(), qd, qdd, extra);
  std::vector<double> out(nodes.size()), work;
  program.program.evaluate(v.data(), nodes, out.data(), work);
  return out;
}

}  // namespace

std::vector<double> GeneratedDynamics::mass_matrix(double t, const std::vector<double>& q,
                                                   const std::vector<double>& qd) const {
  check_size(qd, dof(), "qd");
  return evaluate(data_->plan, data_->program, data_->program.mass, t, q, qd.data(), nullptr,
                  nullptr);
}

std::vector<double> GeneratedDynamics::forcing(double t, const std::vector<double>& q,
                                               const std::vector<double>& qd) const {
  check_size(qd, dof(), "qd");
  return evaluate(data_->plan, data_->program, data_->program.forcing, t, q, qd.data(), nullptr,
                  nullptr);
}

std::vector<double> GeneratedDynamics::nonlinear_effects(double t, const std::vector<double>& q,
                                                         const std::vector<double>& qd) const {
  check_size(qd, dof(), "qd");
  return evaluate(data_->plan, data_->program, data_->program.bias, t, q, qd.data(), nullptr,
                  nullptr);
}

std::vector<double> GeneratedDynamics::gravity(double t, const std::vector<double>& q) const {
  const std::vector<double> zero(dof(), 0.0);
  return evaluate(data_->plan, data_->program, data_->program.gravity, t, q, zero.data(), nullptr,
                  nullptr);
}

std::vector<double> GeneratedDynamics::inverse_dynamics(double t, const std::vector<double>& q,
                                                        const std::vector<double>& qd,
                                                        const std::vector<double>& qdd) const {
  check_size(qd, dof(), "qd");
  check_size(qdd, dof(), "qdd");
  return evaluate(data_->plan, data_->program, data_->program.inverse, t, q, qd.data(), qdd.data(),
                  nullptr);
}

std::optional<std::vector<double>> GeneratedDynamics::forward_dynamics(
    double t, const std::vector<double>& q, const std::vector<double>& qd,
    const std::vector<double>& Q) const {
  check_size(qd, dof(), "qd");
  if (!Q.empty()) check_size(Q, dof(), "Q");
  std::vector<detail::Node> nodes = data_->program.forward;
  nodes.insert(nodes.end(), data_->program.pivots.begin(), data_->program.pivots.end());
  nodes.insert(nodes.end(), data_->program.diagonal.begin(), data_->program.diagonal.end());
  const std::size_t n = dof();
  std::vector<double> out = evaluate(data_->plan, data_->program, nodes, t, q, qd.data(), nullptr,
                                     Q.empty() ? nullptr : Q.data());
  double scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(out[2 * n + i])) return std::nullopt;
    scale = std::max(scale, std::fabs(out[2 * n + i]));
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!(out[n + i] > 1e-24 * scale) || !std::isfinite(out[i])) return std::nullopt;
  out.resize(n);
  return out;
}

OperationCounts GeneratedDynamics::operation_counts(GeneratedFunction function) const {
  return detail::write_body(data_->program, data_->plan,
                            detail::function_targets(data_->program, function), Language::Cpp)
      .counts;
}

}  // namespace appell::codegen
