#include "appell/numeric/linearization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "appell/model/source_location.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/differentiator.hpp"
#include "tape_layout.hpp"

namespace appell::num {

namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
using Index = Eigen::Index;

// Relative size below which a pivot counts as zero in the ranks of the constraint Jacobians.
constexpr double kRankTolerance = 1e-10;
// Largest |φ| and |g| an operating point may have and still count as satisfying the constraints.
constexpr double kConsistent = 1e-9;
// Relative size (of the largest |A_ij|) below which an eigenvalue's real part counts as zero:
// about √ε, the accuracy of a double eigenvalue.
constexpr double kModeTolerance = 1.5e-8;

Index idx(std::size_t i) { return static_cast<Index>(i); }

// Eigen's pivoting decompositions index out of bounds on a matrix with a NaN (no pivot compares
// greater): a Jacobian that is not finite (abs(q) differentiated at q = 0) is a failed
// computation named here, not a crash.
void require_finite(const Matrix& m) {
  if (!m.allFinite())
    throw model::ComputationError(
        "the constraints' Jacobian is not finite at this operating point (a function of the "
        "coordinates without a derivative there, such as abs or sqrt at 0)");
}

Index rank_of(const Matrix& m) {
  if (m.rows() == 0 || m.cols() == 0) return 0;
  require_finite(m);
  Eigen::ColPivHouseholderQR<Matrix> qr;
  qr.setThreshold(kRankTolerance);
  qr.compute(m);
  return qr.rank();
}

// The columns of C taken as dependent: walking `preference` from its least preferred end, each
// column that raises the rank of those taken so far, until they span C's columns.
std::vector<std::size_t> choose_dependent(const Matrix& C,
                                          const std::vector<std::size_t>& preference) {
  const Index target = rank_of(C);
  std::vector<std::size_t> dependent;
  Matrix taken(C.rows(), 0);
  for (auto it = preference.rbegin(); it != preference.rend() && taken.cols() < target; ++it) {
    Matrix trial(C.rows(), taken.cols() + 1);
    trial << taken, C.col(idx(*it));
    if (rank_of(trial) > taken.cols()) {
      taken = std::move(trial);
      dependent.push_back(*it);
    }
  }
  std::sort(dependent.begin(), dependent.end());
  return dependent;
}

std::vector<std::size_t> complement(std::size_t n, const std::vector<std::size_t>& taken) {
  std::vector<std::size_t> rest;
  for (std::size_t j = 0; j < n; ++j)
    if (std::find(taken.begin(), taken.end(), j) == taken.end()) rest.push_back(j);
  return rest;
}

Matrix columns(const Matrix& m, const std::vector<std::size_t>& which) {
  Matrix out(m.rows(), idx(which.size()));
  for (std::size_t k = 0; k < which.size(); ++k) out.col(idx(k)) = m.col(idx(which[k]));
  return out;
}

// x = C⁺ y by the minimum-norm solution (C may have redundant rows).
Matrix solve_min_norm(const Matrix& C, const Matrix& y) {
  require_finite(C);
  Eigen::CompleteOrthogonalDecomposition<Matrix> cod;
  cod.setThreshold(kRankTolerance);
  cod.compute(C);
  return cod.solve(y);
}

double max_abs(const Vector& v) { return v.size() == 0 ? 0.0 : v.cwiseAbs().maxCoeff(); }

// Everything the linearization evaluates at one state, read from one tape.
struct PointValues {
  Matrix M, A;                 // n×n, m×n
  Vector f, b;                 // n, m
  std::vector<Matrix> dM, dA;  // per variable (q, q̇, u)
  std::vector<Vector> df, db;
  Vector g;        // velocity-level constraints, m
  Matrix Gq, Gqd;  // m×n each
  Vector phi;      // holonomic constraints, h
  Matrix Phiq;     // h×n
};

class PointEvaluator {
 public:
  PointEvaluator(const principles::Equations& eq, const std::vector<GiNaC::symbol>& inputs,
                 const model::Values& values)
      : n_(eq.dof()), m_(eq.constraint_count()), r_(inputs.size()) {
    const model::Model& model = *eq.model;
    sym::Differentiator d(model.time_functions);
    std::vector<GiNaC::symbol> wrt;
    for (std::size_t j = 0; j < n_; ++j) wrt.push_back(model.coordinate_symbol(j, 0));
    for (std::size_t j = 0; j < n_; ++j) wrt.push_back(model.coordinate_symbol(j, 1));
    wrt.insert(wrt.end(), inputs.begin(), inputs.end());

    const GiNaC::exvector entries = eq.entries();  // M, f, A, b
    GiNaC::exvector outputs = entries;
    for (const auto& x : wrt)
      for (const auto& e : entries) outputs.push_back(d.partial(e, x));
    GiNaC::exvector rates, phi;
    for (const auto& c : model.constraints) {
      if (c.kind == model::Constraint::Kind::Holonomic) {
        phi.push_back(c.expression);
        rates.push_back(d.time_derivative(c.expression));
      } else {
        rates.push_back(c.expression);
      }
    }
    h_ = phi.size();
    outputs.insert(outputs.end(), rates.begin(), rates.end());
    for (const auto& g : rates)
      for (std::size_t j = 0; j < n_; ++j) outputs.push_back(d.partial(g, wrt[j]));
    for (const auto& g : rates)
      for (std::size_t j = 0; j < n_; ++j) outputs.push_back(d.partial(g, wrt[n_ + j]));
    outputs.insert(outputs.end(), phi.begin(), phi.end());
    for (const auto& p : phi)
      for (std::size_t j = 0; j < n_; ++j) outputs.push_back(d.partial(p, wrt[j]));

    Layout layout = layout_of(model, outputs, values);
    tape_ = std::make_unique<Tape>(layout.entries, layout.variables);
    variables_.assign(1 + 2 * n_, 0.0);
    variables_.insert(variables_.end(), layout.fixed.begin(), layout.fixed.end());
    outputs_.assign(outputs.size(), 0.0);
  }

