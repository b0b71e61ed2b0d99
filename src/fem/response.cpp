#include "appell/fem/response.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "appell/fem/moving_frame.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/interruption.hpp"
#include "sparse_solvers.hpp"

namespace appell::fem {

namespace {

bool same_state(const FrameState& a, const FrameState& b) {
  auto close = [](const Eigen::Vector3d& x, const Eigen::Vector3d& y) {
    return (x - y).norm() <= 1e-12 * (1.0 + x.norm());
  };
  // k_G follows the pre-stress, which also depends on a_O.
  return close(a.omega, b.omega) && close(a.epsilon, b.epsilon) &&
         close(a.origin_acceleration, b.origin_acceleration);
}

Eigen::VectorXd gather(const std::vector<int>& dofs, const Eigen::VectorXd& full) {
  Eigen::VectorXd part(Eigen::Index(dofs.size()));
  for (std::size_t i = 0; i < dofs.size(); ++i) part(Eigen::Index(i)) = full(dofs[i]);
  return part;
}

}  // namespace

int farthest_node(const Mesh& mesh) {
  if (mesh.nodes.empty()) throw std::invalid_argument("a mesh without nodes");
  int farthest = 0;
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n)
    if (mesh.nodes[n].norm() > mesh.nodes[std::size_t(farthest)].norm() + 1e-12) farthest = int(n);
  return farthest;
}

std::vector<int> response_nodes(const Mesh& mesh, const std::vector<double>& listed) {
  if (listed.empty()) return {farthest_node(mesh)};
  std::vector<int> nodes;
  for (double value : listed) {
    if (value != std::floor(value) || value < 0 || value >= double(mesh.nodes.size()))
      throw model::ModelError(
          model::SourceLocation{"nodes", 0, 0},
          "node index out of range: the mesh has " + std::to_string(mesh.nodes.size()) + " nodes",
          std::to_string(value));
    nodes.push_back(int(value));
  }
  return nodes;
}

