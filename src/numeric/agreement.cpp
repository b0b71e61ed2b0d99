#include "appell/numeric/agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "agreement_tally.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"
#include "speed_agreement.hpp"

namespace appell::num {

namespace {
Eigen::Index dim_of(const std::vector<double>& v) { return static_cast<Eigen::Index>(v.size()); }

std::string entry_name(std::size_t index, std::size_t n, std::size_t m) {
  if (index < n * n)
    return "M(" + std::to_string(index / n + 1) + "," + std::to_string(index % n + 1) + ")";
  index -= n * n;
  if (index < n) return "f(" + std::to_string(index + 1) + ")";
  index -= n;
  if (index < m * n)
    return "A(" + std::to_string(index / n + 1) + "," + std::to_string(index % n + 1) + ")";
  return "b(" + std::to_string(index - m * n + 1) + ")";
}

// M, f, A, b at the last evaluated state, in the order of Equations::entries().
std::vector<double> values(const CompiledEquations& c, const Eigen::MatrixXd& M,
                           const Eigen::VectorXd& f) {
  std::vector<double> v(M.data(), M.data() + M.size());
  // Eigen is column-major: entries() lists M row by row.
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index k = 0; k < M.cols(); ++k)
      v[static_cast<std::size_t>(i * M.cols() + k)] = M(i, k);
  v.insert(v.end(), f.data(), f.data() + f.size());
  Eigen::MatrixXd A;
  Eigen::VectorXd b;
  c.constraints(A, b);
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index k = 0; k < A.cols(); ++k) v.push_back(A(i, k));
  v.insert(v.end(), b.data(), b.data() + b.size());
  return v;
}
}  // namespace

Agreement compare_numerically(const CompiledEquations& ca, const CompiledEquations& cb,
                              std::size_t states, double tolerance) {
  Agreement result;
  const std::size_t n = ca.dof(), m = ca.constraint_count();
  if (cb.dof() != n || cb.constraint_count() != m) {
    result.first_difference = "number of coordinates or constraints";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
  }
  std::mt19937 rng(20240521u);
  std::uniform_real_distribution<double> u(-2.0, 2.0), time(0.0, 3.0);
  const auto dim = static_cast<Eigen::Index>(n);
  detail::Tally tally;
  for (std::size_t s = 0; s < states; ++s) {
    Eigen::VectorXd q(dim), qd(dim);
    for (Eigen::Index i = 0; i < dim; ++i) {
      q[i] = u(rng);
      qd[i] = u(rng);
    }
    const double t = time(rng);
    Eigen::MatrixXd Ma, Mb;
    Eigen::VectorXd fa, fb;
    ca.evaluate(t, q, qd, Ma, fa);
    cb.evaluate(t, q, qd, Mb, fb);
    const std::vector<double> va = values(ca, Ma, fa), vb = values(cb, Mb, fb);
    // An overflow (a potential (q1 + q2 + l)^1000 at q = 2) or a pole makes every comparison
    // NaN: no verdict either way, so the reason rather than "differs".
    for (const auto* v : {&va, &vb})
      for (std::size_t k = 0; k < v->size(); ++k)
        if (!std::isfinite((*v)[k])) {
          std::ostringstream state;
          state << "t = " << t << ", q = [" << q.transpose() << "], dq/dt = [" << qd.transpose()
                << "]";
          throw model::ComputationError(
              entry_name(k, n, m) + " is not a finite number at a random state (" + state.str() +
              "): the equations overflow or have a pole there, so they cannot be "
              "compared numerically");
        }
    double scale = 1.0;
    for (double x : va) scale = std::max(scale, std::abs(x));
    // Entries compared as evaluated: nothing is solved, so the tolerance alone bounds them.
    tally.add(t, q, qd, Eigen::Map<const Eigen::VectorXd>(va.data(), dim_of(va)),
              Eigen::Map<const Eigen::VectorXd>(vb.data(), dim_of(vb)), scale, tolerance);
  }
  tally.finish(result, [&](std::size_t k) { return entry_name(k, n, m); });
  return result;
}

namespace {

Agreement compare_coordinates(const principles::Equations& a, const principles::Equations& b,
                              std::size_t states, bool symbolic, double tolerance) {
  const std::size_t n = a.dof();
  if (b.dof() != n || b.constraint_count() != a.constraint_count()) {
    Agreement result;
    result.first_difference = "number of coordinates or constraints";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
  }
  const CompiledEquations ca(a), cb(b);
  Agreement result = compare_numerically(ca, cb, states, tolerance);
  if (symbolic) {
    principles::Equations difference = a;
    const GiNaC::exvector ea = a.entries(), eb = b.entries();
    GiNaC::exvector d;
    for (std::size_t k = 0; k < ea.size(); ++k) d.push_back(ea[k] - eb[k]);
    difference.set_entries(d);
    // Within the readable budget: an entry over it stays as given, not zero, so the test is
    // inconclusive rather than endless.
    difference = principles::simplify(difference);
    const GiNaC::exvector entries = difference.entries();
    result.symbolic_test = SymbolicTest::Zero;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (!entries[k].is_zero()) {
        result.symbolic_test = SymbolicTest::Inconclusive;
        result.symbolic_unresolved = entry_name(k, n, a.constraint_count());
        break;
      }
    }
    result.symbolic = result.symbolic_test == SymbolicTest::Zero;
  }
  return result;
}

