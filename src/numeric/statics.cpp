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

// The minimum-norm least-squares solution δz of J δz = −R: a complete orthogonal decomposition,
// which reveals the rank, of J with its columns scaled to unit norm, so that a direction J does
// not see (a free coordinate, a family of equilibria, a redundant constraint) is not moved, where
// an LU factorization would fail on the singular J. The scaling (a zero column, a free
// coordinate, stays zero) makes the rank threshold compare directions, not units: a spring of
// 1e-6 N/m beside one of 1e6 N/m is weak, not absent, and a column that is small because the
// point sits on a root of high multiplicity (cos^18 φ beside π/2) still gives its step.
Eigen::VectorXd minimum_norm_step(const Eigen::MatrixXd& J, const Eigen::VectorXd& r) {
  const Eigen::Index N = J.cols();
  Eigen::VectorXd scale(N);
  for (Eigen::Index k = 0; k < N; ++k) {
    const double norm = J.col(k).norm();
    scale[k] = norm > 0 ? 1 / norm : 1.0;
  }
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(1e-11);  // relative to the largest pivot
  cod.compute(J * scale.asDiagonal());
  return scale.cwiseProduct(cod.solve(-r));
}

// A Newton step below this fraction of max(1, |z_k|) in every unknown: the point moves no more.
// With the residual within its tolerance this is convergence: at a simple root the step is then
// the size of the rounding, at a root of multiplicity m the point is within about m times the
// step of it. The residual alone cannot say so: beside a root of high multiplicity Q is below
// any tolerance over a wide interval (19 cos^18 φ sin φ is below 1e-10 for |φ − π/2| < 0.24),
// and a Newton iteration stopped on |Q| alone stops anywhere in it.
constexpr double kStepTolerance = 1e-9;

bool step_is_negligible(const Eigen::VectorXd& step, const Eigen::VectorXd& z) {
  for (Eigen::Index k = 0; k < z.size(); ++k)
    if (!(std::abs(step[k]) <= kStepTolerance * std::max(1.0, std::abs(z[k])))) return false;
  return true;
}

// Every |R_i| within its tolerance (one per residual: solve_statics's row_tolerance).
bool within(const Eigen::VectorXd& r, const Eigen::VectorXd& tolerance) {
  return (r.cwiseAbs().array() <= tolerance.array()).all();
}

// Where two points' coordinates differ: a − b, a periodic coordinate's difference within half a
// turn (equilibria a turn apart are one), a free coordinate's 0 (a family's members are one).
struct CoordinateSpace {
  std::vector<bool> periodic, free;

  Eigen::VectorXd difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
    Eigen::VectorXd gap = a - b;
    for (Eigen::Index j = 0; j < gap.size(); ++j) {
      if (free[static_cast<std::size_t>(j)]) gap[j] = 0.0;
      if (periodic[static_cast<std::size_t>(j)]) gap[j] = std::remainder(gap[j], 2 * M_PI);
    }
    return gap;
  }
};

// An equilibrium found, deflated (Farrell, Birkisson and Funke, "Deflation techniques for
// finding distinct solutions of nonlinear partial differential equations", 2015): Newton's
// method on G(z) = R(z) / Π_k |q − q_k|^p_k cannot converge to q_k again, since G does not vanish
// there, and goes on to an equilibrium whose basin no start lies in. The power p_k must exceed
// the multiplicity of the root at q_k (else R/|q − q_k|^p still vanishes there): 2 at a simple
// root, its multiplicity + 2 at a degenerate one (deflation_power).
struct Deflation {
  Eigen::VectorXd q;
  double power = 2;
};

