#include "appell/numeric/statics.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>

#include "appell/kinematics/kinematics.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/progress.hpp"
#include "relative_statics.hpp"

namespace appell::num {

namespace {

// The residual R(z) of the unknowns z = (q, λ) and its Jacobian ∂R/∂z at z, however they are
// computed: variables z, then t and the parameters and other symbols. Without constraints R = Q
// and z = q.
class StaticsResiduals {
 public:
  virtual ~StaticsResiduals() = default;
  /// R at z (n + constraints values) into `r`, and ∂R/∂z into `J` when given: false when R is
  /// not finite there.
  virtual bool evaluate(const Eigen::VectorXd& z, Eigen::VectorXd& r, Eigen::MatrixXd* J) = 0;
  virtual std::size_t dof() const = 0;
};

// R and ∂R/∂z formed symbolically and compiled once into one tape: the route of every model the
// recursions do not cover (constraints, a carrier frame) and of a moving model.
class CompiledStatics final : public StaticsResiduals {
 public:
  CompiledStatics(const model::Model& m, const GiNaC::exvector& residuals,
                  const std::vector<GiNaC::symbol>& unknowns, sym::Differentiator& d,
                  const StaticsOptions& o)
      : n_(unknowns.size()) {
    GiNaC::exvector outputs = residuals;
    for (std::size_t j = 0; j < n_; ++j)
      for (std::size_t k = 0; k < n_; ++k) outputs.push_back(d.partial(residuals[j], unknowns[k]));

    std::vector<GiNaC::symbol> variables = unknowns;
    variables.push_back(m.time_functions->time());
    values_.assign(n_, 0.0);
    values_.push_back(o.t);
    // Parameters, inputs and unspecified prescribed functions (with their derivatives): the
    // residuals and the constraints see the same values, driven functions at time o.t.
    const model::BoundValues bound = model::bind(m, o.values);
    if (!bound.driven.empty())
      for (auto& e : outputs) e = sym::substitute(e, bound.driven);
    for (const auto* numbers : {&bound.numbers, &bound.unset})
      for (const auto& [symbol, number] : *numbers) {
        variables.push_back(GiNaC::ex_to<GiNaC::symbol>(symbol));
        values_.push_back(GiNaC::ex_to<GiNaC::numeric>(number).to_double());
      }
    tape_ = std::make_unique<Tape>(outputs, variables);
    outputs_.resize(n_ + n_ * n_);
  }

  bool evaluate(const Eigen::VectorXd& z, Eigen::VectorXd& r, Eigen::MatrixXd* J) override {
    for (std::size_t j = 0; j < n_; ++j) values_[j] = z[static_cast<Eigen::Index>(j)];
    tape_->evaluate(values_.data(), outputs_.data(), workspace_);
    const auto N = static_cast<Eigen::Index>(n_);
    for (Eigen::Index j = 0; j < N; ++j) {
      r[j] = outputs_[static_cast<std::size_t>(j)];
      if (J)
        for (Eigen::Index k = 0; k < N; ++k)
          (*J)(j, k) = outputs_[n_ + static_cast<std::size_t>(j * N + k)];
    }
    return r.allFinite();
  }
  std::size_t dof() const override { return n_; }