  std::size_t holonomic() const { return h_; }

  PointValues evaluate(double t, const Vector& q, const Vector& qd) const {
    variables_[0] = t;
    for (std::size_t j = 0; j < n_; ++j) {
      variables_[1 + j] = q[idx(j)];
      variables_[1 + n_ + j] = qd[idx(j)];
    }
    tape_->evaluate(variables_.data(), outputs_.data(), workspace_);
    std::size_t k = 0;
    auto read = [&](Index rows, Index cols) {
      Matrix out(rows, cols);
      for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j) out(i, j) = outputs_[k++];
      return out;
    };
    const Index n = idx(n_), m = idx(m_), h = idx(h_);
    PointValues p;
    auto read_entries = [&](Matrix& M, Vector& f, Matrix& A, Vector& b) {
      M = read(n, n);
      f = read(n, 1);
      A = read(m, n);
      b = read(m, 1);
    };
    read_entries(p.M, p.f, p.A, p.b);
    for (std::size_t x = 0; x < 2 * n_ + r_; ++x) {
      Matrix M, A;
      Vector f, b;
      read_entries(M, f, A, b);
      p.dM.push_back(std::move(M));
      p.df.push_back(std::move(f));
      p.dA.push_back(std::move(A));
      p.db.push_back(std::move(b));
    }
    p.g = read(m, 1);
    p.Gq = read(m, n);
    p.Gqd = read(m, n);
    p.phi = read(h, 1);
    p.Phiq = read(h, n);
    return p;
  }

 private:
  std::size_t n_, m_, r_, h_ = 0;
  std::unique_ptr<Tape> tape_;
  mutable std::vector<double> variables_, outputs_, workspace_;
};

std::vector<GiNaC::symbol> input_symbols(const model::Model& model,
                                         const std::vector<std::string>& names) {
  std::vector<GiNaC::symbol> symbols;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string& name = names[k];
    const bool known = std::any_of(model.inputs.begin(), model.inputs.end(),
                                   [&](const model::Input& i) { return i.name == name; });
    if (!known) {
      std::string list;
      for (const auto& i : model.inputs) list += (list.empty() ? "" : ", ") + i.name;
      throw model::ModelError(model::SourceLocation{"inputs", 0, 0},
                              "not an input of the model (its inputs: " +
                                  (list.empty() ? std::string("none") : list) + ")",
                              name);
    }
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(k), name) !=
        names.begin() + static_cast<std::ptrdiff_t>(k))
      throw model::ModelError(model::SourceLocation{"inputs", 0, 0}, "input named twice", name);
    symbols.push_back(model.time_functions->derivative(name, 0));
  }
  return symbols;
}