// Newton's method with minimum-norm steps (minimum_norm_step) from `start`: the point reached and
// whether it converged — every residual within `tolerance` (one per residual) and the step
// negligible (kStepTolerance), or no longer behaving like a root's approach (rounding: see
// below). A negligible last step is taken when it does not raise the residual, so that a simple
// root is reached to rounding (an equilibrium at 0 comes out at 1e-30, not at the 1e-14 a stop
// on the tolerance leaves). A backtracking line search (Armijo) on |R|²/2 keeps the steps from
// overshooting; a step longer than 1000 max(1, |z|) is shortened first.
//
// At a root of multiplicity m Newton's method converges only linearly, each step (m − 1)/m of
// the one before (Q = −19 m g l cos^18 φ sin φ beside φ = π/2: m = 18, 17/18 per step, some
// 300 steps from 0.24 to 1e-8). When two successive full steps shrink by the same ratio ρ in
// [0.5, 1), m is estimated as 1/(1 − ρ) and the step m δz tried first (Schröder's modified
// Newton), taken when it lowers the merit more than δz does.
//
// With `deflations`, the iteration is on the deflated G = M R, M = Π_k |q − q_k|^−p_k: its
// Newton step is R's, δz, scaled by 1/(1 − wᵀδz), w = ∇ln M (Sherman–Morrison; reversed as it
// heads for a deflated root), the line search on ln |G| = ln |R| + ln M (G itself under- or
// overflows far from or near the q_k). Convergence is still R's, and only by a negligible δz:
// a deflated iteration leaving a flat root's neighbourhood sees |R| and δz grow within
// tolerance, and one that drifts along a family of rounding finds no new equilibrium.
struct NewtonOutcome {
  Eigen::VectorXd z;
  bool converged = false;
};