 private:
  std::size_t n_;
  std::unique_ptr<Tape> tape_;
  std::vector<double> values_, outputs_, workspace_;
};

// Q and ∂Q/∂q from the recursions, for a model they cover whose frames do not move: at rest
// (q̇ = q̈ = 0) M q̈ = f leaves Q(q) = f(q, 0, t) (num::Dynamics::forcing), and inverse dynamics
// τ = M q̈ − f gives ∂τ/∂q = −∂f/∂q = K there (the differentiated recursions, exact to rounding),
// so no symbolic Q or derivative is compiled.
//
// What the recursions compute as a sum that cancels (a force turned into a body's frame and back:
// R Rᵀ is I only in exact arithmetic) is rounding where the formed Q has an exact zero, and a
// free coordinate's column of rounding, scaled to unit norm by Newton's steps, would move it. So
// the structure of the formed Q masks the numbers: Q_i that is 0 gives 0, and ∂Q_i/∂q_j is 0 where
// Q_i does not hold q_j (which symbols an expression holds, not its value: Q is never evaluated).
class RecursiveStatics final : public StaticsResiduals {
 public:
  RecursiveStatics(std::shared_ptr<const model::Model> model, const GiNaC::exvector& forces,
                   const StaticsOptions& o)
      : dynamics_(model, o.values),
        derivatives_(model, o.values, {}, /*forward=*/false),
        t_(o.t),
        rest_(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(model->dof()))) {
    const auto n = rest_.size();
    zero_force_.resize(n);
    depends_.resize(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const GiNaC::ex& force = forces[static_cast<std::size_t>(i)];
      zero_force_[i] = force.is_zero();
      const sym::SymbolSet symbols = sym::symbols_in({force});
      for (Eigen::Index j = 0; j < n; ++j)
        depends_(i, j) = symbols.count(model->coordinate_symbol(static_cast<std::size_t>(j))) != 0;
    }
  }

  bool evaluate(const Eigen::VectorXd& z, Eigen::VectorXd& r, Eigen::MatrixXd* J) override {
    dynamics_.forcing(t_, z, rest_, r, work_);
    for (Eigen::Index i = 0; i < r.size(); ++i)
      if (zero_force_[i]) r[i] = 0.0;
    if (J) {
      derivatives_.inverse(t_, z, rest_, rest_, derivatives_out_, derivatives_work_);
      *J = -derivatives_out_.dtau_dq;
      for (Eigen::Index i = 0; i < J->rows(); ++i)
        for (Eigen::Index j = 0; j < J->cols(); ++j)
          if (!depends_(i, j)) (*J)(i, j) = 0.0;
    }
    return r.allFinite();
  }
  std::size_t dof() const override { return static_cast<std::size_t>(rest_.size()); }