ResponseResult elastic_response(const FlexibleBodyInstance& body, const FrameMotion& motion,
                                const ResponseOptions& options,
                                const std::function<void(const ResponseStep&)>& on_step) {
  if (!(options.step > 0) || !(options.t_end > 0))
    throw model::ComputationError("the response needs a positive step and end time");
  ResponseResult result;
  std::unique_ptr<CentrifugalPrestress> prestress;
  if (options.stiffening && body.has_supports()) {
    prestress = std::make_unique<CentrifugalPrestress>(body);
    result.stiffened = true;
  }
  const auto start = std::chrono::steady_clock::now();
  const double beta = 0.25, gamma = 0.5, h = options.step;
  const Eigen::Index n = Eigen::Index(body.assembled.dof_count());
  const SparseMatrix mf = free_block(body, body.assembled.mass);
  const SparseMatrix mp = free_prescribed_block(body, body.assembled.mass);
  const bool prescribed = !body.prescribed_dofs.empty();

  // Free-dof state; the full vectors carry the prescribed values too.
  Eigen::VectorXd u = Eigen::VectorXd::Zero(n), v = u, a = u;
  Eigen::VectorXd uf = Eigen::VectorXd::Zero(Eigen::Index(body.free_dofs.size())), vf = uf, af = uf;

  // The matrices are formed only when the frame's state changed (`refresh`); the force always.
  auto effective_force = [&](double t, const FrameState& frame, bool refresh, InstantMatrices& m,
                             BodyLoads& loads) {
    if (refresh)
      m = instant_matrices(body, frame, t, prestress.get());
    else
      m.force = instant_force(body, frame, t);
    loads = body.loads_at(t);
    Eigen::VectorXd force = gather(body.free_dofs, m.force);
    if (prescribed) {
      const Eigen::VectorXd up = gather(body.prescribed_dofs, loads.displacement);
      const Eigen::VectorXd vp = gather(body.prescribed_dofs, loads.velocity);
      const Eigen::VectorXd ap = gather(body.prescribed_dofs, loads.acceleration);
      force -= free_prescribed_block(body, m.stiffness) * up +
               free_prescribed_block(body, m.damping) * vp + mp * ap;
    }
    return force;
  };
  double delivered = 0.0;  // the time of the last step handed to on_step
  auto scatter = [&](double t, const BodyLoads& loads) {
    for (std::size_t i = 0; i < body.free_dofs.size(); ++i) {
      u(body.free_dofs[i]) = uf(Eigen::Index(i));
      v(body.free_dofs[i]) = vf(Eigen::Index(i));
      a(body.free_dofs[i]) = af(Eigen::Index(i));
    }
    for (int dof : body.prescribed_dofs) {
      u(dof) = loads.displacement(dof);
      v(dof) = loads.velocity(dof);
      a(dof) = loads.acceleration(dof);
    }
    delivered = t;
    on_step(ResponseStep{t, u, v, a});
  };

  // Initial acceleration from the equations at rest in the frame (u = v = 0).
  InstantMatrices m;
  BodyLoads loads;
  FrameState frame = motion.at(0.0);
  {
    const Eigen::VectorXd force = effective_force(0.0, frame, true, m, loads);
    Cholesky mass_factor;
    mass_factor.compute(mf);
    if (mass_factor.info() != Eigen::Success)
      throw model::ComputationError("the mass matrix of " + body.spec->name +
                                    " is singular on its free dofs");
    af = mass_factor.solve(force);
  }
  scatter(0.0, loads);

  // A frame that does not turn leaves the effective matrix symmetric positive definite
  // (Cholesky); a turning one adds the skew c and k(ε) (LU, with UMFPACK's symmetric strategy:
  // the pattern is symmetric, so AMD on A + Aᵀ orders it far better than COLAMD).
  SparseLu lu;
  lu.umfpackControl()(UMFPACK_STRATEGY) = UMFPACK_STRATEGY_SYMMETRIC;
  Cholesky cholesky;
  bool use_cholesky = false;
  bool analysed = false;
  FrameState factored;
  double factored_step = h;
  // UMFPACK's solve reads the factorized matrix again (iterative refinement): keep it alive.
  SparseMatrix cf, kf, effective;
  const long steps = std::lround(std::ceil(options.t_end / h - 1e-9));
  for (long step = 1; step <= steps; ++step) {
    if (const int signal = num::interruption_signal(); signal != 0)
      throw num::Interrupted(signal, num::interrupted_at(delivered));
    const double t = std::min(options.t_end, double(step) * h);
    const double dt = t - double(step - 1) * h;
    frame = motion.at(t);
    const bool changed =
        !analysed || !same_state(frame, factored) || std::abs(dt - factored_step) > 1e-9 * h;
    const Eigen::VectorXd force = effective_force(t, frame, changed, m, loads);
    if (changed) {
      cf = free_block(body, m.damping);
      kf = free_block(body, m.stiffness);
      effective = kf + (gamma / (beta * dt)) * cf + (1.0 / (beta * dt * dt)) * mf;
      const bool symmetric = frame.omega.squaredNorm() == 0 && frame.epsilon.squaredNorm() == 0;
      if (!analysed || symmetric != use_cholesky) {
        use_cholesky = symmetric;
        if (use_cholesky)
          cholesky.analyzePattern(effective);
        else
          lu.analyzePattern(effective);
        analysed = true;
      }
      bool factorized = false;
      if (use_cholesky) {
        cholesky.factorize(effective);
        factorized = cholesky.info() == Eigen::Success;
      } else {
        lu.factorize(effective);
        factorized = lu.info() == Eigen::Success;
      }
      if (!factorized)
        throw model::ComputationError(
            "the effective matrix of the Newmark step is singular at t = " + std::to_string(t));
      factored = frame;
      factored_step = dt;
      ++result.factorizations;
    }
    const Eigen::VectorXd rhs =
        force + mf * (uf / (beta * dt * dt) + vf / (beta * dt) + (0.5 / beta - 1.0) * af) +
        cf * ((gamma / (beta * dt)) * uf + (gamma / beta - 1.0) * vf +
              dt * (0.5 * gamma / beta - 1.0) * af);
    const Eigen::VectorXd un =
        use_cholesky ? Eigen::VectorXd(cholesky.solve(rhs)) : Eigen::VectorXd(lu.solve(rhs));
    const Eigen::VectorXd an =
        (un - uf) / (beta * dt * dt) - vf / (beta * dt) - (0.5 / beta - 1.0) * af;
    vf += dt * ((1.0 - gamma) * af + gamma * an);
    af = an;
    uf = un;
    if (!uf.allFinite())
      throw model::ComputationError("the elastic response diverged at t = " + std::to_string(t));
    ++result.steps;
    scatter(t, loads);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace appell::fem