bool before(const std::complex<double>& a, const std::complex<double>& b) {
  const double ma = std::abs(a), mb = std::abs(b);
  if (ma != mb) return ma < mb;
  if (a.real() != b.real()) return a.real() < b.real();
  return a.imag() < b.imag();
}

// Moduli closer than this (relative) are one modulus to the order: an eigensolver gives a real
// pair ±a with |a| differing in the last digits, and which came first followed the rounding.
constexpr double kSameModulus = 1e-9;

// `values` by modulus, then real part, then imaginary part, moduli within kSameModulus of their
// neighbour's taken as equal (each run of such neighbours ordered by real, then imaginary part).
void order_eigenvalues(std::vector<std::complex<double>>& values) {
  std::sort(values.begin(), values.end(), before);
  const auto by_parts = [](const std::complex<double>& a, const std::complex<double>& b) {
    return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag();
  };
  for (std::size_t first = 0; first < values.size();) {
    std::size_t last = first;
    while (last + 1 < values.size() && std::abs(values[last + 1]) - std::abs(values[last]) <=
                                           kSameModulus * std::abs(values[last + 1]))
      ++last;
    std::sort(values.begin() + static_cast<std::ptrdiff_t>(first),
              values.begin() + static_cast<std::ptrdiff_t>(last + 1), by_parts);
    first = last + 1;
  }
}

// The eigenvalues of A with the zero ones found by deflation, exactly 0.
//
// A free coordinate (a joint without stiffness) gives A a Jordan block [0 1; 0 0], and a robot's
// stiffness at rest is often defective too: a general eigensolver computes a zero eigenvalue of
// a block of size k only to about (ε|A|)^(1/k), which for a 6-joint arm is ±1e-5 — a spurious
// instability. Deflation finds the zero eigenvalues by ranks instead (Kublanovskaya's staircase):
// the right singular vectors V₀ of the singular values below kRankTolerance·σ_max span null(A),
// and in the orthonormal basis [V₀ V₁] A becomes [0 X; 0 Y], so its eigenvalues are dim V₀ zeros
// and those of Y = V₁ᵀ A V₁, deflated again until Y is regular; Y's eigenvalues are computed by
// the general solver.
std::vector<std::complex<double>> eigenvalues_deflating_zero(const Matrix& A) {
  std::vector<std::complex<double>> values;
  const double scale = A.cwiseAbs().maxCoeff();
  Matrix Y = A;
  while (Y.rows() > 0 && scale > 0.0) {
    const Eigen::JacobiSVD<Matrix> svd(Y, Eigen::ComputeFullV);
    const auto& sigma = svd.singularValues();
    Index rank = 0;
    while (rank < sigma.size() && sigma[rank] > kRankTolerance * scale) ++rank;
    if (rank == Y.rows()) break;
    values.insert(values.end(), static_cast<std::size_t>(Y.rows() - rank), 0.0);
    const Matrix range = svd.matrixV().leftCols(rank);
    Y = range.transpose() * Y * range;
  }
  if (scale == 0.0) {
    values.assign(static_cast<std::size_t>(A.rows()), 0.0);
    return values;
  }
  if (Y.rows() > 0) {
    const Eigen::EigenSolver<Matrix> solver(Y, false);
    if (solver.info() != Eigen::Success)
      throw model::ComputationError("the eigenvalues of A did not converge");
    values.insert(values.end(), solver.eigenvalues().begin(), solver.eigenvalues().end());
  }
  return values;
}

// ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂u from the differentiated recursions (num::DynamicsDerivatives
// Evaluator: O(n) programs per direction, no symbolic partials of M and f) where they cover the
// model and it has no constraints; false where they do not, or an input is driven by an
// expression of t (then the symbolic partials below).
// `equations`: those given (their order decides), or null for the model's own.
bool recursive_jacobian(const std::shared_ptr<const model::Model>& model,
                        const principles::Equations* equations, const Vector& q, const Vector& qd,
                        const LinearizationOptions& options, Matrix& J, Matrix& Bfull) {
  // recursions_alone_do_not_cover names constraints too: the derivatives have no rows.
  const bool first_order = equations == nullptr || equations->order == 1;
  if (!options.use_recursions || !first_order ||
      !principles::recursions_alone_do_not_cover(*model).empty())
    return false;
  std::optional<DynamicsDerivativesEvaluator> derivatives;
  try {
    derivatives.emplace(model, options.values, options.inputs);
  } catch (const std::invalid_argument&) {
    return false;
  }
  DerivativesWorkspace work;
  ForwardDynamicsDerivatives forward;
  derivatives->forward(options.t, q, qd, Vector(), forward, work);
  const Index n = q.size();
  J.bottomLeftCorner(n, n) = forward.dqdd_dq;
  J.bottomRightCorner(n, n) = forward.dqdd_dqd;
  // Without inputs B has no columns: no block of it (Eigen would offset its null data).
  if (Bfull.cols() > 0) Bfull.bottomRows(n) = forward.dqdd_du;
  return true;
}

}  // namespace

