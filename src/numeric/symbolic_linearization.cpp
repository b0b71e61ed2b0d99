#include "appell/numeric/symbolic_linearization.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/principles/readable_form.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::num {

namespace {

using GiNaC::ex;
using GiNaC::matrix;

// Relative distance within which a number of the operating point is taken as exact.
constexpr double kExactTolerance = 1e-12;
constexpr long kLargestDenominator = 1000;

unsigned u(std::size_t i) { return static_cast<unsigned>(i); }

matrix zeros(std::size_t rows, std::size_t cols) { return matrix(u(rows), u(cols)); }

// Rows `which` of a column vector, or columns `which` of a matrix.
matrix columns(const matrix& m, const std::vector<std::size_t>& which) {
  matrix out(m.rows(), u(which.size()));
  for (unsigned i = 0; i < m.rows(); ++i)
    for (std::size_t k = 0; k < which.size(); ++k) out(i, u(k)) = m(i, u(which[k]));
  return out;
}

// Every entry brought to one normal form, so that what cancels at the point cancels.
matrix normalized(const matrix& m) {
  matrix out(m.rows(), m.cols());
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) out(i, j) = GiNaC::normal(m(i, j));
  return out;
}

matrix inverse_of(const matrix& m, const std::string& what) {
  try {
    return normalized(m.inverse());
  } catch (const std::exception&) {
    throw model::ComputationError(what +
                                  " is singular at the operating point for general parameter "
                                  "values: no symbolic linear model");
  }
}

// sin(a)^k of a number a written through cos(a) (sin² = 1 − cos²), so that normal() cancels what
// the Pythagorean identity cancels: GiNaC keeps sin(2/5) and cos(2/5) as unrelated numbers, and
// the model at q = 0.4 would carry cos(2/5)^2 + sin(2/5)^2 in every denominator.
struct Pythagorean : GiNaC::map_function {
  ex operator()(const ex& e) override {
    if (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::function>(e.op(0)) &&
        GiNaC::ex_to<GiNaC::function>(e.op(0)).get_name() == "sin" &&
        GiNaC::is_a<GiNaC::numeric>(e.op(0).op(0)) && e.op(1).info(GiNaC::info_flags::posint)) {
      const long k = GiNaC::ex_to<GiNaC::numeric>(e.op(1)).to_long();
      const ex angle = e.op(0).op(0);
      return GiNaC::pow(GiNaC::sin(angle), k % 2) *
             GiNaC::pow(1 - GiNaC::pow(GiNaC::cos(angle), 2), k / 2);
    }
    return e.map(*this);
  }
};

ex normal_with_pythagoras(const ex& e) {
  Pythagorean rewrite;
  return GiNaC::normal(rewrite(GiNaC::normal(e)));
}

}  // namespace

GiNaC::ex exact_number(double value) {
  const double scale = std::max(1.0, std::abs(value));
  const double twelfths = value * 12.0 / M_PI;
  const double whole = std::round(twelfths);
  if (std::abs(twelfths - whole) * M_PI / 12.0 <= kExactTolerance * scale && whole != 0.0)
    return GiNaC::numeric(static_cast<long>(whole), 12) * GiNaC::Pi;
  for (long denominator = 1; denominator <= kLargestDenominator; ++denominator) {
    const double numerator = std::round(value * static_cast<double>(denominator));
    if (std::abs(numerator) > 1e15) break;
    if (std::abs(numerator / static_cast<double>(denominator) - value) <= kExactTolerance * scale)
      return GiNaC::numeric(static_cast<long>(numerator), denominator);
  }
  return GiNaC::numeric(value);
}