Agreement compare_minimal(const principles::Equations& multipliers,
                          const principles::Equations& minimal, std::size_t states, bool symbolic,
                          double tolerance) {
  Agreement result;
  const model::Model& m = *minimal.model;
  const std::size_t n = m.dof(), p = minimal.size();
  const CompiledEquations full(multipliers);
  const CompiledEquations reduced(minimal);
  std::mt19937 rng(20240522u);
  std::uniform_real_distribution<double> u(-2.0, 2.0), time(0.0, 3.0);
  detail::Tally tally;
  // A few draws may land where the dependent speeds are undetermined (e.g. cos q = 0), or near a
  // singular M̃ or M, where either solve carries κ·ε of rounding (a rolling disk's M̃ has a
  // determinant in cos²θ); they are drawn again, within a bound that keeps a model singular
  // everywhere from looping.
  for (std::size_t attempts = 0; tally.states() < states && attempts < 20 * states; ++attempts) {
    Eigen::VectorXd q(static_cast<Eigen::Index>(n)), speeds(static_cast<Eigen::Index>(p));
    for (auto& x : q) x = u(rng);
    for (auto& x : speeds) x = u(rng);
    const double t = time(rng);
    Eigen::VectorXd qdd, lambda;
    CompiledEquations::State s;
    double condition = 1.0;
    try {
      s = reduced.solve(t, q, speeds);
      Eigen::MatrixXd M, A;
      Eigen::VectorXd f, b;
      full.evaluate(t, q, s.qd, M, f);
      condition = std::max(detail::condition_number(s.mass_matrix), detail::condition_number(M));
      if (tally.redraw(condition, attempts, states)) continue;
      full.constraints(A, b);
      full.accelerations_and_multipliers(M, f, A, b, qdd, lambda);
    } catch (const model::ComputationError&) {
      continue;
    }
    const double scale = std::max(1.0, qdd.cwiseAbs().maxCoeff());
    tally.add(t, q, s.qd, qdd, s.qdd, scale, solve_bound(tolerance, condition));
  }
  if (tally.states() == 0 && states > 0) {
    tally.finish(result, [](std::size_t) { return std::string(); });
    result.first_difference = "no state where both forms are regular";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
  } else {
    tally.finish(result, [&](std::size_t j) {
      return "ddot(" + m.coordinates.at(j).name + ") of the minimal form";
    });
  }

  if (symbolic) {
    // BᵀMB − M̃ and Bᵀ(f − Mγ) − f̃, with q̇_d = (Bu + β)_d in f.
    GiNaC::exmap dependent_speeds;
    for (std::size_t j : minimal.dependent) {
      GiNaC::ex speed = minimal.speed_offset(static_cast<unsigned>(j), 0);
      for (unsigned k = 0; k < p; ++k)
        speed += minimal.speed_matrix(static_cast<unsigned>(j), k) *
                 m.coordinate_symbol(minimal.independent[k], 1);
      dependent_speeds[m.coordinate_symbol(j, 1)] = speed;
    }
    const GiNaC::matrix& B = minimal.speed_matrix;
    const GiNaC::matrix Bt = B.transpose();
    const GiNaC::matrix mass = Bt.mul(multipliers.mass_matrix).mul(B);
    const GiNaC::matrix forcing =
        Bt.mul(sym::substitute(multipliers.forcing, dependent_speeds)
                   .sub(multipliers.mass_matrix.mul(minimal.acceleration_offset)));
    principles::Equations difference = minimal;
    difference.mass_matrix = mass.sub(minimal.mass_matrix);
    difference.forcing = forcing.sub(minimal.forcing);
    difference = principles::simplify(difference);
    // B carries the inverse of the constraints' dependent block, so the differences are
    // trigonometric fractions: over a common denominator, their numerators simplify to zero
    // where the fractions as written did not. Only differences of bounded size are put over one
    // (normal() has no budget); a larger one stays as it is and leaves the test inconclusive.
    detail::to_bounded_numerators(difference.mass_matrix);
    detail::to_bounded_numerators(difference.forcing);
    difference = principles::simplify(difference);
    result.symbolic_test = SymbolicTest::Zero;
    auto unresolved = [&](const std::string& entry) {
      result.symbolic_test = SymbolicTest::Inconclusive;
      result.symbolic_unresolved = entry + " of the minimal form";
    };
    for (unsigned k = 0; k < p && result.symbolic_test == SymbolicTest::Zero; ++k) {
      for (unsigned l = 0; l < p && result.symbolic_test == SymbolicTest::Zero; ++l)
        if (!detail::bounded_is_zero(difference.mass_matrix(k, l)))
          unresolved("M(" + std::to_string(k + 1) + "," + std::to_string(l + 1) + ")");
      if (result.symbolic_test == SymbolicTest::Zero &&
          !detail::bounded_is_zero(difference.forcing(k, 0)))
        unresolved("f(" + std::to_string(k + 1) + ")");
    }
    result.symbolic = result.symbolic_test == SymbolicTest::Zero;
  }
  return result;
}

}  // namespace

Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states, bool symbolic, double tolerance) {
  using principles::Form;
  if (a.form == Form::Coordinates && b.form == Form::Coordinates)
    return compare_coordinates(a, b, states, symbolic, tolerance);
  if (a.form == Form::Coordinates && b.form == Form::Minimal)
    return compare_minimal(a, b, states, symbolic, tolerance);
  if (a.form == Form::Coordinates && b.form == Form::Speeds)
    return detail::compare_with_speeds(a, b, states, symbolic, tolerance);
  if (a.form == b.form && a.size() == b.size() && a.constraint_count() == b.constraint_count())
    return detail::compare_in_speeds(a, b, states, symbolic, tolerance);
  if (a.form == b.form) {
    Agreement result;
    result.first_difference = "number of speeds or constraints";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
  }
  throw std::invalid_argument("compare: equations in the " + principles::form_name(b.form) +
                              " are compared with those in the coordinates (the reference) or in "
                              "the same form, not with the " +
                              principles::form_name(a.form));
}

}  // namespace appell::num
