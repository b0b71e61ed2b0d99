// num::compare (agreement.hpp) of equations in speeds: those in a model's speeds against those in
// its coordinates projected by W, or two sets in the same speeds (two principles' in a model's
// speeds, or two minimal forms).
#include "speed_agreement.hpp"

#include <functional>
#include <limits>
#include <random>

#include "agreement_tally.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"

namespace appell::num {

namespace {

// The compared entries: M̃ row by row, f̃, then with constraints Ã row by row and b̃.
std::string entry(std::size_t index, std::size_t p) {
  if (index < p * p)
    return "M(" + std::to_string(index / p + 1) + "," + std::to_string(index % p + 1) +
           ") in the speeds";
  if (index < p * p + p) return "f(" + std::to_string(index - p * p + 1) + ") in the speeds";
  index -= p * p + p;
  if (p > 0 && index % (p + 1) < p)
    return "A(" + std::to_string(index / (p + 1) + 1) + "," + std::to_string(index % (p + 1) + 1) +
           ") in the speeds";
  return "b(" + std::to_string(index / (p + 1) + 1) + ") in the speeds";
}

// M̃, f̃, and row by row [Ã_i, b̃_i]: the layout `entry` names.
Eigen::VectorXd flattened(const Eigen::MatrixXd& mass, const Eigen::VectorXd& forcing,
                          const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
  const Eigen::Index p = forcing.size(), m = b.size();
  Eigen::VectorXd out(p * p + p + m * (p + 1));
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < p; ++i)
    for (Eigen::Index j = 0; j < p; ++j) out[k++] = mass(i, j);
  for (Eigen::Index i = 0; i < p; ++i) out[k++] = forcing[i];
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j < p; ++j) out[k++] = A(i, j);
    out[k++] = b[i];
  }
  return out;
}