NewtonOutcome newton(StaticsResiduals& s, const Eigen::VectorXd& start,
                     const Eigen::VectorXd& tolerance, const CoordinateSpace& space,
                     const std::vector<Deflation>& deflations = {}, int iterations = 200) {
  const auto N = static_cast<Eigen::Index>(s.dof());
  const auto n = static_cast<Eigen::Index>(space.free.size());
  NewtonOutcome out{start, false};
  Eigen::VectorXd& z = out.z;
  Eigen::VectorXd r(N), trial_r(N), full_r(N), w = Eigen::VectorXd::Zero(N);
  Eigen::MatrixXd J(N, N);
  // ln M at `at`, and w = ∇ln M into `gradient` when given.
  auto log_deflation = [&](const Eigen::VectorXd& at, Eigen::VectorXd* gradient) {
    double log_m = 0;
    if (gradient) gradient->setZero();
    for (const auto& d : deflations) {
      const Eigen::VectorXd gap = space.difference(at.head(n), d.q);
      const double distance2 = gap.squaredNorm();
      log_m -= d.power / 2 * std::log(distance2);
      if (gradient) gradient->head(n) -= d.power / distance2 * gap;
    }
    return log_m;
  };
  auto merit = [&](const Eigen::VectorXd& at, const Eigen::VectorXd& residual) {
    if (deflations.empty()) return residual.squaredNorm() / 2;
    return std::log(residual.norm()) + log_deflation(at, nullptr);
  };
  if (!s.evaluate(z, r, &J)) return out;
  double previous_norm = 0, previous_ratio = 0;  // of the full steps before, 0: none
  // Within tolerance: how many iterations in a row, and the last point and |R| (see below); the
  // Newton step before.
  int inside = 0;
  Eigen::VectorXd inside_z = z, previous_newton = Eigen::VectorXd::Zero(N);
  double inside_norm = 0;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const Eigen::VectorXd newton_step = minimum_norm_step(J, r);
    if (!newton_step.allFinite()) break;
    if (within(r, tolerance) && step_is_negligible(newton_step, z)) {
      const Eigen::VectorXd trial = z + newton_step;
      if (s.evaluate(trial, trial_r, nullptr) &&
          trial_r.cwiseAbs().maxCoeff() <= r.cwiseAbs().maxCoeff())
        z = trial;
      out.converged = true;
      break;
    }
    // Within tolerance but the step not negligible: a root of high multiplicity still being
    // approached, or rounding along directions of (nearly) zero stiffness — a family on which Q
    // is rounding (a robot's joint whose link hangs on its axis), whose column of J, scaled to
    // unit norm, sends the steps anywhere along it, radians at a time. The iteration goes on
    // while it behaves like a root's approach: each step takes |R| down by half or more (at a
    // root of any multiplicity m it does by ((m − 1)/m)^m ≤ e^−1) and the next step is
    // shorter, in the same direction when it is not much shorter (by (m − 1)/m at a root of
    // multiplicity m, by far more at a simple one). On the first that does not, it returns to
    // the point before that step: an equilibrium to rounding, and a start that is one (the
    // other route's) stays where it is.
    if (deflations.empty() && within(r, tolerance)) {
      if (inside > 0) {
        const double ratio = newton_step.norm() / previous_newton.norm();
        const bool aligned =
            newton_step.dot(previous_newton) > 0.9 * newton_step.norm() * previous_newton.norm();
        const bool halved = r.norm() <= 0.5 * inside_norm;
        if (!(halved && (ratio < 0.3 || (ratio < 1 && aligned)))) {
          z = inside_z;
          out.converged = true;
          break;
        }
      }
      inside_z = z;
      inside_norm = r.norm();
      ++inside;
    } else {
      inside = 0;
    }
    previous_newton = newton_step;
    Eigen::VectorXd step = newton_step;
    if (!deflations.empty()) {
      log_deflation(z, &w);
      step /= 1 - w.dot(newton_step);
      if (!step.allFinite()) break;
    }
    const double limit = 1000 * std::max(1.0, z.norm());
    if (step.norm() > limit) step *= limit / step.norm();
    // The change of the merit along the step predicted by J: −Rᵀ J δz (−|R|² for a full-rank
    // J); deflated, of ln |G|, RᵀJ δz / |R|² + wᵀδz.
    const double slope =
        deflations.empty() ? r.dot(J * step) : r.dot(J * step) / r.squaredNorm() + w.dot(step);
    if (!(slope < 0)) break;  // stationary: J sees no direction that reduces R
    const double f = merit(z, r);
    const double norm = step.norm();
    const double ratio = previous_norm > 0 ? norm / previous_norm : 0;
    bool accepted = false, full = false;
    if (previous_ratio >= 0.5 && ratio >= 0.5 && ratio < 1 &&
        std::abs(ratio - previous_ratio) <= 0.02 * ratio) {
      const double multiplicity = 1 / (1 - ratio);
      const Eigen::VectorXd extrapolated = z + multiplicity * step, plain = z + step;
      if (s.evaluate(extrapolated, trial_r, nullptr) && s.evaluate(plain, full_r, nullptr) &&
          merit(extrapolated, trial_r) <= merit(plain, full_r) &&
          merit(extrapolated, trial_r) <= f + 1e-4 * slope) {
        z = extrapolated;
        accepted = true;
        // The linear rate is broken: the ratios start over.
        previous_norm = previous_ratio = 0;
      }
    }
    for (double alpha = 1.0; !accepted && alpha > 1e-10; alpha /= 2) {
      const Eigen::VectorXd trial = z + alpha * step;
      if (s.evaluate(trial, trial_r, nullptr) &&
          merit(trial, trial_r) <= f + 1e-4 * alpha * slope) {
        z = trial;
        accepted = true;
        full = alpha == 1.0;
      }
    }
    if (full) {
      previous_ratio = ratio;
      previous_norm = norm;
    } else if (accepted && previous_norm > 0) {
      previous_norm = previous_ratio = 0;
    }
    if (!accepted || !s.evaluate(z, r, &J)) break;
  }
  // Stopped within tolerance (no step lowers R, or the steps ran out): an equilibrium to
  // rounding, where the iteration last stood within tolerance.
  if (!out.converged && inside > 0) {
    z = inside_z;
    out.converged = true;
  }
  return out;
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

