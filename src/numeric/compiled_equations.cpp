#include "appell/numeric/compiled_equations.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/acceleration_solve.hpp"
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

namespace {

constexpr std::size_t kUnused = std::numeric_limits<std::size_t>::max();

}  // namespace

CompiledEquations::CompiledEquations(const principles::Equations& eq, const model::Values& values)
    : form_(eq.form), n_(eq.dof()), p_(eq.size()), m_(eq.constraint_count()), tape_([&] {
        // Every entry alike: one layout, one set of values.
        Layout layout = layout_of(*eq.model, eq.entries(), values);
        variables_.assign(1 + 2 * n_, 0.0);
        variables_.insert(variables_.end(), layout.fixed.begin(), layout.fixed.end());
        // Where each velocity v_k is read: q̇'s own slots in the coordinates, the independent
        // coordinates' in the minimal form (its entries are free of the dependent speeds), and
        // in the speeds the slot layout_of gave each speed's symbol (unused when no entry has it).
        for (std::size_t k = 0; k < p_; ++k) {
          if (form_ == principles::Form::Coordinates) {
            velocity_slots_.push_back(1 + n_ + k);
          } else if (form_ == principles::Form::Minimal) {
            velocity_slots_.push_back(1 + n_ + eq.independent.at(k));
          } else {
            const GiNaC::symbol u = eq.model->speed_symbol(k);
            std::size_t slot = kUnused;
            for (std::size_t i = 0; i < layout.variables.size() && slot == kUnused; ++i)
              if (layout.variables[i].is_equal(u)) slot = i;
            velocity_slots_.push_back(slot);
          }
        }
        return Tape(layout.entries, layout.variables);
      }()) {
  outputs_.resize(tape_.output_count());
}

void CompiledEquations::check_sizes(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                    const char* caller) const {
  // Eigen does not check sizes in a release build: a short vector would be read past its end.
  if (q.size() != static_cast<Eigen::Index>(n_) || v.size() != static_cast<Eigen::Index>(p_))
    throw std::invalid_argument(std::string("CompiledEquations::") + caller + ": expected " +
                                std::to_string(n_) + " coordinates and " + std::to_string(p_) +
                                " velocities, got " + std::to_string(q.size()) + " and " +
                                std::to_string(v.size()));
}

void CompiledEquations::run(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                            const char* caller) const {
  check_sizes(q, v, caller);
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = 0.0;
  }
  for (std::size_t k = 0; k < p_; ++k)
    if (velocity_slots_[k] != kUnused)
      variables_[velocity_slots_[k]] = v[static_cast<Eigen::Index>(k)];
  tape_.evaluate(variables_.data(), outputs_.data(), workspace_);
}

void CompiledEquations::evaluate(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                 Eigen::MatrixXd& M, Eigen::VectorXd& f) const {
  run(t, q, v, "evaluate");
  const auto p = static_cast<Eigen::Index>(p_);
  M.resize(p, p);
  f.resize(p);
  for (Eigen::Index i = 0; i < p; ++i) {
    for (Eigen::Index k = 0; k < p; ++k) M(i, k) = outputs_[static_cast<std::size_t>(i * p + k)];
    f[i] = outputs_[static_cast<std::size_t>(p * p + i)];
  }
}

Eigen::VectorXd CompiledEquations::accelerations(const Eigen::MatrixXd& M,
                                                 const Eigen::VectorXd& f) const {
  return solve_accelerations(M, f);
}

namespace {

// Why q̇ = B v + β has no value at a state, in each form that has a speed map.
std::string speed_map_not_finite(principles::Form form) {
  return form == principles::Form::Minimal
             ? "the constraints do not determine the dependent speeds at this state (their block "
               "of the constraint Jacobian is singular); choose other independent speeds"
             : "the kinematics of the speeds are not finite at this state";
}

// Where the parts of Equations::entries() start in a tape's outputs.
struct Offsets {
  std::size_t speed_matrix = 0, speed_offset = 0, acceleration_offset = 0;
  std::size_t constraint_matrix = 0, constraint_rhs = 0, velocity_offset = 0;
};

Offsets offsets(principles::Form form, std::size_t n, std::size_t p, std::size_t m) {
  Offsets o;
  std::size_t k = p * p + p;
  if (form != principles::Form::Coordinates) {
    o.speed_matrix = k;
    k += n * p;
    o.speed_offset = k;
    if (form == principles::Form::Minimal) k += n;
    o.acceleration_offset = k;
    k += n;
  }
  o.constraint_matrix = k;
  o.constraint_rhs = k + m * p;
  o.velocity_offset = k + m * p + m;
  return o;
}

}  // namespace

void CompiledEquations::constraints(Eigen::MatrixXd& A, Eigen::VectorXd& b) const {
  const Offsets o = offsets(form_, n_, p_, m_);
  A.resize(static_cast<Eigen::Index>(m_), static_cast<Eigen::Index>(p_));
  b.resize(static_cast<Eigen::Index>(m_));
  for (std::size_t i = 0; i < m_; ++i) {
    for (std::size_t k = 0; k < p_; ++k)
      A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) =
          outputs_[o.constraint_matrix + i * p_ + k];
    b[static_cast<Eigen::Index>(i)] = outputs_[o.constraint_rhs + i];
  }
}

