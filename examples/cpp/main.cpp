// A double pendulum of two homogeneous rods, built in code (no model file), with the installed
// appell library: its equations of motion by Lagrange II and by Gibbs–Appell, checked against each
// other, evaluated at one state and simulated for five seconds.
//
// Exits with 0 when the two principles give the same equations and the total energy stays
// constant along the simulated motion, 1 otherwise (or when appell throws).
#include <ginac/ginac.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>

// The whole public API: appell::model (ModelBuilder), appell::principles (derive),
// appell::num (compare, CompiledEquations, simulate) ...
#include "appell/appell.hpp"

namespace {

namespace model = appell::model;
namespace num = appell::num;
namespace principles = appell::principles;

// Two rods of masses m1, m2 and lengths l1, l2 joined by revolute joints about z: q1 is the first
// rod's angle from the world's x axis, q2 the second's relative to the first. Gravity along -y.
std::shared_ptr<const model::Model> double_pendulum() {
  model::ModelBuilder b("double_pendulum");
  b.description("two homogeneous rods joined by revolute joints, under gravity");

  // Parameters and coordinates return their GiNaC symbols: expressions can be GiNaC
  // expressions over them, or text in the model language ("l1/2").
  const GiNaC::symbol m1 = b.parameter("m1", 1.0);
  const GiNaC::symbol m2 = b.parameter("m2", 0.5);
  const GiNaC::symbol l1 = b.parameter("l1", 1.0);
  const GiNaC::symbol l2 = b.parameter("l2", 0.8);
  const GiNaC::symbol g = b.parameter("g", 9.81);
  const GiNaC::symbol q1 = b.coordinate("q1", -1.0, 0.0);  // initial value and rate
  const GiNaC::symbol q2 = b.coordinate("q2", 0.5, 0.0);

  b.frame("link1", {.rotation = model::Rotation::z(q1)});
  b.frame("link2",
          {.parent = "link1", .translation = {l1, 0, 0}, .rotation = model::Rotation::z(q2)});
  b.body("rod1", {.frame = "link1",
                  .mass = m1,
                  .com = {l1 / 2, 0, 0},
                  .inertia = model::Inertia::rod(l1, "x")});
  b.body("rod2", {.frame = "link2",
                  .mass = m2,
                  .com = {"l2/2", 0, 0},
                  .inertia = model::Inertia::rod(l2, "x")});
  b.gravity({0, -g, 0});
  return b.build();
}

}  // namespace

int main() try {
  const auto model = double_pendulum();

  // 1. The equations of motion M(q) q̈ = f(q, q̇) by two principles.
  const principles::Equations lagrange = principles::derive(model, principles::Method::Lagrange);
  const principles::Equations gibbs_appell =
      principles::derive(model, principles::Method::GibbsAppell);
  const principles::Equations readable = principles::simplify(gibbs_appell);
  std::cout << "Gibbs-Appell, simplified:\n  M = " << readable.mass_matrix
            << "\n  f = " << readable.forcing << "\n";

  // 2. Are they the same equations? Symbolically, and at 20 random states.
  const num::Agreement agreement = num::compare(lagrange, gibbs_appell);
  std::printf("Lagrange II vs Gibbs-Appell: symbolic %s, max numeric error %.3g over %zu states\n",
              agreement.symbolic ? "equal" : "DIFFERENT", agreement.max_numeric_error,
              agreement.states);
  bool ok = agreement.symbolic && agreement.max_numeric_error < 1e-9;
  if (!ok) std::printf("  first difference: %s\n", agreement.first_difference.c_str());

  // 3. M, f and q̈ at one state, from the compiled equations.
  const num::CompiledEquations compiled(gibbs_appell);
  Eigen::VectorXd q(2), qd(2);
  q << 0.3, -0.5;
  qd << 1.0, 0.0;
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  compiled.evaluate(0.0, q, qd, M, f);
  const Eigen::VectorXd qdd = compiled.accelerations(M, f);
  std::printf("at q = (0.3, -0.5), qd = (1, 0):\n");
  std::printf("  M = [[%.6f, %.6f], [%.6f, %.6f]]\n", M(0, 0), M(0, 1), M(1, 0), M(1, 1));
  std::printf("  f = [%.6f, %.6f]\n  qdd = [%.6f, %.6f]\n", f(0), f(1), qdd(0), qdd(1));

  // 4. Five seconds of motion from the model's initial state; E = T + V must stay constant.
  num::SimulationOptions options;
  options.t_end = 5.0;
  options.output_step = 1.0;
  options.rtol = 1e-10;
  options.atol = 1e-10;
  std::printf("%6s %12s %12s %14s\n", "t", "q1", "q2", "E");
  const num::SimulationResult result =
      num::simulate(gibbs_appell, options, [](const num::SimulationRow& row) {
        std::printf("%6.2f %12.6f %12.6f %14.9f\n", row.t, row.q(0), row.q(1), row.total);
      });
  const double tolerance = 1e-6 * std::max(1.0, std::abs(result.initial_energy));
  std::printf("%ld steps, energy drift %.3g (allowed %.3g)\n", result.steps, result.energy_drift,
              tolerance);
  if (!result.conservative || result.energy_drift > tolerance) {
    std::printf("the energy is not conserved%s%s\n", result.conservative ? "" : ": ",
                result.not_conservative_because.c_str());
    ok = false;
  }

  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "double_pendulum: %s\n", e.what());
  return 1;
}