 private:
  Dynamics dynamics_;
  DynamicsDerivativesEvaluator derivatives_;
  double t_;
  Eigen::VectorXd rest_;                                        // q̇ = q̈ = 0
  Eigen::Array<bool, Eigen::Dynamic, 1> zero_force_;            // Q_i formed is 0
  Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> depends_;  // Q_i formed holds q_j
  DynamicsWorkspace work_;
  InverseDynamicsDerivatives derivatives_out_;
  DerivativesWorkspace derivatives_work_;
};

// Newton's method with minimum-norm steps from `start`; the point reached (converged or not).
// Each step is the least-squares solution of J δz = −R of smallest norm (a complete orthogonal
// decomposition, which reveals the rank; of J with its columns scaled to unit norm), so a direction
// J does not see (a free coordinate, a family of equilibria, a redundant constraint) is not moved,
// where an LU factorization would fail on the singular J. A backtracking line search on |R|²/2
// (Armijo) keeps the steps from overshooting; a step longer than 1000 max(1, |z|) is shortened
// first.
Eigen::VectorXd newton(StaticsResiduals& s, const Eigen::VectorXd& start, double tolerance) {
  const auto N = static_cast<Eigen::Index>(s.dof());
  Eigen::VectorXd z = start, r(N), trial_r(N);
  Eigen::MatrixXd J(N, N);
  if (!s.evaluate(z, r, &J)) return z;
  for (int iteration = 0; iteration < 200; ++iteration) {
    if (r.cwiseAbs().maxCoeff() <= tolerance) break;
    // Columns scaled to unit norm first (a zero column, a free coordinate, stays zero), so that
    // the rank threshold compares directions, not units: a spring of 1e-6 N/m beside one of
    // 1e6 N/m is weak, not absent.
    Eigen::VectorXd scale(N);
    for (Eigen::Index k = 0; k < N; ++k) {
      const double norm = J.col(k).norm();
      scale[k] = norm > 0 ? 1 / norm : 1.0;
    }
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
    cod.setThreshold(1e-11);  // relative to the largest pivot
    cod.compute(J * scale.asDiagonal());
    Eigen::VectorXd step = scale.cwiseProduct(cod.solve(-r));
    if (!step.allFinite()) break;
    const double limit = 1000 * std::max(1.0, z.norm());
    if (step.norm() > limit) step *= limit / step.norm();
    // The decrease of |R|²/2 along the step predicted by J: −|J δz|²-ish, −Rᵀ J δz.
    const double slope = r.dot(J * step);
    if (!(slope < 0)) break;  // stationary: J sees no direction that reduces R
    const double f = r.squaredNorm() / 2;
    bool accepted = false;
    for (double alpha = 1.0; alpha > 1e-10; alpha /= 2) {
      const Eigen::VectorXd trial = z + alpha * step;
      if (s.evaluate(trial, trial_r, nullptr) &&
          trial_r.squaredNorm() / 2 <= f + 1e-4 * alpha * slope) {
        z = trial;
        accepted = true;
        break;
      }
    }
    if (!accepted || !s.evaluate(z, r, &J)) break;
  }
  return z;
}

// A canonical basis of the span of the columns of `v` (n×k, independent): the reduced row
// echelon form of vᵀ, each row a unit vector with its leading entry positive, as columns. Any
// basis of the same space gives the same matrix, so the output does not depend on how an
// eigensolver happened to mix a repeated eigenvalue's vectors.
Eigen::MatrixXd canonical_basis(Eigen::MatrixXd v) {
  Eigen::MatrixXd rows = v.transpose();
  const Eigen::Index k = rows.rows(), n = rows.cols();
  Eigen::Index pivot_row = 0;
  for (Eigen::Index col = 0; col < n && pivot_row < k; ++col) {
    Eigen::Index best = pivot_row;
    for (Eigen::Index i = pivot_row; i < k; ++i)
      if (std::abs(rows(i, col)) > std::abs(rows(best, col))) best = i;
    if (std::abs(rows(best, col)) < 1e-8) continue;
    rows.row(pivot_row).swap(rows.row(best));
    rows.row(pivot_row) /= rows(pivot_row, col);
    for (Eigen::Index i = 0; i < k; ++i)
      if (i != pivot_row) rows.row(i) -= rows(i, col) * rows.row(pivot_row);
    ++pivot_row;
  }
  Eigen::MatrixXd basis = rows.topRows(pivot_row).transpose();
  for (Eigen::Index c = 0; c < basis.cols(); ++c) {
    basis.col(c).normalize();
    for (Eigen::Index j = 0; j < n; ++j)
      if (std::abs(basis(j, c)) < 1e-14) basis(j, c) = 0.0;  // also -0
  }
  return basis;
}

// -0.0 as 0.0 (x + 0.0 is +0 for x = ±0 and x otherwise), so that no result prints "-0".
void positive_zeros(Eigen::Ref<Eigen::VectorXd> v) { v.array() += 0.0; }

// The stability of a relative equilibrium `e` (its stiffness's verdict already set) from the
// linear model of the relative motion about it: a growing mode makes it unstable whatever the
// stiffness (circulatory or negative velocity forces); an unstable stiffness with no growing mode
// is held by the velocity forces at rest, i.e. gyroscopically (a damping force would let the
// stiffness's instability grow), which is stability to linear order. Without a linear model (a
// singular M) the stiffness's verdict stands.
void relative_stability(const principles::Equations& equations, const StaticsOptions& options,
                        Equilibrium& e) {
  LinearizationOptions linearization;
  linearization.values = options.values;
  linearization.t = options.t;
  std::vector<Mode> found;
  try {
    found = modes(linearize(equations, e.q, Eigen::VectorXd::Zero(e.q.size()), linearization));
  } catch (const model::ComputationError&) {
    return;
  }
  const bool growing =
      std::any_of(found.begin(), found.end(), [](const Mode& mode) { return mode.unstable; });
  if (growing) {
    e.stability = Stability::Unstable;
  } else if (e.stability == Stability::Unstable) {
    e.stability = Stability::Stable;
    e.gyroscopic_stabilization = true;
  }
}

}  // namespace