CompiledEquations::State CompiledEquations::solve(double t, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v,
                                                  const ConstraintTolerances& tolerances) const {
  State s;
  evaluate(t, q, v, s.mass_matrix, s.forcing);
  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_),
             m = static_cast<Eigen::Index>(m_);
  const Offsets o = offsets(form_, n_, p_, m_);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(n);
  if (form_ == principles::Form::Coordinates) {
    s.speed_matrix = Eigen::MatrixXd::Identity(n, p);
    s.acceleration_offset = Eigen::VectorXd::Zero(n);
  } else {
    s.speed_matrix.resize(n, p);
    s.acceleration_offset.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < p; ++j)
        s.speed_matrix(i, j) = outputs_[o.speed_matrix + static_cast<std::size_t>(i * p + j)];
      if (form_ == principles::Form::Minimal)
        beta[i] = outputs_[o.speed_offset + static_cast<std::size_t>(i)];
      s.acceleration_offset[i] = outputs_[o.acceleration_offset + static_cast<std::size_t>(i)];
    }
  }
  if (!s.speed_matrix.allFinite() || !beta.allFinite())
    throw model::ComputationError(speed_map_not_finite(form_));
  s.qd = s.speed_matrix * v + beta;
  constraints(s.constraint_matrix, s.constraint_rhs);
  if (form_ == principles::Form::Speeds) {
    s.velocity_residual.resize(m);
    for (Eigen::Index i = 0; i < m; ++i)
      s.velocity_residual[i] = outputs_[o.velocity_offset + static_cast<std::size_t>(i)];
    s.velocity_residual += s.constraint_matrix * v;
  }
  if (form_ != principles::Form::Coordinates &&
      (!s.mass_matrix.allFinite() || !s.forcing.allFinite() || !s.acceleration_offset.allFinite()))
    throw model::ComputationError(form_ == principles::Form::Minimal
                                      ? "the minimal form is not finite at this state"
                                      : "the equations in the speeds are not finite at this state");
  if (m == 0) {
    // M̃ = BᵀMB is positive definite when M is and B has full column rank.
    s.vdot = form_ == principles::Form::Coordinates
                 ? solve_accelerations(s.mass_matrix, s.forcing)
                 : factor_mass_matrix(s.mass_matrix,
                                      form_ == principles::Form::Minimal
                                          ? "singular mass matrix of the minimal form"
                                          : "singular mass matrix of the equations in the speeds")
                       .solve(s.forcing);
  } else {
    solve_constrained_accelerations(s.mass_matrix, s.forcing, s.constraint_matrix, s.constraint_rhs,
                                    s.vdot, s.lambda, tolerances);
  }
  s.qdd = s.speed_matrix * s.vdot + s.acceleration_offset;
  return s;
}

Eigen::VectorXd CompiledEquations::velocities(double t, const Eigen::VectorXd& q,
                                              const Eigen::VectorXd& v) const {
  if (form_ == principles::Form::Coordinates) {  // q̇ = v: nothing to evaluate
    check_sizes(q, v, "velocities");
    return v;
  }
  run(t, q, v, "velocities");
  const auto n = static_cast<Eigen::Index>(n_), p = static_cast<Eigen::Index>(p_);
  const Offsets o = offsets(form_, n_, p_, m_);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> B(
      outputs_.data() + o.speed_matrix, n, p);
  Eigen::VectorXd qd = B * v;
  if (form_ == principles::Form::Minimal)
    qd += Eigen::Map<const Eigen::VectorXd>(outputs_.data() + o.speed_offset, n);
  if (!qd.allFinite()) throw model::ComputationError(speed_map_not_finite(form_));
  return qd;
}

void CompiledEquations::velocity_constraints(double t, const Eigen::VectorXd& q,
                                             const Eigen::VectorXd& v, Eigen::MatrixXd& A,
                                             Eigen::VectorXd& residual) const {
  if (form_ != principles::Form::Speeds)
    throw std::logic_error("CompiledEquations::velocity_constraints: only in the speeds");
  const auto p = static_cast<Eigen::Index>(p_), m = static_cast<Eigen::Index>(m_);
  A.resize(m, p);
  residual.resize(m);
  if (m == 0) return;
  run(t, q, v, "velocity_constraints");
  const Offsets o = offsets(form_, n_, p_, m_);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j < p; ++j)
      A(i, j) = outputs_[o.constraint_matrix + static_cast<std::size_t>(i * p + j)];
    residual[i] = outputs_[o.velocity_offset + static_cast<std::size_t>(i)];
  }
  if (!A.allFinite() || !residual.allFinite())
    throw model::ComputationError("the constraints in the speeds are not finite at this state");
  residual += A * v;
}

std::vector<std::size_t> redundant_constraints(const Eigen::MatrixXd& A, double rank_tolerance) {
  if (A.rows() == 0) return {};
  // Eigen's pivoting indexes out of bounds on a NaN: a failed computation, not a crash.
  if (!A.allFinite()) throw model::ComputationError("the constraints' Jacobian is not finite");
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