SymbolicLinearModel symbolic_linear_model(const principles::Equations& eq,
                                          const LinearModel& linear,
                                          const LinearizationOptions& options) {
  const model::Model& model = *eq.model;
  const std::size_t n = eq.dof(), m = eq.constraint_count(), r = linear.inputs.size();
  if (n + m > kMaxSymbolicLinearSize) {
    std::ostringstream s;
    s << "the symbolic linear model is formed for at most " << kMaxSymbolicLinearSize
      << " coordinates and constraints together; this model has " << n << " and " << m;
    throw model::ComputationError(s.str());
  }

  // Redundant constraints leave fewer dependent coordinates or speeds than constraints: the
  // square blocks inverted below would be singular.
  const auto holonomic_count = static_cast<std::size_t>(
      std::count_if(model.constraints.begin(), model.constraints.end(),
                    [](const auto& c) { return c.kind == model::Constraint::Kind::Holonomic; }));
  if (holonomic_count != linear.dependent_coordinates.size() || m != linear.dependent_speeds.size())
    throw model::ComputationError(
        "the constraints are redundant at the operating point: the symbolic linear model needs "
        "independent constraints");

  // Everything but the parameters at its operating value: coordinates and speeds at the point,
  // t, inputs and unspecified functions at their values.
  const model::BoundValues bound = model::bind(model, options.values);
  GiNaC::exmap point;
  GiNaC::exset parameters;
  for (const auto& p : model.parameters) parameters.insert(p.symbol);
  for (const auto& [symbol, value] : bound.numbers)
    if (parameters.count(symbol) == 0)
      point[symbol] = exact_number(GiNaC::ex_to<GiNaC::numeric>(value).to_double());
  for (const auto& [symbol, value] : bound.unset) point[symbol] = value;
  for (const auto& [symbol, value] : bound.driven) point[symbol] = value;
  const ex t0 = exact_number(options.t);
  for (auto& [symbol, value] : point) value = value.subs(model.time_functions->time() == t0);
  point[model.time_functions->time()] = t0;
  for (std::size_t j = 0; j < n; ++j) {
    point[model.coordinate_symbol(j, 0)] = exact_number(linear.q[static_cast<Eigen::Index>(j)]);
    point[model.coordinate_symbol(j, 1)] = exact_number(linear.qd[static_cast<Eigen::Index>(j)]);
  }
  const auto at_point = [&](const ex& e) { return GiNaC::normal(e.subs(point)); };
  const auto matrix_at_point = [&](const matrix& e) {
    matrix out(e.rows(), e.cols());
    for (unsigned i = 0; i < e.rows(); ++i)
      for (unsigned j = 0; j < e.cols(); ++j) out(i, j) = at_point(e(i, j));
    return out;
  };

  // The variables x of ẋ's Jacobian: q, q̇, then the inputs of B.
  std::vector<GiNaC::symbol> wrt;
  for (std::size_t j = 0; j < n; ++j) wrt.push_back(model.coordinate_symbol(j, 0));
  for (std::size_t j = 0; j < n; ++j) wrt.push_back(model.coordinate_symbol(j, 1));
  for (const auto& name : linear.inputs) wrt.push_back(model.time_functions->derivative(name, 0));
  // The inputs of B are differentiated before they take their operating values.
  for (std::size_t k = 2 * n; k < wrt.size(); ++k)
    if (point.count(wrt[k]) == 0) point[wrt[k]] = 0;

  sym::Differentiator d(model.time_functions);
  const matrix M = matrix_at_point(eq.mass_matrix), f = matrix_at_point(eq.forcing);
  const matrix A = m > 0 ? matrix_at_point(eq.constraint_matrix) : zeros(0, n);
  const matrix b = m > 0 ? matrix_at_point(eq.constraint_rhs) : zeros(0, 1);

  // K [q̈; λ] = [f; b] with K = [M, −Aᵀ; A, 0] (M q̈ = f + Aᵀλ, A q̈ = b).
  matrix K(u(n + m), u(n + m));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) K(u(i), u(j)) = M(u(i), u(j));
  for (std::size_t c = 0; c < m; ++c)
    for (std::size_t j = 0; j < n; ++j) {
      K(u(j), u(n + c)) = -A(u(c), u(j));
      K(u(n + c), u(j)) = A(u(c), u(j));
    }
  const matrix Kinverse = inverse_of(K, m > 0 ? "the matrix of M and the constraints" : "M");
  matrix rhs(u(n + m), 1);
  for (std::size_t i = 0; i < n; ++i) rhs(u(i), 0) = f(u(i), 0);
  for (std::size_t c = 0; c < m; ++c) rhs(u(n + c), 0) = b(u(c), 0);
  const matrix solution = normalized(Kinverse.mul(rhs));
  matrix qdd(u(n), 1), lambda(u(m), 1);
  for (std::size_t i = 0; i < n; ++i) qdd(u(i), 0) = solution(u(i), 0);
  for (std::size_t c = 0; c < m; ++c) lambda(u(c), 0) = solution(u(n + c), 0);

  // ∂(q̈, λ)/∂x = K⁻¹ [∂f − ∂M q̈ + ∂Aᵀ λ; ∂b − ∂A q̈] along every variable.
  matrix J = zeros(2 * n, 2 * n), Bfull = zeros(2 * n, r);
  for (std::size_t j = 0; j < n; ++j) J(u(j), u(n + j)) = 1;
  for (std::size_t x = 0; x < wrt.size(); ++x) {
    const matrix dM = matrix_at_point(d.partial(eq.mass_matrix, wrt[x]));
    const matrix df = matrix_at_point(d.partial(eq.forcing, wrt[x]));
    matrix right = df.sub(dM.mul(qdd));
    matrix right_b = zeros(m, 1);
    if (m > 0) {
      const matrix dA = matrix_at_point(d.partial(eq.constraint_matrix, wrt[x]));
      const matrix db = matrix_at_point(d.partial(eq.constraint_rhs, wrt[x]));
      right = right.add(dA.transpose().mul(lambda));
      right_b = db.sub(dA.mul(qdd));
    }
    matrix both(u(n + m), 1);
    for (std::size_t i = 0; i < n; ++i) both(u(i), 0) = right(u(i), 0);
    for (std::size_t c = 0; c < m; ++c) both(u(n + c), 0) = right_b(u(c), 0);
    const matrix change = Kinverse.mul(both);
    for (std::size_t i = 0; i < n; ++i) {
      const ex entry = GiNaC::normal(change(u(i), 0));
      if (x < 2 * n)
        J(u(n + i), u(x)) = entry;
      else
        Bfull(u(n + i), u(x - 2 * n)) = entry;
    }
  }

  // T = ∂(q, q̇)/∂(q_I, q̇_U) along the constraints and S, as num::linearize forms them.
  const auto &I = linear.independent_coordinates, &D = linear.dependent_coordinates;
  const auto &U = linear.independent_speeds, &W = linear.dependent_speeds;
  matrix Phiq = zeros(0, n), Gq = zeros(m, n), Gqd = zeros(m, n);
  std::vector<ex> holonomic;
  std::size_t row = 0;
  for (const auto& c : model.constraints) {
    const ex rate = c.kind == model::Constraint::Kind::Holonomic ? d.time_derivative(c.expression)
                                                                 : c.expression;
    if (c.kind == model::Constraint::Kind::Holonomic) holonomic.push_back(c.expression);
    for (std::size_t j = 0; j < n; ++j) {
      Gq(u(row), u(j)) = at_point(d.partial(rate, wrt[j]));
      Gqd(u(row), u(j)) = at_point(d.partial(rate, wrt[n + j]));
    }
    ++row;
  }
  Phiq = zeros(holonomic.size(), n);
  for (std::size_t c = 0; c < holonomic.size(); ++c)
    for (std::size_t j = 0; j < n; ++j)
      Phiq(u(c), u(j)) = at_point(d.partial(holonomic[c], wrt[j]));

  const std::size_t nI = I.size(), nU = U.size();
  matrix Pq = zeros(n, nI), Pv = zeros(n, nU), Y = zeros(n, nI);
  for (std::size_t k = 0; k < nI; ++k) Pq(u(I[k]), u(k)) = 1;
  for (std::size_t k = 0; k < nU; ++k) Pv(u(U[k]), u(k)) = 1;
  if (!D.empty()) {
    const matrix dependent =
        inverse_of(columns(Phiq, D), "the holonomic constraints' Jacobian").mul(columns(Phiq, I));
    for (std::size_t k = 0; k < D.size(); ++k)
      for (std::size_t c = 0; c < nI; ++c) Pq(u(D[k]), u(c)) = -dependent(u(k), u(c));
  }
  if (!W.empty()) {
    const matrix GWinverse = inverse_of(columns(Gqd, W), "the constraints' velocity Jacobian");
    const matrix speeds = GWinverse.mul(columns(Gqd, U));
    const matrix along = GWinverse.mul(Gq.mul(Pq));
    for (std::size_t k = 0; k < W.size(); ++k) {
      for (std::size_t c = 0; c < nU; ++c) Pv(u(W[k]), u(c)) = -speeds(u(k), u(c));
      for (std::size_t c = 0; c < nI; ++c) Y(u(W[k]), u(c)) = -along(u(k), u(c));
    }
  }
  matrix T = zeros(2 * n, nI + nU);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < nI; ++c) {
      T(u(i), u(c)) = Pq(u(i), u(c));
      T(u(n + i), u(c)) = Y(u(i), u(c));
    }
    for (std::size_t c = 0; c < nU; ++c) T(u(n + i), u(nI + c)) = Pv(u(i), u(c));
  }
  // S picks the rows of the states: q_I, then q̇_U.
  std::vector<std::size_t> state_rows(I.begin(), I.end());
  for (std::size_t j : U) state_rows.push_back(n + j);

  const matrix JT = J.mul(T);
  SymbolicLinearModel result;
  result.states = linear.states;
  result.inputs = linear.inputs;
  const std::size_t s = state_rows.size();
  GiNaC::exvector entries;
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t c = 0; c < s; ++c)
      entries.push_back(normal_with_pythagoras(JT(u(state_rows[i]), u(c))));
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t c = 0; c < r; ++c)
      entries.push_back(normal_with_pythagoras(Bfull(u(state_rows[i]), u(c))));
  const auto readable = principles::readable_entries_within(model, entries);
  result.A = zeros(s, s);
  result.B = zeros(s, r);
  std::size_t k = 0;
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t c = 0; c < s; ++c) result.A(u(i), u(c)) = readable.entries[k++];
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t c = 0; c < r; ++c) result.B(u(i), u(c)) = readable.entries[k++];
  return result;
}

}  // namespace appell::num
