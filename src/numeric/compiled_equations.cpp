#include "appell/numeric/compiled_equations.hpp"

#include <set>
#include <sstream>
#include <unordered_set>

#include "appell/model/source_location.hpp"
#include "appell/sym/dag.hpp"
#include "tape_layout.hpp"

namespace appell::num {

namespace {

// Every symbol in the expressions, each shared node visited once. Visited nodes are kept alive
// in `keep`: op(i) of a product may build a temporary whose address a later one could reuse.
void collect_symbols(const GiNaC::ex& e, std::set<GiNaC::ex, GiNaC::ex_is_less>& symbols,
                     std::unordered_set<const void*>& seen, GiNaC::exvector& keep) {
  if (!seen.insert(sym::node_key(e)).second) return;
  keep.push_back(e);
  if (GiNaC::is_a<GiNaC::symbol>(e)) symbols.insert(e);
  for (std::size_t i = 0; i < e.nops(); ++i) collect_symbols(e.op(i), symbols, seen, keep);
}

}  // namespace

Layout layout_of(const model::Model& m, const GiNaC::exvector& entries,
                 const std::map<std::string, double>& values) {
  Layout layout;
  layout.variables.push_back(m.time_functions->time());
  for (std::size_t j = 0; j < m.dof(); ++j) layout.variables.push_back(m.coordinate_symbol(j, 0));
  for (std::size_t j = 0; j < m.dof(); ++j) layout.variables.push_back(m.coordinate_symbol(j, 1));

  std::map<std::string, double> parameter_overrides, others;
  for (const auto& [name, v] : values)
    (m.find_parameter(name) ? parameter_overrides : others)[name] = v;
  const auto parameters = m.parameter_values(parameter_overrides);
  for (const auto& p : m.parameters) {
    layout.variables.push_back(p.symbol);
    layout.fixed.push_back(parameters.at(p.name));
  }

  // Whatever else appears: inputs and unspecified prescribed functions with their derivatives.
  std::set<GiNaC::ex, GiNaC::ex_is_less> symbols;
  std::unordered_set<const void*> seen;
  GiNaC::exvector keep;
  for (const auto& e : entries) collect_symbols(e, symbols, seen, keep);
  for (const auto& v : layout.variables) symbols.erase(v);
  for (const auto& s : symbols) {
    const auto& sym = GiNaC::ex_to<GiNaC::symbol>(s);
    layout.variables.push_back(sym);
    auto it = others.find(sym.get_name());
    layout.fixed.push_back(it == others.end() ? 0.0 : it->second);
    if (it != others.end()) others.erase(it);
  }
  for (const auto& [name, v] : others) {
    (void)v;
    bool known = false;
    for (const auto& in : m.inputs) known = known || in.name == name;
    for (const auto& p : m.prescribed) known = known || p.name == name;
    if (!known) throw model::ModelError(model::SourceLocation{"--set", 0, 0}, "unknown name", name);
  }
  return layout;
}

CompiledEquations::CompiledEquations(const principles::Equations& eq,
                                     const std::map<std::string, double>& values)
    : n_(eq.dof()), m_(eq.constraint_count()), tape_([&] {
        Layout layout = layout_of(*eq.model, eq.entries(), values);
        fixed_ = std::move(layout.fixed);
        return Tape(eq.entries(), layout.variables);
      }()) {
  variables_.assign(1 + 2 * n_, 0.0);
  variables_.insert(variables_.end(), fixed_.begin(), fixed_.end());
  outputs_.resize(n_ * n_ + n_ + m_ * n_ + m_);
}

void CompiledEquations::evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::MatrixXd& M, Eigen::VectorXd& f) const {
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = qd[static_cast<Eigen::Index>(j)];
  }
  tape_.evaluate(variables_.data(), outputs_.data(), workspace_);
  const auto n = static_cast<Eigen::Index>(n_);
  M.resize(n, n);
  f.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index k = 0; k < n; ++k) M(i, k) = outputs_[static_cast<std::size_t>(i * n + k)];
    f[i] = outputs_[static_cast<std::size_t>(n * n + i)];
  }
}

Eigen::VectorXd CompiledEquations::accelerations(const Eigen::MatrixXd& M,
                                                 const Eigen::VectorXd& f) const {
  if (!M.allFinite() || !f.allFinite())
    throw model::ComputationError("the mass matrix or the forcing is not finite at this state");
  // M is symmetric positive definite for any physical model; a failed Cholesky factorisation
  // means a singular (or indefinite) mass matrix, e.g. a coordinate that moves no mass.
  Eigen::LLT<Eigen::MatrixXd> llt(M);
  const double scale = M.cwiseAbs().maxCoeff();
  if (llt.info() != Eigen::Success || scale == 0.0 ||
      llt.matrixL().toDenseMatrix().diagonal().minCoeff() <= 1e-12 * std::sqrt(scale)) {
    std::ostringstream s;
    s << "singular mass matrix: M is not positive definite at this state (M = ["
      << M.format(Eigen::IOFormat(Eigen::StreamPrecision, Eigen::DontAlignCols, ", ", "; "))
      << "])";
    throw model::ComputationError(s.str());
  }
  return llt.solve(f);
}

void CompiledEquations::constraints(Eigen::MatrixXd& A, Eigen::VectorXd& b) const {
  const std::size_t base = n_ * n_ + n_;
  A.resize(static_cast<Eigen::Index>(m_), static_cast<Eigen::Index>(n_));
  b.resize(static_cast<Eigen::Index>(m_));
  for (std::size_t i = 0; i < m_; ++i) {
    for (std::size_t k = 0; k < n_; ++k)
      A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = outputs_[base + i * n_ + k];
    b[static_cast<Eigen::Index>(i)] = outputs_[base + m_ * n_ + i];
  }
}

void CompiledEquations::accelerations_and_multipliers(
    const Eigen::MatrixXd& M, const Eigen::VectorXd& f, const Eigen::MatrixXd& A,
    const Eigen::VectorXd& b, Eigen::VectorXd& qdd, Eigen::VectorXd& lambda) const {
  // q̈ = M⁻¹(f + Aᵀλ) and A q̈ = b give (A M⁻¹ Aᵀ) λ = b − A M⁻¹ f.
  const Eigen::VectorXd free_acceleration = accelerations(M, f);
  if (A.rows() == 0) {
    qdd = free_acceleration;
    lambda.resize(0);
    return;
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  const Eigen::MatrixXd minv_at = llt.solve(A.transpose());
  const Eigen::MatrixXd schur = A * minv_at;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(schur);
  if (!A.allFinite() || !b.allFinite() || lu.rank() < schur.rows())
    throw model::ComputationError(
        "the constraints are redundant or singular at this state (A M^-1 A^T has rank " +
        std::to_string(lu.rank()) + " < " + std::to_string(schur.rows()) + ")");
  lambda = lu.solve(b - A * free_acceleration);
  qdd = free_acceleration + minv_at * lambda;
}

}  // namespace appell::num
