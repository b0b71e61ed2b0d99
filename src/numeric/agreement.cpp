#include "appell/numeric/agreement.hpp"

#include <algorithm>
#include <random>

#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

namespace appell::num {

namespace {
std::string entry_name(std::size_t index, std::size_t n) {
  if (index < n * n)
    return "M(" + std::to_string(index / n + 1) + "," + std::to_string(index % n + 1) + ")";
  return "f(" + std::to_string(index - n * n + 1) + ")";
}
}  // namespace

Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states, bool symbolic) {
  Agreement result;
  const std::size_t n = a.dof();
  if (b.dof() != n) {
    result.first_difference = "number of coordinates";
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
    const double scale = std::max({1.0, Ma.cwiseAbs().maxCoeff(), fa.cwiseAbs().maxCoeff()});
    for (std::size_t k = 0; k < n * n + n; ++k) {
      const double da = k < n * n
                            ? Ma(static_cast<Eigen::Index>(k / n), static_cast<Eigen::Index>(k % n))
                            : fa[static_cast<Eigen::Index>(k - n * n)];
      const double db = k < n * n
                            ? Mb(static_cast<Eigen::Index>(k / n), static_cast<Eigen::Index>(k % n))
                            : fb[static_cast<Eigen::Index>(k - n * n)];
      const double err = std::abs(da - db) / scale;
      if (!(err <= result.max_numeric_error)) {
        result.max_numeric_error = err;
        worst_index = k;
      }
    }
  }
  result.states = states;

  if (symbolic) {
    principles::Equations difference = a;
    difference.mass_matrix = a.mass_matrix.sub(b.mass_matrix);
    difference.forcing = a.forcing.sub(b.forcing);
    difference = principles::simplify(difference);
    const GiNaC::exvector entries = difference.entries();
    result.symbolic = true;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (!entries[k].is_zero()) {
        result.symbolic = false;
        result.first_difference = entry_name(k, n);
        break;
      }
    }
  }
  if (result.first_difference.empty() && result.max_numeric_error > 1e-12)
    result.first_difference = entry_name(worst_index, n);
  return result;
}

}  // namespace appell::num