const char* stability_name(Stability stability) {
  switch (stability) {
    case Stability::Stable:
      return "stable";
    case Stability::Unstable:
      return "unstable";
    case Stability::Neutral:
      return "neutral";
  }
  return "unstable";
}

StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options) {
  const model::Model& m = *model;
  principles::require_coordinates(m);
  const std::size_t n = m.dof();
  const auto nq = static_cast<Eigen::Index>(n);
  for (std::size_t g = 0; g < options.guesses.size(); ++g) {
    const Eigen::VectorXd& guess = options.guesses[g];
    if (guess.size() != nq)
      throw model::ModelError(model::SourceLocation{"guesses", 0, 0},
                              "guess " + std::to_string(g + 1) + " has " +
                                  std::to_string(guess.size()) + " values, expected " +
                                  std::to_string(n) + " (one per coordinate)");
    if (!guess.allFinite())
      throw model::ModelError(model::SourceLocation{"guesses", 0, 0},
                              "guess " + std::to_string(g + 1) + " is not finite");
  }
  if (!std::isfinite(options.stability_tolerance) || options.stability_tolerance < 0)
    throw model::ModelError(model::SourceLocation{"stability_tolerance", 0, 0},
                            "expected a finite number >= 0");

  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  StaticsResult result;
  // At rest: every velocity (and acceleration) zero, so dampers and rate terms drop out.
  GiNaC::exmap rest;
  for (std::size_t j = 0; j < n; ++j) {
    rest[m.coordinate_symbol(j, 1)] = 0;
    rest[m.coordinate_symbol(j, 2)] = 0;
  }
  result.generalized_forces = sym::substitute(principles::generalized_forces(kin), rest);

  // A moving model: the relative equilibria solve f(q, 0, t) = 0, f of the equations of motion
  // at rest, which is Q and the inertial forces of the prescribed motion.
  GiNaC::exvector forces_at_rest;
  for (std::size_t j = 0; j < n; ++j) forces_at_rest.push_back(result.generalized_forces(j, 0));
  std::optional<principles::Equations> equations;
  result.relative = detail::prescribed_motion(kin);
  if (result.relative) {
    equations = principles::derive(model, principles::Method::GibbsAppell);
    result.relative->inertial_forces = GiNaC::matrix(static_cast<unsigned>(n), 1);
    for (std::size_t j = 0; j < n; ++j) {
      const auto row = static_cast<unsigned>(j);
      forces_at_rest[j] = sym::substitute(equations->forcing(row, 0), rest);
      result.relative->inertial_forces(row, 0) =
          forces_at_rest[j] - result.generalized_forces(row, 0);
    }
  }

  // Unknowns q, then one multiplier per holonomic constraint; residuals Q + Φ_qᵀλ, then φ.
  std::vector<GiNaC::symbol> unknowns;
  for (std::size_t j = 0; j < n; ++j) unknowns.push_back(m.coordinate_symbol(j));
  GiNaC::exvector residuals = forces_at_rest, holonomic_constraints;
  std::vector<std::size_t> holonomic;  // the model's index of each multiplier's constraint
  std::vector<std::string> holonomic_names;
  for (const auto& c : m.constraints) {
    if (c.kind != model::Constraint::Kind::Holonomic) continue;
    holonomic.push_back(static_cast<std::size_t>(&c - m.constraints.data()));
    holonomic_names.push_back(c.name);
    holonomic_constraints.push_back(c.expression);
    const GiNaC::symbol lambda("lambda_" + c.name);
    unknowns.push_back(lambda);
    for (std::size_t j = 0; j < n; ++j)
      residuals[j] += lambda * d.partial(c.expression, m.coordinate_symbol(j));
    residuals.push_back(c.expression);
  }
  const std::size_t size = unknowns.size();
  const auto N = static_cast<Eigen::Index>(size);

  // A model the tree's recursions alone cover whose frames do not move: Q and K from
  // num::Dynamics and the differentiated recursions (which have no constraint rows), no symbolic
  // derivative compiled. Everything else (constraints, a carrier frame, prescribed motion) from
  // the residuals formed above.
  std::unique_ptr<StaticsResiduals> residual_source;
  result.by_recursions = !options.from_formed_forces && !result.relative &&
                         principles::recursions_alone_do_not_cover(m).empty();
  if (result.by_recursions)
    residual_source = std::make_unique<RecursiveStatics>(model, forces_at_rest, options);
  else
    residual_source = std::make_unique<CompiledStatics>(m, residuals, unknowns, d, options);
  StaticsResiduals& compiled = *residual_source;
  auto with_multipliers = [&](const Eigen::VectorXd& q) {
    Eigen::VectorXd z = Eigen::VectorXd::Zero(N);
    z.head(nq) = q;
    return z;
  };
  Eigen::VectorXd initial(nq);
  for (Eigen::Index j = 0; j < nq; ++j)
    initial[j] = m.coordinates[static_cast<std::size_t>(j)].initial;
  Eigen::VectorXd r(N);
  Eigen::MatrixXd J(N, N);

  // Free coordinates: the Jacobian's column of q_j is exactly zero (the derivatives are
  // symbolic, or by the recursions masked by the formed Q's structure, so a residual that does
  // not contain q_j gives 0, not a rounding error) at three unrelated points, multipliers
  // included.
  std::vector<bool> free(n, true);
  for (const double shift : {0.0, 0.7311, -1.2893}) {
    Eigen::VectorXd z = Eigen::VectorXd::Constant(N, 0.5 + shift);
    z.head(nq) = initial.array() + shift;
    if (shift != 0.0)
      for (Eigen::Index j = 0; j < nq; ++j) z[j] += 0.1137 * static_cast<double>(j);
    compiled.evaluate(z, r, &J);
    for (Eigen::Index j = 0; j < nq; ++j)
      if (!(J.col(j).cwiseAbs().maxCoeff() == 0.0)) free[static_cast<std::size_t>(j)] = false;
  }
  for (std::size_t j = 0; j < n; ++j)
    if (free[j]) result.free_coordinates.push_back(j);

  std::vector<Eigen::VectorXd> starts;
  starts.push_back(with_multipliers(initial));
  for (const auto& g : options.guesses) starts.push_back(with_multipliers(g));
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  for (int k = 0; k < options.random_starts; ++k) {
    Eigen::VectorXd s(nq);
    for (Eigen::Index j = 0; j < nq; ++j) s[j] = angle(rng);  // drawn for every j: same stream
    for (const std::size_t j : result.free_coordinates)
      s[static_cast<Eigen::Index>(j)] = initial[static_cast<Eigen::Index>(j)];
    starts.push_back(with_multipliers(s));
  }

  // Angle-like coordinates: Q (and φ) are 2π-periodic in them (checked at the initial values and
  // at a second point), so equilibria a turn apart are one equilibrium, reported in [−π, π).
  // A free coordinate is not one: nothing depends on it, and it keeps its value.
  std::vector<bool> periodic(n, false);
  auto residual_at = [&](const Eigen::VectorXd& q) {
    compiled.evaluate(with_multipliers(q), r, nullptr);
    return Eigen::VectorXd(r);
  };
  for (Eigen::Index j = 0; j < nq; ++j) {
    if (free[static_cast<std::size_t>(j)]) continue;
    bool same = true;
    for (const Eigen::VectorXd& base : {initial, Eigen::VectorXd(initial.array() + 0.7311)}) {
      Eigen::VectorXd turned = base;
      turned[j] += 2 * M_PI;
      const Eigen::VectorXd a = residual_at(base), b = residual_at(turned);
      same = same && (a - b).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, a.cwiseAbs().maxCoeff());
    }
    periodic[static_cast<std::size_t>(j)] = same;
  }

  // A relative equilibrium stays one only if nothing at rest changes with t: shown at the
  // first starts (the model's initial values, the guesses, random points).
  if (result.relative) {
    std::vector<Eigen::VectorXd> points;
    for (std::size_t k = 0; k < starts.size() && k < 4; ++k) points.push_back(starts[k].head(nq));
    result.relative->steady_by = detail::steady_relative_problem(
        m, d, forces_at_rest, holonomic_constraints, holonomic_names, options, points);
  }

  result.best_residual = std::numeric_limits<double>::infinity();
  sym::ProgressStep step("solving for equilibria from each start", starts.size());
  for (const auto& start : starts) {
    step.advance();
    sym::poll_cancellation();
    Eigen::VectorXd z = newton(compiled, start, options.tolerance);
    for (Eigen::Index j = 0; j < nq; ++j)
      if (periodic[static_cast<std::size_t>(j)])
        z[j] -= 2 * M_PI * std::floor((z[j] + M_PI) / (2 * M_PI) + 1e-12);
    if (!compiled.evaluate(z, r, &J)) continue;
    const double residual = r.cwiseAbs().maxCoeff();
    result.best_residual = std::min(result.best_residual, residual);
    if (!(residual <= options.tolerance)) continue;
    const Eigen::VectorXd q = z.head(nq);
    // The same equilibrium (the same family, when coordinates are free) as one found before.
    auto distance = [&](const Eigen::VectorXd& a) {
      double worst = 0;
      for (Eigen::Index j = 0; j < nq; ++j) {
        if (free[static_cast<std::size_t>(j)]) continue;
        double gap = std::abs(a[j] - q[j]);
        if (periodic[static_cast<std::size_t>(j)]) gap = std::min(gap, std::abs(2 * M_PI - gap));
        worst = std::max(worst, gap);
      }
      return worst;
    };
    bool seen = false;
    for (const auto& e : result.equilibria) seen = seen || distance(e.q) < 1e-6;
    if (seen) continue;
    Equilibrium e;
    if (N > nq) {
      // Redundant constraints (Φ_q of deficient row rank here): λ is not unique, and Newton's
      // is whatever its steps summed to; take the minimum-norm one, Φ_qᵀλ = −Q.
      const Eigen::MatrixXd phi_q = J.bottomLeftCorner(N - nq, nq);
      for (const std::size_t i : redundant_constraints(phi_q))
        e.redundant_constraints.push_back(m.constraints[holonomic[i]].name);
      if (!e.redundant_constraints.empty()) {
        Eigen::VectorXd at_rest = z;
        at_rest.tail(N - nq).setZero();
        compiled.evaluate(at_rest, r, nullptr);
        const Eigen::VectorXd forces = r.head(nq);
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
        cod.setThreshold(1e-10);  // as redundant_constraints
        cod.compute(phi_q.transpose());
        z.tail(N - nq) = cod.solve(-forces);
        if (!compiled.evaluate(z, r, &J)) continue;
      }
    }
    e.q = q;
    e.lambda = z.tail(N - nq);
    e.residual = r.cwiseAbs().maxCoeff();
    const Eigen::MatrixXd stiffness = -J.topLeftCorner(nq, nq);
    const Eigen::MatrixXd symmetric = (stiffness + stiffness.transpose()) / 2;
    // The motions allowed: every δq, or with constraints an orthonormal basis of the null space
    // of Φ_q.
    Eigen::MatrixXd basis = Eigen::MatrixXd::Identity(nq, nq);
    if (N > nq) {
      const Eigen::MatrixXd phi_q = J.bottomLeftCorner(N - nq, nq);
      Eigen::FullPivLU<Eigen::MatrixXd> lu(phi_q);
      const Eigen::MatrixXd kernel =
          lu.dimensionOfKernel() > 0 ? Eigen::MatrixXd(lu.kernel()) : Eigen::MatrixXd(nq, 0);
      basis = Eigen::MatrixXd(nq, 0);
      if (kernel.cols() > 0)
        basis = Eigen::HouseholderQR<Eigen::MatrixXd>(kernel).householderQ() *
                Eigen::MatrixXd::Identity(nq, kernel.cols());
    }
    const Eigen::MatrixXd restricted = basis.transpose() * symmetric * basis;
    // No freedom left (as many independent constraints as coordinates): nothing can move.
    e.stability = Stability::Stable;
    if (restricted.size() > 0) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(restricted);
      e.stiffness_eigenvalues = eigen.eigenvalues();
      const double zero = options.stability_tolerance * symmetric.cwiseAbs().maxCoeff();
      std::vector<Eigen::Index> flat;
      bool negative = false;
      for (Eigen::Index i = 0; i < e.stiffness_eigenvalues.size(); ++i) {
        const double mu = e.stiffness_eigenvalues[i];
        if (std::abs(mu) <= zero)
          flat.push_back(i);
        else if (mu < 0)
          negative = true;
      }
      if (negative) {
        e.stability = Stability::Unstable;
      } else if (!flat.empty()) {
        e.stability = Stability::Neutral;
        Eigen::MatrixXd directions(nq, static_cast<Eigen::Index>(flat.size()));
        for (std::size_t c = 0; c < flat.size(); ++c)
          directions.col(static_cast<Eigen::Index>(c)) = basis * eigen.eigenvectors().col(flat[c]);
        e.neutral_directions = canonical_basis(directions);
      }
    }
    // A relative equilibrium: the velocity forces of the linearized relative motion (gyroscopic,
    // or any other) decide with the stiffness, by the eigenvalues of the linear model.
    if (equations) relative_stability(*equations, options, e);
    e.stable = e.stability == Stability::Stable;
    if (e.neutral_directions.size() == 0) e.neutral_directions.resize(nq, 0);
    positive_zeros(e.q);
    positive_zeros(e.lambda);
    positive_zeros(e.stiffness_eigenvalues);
    result.equilibria.push_back(std::move(e));
  }
  if (result.equilibria.empty()) {
    std::ostringstream s;
    s << "no equilibrium found from " << starts.size()
      << " starting points; smallest max |Q_j| reached: " << result.best_residual;
    if (N > nq) s << " (constraints included)";
    if (result.relative) s << " (inertial forces of the prescribed motion included)";
    throw model::ComputationError(s.str());
  }
  return result;
}