// The symmetric part of the stiffness K = −∂Q/∂q: the coordinates' block (n×n) of the residuals'
// Jacobian J, negated.
Eigen::MatrixXd symmetric_stiffness(const Eigen::MatrixXd& J, Eigen::Index n) {
  const Eigen::MatrixXd K = -J.topLeftCorner(n, n);
  return (K + K.transpose()) / 2;
}

// The columns `v` (each n values) side by side, n×0 without any.
Eigen::MatrixXd columns_of(const std::vector<Eigen::VectorXd>& v, Eigen::Index n) {
  Eigen::MatrixXd out(n, static_cast<Eigen::Index>(v.size()));
  for (std::size_t c = 0; c < v.size(); ++c) out.col(static_cast<Eigen::Index>(c)) = v[c];
  return out;
}

// `v` without its rounding noise by linearize's rule (num::without_rounding_noise) beside a
// magnitude `size` that v need not hold itself: the stiffness's eigenvalues are noise beside the
// largest |K_ij|, also when every one of them is (K ≈ 0 at an inflection of V).
Eigen::VectorXd without_rounding_noise_beside(const Eigen::VectorXd& v, double size) {
  Eigen::VectorXd with_size(v.size() + 1);
  with_size << v, size;
  return without_rounding_noise(with_size).col(0).head(v.size());
}

// How strongly the equilibrium z pulls back along the zero-stiffness displacement `direction`
// (unit, n coordinates): one step of size h to either side, and the Newton step from there
// (minimum_norm_step) along it, as a fraction of h (the larger side's). Along a family Q stays
// 0, or off a curved family O(κh²) across it: the step has no part along it, 0. At an isolated
// degenerate equilibrium, Q ≈ c δ^m in the displacement δ, the step is −δ/m along it, whatever
// c: 1/m (and 1 for a stiffness so small beside the largest that the tolerance counts it as
// zero). h = 1e-4 max(1, |q|) keeps κh below 1e-3 for curvatures up to 10 and h^m representable
// up to m = 70.
double pull_along(StaticsResiduals& s, const Eigen::VectorXd& z, const Eigen::VectorXd& direction,
                  Eigen::Index n) {
  const double h = 1e-4 * std::max(1.0, z.head(n).cwiseAbs().maxCoeff());
  const auto N = static_cast<Eigen::Index>(s.dof());
  Eigen::VectorXd r(N);
  Eigen::MatrixXd J(N, N);
  double pull = 0;
  for (const double side : {1.0, -1.0}) {
    Eigen::VectorXd shifted = z;
    shifted.head(n) += side * h * direction;
    if (!s.evaluate(shifted, r, &J)) continue;
    const Eigen::VectorXd step = minimum_norm_step(J, r);
    if (step.allFinite()) pull = std::max(pull, std::abs(direction.dot(step.head(n))) / h);
  }
  return pull;
}