namespace {

// linearize() of the given equations, or (`given` null) of the model's own: from the recursions
// where they cover it, else from its Gibbs–Appell equations formed here.
LinearModel linearize_model(const std::shared_ptr<const model::Model>& model_ptr,
                            const principles::Equations* given, const Eigen::VectorXd& q0,
                            const Eigen::VectorXd& qd0, const LinearizationOptions& options) {
  const model::Model& model = *model_ptr;
  const std::size_t n = model.dof();
  if (q0.size() != idx(n) || qd0.size() != idx(n))
    throw std::invalid_argument("linearize: expected " + std::to_string(n) +
                                " coordinates and speeds, got " + std::to_string(q0.size()) +
                                " and " + std::to_string(qd0.size()));
  const auto inputs = input_symbols(model, options.inputs);
  const std::size_t r = inputs.size();
  const Index N = idx(n);
  Matrix J = Matrix::Zero(2 * N, 2 * N), Bfull = Matrix::Zero(2 * N, idx(r));
  J.topRightCorner(N, N).setIdentity();
  // The recursions differentiated where they cover the model; else the partials of M and f.
  const bool recursive = recursive_jacobian(model_ptr, given, q0, qd0, options, J, Bfull);
  std::optional<principles::Equations> formed;
  if (!recursive && given == nullptr)
    formed = principles::derive(model_ptr, principles::Method::GibbsAppell);
  const principles::Equations* eq = given != nullptr ? given : (formed ? &*formed : nullptr);
  const std::size_t m = eq != nullptr ? eq->constraint_count() : 0;
  std::optional<PointEvaluator> evaluator;
  std::optional<CompiledEquations> compiled;
  const double t = options.t;

  LinearModel linear;
  linear.inputs = options.inputs;
  linear.q = q0;
  linear.qd = qd0;
  PointValues p;
  if (recursive) {
    p.Phiq = p.Gq = p.Gqd = Matrix(0, N);
    p.phi = p.g = Vector(0);
  } else {
    evaluator.emplace(*eq, inputs, options.values);
    compiled.emplace(*eq, options.values);
    p = evaluator->evaluate(t, linear.q, linear.qd);
  }

  // The independent coordinates and speeds, preferring the model's `independent:` ones, then the
  // coordinates in order (the dependent ones are taken from the end).
  std::vector<std::size_t> preference = model.independent;
  for (std::size_t j = 0; j < n; ++j)
    if (std::find(preference.begin(), preference.end(), j) == preference.end())
      preference.push_back(j);
  auto choose = [&] {
    linear.dependent_coordinates = choose_dependent(p.Phiq, preference);
    linear.independent_coordinates = complement(n, linear.dependent_coordinates);
    std::vector<std::size_t> speed_preference = model.independent;
    for (const auto& group : {linear.independent_coordinates, linear.dependent_coordinates})
      for (std::size_t j : group)
        if (std::find(speed_preference.begin(), speed_preference.end(), j) ==
            speed_preference.end())
          speed_preference.push_back(j);
    linear.dependent_speeds = choose_dependent(p.Gqd, speed_preference);
    linear.independent_speeds = complement(n, linear.dependent_speeds);
  };
  choose();

  // Complete an operating point off the constraints: the dependent coordinates by Newton's
  // method (independent ones held), then the dependent speeds (g is linear in q̇).
  if (m > 0 && (max_abs(p.phi) > kConsistent || max_abs(p.g) > kConsistent)) {
    linear.completed = true;
    const auto& D = linear.dependent_coordinates;
    for (int iteration = 0; iteration < 50 && max_abs(p.phi) > 1e-13; ++iteration) {
      const Vector step = solve_min_norm(columns(p.Phiq, D), p.phi);
      for (std::size_t k = 0; k < D.size(); ++k) linear.q[idx(D[k])] -= step[idx(k)];
      p = evaluator->evaluate(t, linear.q, linear.qd);
      if (!p.phi.allFinite()) break;
    }
    const auto& W = linear.dependent_speeds;
    for (int iteration = 0; iteration < 3 && max_abs(p.g) > 1e-13; ++iteration) {
      const Vector step = solve_min_norm(columns(p.Gqd, W), p.g);
      for (std::size_t k = 0; k < W.size(); ++k) linear.qd[idx(W[k])] -= step[idx(k)];
      p = evaluator->evaluate(t, linear.q, linear.qd);
    }
    if (!(max_abs(p.phi) <= kConsistent) || !(max_abs(p.g) <= kConsistent)) {
      std::ostringstream s;
      s << "the constraints cannot be satisfied from this operating point by the dependent "
           "coordinates and speeds (max |phi| = "
        << max_abs(p.phi) << ", max |g| = " << max_abs(p.g) << ")";
      throw model::ComputationError(s.str());
    }
    choose();
  }

  // q̈, λ at the point, then their derivatives along every variable (q, q̇, u).
  Vector qdd, lambda;
  if (!recursive) compiled->accelerations_and_multipliers(p.M, p.f, p.A, p.b, qdd, lambda);
  for (std::size_t x = 0; !recursive && x < 2 * n + r; ++x) {
    Vector rhs_f = p.df[x] - p.dM[x] * qdd;
    Vector rhs_b = p.db[x] - p.dA[x] * qdd;
    if (m > 0) rhs_f += p.dA[x].transpose() * lambda;
    if (!rhs_f.allFinite() || !rhs_b.allFinite())
      throw model::ComputationError(
          "the derivatives of the equations are not finite at this operating point");
    Vector dqdd, dlambda;
    compiled->accelerations_and_multipliers(p.M, rhs_f, p.A, rhs_b, dqdd, dlambda);
    if (x < 2 * n)
      J.block(N, idx(x), N, 1) = dqdd;
    else
      Bfull.block(N, idx(x - 2 * n), N, 1) = dqdd;
  }

  // T = ∂(q, q̇)/∂(q_I, q̇_U) along the constraints, S the rows of (q, q̇) that are the states.
  const auto &I = linear.independent_coordinates, &D = linear.dependent_coordinates;
  const auto &U = linear.independent_speeds, &W = linear.dependent_speeds;
  const Index nI = idx(I.size()), nU = idx(U.size());
  Matrix Pq = Matrix::Zero(N, nI), Pv = Matrix::Zero(N, nU), Y = Matrix::Zero(N, nI);
  for (Index k = 0; k < nI; ++k) Pq(idx(I[static_cast<std::size_t>(k)]), k) = 1.0;
  for (Index k = 0; k < nU; ++k) Pv(idx(U[static_cast<std::size_t>(k)]), k) = 1.0;
  if (!D.empty()) {
    const Matrix dependent = -solve_min_norm(columns(p.Phiq, D), columns(p.Phiq, I));
    for (std::size_t k = 0; k < D.size(); ++k) Pq.row(idx(D[k])) = dependent.row(idx(k));
  }
  if (!W.empty()) {
    const Matrix GW = columns(p.Gqd, W);
    const Matrix speeds = -solve_min_norm(GW, columns(p.Gqd, U));
    const Matrix along = -solve_min_norm(GW, p.Gq * Pq);
    for (std::size_t k = 0; k < W.size(); ++k) {
      Pv.row(idx(W[k])) = speeds.row(idx(k));
      Y.row(idx(W[k])) = along.row(idx(k));
    }
  }
  Matrix T = Matrix::Zero(2 * N, nI + nU);
  T.topLeftCorner(N, nI) = Pq;
  T.bottomLeftCorner(N, nI) = Y;
  T.bottomRightCorner(N, nU) = Pv;
  Matrix S = Matrix::Zero(nI + nU, 2 * N);
  for (Index k = 0; k < nI; ++k) S(k, idx(I[static_cast<std::size_t>(k)])) = 1.0;
  for (Index k = 0; k < nU; ++k) S(nI + k, N + idx(U[static_cast<std::size_t>(k)])) = 1.0;
  linear.A = S * J * T;
  linear.B = S * Bfull;

  for (std::size_t j : I) linear.states.push_back(model.coordinates[j].name);
  for (std::size_t j : U) linear.states.push_back("dot(" + model.coordinates[j].name + ")");

  if (linear.A.size() > 0) {
    std::vector<std::complex<double>> values = eigenvalues_deflating_zero(linear.A);
    order_eigenvalues(values);
    linear.eigenvalues.resize(idx(values.size()));
    for (std::size_t k = 0; k < values.size(); ++k) linear.eigenvalues[idx(k)] = values[k];
  }
  return linear;
}

}  // namespace

