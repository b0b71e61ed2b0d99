#include "appell/numeric/statics.hpp"

#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <random>
#include <sstream>

#include "appell/kinematics/kinematics.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::num {

namespace {

// Q(q) and ∂Q/∂q compiled once: variables are q, then t and the parameters and other symbols.
class CompiledStatics {
 public:
  CompiledStatics(const model::Model& m, const GiNaC::matrix& q_forces, sym::Differentiator& d,
                  const StaticsOptions& o)
      : n_(m.dof()) {
    GiNaC::exvector outputs;
    for (std::size_t j = 0; j < n_; ++j) outputs.push_back(q_forces(j, 0));
    for (std::size_t j = 0; j < n_; ++j)
      for (std::size_t k = 0; k < n_; ++k)
        outputs.push_back(d.partial(q_forces(j, 0), m.coordinate_symbol(k)));

    std::vector<GiNaC::symbol> variables;
    for (std::size_t j = 0; j < n_; ++j) variables.push_back(m.coordinate_symbol(j));
    variables.push_back(m.time_functions->time());
    values_.assign(n_, 0.0);
    values_.push_back(o.t);
    std::map<std::string, double> parameter_overrides, others = o.values;
    for (const auto& p : m.parameters) {
      if (auto it = others.find(p.name); it != others.end()) {
        parameter_overrides[p.name] = it->second;
        others.erase(it);
      }
    }
    const auto parameters = m.parameter_values(parameter_overrides);
    for (const auto& p : m.parameters) {
      variables.push_back(p.symbol);
      values_.push_back(parameters.at(p.name));
    }
    // Inputs and unspecified prescribed functions (with their derivatives) that remain.
    for (const auto& name : m.inputs) add_function(m, name.name, others, variables);
    for (const auto& p : m.prescribed)
      if (!p.expression) add_function(m, p.name, others, variables);
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
  void add_function(const model::Model& m, const std::string& name,
                    std::map<std::string, double>& given, std::vector<GiNaC::symbol>& variables) {
    for (int order = 0; order <= 3; ++order) {
      auto s = m.time_functions->find_derivative(name, order);
      if (!s) continue;
      variables.push_back(*s);
      auto it = given.find(s->get_name());
      values_.push_back(it == given.end() ? 0.0 : it->second);
    }
  }

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

  CompiledStatics compiled(m, result.generalized_forces, d, options);
  const auto n = static_cast<Eigen::Index>(m.dof());
  std::vector<Eigen::VectorXd> starts;
  Eigen::VectorXd initial(n);
  for (Eigen::Index j = 0; j < n; ++j)
    initial[j] = m.coordinates[static_cast<std::size_t>(j)].initial;
  starts.push_back(initial);
  for (const auto& g : options.guesses) starts.push_back(g);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  for (int k = 0; k < options.random_starts; ++k) {
    Eigen::VectorXd s(n);
    for (Eigen::Index j = 0; j < n; ++j) s[j] = angle(rng);
    starts.push_back(s);
  }

  // Angle-like coordinates: Q is 2π-periodic in them (checked at the initial values and at a
  // second point), so equilibria a turn apart are one equilibrium, reported in [−π, π).
  std::vector<bool> periodic(static_cast<std::size_t>(n), false);
  auto forces_at = [&](const Eigen::VectorXd& q) {
    compiled.evaluate(q.data());
    Eigen::VectorXd f(n);
    for (Eigen::Index j = 0; j < n; ++j) f[j] = compiled.force(static_cast<std::size_t>(j));
    return f;
  };
  for (Eigen::Index j = 0; j < n; ++j) {
    bool same = true;
    for (const Eigen::VectorXd& base : {initial, Eigen::VectorXd(initial.array() + 0.7311)}) {
      Eigen::VectorXd turned = base;
      turned[j] += 2 * M_PI;
      const Eigen::VectorXd a = forces_at(base), b = forces_at(turned);
      same = same && (a - b).cwiseAbs().maxCoeff() <= 1e-9 * std::max(1.0, a.cwiseAbs().maxCoeff());
    }
    periodic[static_cast<std::size_t>(j)] = same;
  }

  result.best_residual = std::numeric_limits<double>::infinity();
  for (const auto& start : starts) {
    Eigen::VectorXd q = newton(compiled, start, options.tolerance);
    for (Eigen::Index j = 0; j < n; ++j)
      if (periodic[static_cast<std::size_t>(j)])
        q[j] -= 2 * M_PI * std::floor((q[j] + M_PI) / (2 * M_PI) + 1e-12);
    compiled.evaluate(q.data());
    Eigen::VectorXd forces(n);
    Eigen::MatrixXd stiffness(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      forces[j] = compiled.force(static_cast<std::size_t>(j));
      for (Eigen::Index k = 0; k < n; ++k)
        stiffness(j, k) =
            -compiled.jacobian(static_cast<std::size_t>(j), static_cast<std::size_t>(k));
    }
    const double residual = forces.cwiseAbs().maxCoeff();
    if (std::isfinite(residual)) result.best_residual = std::min(result.best_residual, residual);
    if (!(residual <= options.tolerance)) continue;
    auto distance = [&](const Eigen::VectorXd& a) {
      double worst = 0;
      for (Eigen::Index j = 0; j < n; ++j) {
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
    e.residual = residual;
    const Eigen::MatrixXd symmetric = (stiffness + stiffness.transpose()) / 2;
    e.stiffness_eigenvalues =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues();
    e.stable =
        e.stiffness_eigenvalues.minCoeff() > 1e-9 * std::max(1.0, symmetric.cwiseAbs().maxCoeff());
    result.equilibria.push_back(std::move(e));
  }
  if (result.equilibria.empty()) {
    std::ostringstream s;
    s << "no equilibrium found from " << starts.size()
      << " starting points; smallest max |Q_j| reached: " << result.best_residual;
    throw model::ComputationError(s.str());
  }
  return result;
}

}  // namespace appell::num
