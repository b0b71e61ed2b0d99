#include "appell/numeric/agreement.hpp"

#include <algorithm>
#include <random>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

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

Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states, bool symbolic) {
  Agreement result;
  const std::size_t n = a.dof();
  if (b.dof() != n || b.constraint_count() != a.constraint_count()) {
    result.first_difference = "number of coordinates or constraints";
    result.max_numeric_error = std::numeric_limits<double>::infinity();
    return result;
  }

  CompiledEquations ca(a), cb(b);
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
        result.first_difference = entry_name(k, n, a.constraint_count());
        break;
      }
    }
  }
  if (result.first_difference.empty() && result.max_numeric_error > 1e-12)
    result.first_difference = entry_name(worst_index, n, a.constraint_count());
  return result;
}

}  // namespace appell::num