LinearModel linearize(const principles::Equations& equations, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd, const LinearizationOptions& options) {
  return linearize_model(equations.model, &equations, q, qd, options);
}

LinearModel linearize(std::shared_ptr<const model::Model> model, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd, const LinearizationOptions& options) {
  return linearize_model(model, nullptr, q, qd, options);
}

std::vector<Mode> modes(const LinearModel& linear) {
  // Zero eigenvalues come out exactly 0 (eigenvalues_deflating_zero); a nonzero eigenvalue near
  // a multiple one is still computed only to about √ε |A|: real parts that small are rounding,
  // not growth.
  const double zero = linear.A.size() == 0 ? 0.0 : kModeTolerance * linear.A.cwiseAbs().maxCoeff();
  std::vector<Mode> out;
  for (Index k = 0; k < linear.eigenvalues.size(); ++k) {
    Mode mode;
    mode.eigenvalue = linear.eigenvalues[k];
    mode.natural_frequency = std::abs(mode.eigenvalue);
    const double real = std::abs(mode.eigenvalue.real()) <= zero ? 0.0 : mode.eigenvalue.real();
    mode.damping_ratio = mode.natural_frequency == 0.0
                             ? std::numeric_limits<double>::quiet_NaN()
                             : (real == 0.0 ? 0.0 : -real / mode.natural_frequency);
    mode.unstable = real > 0.0;
    out.push_back(mode);
  }
  return out;
}