namespace {

// The modes about `equilibrium` of the linear model `linearized` gives (at q̇ = 0, the options'
// values and time).
template <typename Linearize>
EquilibriumDynamics modes_about(const Equilibrium& equilibrium, const StaticsOptions& options,
                                const Linearize& linearized) {
  EquilibriumDynamics result;
  result.stability = equilibrium.stability;
  LinearizationOptions linearization;
  linearization.values = options.values;
  linearization.t = options.t;
  try {
    result.modes = modes(
        linearized(equilibrium.q, Eigen::VectorXd::Zero(equilibrium.q.size()), linearization));
  } catch (const model::ComputationError& e) {
    result.unavailable = e.what();
    return result;
  }
  for (const auto& mode : result.modes)
    if (mode.unstable) result.stability = Stability::Unstable;
  return result;
}

}  // namespace

EquilibriumDynamics equilibrium_dynamics(const principles::Equations& equations,
                                         const Equilibrium& equilibrium,
                                         const StaticsOptions& options) {
  return modes_about(equilibrium, options, [&](const auto& q, const auto& qd, const auto& o) {
    return linearize(equations, q, qd, o);
  });
}

std::vector<EquilibriumDynamics> equilibria_dynamics(std::shared_ptr<const model::Model> model,
                                                     const StaticsResult& statics,
                                                     const StaticsOptions& options) {
  std::vector<EquilibriumDynamics> out;
  if (principles::recursions_alone_do_not_cover(*model).empty()) {
    for (const auto& e : statics.equilibria)
      out.push_back(modes_about(e, options, [&](const auto& q, const auto& qd, const auto& o) {
        return linearize(model, q, qd, o);
      }));
    return out;
  }
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  for (const auto& e : statics.equilibria)
    out.push_back(equilibrium_dynamics(equations, e, options));
  return out;
}

}  // namespace appell::num
