#include "appell/numeric/dynamics_derivatives.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "appell/model/source_location.hpp"
#include "appell/principles/dynamics_derivatives.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/tape.hpp"

namespace appell::num {

using sym::Node;

// The tapes over one variable vector: t, q (n), q̇ (n), q̈ (n), τ (n), the inputs (r).
struct DynamicsDerivativesEvaluator::Programs {
  std::shared_ptr<const model::Model> model;
  std::size_t n = 0, r = 0;
  std::vector<std::string> inputs;
  std::vector<double> input_values;
  std::optional<sym::Tape> inverse;  // τ, ∂τ/∂q, ∂τ/∂q̇, ∂τ/∂u
  std::optional<sym::Tape> forward;  // q̈, pivots, diagonal, ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂u, M⁻¹
  std::string forward_method, derivatives_method;

  std::size_t variable_count() const { return 1 + 4 * n + r; }
};

namespace {

std::uint32_t u32(std::size_t i) { return static_cast<std::uint32_t>(i); }
Eigen::Index idx(std::size_t i) { return static_cast<Eigen::Index>(i); }

void check_size(const Eigen::VectorXd& v, std::size_t n, const char* what) {
  if (static_cast<std::size_t>(v.size()) != n)
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(v.size()) +
                                " entries, the model " + std::to_string(n) + " coordinates");
}

void append(std::vector<Node>& to, const std::vector<Node>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Reads `rows` × `cols` values (row-major) from `values` at `k`, advancing k.
Eigen::MatrixXd read(const std::vector<double>& values, std::size_t& k, std::size_t rows,
                     std::size_t cols) {
  Eigen::MatrixXd m(idx(rows), idx(cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) m(idx(i), idx(j)) = values[k++];
  return m;
}

}  // namespace

DynamicsDerivativesEvaluator::DynamicsDerivativesEvaluator(
    std::shared_ptr<const model::Model> model, const model::Values& values,
    const std::vector<std::string>& inputs, bool forward_too) {
  if (!model) throw std::invalid_argument("dynamics derivatives: no model");
  const model::Model& m = *model;
  const std::string reason = principles::recursions_alone_do_not_cover(m);
  if (!reason.empty())
    throw std::invalid_argument(
        "the derivatives of the dynamics need the recursions, which do "
        "not cover " +
        reason);
  auto programs = std::make_shared<Programs>();
  programs->model = model;
  const std::size_t n = m.dof(), r = inputs.size();
  programs->n = n;
  programs->r = r;
  programs->inputs = inputs;

  // The local expressions first: they may add derivative symbols that binding must know.
  principles::RecursionBuilder builder(m);
  const model::BoundValues bound = model::bind(m, values);

  principles::RecursiveDynamics d;
  sym::ScalarProgram& p = d.program;
  principles::DerivativeVariables v;
  std::map<GiNaC::ex, Node, GiNaC::ex_is_less> nodes;
  const GiNaC::symbol t = m.time_functions->time();
  nodes.emplace(t, p.variable(0));
  for (std::size_t j = 0; j < n; ++j) {
    v.q.push_back(p.variable(u32(1 + j)));
    v.qd.push_back(p.variable(u32(1 + n + j)));
    v.qdd.push_back(p.variable(u32(1 + 2 * n + j)));
    v.extra.push_back(p.variable(u32(1 + 3 * n + j)));
    nodes.emplace(m.coordinate_symbol(j, 0), v.q.back());
    nodes.emplace(m.coordinate_symbol(j, 1), v.qd.back());
  }
  // The inputs differentiated along are variables (at their bound numbers); everything else
  // bound folds into the program as a constant.
  for (std::size_t k = 0; k < r; ++k) {
    const std::string& name = inputs[k];
    const bool known = std::any_of(m.inputs.begin(), m.inputs.end(),
                                   [&](const model::Input& i) { return i.name == name; });
    if (!known) throw std::invalid_argument("no input " + name + " in the model");
    if (std::find(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(k), name) !=
        inputs.begin() + static_cast<std::ptrdiff_t>(k))
      throw std::invalid_argument("the input " + name + " is named twice");
    const GiNaC::symbol s = m.time_functions->derivative(name, 0);
    if (bound.driven.count(s))
      throw std::invalid_argument("the input " + name + " is an expression of t");
    const auto number = bound.numbers.find(s);
    programs->input_values.push_back(
        number == bound.numbers.end() ? 0.0
                                      : GiNaC::ex_to<GiNaC::numeric>(number->second).to_double());
    v.others.push_back(p.variable(u32(1 + 4 * n + k)));
    nodes.emplace(s, v.others.back());
  }
  for (const auto& [symbol, value] : bound.numbers)
    nodes.emplace(symbol, p.constant(GiNaC::ex_to<GiNaC::numeric>(value).to_double()));
  for (const auto& [symbol, value] : bound.unset) nodes.emplace(symbol, p.constant(0.0));
  if (!bound.driven.empty()) {
    // Functions driven by expressions of t: each a node computed from t.
    GiNaC::exvector expressions;
    std::vector<GiNaC::ex> symbols;
    for (const auto& [symbol, expression] : bound.driven) {
      symbols.push_back(symbol);
      expressions.push_back(expression);
    }
    const sym::Tape driven(expressions, {t});
    const std::vector<Node> values_of = p.import(driven, {nodes.at(t)});
    for (std::size_t i = 0; i < symbols.size(); ++i) nodes.emplace(symbols[i], values_of[i]);
  }
  principles::RecursionInputs in;
  for (const GiNaC::symbol& s : builder.symbols()) {
    const auto it = nodes.find(s);
    if (it == nodes.end())
      throw std::invalid_argument("dynamics derivatives: no value for the symbol " + s.get_name());
    in.symbols.push_back(s);
    in.nodes.push_back(it->second);
  }
  in.qdd = v.qdd;
  in.extra = v.extra;
  principles::RecursionOptions options;
  options.mass_matrix = forward_too;  // so that M = Lᵀ D L solves where articulated bodies do not
  options.forward = forward_too;
  builder.build(d, in, options);
  if (forward_too && d.forward.empty())
    throw std::invalid_argument("the recursions give no forward dynamics for this model");
  const principles::DynamicsDerivatives derivatives = principles::differentiate_dynamics(d, v);

  std::vector<Node> inverse = d.inverse;
  append(inverse, derivatives.dtau_dq);
  append(inverse, derivatives.dtau_dqd);
  append(inverse, derivatives.dtau_dothers);
  programs->inverse.emplace(p.tape(inverse, programs->variable_count()));
  if (forward_too) {
    std::vector<Node> forward = d.forward;
    append(forward, d.pivots);
    append(forward, d.diagonal);
    append(forward, derivatives.dqdd_dq);
    append(forward, derivatives.dqdd_dqd);
    append(forward, derivatives.dqdd_dothers);
    append(forward, derivatives.minv);
    programs->forward.emplace(p.tape(forward, programs->variable_count()));
  }
  programs->forward_method = d.forward_method;
  programs->derivatives_method = derivatives.forward_method;
  programs_ = std::move(programs);
}

DynamicsDerivativesEvaluator::~DynamicsDerivativesEvaluator() = default;

std::size_t DynamicsDerivativesEvaluator::dof() const { return programs_->n; }
const std::vector<std::string>& DynamicsDerivativesEvaluator::inputs() const {
  return programs_->inputs;
}
const std::string& DynamicsDerivativesEvaluator::forward_method() const {
  return programs_->forward_method;
}
const std::string& DynamicsDerivativesEvaluator::forward_derivatives_method() const {
  return programs_->derivatives_method;
}
std::size_t DynamicsDerivativesEvaluator::inverse_operations() const {
  return programs_->inverse->operations();
}
std::size_t DynamicsDerivativesEvaluator::forward_operations() const {
  return programs_->forward ? programs_->forward->operations() : 0;
}

namespace {

// The programs' variables: t, q, q̇, q̈, τ (n each; q̈ or τ empty: zeros) and the inputs' values.
void load_variables(std::size_t count, const std::vector<double>& inputs, double t,
                    const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                    const Eigen::VectorXd& tau, std::vector<double>& x) {
  const std::size_t n = static_cast<std::size_t>(q.size());
  x.assign(count, 0.0);
  x[0] = t;
  for (std::size_t j = 0; j < n; ++j) {
    x[1 + j] = q[idx(j)];
    x[1 + n + j] = qd[idx(j)];
    if (qdd.size() != 0) x[1 + 2 * n + j] = qdd[idx(j)];
    if (tau.size() != 0) x[1 + 3 * n + j] = tau[idx(j)];
  }
  std::copy(inputs.begin(), inputs.end(), x.begin() + idx(1 + 4 * n));
}

}  // namespace

void DynamicsDerivativesEvaluator::inverse(double t, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                                           InverseDynamicsDerivatives& out,
                                           DerivativesWorkspace& work) const {
  const Programs& P = *programs_;
  const std::size_t n = P.n, r = P.r;
  check_size(q, n, "q");
  check_size(qd, n, "dot(q)");
  check_size(qdd, n, "ddot(q)");
  std::vector<double>& x = work.variables;
  load_variables(P.variable_count(), P.input_values, t, q, qd, qdd, Eigen::VectorXd(), x);
  work.outputs.resize(P.inverse->output_count());
  P.inverse->evaluate(x.data(), work.outputs.data(), work.slots);
  std::size_t k = 0;
  out.tau = read(work.outputs, k, n, 1);
  out.dtau_dq = read(work.outputs, k, n, n);
  out.dtau_dqd = read(work.outputs, k, n, n);
  out.dtau_du = read(work.outputs, k, n, r);
}

void DynamicsDerivativesEvaluator::forward(double t, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                           ForwardDynamicsDerivatives& out,
                                           DerivativesWorkspace& work) const {
  const Programs& P = *programs_;
  if (!P.forward) throw std::logic_error("dynamics derivatives built without forward dynamics");
  const std::size_t n = P.n, r = P.r;
  check_size(q, n, "q");
  check_size(qd, n, "dot(q)");
  if (tau.size() != 0) check_size(tau, n, "tau");
  std::vector<double>& x = work.variables;
  load_variables(P.variable_count(), P.input_values, t, q, qd, Eigen::VectorXd(), tau, x);
  work.outputs.resize(P.forward->output_count());
  P.forward->evaluate(x.data(), work.outputs.data(), work.slots);
  // The pivot test of forward dynamics (eval, the generated code): D_i above 1e-12 of M_ii and
  // 1e-24 of the largest diagonal entry.
  double scale = 0.0;
  for (std::size_t j = 0; j < n; ++j) scale = std::max(scale, std::fabs(work.outputs[2 * n + j]));
  for (std::size_t j = 0; j < n; ++j) {
    const double pivot = work.outputs[n + j], diagonal = work.outputs[2 * n + j];
    if (!(pivot > 1e-24 * scale) || !(pivot > 1e-12 * diagonal))
      throw model::ComputationError(
          "singular mass matrix: M is not positive definite at this "
          "state (pivot " +
          std::to_string(j + 1) + " of the forward solve)");
  }
  for (double value : work.outputs)
    if (!std::isfinite(value))
      throw model::ComputationError("the derivatives of the dynamics are not finite at this state");
  std::size_t k = 0;
  out.qdd = read(work.outputs, k, n, 1);
  k += 2 * n;  // the pivots and the diagonal
  out.dqdd_dq = read(work.outputs, k, n, n);
  out.dqdd_dqd = read(work.outputs, k, n, n);
  out.dqdd_du = read(work.outputs, k, n, r);
  out.minv = read(work.outputs, k, n, n);
}

}  // namespace appell::num
