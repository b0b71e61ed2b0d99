// compare_speeds (agreement.hpp): the equations in a model's speeds against those in its
// coordinates projected by W, or against another principle's in the same speeds.
#include <functional>
#include <limits>
#include <random>

#include "agreement_tally.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/compiled_speed_form.hpp"
#include "appell/sym/dag.hpp"

namespace appell::num {

namespace {

std::string entry(std::size_t index, std::size_t p) {
  if (index < p * p)
    return "M(" + std::to_string(index / p + 1) + "," + std::to_string(index % p + 1) +
           ") in the speeds";
  return "f(" + std::to_string(index - p * p + 1) + ") in the speeds";
}

// M̃ and f̃ of `reference` (row by row, then f̃) and of the other form at random states; `other`
// gives the other form's entries at a state where `reference` gave `state`. With `solves` (the
// other form's entries use u̇ = M̃⁻¹ f̃), states near a singular M̃ are drawn again and each state's
// bound scales with κ(M̃); otherwise entries are compared as evaluated, up to `tolerance`.
Agreement numeric(
    const model::Model& m, const CompiledSpeedForm& reference, std::size_t states, double tolerance,
    bool solves,
    const std::function<Eigen::VectorXd(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                        const CompiledSpeedForm::State&)>& other) {
  Agreement result;
  const std::size_t n = m.dof(), p = m.speeds.size();
  std::mt19937 rng(20240522u);
  std::uniform_real_distribution<double> any(-2.0, 2.0), time(0.0, 3.0);
  detail::Tally tally;
  for (std::size_t attempts = 0; tally.states() < states && attempts < 20 * states; ++attempts) {
    Eigen::VectorXd q(static_cast<Eigen::Index>(n)), u(static_cast<Eigen::Index>(p));
    for (auto& x : q) x = any(rng);
    for (auto& x : u) x = any(rng);
    const double t = time(rng);
    Eigen::VectorXd a(static_cast<Eigen::Index>(p * p + p)), b;
    CompiledSpeedForm::State s;
    double bound = tolerance;
    try {
      s = reference.solve(t, q, u);
      if (solves) {
        const double condition = detail::condition_number(s.mass_matrix);
        if (tally.redraw(condition, attempts, states)) continue;
        bound = solve_bound(tolerance, condition);
      }
      for (std::size_t i = 0; i < p * p; ++i)
        a[static_cast<Eigen::Index>(i)] =
            s.mass_matrix(static_cast<Eigen::Index>(i / p), static_cast<Eigen::Index>(i % p));
      a.tail(static_cast<Eigen::Index>(p)) = s.forcing;
      b = other(t, q, u, s);
    } catch (const model::ComputationError&) {
      continue;
    }
    if (!b.allFinite()) continue;
    const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
    tally.add(t, q, s.qd, a, b, scale, bound);
  }
  if (tally.states() == 0 && states > 0) {
    tally.finish(result, [](std::size_t) { return std::string(); });
    result.first_difference = "no state where both forms are regular";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
  } else {
    tally.finish(result, [&](std::size_t k) { return entry(k, p); });
  }
  return result;
}

// Whether every difference simplifies to zero (over a common denominator, as W and the
// quaternion's rotation make fractions, when small enough for normal(): it has no budget of its
// own); the first that does not, else "".
std::string first_nonzero(principles::SpeedEquations difference) {
  const std::size_t p = difference.size();
  for (unsigned k = 0; k < p; ++k) {
    for (unsigned l = 0; l < p; ++l)
      if (auto numerator = detail::bounded_numerator(difference.mass_matrix(k, l)))
        difference.mass_matrix(k, l) = *numerator;
    if (auto numerator = detail::bounded_numerator(difference.forcing(k, 0)))
      difference.forcing(k, 0) = *numerator;
  }
  difference = principles::simplify(difference);
  for (unsigned k = 0; k < p; ++k)
    for (unsigned l = 0; l < p; ++l)
      if (!detail::bounded_is_zero(difference.mass_matrix(k, l))) return entry(k * p + l, p);
  for (unsigned k = 0; k < p; ++k)
    if (!detail::bounded_is_zero(difference.forcing(k, 0))) return entry(p * p + k, p);
  return "";
}

void record_symbolic(Agreement& result, const std::string& unresolved) {
  result.symbolic = unresolved.empty();
  result.symbolic_test = unresolved.empty() ? SymbolicTest::Zero : SymbolicTest::Inconclusive;
  result.symbolic_unresolved = unresolved;
}

}  // namespace

Agreement compare_speeds(const principles::Equations& coordinates,
                         const principles::SpeedEquations& speeds, std::size_t states,
                         bool symbolic, double tolerance) {
  const model::Model& m = *speeds.model;
  const std::size_t p = speeds.size();
  const CompiledEquations full(coordinates);
  const CompiledSpeedForm reduced(speeds);
  Agreement result =
      numeric(m, reduced, states, tolerance, /*solves=*/true,
              [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd&,
                  const CompiledSpeedForm::State& s) {
                Eigen::MatrixXd M;
                Eigen::VectorXd f;
                full.evaluate(t, q, s.qd, M, f);
                const Eigen::MatrixXd& W = s.kinematics;
                const Eigen::VectorXd gamma = s.qdd - W * s.udot;
                const Eigen::MatrixXd mass = W.transpose() * M * W;
                Eigen::VectorXd out(static_cast<Eigen::Index>(p * p + p));
                for (std::size_t i = 0; i < p * p; ++i)
                  out[static_cast<Eigen::Index>(i)] =
                      mass(static_cast<Eigen::Index>(i / p), static_cast<Eigen::Index>(i % p));
                out.tail(static_cast<Eigen::Index>(p)) = W.transpose() * (f - M * gamma);
                return out;
              });
  if (symbolic) {
    // WᵀMW − M̃ and Wᵀ(f − Mγ) − f̃, the coordinates' rates in f replaced by W u.
    GiNaC::exmap rates;
    for (unsigned j = 0; j < m.dof(); ++j) {
      GiNaC::ex rate = 0;
      for (unsigned k = 0; k < p; ++k) rate += speeds.kinematics(j, k) * m.speed_symbol(k);
      rates[m.coordinate_symbol(j, 1)] = rate;
    }
    const GiNaC::matrix Wt = speeds.kinematics.transpose();
    principles::SpeedEquations difference = speeds;
    difference.mass_matrix =
        Wt.mul(coordinates.mass_matrix).mul(speeds.kinematics).sub(speeds.mass_matrix);
    difference.forcing = Wt.mul(sym::substitute(coordinates.forcing, rates)
                                    .sub(coordinates.mass_matrix.mul(speeds.acceleration_offset)))
                             .sub(speeds.forcing);
    record_symbolic(result, first_nonzero(difference));
  }
  return result;
}

Agreement compare_speeds(const principles::SpeedEquations& a, const principles::SpeedEquations& b,
                         std::size_t states, bool symbolic, double tolerance) {
  const model::Model& m = *a.model;
  const std::size_t p = a.size();
  const CompiledSpeedForm ca(a), cb(b);
  Agreement result = numeric(m, ca, states, tolerance, /*solves=*/false,
                             [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                 const CompiledSpeedForm::State&) {
                               const auto other = cb.solve(t, q, u);
                               Eigen::VectorXd out(static_cast<Eigen::Index>(p * p + p));
                               for (std::size_t i = 0; i < p * p; ++i)
                                 out[static_cast<Eigen::Index>(i)] =
                                     other.mass_matrix(static_cast<Eigen::Index>(i / p),
                                                       static_cast<Eigen::Index>(i % p));
                               out.tail(static_cast<Eigen::Index>(p)) = other.forcing;
                               return out;
                             });
  if (symbolic) {
    principles::SpeedEquations difference = a;
    difference.mass_matrix = a.mass_matrix.sub(b.mass_matrix);
    difference.forcing = a.forcing.sub(b.forcing);
    record_symbolic(result, first_nonzero(difference));
  }
  return result;
}

}  // namespace appell::num
