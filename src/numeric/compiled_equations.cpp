#include "appell/numeric/compiled_equations.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/dynamics_evaluator.hpp"
#include "appell/sym/dag.hpp"
#include "rank_revealing.hpp"
#include "tape_layout.hpp"

namespace appell::num {

Layout layout_of(const model::Model& m, const GiNaC::exvector& entries,
                 const model::Values& values) {
  const model::BoundValues bound = model::bind(m, values);
  Layout layout;
  if (bound.driven.empty()) {
    layout.entries = entries;
  } else {
    for (const auto& e : entries) layout.entries.push_back(sym::substitute(e, bound.driven));
  }
  layout.variables.push_back(m.time_functions->time());
  for (std::size_t j = 0; j < m.dof(); ++j) layout.variables.push_back(m.coordinate_symbol(j, 0));
  for (std::size_t j = 0; j < m.dof(); ++j) layout.variables.push_back(m.coordinate_symbol(j, 1));
  for (const auto* numbers : {&bound.numbers, &bound.unset})
    for (const auto& [symbol, number] : *numbers) {
      layout.variables.push_back(GiNaC::ex_to<GiNaC::symbol>(symbol));
      layout.fixed.push_back(GiNaC::ex_to<GiNaC::numeric>(number).to_double());
    }

  // Whatever else appears: the coordinates' higher derivatives in equations of higher order (0
  // here), generalized speeds. Any other symbol has no value: never a silent 0 (equations written
  // through named intermediates are evaluated after principles::with_names_put_back).
  sym::SymbolSet symbols = sym::symbols_in(layout.entries);
  for (const auto& v : layout.variables) symbols.erase(v);
  for (const auto& s : symbols) {
    const auto symbol = GiNaC::ex_to<GiNaC::symbol>(s);
    const auto found = m.time_functions->lookup(symbol);
    const auto kind = found ? std::optional(m.time_functions->kind(found->function)) : std::nullopt;
    // Generalized speeds and their rates are given by the speed form's tape (SpeedTape finds
    // their slots here).
    const bool known = kind && ((*kind == sym::TimeFunctionKind::Coordinate && found->order >= 2) ||
                                *kind == sym::TimeFunctionKind::Speed);
    if (!known)
      throw std::invalid_argument("no value for symbol " + symbol.get_name() +
                                  " in the equations (equations written through named "
                                  "intermediates are evaluated with the names put back: "
                                  "principles::with_names_put_back)");
    layout.variables.push_back(symbol);
    layout.fixed.push_back(0.0);
  }
  return layout;
}

CompiledEquations::CompiledEquations(const principles::Equations& eq, const model::Values& values)
    : n_(eq.dof()), m_(eq.constraint_count()), tape_([&] {
        // M, f and the constraint rows A, b alike: one layout, one set of values.
        Layout layout = layout_of(*eq.model, eq.entries(), values);
        fixed_ = std::move(layout.fixed);
        return Tape(layout.entries, layout.variables);
      }()) {
  variables_.assign(1 + 2 * n_, 0.0);
  variables_.insert(variables_.end(), fixed_.begin(), fixed_.end());
  outputs_.resize(n_ * n_ + n_ + m_ * n_ + m_);
}

void CompiledEquations::evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                 Eigen::MatrixXd& M, Eigen::VectorXd& f) const {
  // Eigen does not check sizes in a release build: a short vector would be read past its end.
  if (q.size() != static_cast<Eigen::Index>(n_) || qd.size() != static_cast<Eigen::Index>(n_))
    throw std::invalid_argument("CompiledEquations::evaluate: expected " + std::to_string(n_) +
                                " coordinates and speeds, got " + std::to_string(q.size()) +
                                " and " + std::to_string(qd.size()));
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
  return solve_accelerations(M, f);
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

std::vector<std::size_t> redundant_constraints(const Eigen::MatrixXd& A, double rank_tolerance) {
  if (A.rows() == 0) return {};
  // Column-pivoted QR of Aᵀ: the constraints (columns) pivoted first span the rows of A; those
  // left after the rank are combinations of them.
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;
  qr.setThreshold(rank_tolerance);
  qr.compute(A.transpose());
  std::vector<std::size_t> redundant;
  for (Eigen::Index k = qr.rank(); k < A.rows(); ++k)
    redundant.push_back(static_cast<std::size_t>(qr.colsPermutation().indices()[k]));
  std::sort(redundant.begin(), redundant.end());
  return redundant;
}

void CompiledEquations::accelerations_and_multipliers(
    const Eigen::MatrixXd& M, const Eigen::VectorXd& f, const Eigen::MatrixXd& A,
    const Eigen::VectorXd& b, Eigen::VectorXd& qdd, Eigen::VectorXd& lambda,
    const ConstraintTolerances& tolerances) const {
  solve_constrained_accelerations(M, f, A, b, qdd, lambda, tolerances);
}

}  // namespace appell::num
