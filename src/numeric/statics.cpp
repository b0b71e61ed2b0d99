#include "appell/numeric/statics.hpp"

#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <random>
#include <sstream>

#include "appell/kinematics/kinematics.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::num {

namespace {

// The residual R(z) of the unknowns z = (q, λ) and its Jacobian ∂R/∂z compiled once: variables
// are z, then t and the parameters and other symbols. Without constraints R = Q and z = q.
class CompiledStatics {
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

  void evaluate(const double* q) {
    for (std::size_t j = 0; j < n_; ++j) values_[j] = q[j];
    tape_->evaluate(values_.data(), outputs_.data(), workspace_);
  }
  double force(std::size_t j) const { return outputs_[j]; }
  double jacobian(std::size_t j, std::size_t k) const { return outputs_[n_ + j * n_ + k]; }
  std::size_t dof() const { return n_; }

 private:
  std::size_t n_;
  std::unique_ptr<Tape> tape_;
  std::vector<double> values_, outputs_, workspace_;
};

// RAII owners of the KINSOL objects, so that no early return leaks them.
struct SundialsContext {
  SUNContext ctx = nullptr;
  SundialsContext() { SUNContext_Create(nullptr, &ctx); }
  ~SundialsContext() { SUNContext_Free(&ctx); }
};
struct Vector {
  N_Vector v;
  Vector(std::size_t n, SUNContext ctx) : v(N_VNew_Serial(static_cast<sunindextype>(n), ctx)) {}
  ~Vector() { N_VDestroy(v); }
};
struct KinsolSolver {
  void* mem;
  SUNMatrix jacobian;
  SUNLinearSolver linear;
  KinsolSolver(std::size_t n, N_Vector y, SUNContext ctx)
      : mem(KINCreate(ctx)),
        jacobian(SUNDenseMatrix(static_cast<sunindextype>(n), static_cast<sunindextype>(n), ctx)),
        linear(SUNLinSol_Dense(y, jacobian, ctx)) {}
  ~KinsolSolver() {
    KINFree(&mem);
    SUNLinSolFree(linear);
    SUNMatDestroy(jacobian);
  }
};

int residual_fn(N_Vector u, N_Vector fval, void* data) {
  auto* s = static_cast<CompiledStatics*>(data);
  s->evaluate(N_VGetArrayPointer(u));
  double* f = N_VGetArrayPointer(fval);
  for (std::size_t j = 0; j < s->dof(); ++j) {
    f[j] = s->force(j);
    if (!std::isfinite(f[j])) return 1;  // recoverable: the line search steps back
  }
  return 0;
}

int jacobian_fn(N_Vector u, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector) {
  auto* s = static_cast<CompiledStatics*>(data);
  s->evaluate(N_VGetArrayPointer(u));
  for (std::size_t j = 0; j < s->dof(); ++j)
    for (std::size_t k = 0; k < s->dof(); ++k)
      SM_ELEMENT_D(J, static_cast<sunindextype>(j), static_cast<sunindextype>(k)) =
          s->jacobian(j, k);
  return 0;
}

// Newton with line search from `start`; the point reached (converged or not).
Eigen::VectorXd newton(CompiledStatics& s, const Eigen::VectorXd& start, double tolerance) {
  SundialsContext ctx;
  const std::size_t n = s.dof();
  Vector u(n, ctx.ctx), scale(n, ctx.ctx);
  for (std::size_t j = 0; j < n; ++j)
    NV_Ith_S(u.v, static_cast<sunindextype>(j)) = start[static_cast<Eigen::Index>(j)];
  N_VConst(1.0, scale.v);
  KinsolSolver solver(n, u.v, ctx.ctx);
  KINInit(solver.mem, residual_fn, u.v);
  KINSetUserData(solver.mem, &s);
  KINSetLinearSolver(solver.mem, solver.linear, solver.jacobian);
  KINSetJacFn(solver.mem, jacobian_fn);
  KINSetFuncNormTol(solver.mem, tolerance);
  KINSetNumMaxIters(solver.mem, 200);
  KINSetMaxSetupCalls(solver.mem, 1);  // exact Newton: a fresh Jacobian every iteration
  KINSetErrHandlerFn(
      solver.mem, [](int, const char*, const char*, char*, void*) {}, nullptr);
  KINSol(solver.mem, u.v, KIN_LINESEARCH, scale.v, scale.v);
  Eigen::VectorXd q(static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j)
    q[static_cast<Eigen::Index>(j)] = NV_Ith_S(u.v, static_cast<sunindextype>(j));
  return q;
}

}  // namespace

