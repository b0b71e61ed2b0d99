#include "appell/numeric/agreement.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/compiled_minimal_form.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"

namespace appell::num {

namespace {
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
                              std::size_t states) {
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
  std::size_t worst_index = 0;
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
    for (std::size_t k = 0; k < va.size(); ++k) {
      const double err = std::abs(va[k] - vb[k]) / scale;
      if (!(err <= result.max_numeric_error)) {
        result.max_numeric_error = err;
        worst_index = k;
      }
    }
  }
  result.states = states;
  if (result.max_numeric_error > 1e-12) result.first_difference = entry_name(worst_index, n, m);
  return result;
}

Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states, bool symbolic) {
  const std::size_t n = a.dof();
  if (b.dof() != n || b.constraint_count() != a.constraint_count()) {
    Agreement result;
    result.first_difference = "number of coordinates or constraints";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
  }
  const CompiledEquations ca(a), cb(b);
  Agreement result = compare_numerically(ca, cb, states);
  if (symbolic) {
    principles::Equations difference = a;
    const GiNaC::exvector ea = a.entries(), eb = b.entries();
    GiNaC::exvector d;
    for (std::size_t k = 0; k < ea.size(); ++k) d.push_back(ea[k] - eb[k]);
    difference.set_entries(d);
    difference = principles::simplify(difference);
    const GiNaC::exvector entries = difference.entries();
    result.symbolic = true;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (!entries[k].is_zero()) {
        result.symbolic = false;
        result.first_difference = entry_name(k, n, a.constraint_count());  // before the numeric
        break;
      }
    }
  }
  return result;
}

Agreement compare_minimal(const principles::Equations& multipliers,
                          const principles::MinimalEquations& minimal, std::size_t states,
                          bool symbolic) {
  Agreement result;
  const model::Model& m = *minimal.model;
  const std::size_t n = m.dof(), p = minimal.size();
  const CompiledEquations full(multipliers);
  const CompiledMinimalForm reduced(minimal);
  std::mt19937 rng(20240522u);
  std::uniform_real_distribution<double> u(-2.0, 2.0), time(0.0, 3.0);
  std::size_t worst = 0;
  // A few draws may land where the dependent speeds are undetermined (e.g. cos q = 0); they are
  // drawn again, within a bound that keeps a model singular everywhere from looping.
  for (std::size_t attempts = 0; result.states < states && attempts < 20 * states; ++attempts) {
    Eigen::VectorXd q(static_cast<Eigen::Index>(n)), speeds(static_cast<Eigen::Index>(p));
    for (auto& x : q) x = u(rng);
    for (auto& x : speeds) x = u(rng);
    const double t = time(rng);
    Eigen::VectorXd qdd, lambda;
    CompiledMinimalForm::State s;
    try {
      s = reduced.solve(t, q, speeds);
      Eigen::MatrixXd M, A;
      Eigen::VectorXd f, b;
      full.evaluate(t, q, s.qd, M, f);
      full.constraints(A, b);
      full.accelerations_and_multipliers(M, f, A, b, qdd, lambda);
    } catch (const model::ComputationError&) {
      continue;
    }
    ++result.states;
    const double scale = std::max(1.0, qdd.cwiseAbs().maxCoeff());
    for (Eigen::Index j = 0; j < qdd.size(); ++j) {
      const double err = std::abs(s.qdd[j] - qdd[j]) / scale;
      if (!(err <= result.max_numeric_error)) {
        result.max_numeric_error = err;
        worst = static_cast<std::size_t>(j);
      }
    }
  }
  if (result.states < states) {
    result.first_difference = "no state where both forms are regular";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
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
    principles::MinimalEquations difference = minimal;
    difference.mass_matrix = mass.sub(minimal.mass_matrix);
    difference.forcing = forcing.sub(minimal.forcing);
    difference = principles::simplify(difference);
    // B carries the inverse of the constraints' dependent block, so the differences are
    // trigonometric fractions: over a common denominator, their numerators simplify to zero
    // where the fractions as written did not.
    for (unsigned k = 0; k < p; ++k) {
      for (unsigned l = 0; l < p; ++l)
        difference.mass_matrix(k, l) = difference.mass_matrix(k, l).normal().numer();
      difference.forcing(k, 0) = difference.forcing(k, 0).normal().numer();
    }
    difference = principles::simplify(difference);
    result.symbolic = true;
    for (unsigned k = 0; k < p && result.symbolic; ++k) {
      for (unsigned l = 0; l < p && result.symbolic; ++l)
        if (!difference.mass_matrix(k, l).normal().is_zero()) {
          result.symbolic = false;
          result.first_difference =
              "M(" + std::to_string(k + 1) + "," + std::to_string(l + 1) + ") of the minimal form";
        }
      if (result.symbolic && !difference.forcing(k, 0).normal().is_zero()) {
        result.symbolic = false;
        result.first_difference = "f(" + std::to_string(k + 1) + ") of the minimal form";
      }
    }
  }
  if (result.first_difference.empty() && result.max_numeric_error > 1e-12)
    result.first_difference = "ddot(" + m.coordinates.at(worst).name + ") of the minimal form";
  return result;
}

}  // namespace appell::num