Eigen::MatrixXd without_rounding_noise(const Eigen::MatrixXd& m) {
  if (m.size() == 0) return m;
  const double noise = kRoundingNoise * m.cwiseAbs().maxCoeff();
  return m.unaryExpr([noise](double v) { return std::abs(v) < noise ? 0.0 : v; });
}

std::complex<double> without_rounding_noise(std::complex<double> s) {
  const double noise = kRoundingNoise * std::abs(s);
  return {std::abs(s.real()) < noise ? 0.0 : s.real(), std::abs(s.imag()) < noise ? 0.0 : s.imag()};
}

std::vector<EigenvalueGroup> eigenvalue_groups(const LinearModel& linear) {
  const std::size_t n = static_cast<std::size_t>(linear.eigenvalues.size());
  std::vector<std::complex<double>> values(n);
  for (std::size_t k = 0; k < n; ++k)
    values[k] = without_rounding_noise(linear.eigenvalues[idx(k)]);
  const auto conjugates = [](std::complex<double> a, std::complex<double> b) {
    return std::abs(a - std::conj(b)) <= kRoundingNoise * std::abs(a);
  };
  std::vector<bool> taken(n, false);
  std::vector<EigenvalueGroup> groups;
  for (std::size_t k = 0; k < n; ++k) {
    if (taken[k]) continue;
    taken[k] = true;
    EigenvalueGroup group;
    group.first = k;
    group.value = values[k];
    if (values[k].imag() != 0.0) {
      // Its conjugate: the sort by modulus, then real part puts it among the next few.
      for (std::size_t i = k + 1; i < n && !group.conjugate_pair; ++i)
        if (!taken[i] && conjugates(values[k], values[i])) {
          taken[i] = true;
          group.conjugate_pair = true;
        }
      group.value = {values[k].real(), std::abs(values[k].imag())};
    }
    // The same value (pair) again, as the zero eigenvalues of free coordinates are.
    if (!groups.empty() && groups.back().value == group.value &&
        groups.back().conjugate_pair == group.conjugate_pair) {
      ++groups.back().count;
      continue;
    }
    groups.push_back(group);
  }
  return groups;
}

}  // namespace appell::num