StaticsResult solve_statics(std::shared_ptr<const model::Model> model,
                            const StaticsOptions& options) {
  const model::Model& m = *model;
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  StaticsResult result;
  // At rest: every velocity (and acceleration) zero, so dampers and rate terms drop out.
  GiNaC::exmap rest;
  for (std::size_t j = 0; j < m.dof(); ++j) {
    rest[m.coordinate_symbol(j, 1)] = 0;
    rest[m.coordinate_symbol(j, 2)] = 0;
  }
  result.generalized_forces = sym::substitute(principles::generalized_forces(kin), rest);

  // Unknowns q, then one multiplier per holonomic constraint; residuals Q + Φ_qᵀλ, then φ.
  const std::size_t n = m.dof();
  std::vector<GiNaC::symbol> unknowns;
  for (std::size_t j = 0; j < n; ++j) unknowns.push_back(m.coordinate_symbol(j));
  GiNaC::exvector residuals;
  for (std::size_t j = 0; j < n; ++j) residuals.push_back(result.generalized_forces(j, 0));
  for (const auto& c : m.constraints) {
    if (c.kind != model::Constraint::Kind::Holonomic) continue;
    const GiNaC::symbol lambda("lambda_" + c.name);
    unknowns.push_back(lambda);
    for (std::size_t j = 0; j < n; ++j)
      residuals[j] += lambda * d.partial(c.expression, m.coordinate_symbol(j));
    residuals.push_back(c.expression);
  }
  const std::size_t size = unknowns.size();
  const auto N = static_cast<Eigen::Index>(size), nq = static_cast<Eigen::Index>(n);

  CompiledStatics compiled(m, residuals, unknowns, d, options);
  std::vector<Eigen::VectorXd> starts;
  auto with_multipliers = [&](const Eigen::VectorXd& q) {
    Eigen::VectorXd z = Eigen::VectorXd::Zero(N);
    z.head(nq) = q;
    return z;
  };
  Eigen::VectorXd initial(nq);
  for (Eigen::Index j = 0; j < nq; ++j)
    initial[j] = m.coordinates[static_cast<std::size_t>(j)].initial;
  starts.push_back(with_multipliers(initial));
  for (const auto& g : options.guesses) starts.push_back(with_multipliers(g));
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  for (int k = 0; k < options.random_starts; ++k) {
    Eigen::VectorXd s(nq);
    for (Eigen::Index j = 0; j < nq; ++j) s[j] = angle(rng);
    starts.push_back(with_multipliers(s));
  }

  // Angle-like coordinates: Q (and φ) are 2π-periodic in them (checked at the initial values and
  // at a second point), so equilibria a turn apart are one equilibrium, reported in [−π, π).
  std::vector<bool> periodic(n, false);
  auto residual_at = [&](const Eigen::VectorXd& q) {
    const Eigen::VectorXd z = with_multipliers(q);
    compiled.evaluate(z.data());
    Eigen::VectorXd f(N);
    for (Eigen::Index j = 0; j < N; ++j) f[j] = compiled.force(static_cast<std::size_t>(j));
    return f;
  };
  for (Eigen::Index j = 0; j < nq; ++j) {
    bool same = true;
    for (const Eigen::VectorXd& base : {initial, Eigen::VectorXd(initial.array() + 0.7311)}) {
      Eigen::VectorXd turned = base;
      turned[j] += 2 * M_PI;
      const Eigen::VectorXd a = residual_at(base), b = residual_at(turned);
      same = same && (a - b).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, a.cwiseAbs().maxCoeff());
    }
    periodic[static_cast<std::size_t>(j)] = same;
  }

  result.best_residual = std::numeric_limits<double>::infinity();
  for (const auto& start : starts) {
    Eigen::VectorXd z = newton(compiled, start, options.tolerance);
    for (Eigen::Index j = 0; j < nq; ++j)
      if (periodic[static_cast<std::size_t>(j)])
        z[j] -= 2 * M_PI * std::floor((z[j] + M_PI) / (2 * M_PI) + 1e-12);
    compiled.evaluate(z.data());
    Eigen::VectorXd forces(N);
    Eigen::MatrixXd jacobian(N, N);
    for (Eigen::Index j = 0; j < N; ++j) {
      forces[j] = compiled.force(static_cast<std::size_t>(j));
      for (Eigen::Index k = 0; k < N; ++k)
        jacobian(j, k) =
            compiled.jacobian(static_cast<std::size_t>(j), static_cast<std::size_t>(k));
    }
    const double residual = forces.cwiseAbs().maxCoeff();
    if (std::isfinite(residual)) result.best_residual = std::min(result.best_residual, residual);
    if (!(residual <= options.tolerance)) continue;
    const Eigen::VectorXd q = z.head(nq);
    auto distance = [&](const Eigen::VectorXd& a) {
      double worst = 0;
      for (Eigen::Index j = 0; j < nq; ++j) {
        double d = std::abs(a[j] - q[j]);
        if (periodic[static_cast<std::size_t>(j)]) d = std::min(d, std::abs(2 * M_PI - d));
        worst = std::max(worst, d);
      }
      return worst;
    };
    bool seen = false;
    for (const auto& e : result.equilibria) seen = seen || distance(e.q) < 1e-6;
    if (seen) continue;
    Equilibrium e;
    e.q = q;
    e.lambda = z.tail(N - nq);
    e.residual = residual;
    const Eigen::MatrixXd stiffness = -jacobian.topLeftCorner(nq, nq);
    Eigen::MatrixXd symmetric = (stiffness + stiffness.transpose()) / 2;
    if (N > nq) {
      // The motions the constraints allow: an orthonormal basis of the null space of Φ_q.
      const Eigen::MatrixXd phi_q = jacobian.bottomLeftCorner(N - nq, nq);
      Eigen::FullPivLU<Eigen::MatrixXd> lu(phi_q);
      const Eigen::MatrixXd kernel =
          lu.dimensionOfKernel() > 0 ? Eigen::MatrixXd(lu.kernel()) : Eigen::MatrixXd(nq, 0);
      Eigen::MatrixXd basis = kernel;
      if (kernel.cols() > 0)
        basis = Eigen::HouseholderQR<Eigen::MatrixXd>(kernel).householderQ() *
                Eigen::MatrixXd::Identity(nq, kernel.cols());
      symmetric = basis.transpose() * symmetric * basis;
    }
    e.stiffness_eigenvalues =
        symmetric.size() > 0
            ? Eigen::VectorXd(
                  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues())
            : Eigen::VectorXd();
    // No freedom left (as many independent constraints as coordinates): nothing can move.
    e.stable = symmetric.size() == 0 || e.stiffness_eigenvalues.minCoeff() >
                                            1e-9 * std::max(1.0, stiffness.cwiseAbs().maxCoeff());
    result.equilibria.push_back(std::move(e));
  }
  if (result.equilibria.empty()) {
    std::ostringstream s;
    s << "no equilibrium found from " << starts.size()
      << " starting points; smallest max |Q_j| reached: " << result.best_residual;
    if (N > nq) s << " (constraints included)";
    throw model::ComputationError(s.str());
  }
  return result;
}

}  // namespace appell::num