// A pull (pull_along) above this is an isolated equilibrium's, of multiplicity up to 1000; below
// it a family's.
constexpr double kFamilyPull = 1e-3;

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
  // The sizes the tolerances are relative to (see below), from every point the search samples:
  // these three probes and every start.
  Eigen::VectorXd residual_size = Eigen::VectorXd::Zero(N);
  double stiffness_size = 0;
  auto observe = [&](const Eigen::VectorXd& values, const Eigen::MatrixXd& jacobian) {
    if (!values.allFinite() || !jacobian.allFinite()) return;
    residual_size = residual_size.cwiseMax(values.cwiseAbs());
    stiffness_size =
        std::max(stiffness_size, symmetric_stiffness(jacobian, nq).cwiseAbs().maxCoeff());
  };
  for (const double shift : {0.0, 0.7311, -1.2893}) {
    Eigen::VectorXd z = Eigen::VectorXd::Constant(N, 0.5 + shift);
    z.head(nq) = initial.array() + shift;
    if (shift != 0.0)
      for (Eigen::Index j = 0; j < nq; ++j) z[j] += 0.1137 * static_cast<double>(j);
    compiled.evaluate(z, r, &J);
    observe(r, J);
    for (Eigen::Index j = 0; j < nq; ++j)
      if (!(J.col(j).cwiseAbs().maxCoeff() == 0.0)) free[static_cast<std::size_t>(j)] = false;
  }
  for (std::size_t j = 0; j < n; ++j)
    if (free[j]) result.free_coordinates.push_back(j);

  std::vector<Eigen::VectorXd> starts;
  starts.push_back(with_multipliers(initial));
  for (const auto& g : options.guesses) starts.push_back(with_multipliers(g));
  // The pseudo-random points: the first `random_starts` are starts; the first kSizeSamples also
  // samples of the sizes of Q and K (below), however many starts are asked for, so that the
  // tolerances are the model's and do not depend on the starts (a guess, or none).
  constexpr int kSizeSamples = 8;
  std::vector<Eigen::VectorXd> random_points;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  for (int k = 0; k < std::max(options.random_starts, kSizeSamples); ++k) {
    Eigen::VectorXd s(nq);
    for (Eigen::Index j = 0; j < nq; ++j) s[j] = angle(rng);  // drawn for every j: same stream
    for (const std::size_t j : result.free_coordinates)
      s[static_cast<Eigen::Index>(j)] = initial[static_cast<Eigen::Index>(j)];
    random_points.push_back(with_multipliers(s));
  }
  for (int k = 0; k < options.random_starts; ++k)
    starts.push_back(random_points[static_cast<std::size_t>(k)]);

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

  // Convergence is judged relative to the size of the residuals, so that the same system in
  // other units (its forces ×1e6 or ×1e-6) has the same equilibria. S is the largest |Q_j| (for a
  // constraint row the largest |φ_i|) at the samples: the probes above, the initial values and
  // the first kSizeSamples pseudo-random points. R_i converges when |R_i| ≤ T with
  //   T = max(tolerance · min(S, 1), 1000 ε S):
  // tolerance · S for forces below 1 (a pendulum of 1e-6 N·m: an absolute 1e-10 would take the
  // whole flat region beside a root of high multiplicity for equilibria), never tighter than the
  // rounding of forces of size S (1000 ε S, what Q computed as sums of terms of that size can
  // reach: a pendulum of 1e6 N·m), and in between `tolerance` itself, as it always was.
  if (compiled.evaluate(with_multipliers(initial), r, &J)) observe(r, J);
  for (int k = 0; k < kSizeSamples; ++k)
    if (compiled.evaluate(random_points[static_cast<std::size_t>(k)], r, &J)) observe(r, J);
  const double force_size = residual_size.head(nq).maxCoeff();
  const double constraint_size = N > nq ? residual_size.tail(N - nq).maxCoeff() : 0.0;
  Eigen::VectorXd row_tolerance(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    const double size = i < nq ? force_size : constraint_size;
    row_tolerance[i] = size > 0 ? std::max(options.tolerance * std::min(size, 1.0),
                                           1000 * std::numeric_limits<double>::epsilon() * size)
                                : options.tolerance;
  }
  const CoordinateSpace space{periodic, free};

  // Stability is judged relative to the size of the stiffness too: an eigenvalue μ is zero when
  // |μ| ≤ stability_tolerance · max(max |K_ij| here, the largest met at the samples and at every
  // equilibrium: `stiffness_size`). At the point alone a stiffness that vanishes there (an
  // inflection of V, as cos^19 φ at π/2) would be its own scale, and its rounding a verdict.
  auto judge = [&](const Eigen::VectorXd& z) {
    compiled.evaluate(z, r, &J);
    Equilibrium e;
    if (N > nq)
      for (const std::size_t i : redundant_constraints(J.bottomLeftCorner(N - nq, nq)))
        e.redundant_constraints.push_back(m.constraints[holonomic[i]].name);
    e.q = z.head(nq);
    e.lambda = z.tail(N - nq);
    e.residual = r.cwiseAbs().maxCoeff();
    const Eigen::MatrixXd symmetric = symmetric_stiffness(J, nq);
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
    const double size = std::max(symmetric.cwiseAbs().maxCoeff(), stiffness_size);
    // No freedom left (as many independent constraints as coordinates): nothing can move.
    e.stability = Stability::Stable;
    if (restricted.size() > 0) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(restricted);
      e.stiffness_eigenvalues = eigen.eigenvalues();
      const double zero = options.stability_tolerance * size;
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
        // Each zero-stiffness direction is a family's (the equilibrium goes on along it: a free
        // coordinate, any x1 = x2) or a degenerate one's (isolated: Q, zero to second order,
        // pulls back or pushes away at a higher one, as the ψ^18 of cos^19 beside π/2).
        std::vector<Eigen::VectorXd> family, degenerate;
        for (const Eigen::Index i : flat) {
          const Eigen::VectorXd whole = basis * eigen.eigenvectors().col(i);
          // A free coordinate's part is a family's by definition; what is left is tried.
          Eigen::VectorXd direction = whole;
          for (const std::size_t j : result.free_coordinates)
            direction[static_cast<Eigen::Index>(j)] = 0.0;
          if (direction.norm() < 1e-8 ||
              pull_along(compiled, z, direction.normalized(), nq) <= kFamilyPull) {
            family.push_back(whole);
          } else {
            degenerate.push_back(direction.normalized());
            if ((whole - direction).norm() > 1e-8) family.push_back(whole - direction);
          }
        }
        e.neutral_directions = canonical_basis(columns_of(family, nq));
        e.degenerate_directions = canonical_basis(columns_of(degenerate, nq));
      }
    }
    // Printed eigenvalues without rounding noise, beside the scale the verdict used.
    e.stiffness_eigenvalues = without_rounding_noise_beside(e.stiffness_eigenvalues, size);
    return e;
  };

  // The same equilibrium (the same family, when coordinates are free) as one found before.
  std::vector<Eigen::VectorXd> found;  // (q, λ) of each equilibrium, in the order found
  auto seen = [&](const Eigen::VectorXd& z) {
    for (const auto& e : found)
      if (space.difference(e.head(nq), z.head(nq)).cwiseAbs().maxCoeff() < 1e-6) return true;
    return false;
  };
  // Newton's point `z` in [−π, π) in the periodic coordinates, with the minimum-norm multipliers
  // where the constraints are redundant (Φ_q of deficient row rank: λ is not unique, and
  // Newton's is whatever its steps summed to; Φ_qᵀλ = −Q): false when R is not finite there.
  auto settle = [&](Eigen::VectorXd& z) {
    for (Eigen::Index j = 0; j < nq; ++j)
      if (periodic[static_cast<std::size_t>(j)])
        z[j] -= 2 * M_PI * std::floor((z[j] + M_PI) / (2 * M_PI) + 1e-12);
    if (!compiled.evaluate(z, r, &J)) return false;
    result.best_residual = std::min(result.best_residual, r.cwiseAbs().maxCoeff());
    if (N > nq) {
      const Eigen::MatrixXd phi_q = J.bottomLeftCorner(N - nq, nq);
      if (!redundant_constraints(phi_q).empty()) {
        Eigen::VectorXd at_rest = z;
        at_rest.tail(N - nq).setZero();
        compiled.evaluate(at_rest, r, nullptr);
        const Eigen::VectorXd forces = r.head(nq);
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
        cod.setThreshold(1e-10);  // as redundant_constraints
        cod.compute(phi_q.transpose());
        z.tail(N - nq) = cod.solve(-forces);
        if (!compiled.evaluate(z, r, nullptr)) return false;
      }
    }
    return true;
  };
  // The power with which the equilibrium z is deflated: more than its multiplicity, estimated
  // along each zero-stiffness direction of K as 1/pull (pull_along; a family's direction, with
  // no pull, cannot be deflated and is passed over).
  auto deflation_power = [&](const Eigen::VectorXd& z) {
    compiled.evaluate(z, r, &J);
    const Eigen::MatrixXd symmetric = symmetric_stiffness(J, nq);
    const double zero =
        options.stability_tolerance * std::max(symmetric.cwiseAbs().maxCoeff(), stiffness_size);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(symmetric);
    double multiplicity = 1;
    for (Eigen::Index i = 0; i < nq; ++i) {
      if (std::abs(eigen.eigenvalues()[i]) > zero) continue;
      Eigen::VectorXd direction = eigen.eigenvectors().col(i);
      for (const std::size_t j : result.free_coordinates)
        direction[static_cast<Eigen::Index>(j)] = 0.0;
      if (direction.norm() < 1e-8) continue;
      const double pull = pull_along(compiled, z, direction.normalized(), nq);
      if (pull > kFamilyPull) multiplicity = std::max(multiplicity, std::min(1 / pull, 60.0));
    }
    return multiplicity + (multiplicity > 1 ? 2 : 1);
  };

  result.best_residual = std::numeric_limits<double>::infinity();
  bool small_but_moving = false;  // a start whose residual was within tolerance, steps not
  {
    sym::ProgressStep step("solving for equilibria from each start", starts.size());
    for (const auto& start : starts) {
      step.advance();
      sym::poll_cancellation();
      NewtonOutcome outcome = newton(compiled, start, row_tolerance, space);
      if (!settle(outcome.z)) continue;
      if (!outcome.converged) {
        small_but_moving = small_but_moving || within(r, row_tolerance);
        continue;
      }
      if (!seen(outcome.z)) found.push_back(outcome.z);
    }
  }
  for (const auto& z : found) {
    compiled.evaluate(z, r, &J);
    observe(r, J);
  }

  // Deflation: each random start once more, with every equilibrium found deflated (Deflation),
  // and again while that finds a new one (twice at most): an equilibrium whose basin of
  // attraction no start lies in is found too. The cos^19 pendulum's top, at π, attracts Newton's
  // method only from within 0.23 of it, where Q' = 0; beyond, the flat ±π/2 do, and no random
  // start lies there. The starts the user chose (the initial values, the guesses) find what they
  // find. An equilibrium that is one of a family along a combination of the coordinates is not
  // taken this way (its neighbours are equilibria too: deflating one point finds the next).
  if (options.random_starts > 0 && !found.empty()) {
    const std::size_t first_random =
        starts.size() - static_cast<std::size_t>(options.random_starts);
    sym::ProgressStep step("looking for further equilibria (deflation)",
                           static_cast<std::size_t>(options.random_starts));
    std::vector<Deflation> deflations;
    for (const auto& z : found) deflations.push_back({z.head(nq), deflation_power(z)});
    for (std::size_t k = first_random; k < starts.size(); ++k) {
      step.advance();
      sym::poll_cancellation();
      for (int more = 0; more < 2; ++more) {
        NewtonOutcome outcome = newton(compiled, starts[k], row_tolerance, space, deflations, 100);
        if (!outcome.converged || !settle(outcome.z) || seen(outcome.z)) break;
        const Equilibrium e = judge(outcome.z);
        if (e.neutral_directions.cols() > static_cast<Eigen::Index>(result.free_coordinates.size()))
          break;
        found.push_back(outcome.z);
        compiled.evaluate(outcome.z, r, &J);
        observe(r, J);
        deflations.push_back({outcome.z.head(nq), deflation_power(outcome.z)});
      }
    }
  }

  // Rounding noise out of the numbers (issue 43), by linearize's rule (num::without_rounding_noise:
  // below kRoundingNoise of the largest magnitude beside it is 0). A coordinate is compared with
  // the coordinates the search met, every start's and every equilibrium's (the free ones, never
  // moved, left alone), so that the 2.4e-14 at which Newton's method left the bottom of a hoop
  // reads 0 beside the turn's π; a multiplier with the multipliers of every equilibrium. The
  // cleaned point replaces the noisy one only when it is still an equilibrium within tolerance
  // (and a small coordinate snaps to 0 only where Q is no larger, below).
  {
    std::vector<Eigen::Index> bound;
    for (Eigen::Index j = 0; j < nq; ++j)
      if (!free[static_cast<std::size_t>(j)]) bound.push_back(j);
    const auto before = static_cast<Eigen::Index>(starts.size());
    const auto count = static_cast<Eigen::Index>(found.size());
    const auto rows = static_cast<Eigen::Index>(bound.size());
    Eigen::MatrixXd points(rows, before + count), multipliers(N - nq, count);
    for (Eigen::Index c = 0; c < before + count; ++c) {
      const Eigen::VectorXd& z = c < before ? starts[static_cast<std::size_t>(c)]
                                            : found[static_cast<std::size_t>(c - before)];
      for (Eigen::Index i = 0; i < rows; ++i) points(i, c) = z[bound[static_cast<std::size_t>(i)]];
      if (c >= before) multipliers.col(c - before) = z.tail(N - nq);
    }
    const Eigen::MatrixXd clean_points = without_rounding_noise(points);
    const Eigen::MatrixXd clean_multipliers = without_rounding_noise(multipliers);
    for (Eigen::Index c = 0; c < count; ++c) {
      Eigen::VectorXd& noisy = found[static_cast<std::size_t>(c)];
      Eigen::VectorXd z = noisy;
      for (Eigen::Index i = 0; i < rows; ++i)
        z[bound[static_cast<std::size_t>(i)]] = clean_points(i, before + c);
      z.tail(N - nq) = clean_multipliers.col(c);
      if (z != noisy && compiled.evaluate(z, r, nullptr) && within(r, row_tolerance)) noisy = z;
      // At a root of high multiplicity Newton's method ends further from it than rounding, where
      // Q is rounding all the same (φ − sin φ at 1e-11 is 2e-34, below the 2e-27 of its
      // cancellation): a coordinate below 1e-6 of the scale is 0 when Q is no larger there.
      if (!compiled.evaluate(noisy, r, nullptr)) continue;
      const double residual = r.cwiseAbs().maxCoeff();
      if (rows == 0) continue;  // every coordinate free: nothing was moved
      const double small = 1e-6 * points.cwiseAbs().maxCoeff();
      Eigen::VectorXd snapped = noisy;
      for (const Eigen::Index j : bound)
        if (std::abs(snapped[j]) <= small) snapped[j] = 0.0;
      if (snapped != noisy && compiled.evaluate(snapped, r, nullptr) &&
          r.cwiseAbs().maxCoeff() <= residual)
        noisy = snapped;
    }
  }

  for (const auto& z : found) {
    Equilibrium e = judge(z);
    // A relative equilibrium: the velocity forces of the linearized relative motion (gyroscopic,
    // or any other) decide with the stiffness, by the eigenvalues of the linear model.
    if (equations) relative_stability(*equations, options, e);
    e.stable = e.stability == Stability::Stable;
    if (e.neutral_directions.size() == 0) e.neutral_directions.resize(nq, 0);
    if (e.degenerate_directions.size() == 0) e.degenerate_directions.resize(nq, 0);
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
    s << ", against a tolerance of " << row_tolerance.head(nq).maxCoeff()
      << " (for forces whose largest |Q_j| at the samples is " << force_size << ")";
    if (small_but_moving)
      s << "; where it was that small, Newton's steps had not become negligible (a root of high "
           "multiplicity, or a flat Q, not reached in 200 steps)";
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