// M̃ and f̃ of `reference` (row by row, then f̃) and of the other form at random states; `other`
// gives the other form's entries at a state where `reference` gave `state`. With `solves` (the
// other form's entries use u̇ = M̃⁻¹ f̃), states near a singular M̃ are drawn again and each state's
// bound scales with κ(M̃); otherwise entries are compared as evaluated, up to `tolerance`.
Agreement numeric(
    const model::Model& m, const CompiledEquations& reference, std::size_t states, double tolerance,
    bool solves,
    const std::function<Eigen::VectorXd(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                        const CompiledEquations::State&)>& other) {
  Agreement result;
  const std::size_t n = m.dof(), p = reference.size();
  std::mt19937 rng(20240522u);
  std::uniform_real_distribution<double> any(-2.0, 2.0), time(0.0, 3.0);
  detail::Tally tally;
  for (std::size_t attempts = 0; tally.states() < states && attempts < 20 * states; ++attempts) {
    Eigen::VectorXd q(static_cast<Eigen::Index>(n)), u(static_cast<Eigen::Index>(p));
    for (auto& x : q) x = any(rng);
    for (auto& x : u) x = any(rng);
    const double t = time(rng);
    Eigen::VectorXd a, b;
    CompiledEquations::State s;
    double bound = tolerance;
    try {
      s = reference.solve(t, q, u);
      if (solves) {
        const double condition = detail::condition_number(s.mass_matrix);
        if (tally.redraw(condition, attempts, states)) continue;
        bound = solve_bound(tolerance, condition);
      }
      a = flattened(s.mass_matrix, s.forcing, s.constraint_matrix, s.constraint_rhs);
      b = other(t, q, u, s);
    } catch (const model::ComputationError&) {
      continue;
    }
    if (!b.allFinite() || b.size() != a.size()) continue;
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
std::string first_nonzero(principles::Equations difference) {
  const std::size_t p = difference.size();
  const auto m = static_cast<unsigned>(difference.constraint_count());
  for (GiNaC::matrix* entries : {&difference.mass_matrix, &difference.forcing,
                                 &difference.constraint_matrix, &difference.constraint_rhs})
    detail::to_bounded_numerators(*entries);
  difference = principles::simplify(difference);
  for (unsigned k = 0; k < p; ++k)
    for (unsigned l = 0; l < p; ++l)
      if (!detail::bounded_is_zero(difference.mass_matrix(k, l))) return entry(k * p + l, p);
  for (unsigned k = 0; k < p; ++k)
    if (!detail::bounded_is_zero(difference.forcing(k, 0))) return entry(p * p + k, p);
  for (unsigned i = 0; i < m; ++i) {
    for (unsigned l = 0; l < p; ++l)
      if (!detail::bounded_is_zero(difference.constraint_matrix(i, l)))
        return entry(p * p + p + i * (p + 1) + l, p);
    if (!detail::bounded_is_zero(difference.constraint_rhs(i, 0)))
      return entry(p * p + p + i * (p + 1) + p, p);
  }
  return "";
}

void record_symbolic(Agreement& result, const std::string& unresolved) {
  result.symbolic = unresolved.empty();
  result.symbolic_test = unresolved.empty() ? SymbolicTest::Zero : SymbolicTest::Inconclusive;
  result.symbolic_unresolved = unresolved;
}

}  // namespace

namespace detail {

Agreement compare_with_speeds(const principles::Equations& coordinates,
                              const principles::Equations& speeds, std::size_t states,
                              bool symbolic, double tolerance) {
  const model::Model& m = *speeds.model;
  const std::size_t p = speeds.size();
  const CompiledEquations full(coordinates);
  const CompiledEquations reduced(speeds);
  Agreement result =
      numeric(m, reduced, states, tolerance, /*solves=*/true,
              [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd&,
                  const CompiledEquations::State& s) {
                Eigen::MatrixXd M, A;
                Eigen::VectorXd f, b;
                full.evaluate(t, q, s.qd, M, f);
                full.constraints(A, b);
                const Eigen::MatrixXd& W = s.speed_matrix;
                const Eigen::VectorXd& gamma = s.acceleration_offset;
                // M̃ = WᵀMW, f̃ = Wᵀ(f − Mγ), Ã = AW, b̃ = b − Aγ.
                return flattened(W.transpose() * M * W, W.transpose() * (f - M * gamma), A * W,
                                 b - A * gamma);
              });
  if (symbolic) {
    // WᵀMW − M̃ and Wᵀ(f − Mγ) − f̃, the coordinates' rates in f replaced by W u.
    GiNaC::exmap rates;
    for (unsigned j = 0; j < m.dof(); ++j) {
      GiNaC::ex rate = 0;
      for (unsigned k = 0; k < p; ++k) rate += speeds.speed_matrix(j, k) * m.speed_symbol(k);
      rates[m.coordinate_symbol(j, 1)] = rate;
    }
    const GiNaC::matrix Wt = speeds.speed_matrix.transpose();
    principles::Equations difference = speeds;
    difference.mass_matrix =
        Wt.mul(coordinates.mass_matrix).mul(speeds.speed_matrix).sub(speeds.mass_matrix);
    difference.forcing = Wt.mul(sym::substitute(coordinates.forcing, rates)
                                    .sub(coordinates.mass_matrix.mul(speeds.acceleration_offset)))
                             .sub(speeds.forcing);
    if (speeds.constraint_count() > 0) {
      difference.constraint_matrix = sym::substitute(coordinates.constraint_matrix, rates)
                                         .mul(speeds.speed_matrix)
                                         .sub(speeds.constraint_matrix);
      difference.constraint_rhs = sym::substitute(coordinates.constraint_rhs, rates)
                                      .sub(sym::substitute(coordinates.constraint_matrix, rates)
                                               .mul(speeds.acceleration_offset))
                                      .sub(speeds.constraint_rhs);
    }
    record_symbolic(result, first_nonzero(difference));
  }
  return result;
}

Agreement compare_in_speeds(const principles::Equations& a, const principles::Equations& b,
                            std::size_t states, bool symbolic, double tolerance) {
  const model::Model& m = *a.model;
  const CompiledEquations ca(a), cb(b);
  Agreement result = numeric(m, ca, states, tolerance, /*solves=*/false,
                             [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                                 const CompiledEquations::State&) {
                               const auto other = cb.solve(t, q, u);
                               return flattened(other.mass_matrix, other.forcing,
                                                other.constraint_matrix, other.constraint_rhs);
                             });
  if (symbolic) {
    principles::Equations difference = a;
    difference.mass_matrix = a.mass_matrix.sub(b.mass_matrix);
    difference.forcing = a.forcing.sub(b.forcing);
    if (a.constraint_count() > 0) {
      difference.constraint_matrix = a.constraint_matrix.sub(b.constraint_matrix);
      difference.constraint_rhs = a.constraint_rhs.sub(b.constraint_rhs);
    }
    record_symbolic(result, first_nonzero(difference));
  }
  return result;
}

}  // namespace detail

}  // namespace appell::num
