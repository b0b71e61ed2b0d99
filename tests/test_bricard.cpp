// Bricard's mechanism (IFToMM multibody benchmark A04, examples/bricard.yaml): five rods, six
// hinges, one degree of freedom, the loop closed at hinge E by five constraints of rank four.
// Simulated for the benchmark's 10 s from rest, the loop must stay closed (checked by forward
// kinematics written here, not by the model's own constraint expressions), the energy must stay
// at its initial value, and the motion must be that of an independent model of the same
// mechanism: the loop cut at another hinge (C), other coordinates, and four independent closure
// constraints instead of five redundant ones.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;

const std::string kBricard = std::string(APPELL_EXAMPLES_DIR) + "/bricard.yaml";
constexpr double kL = 1.0;  // the rods' length in the benchmark and in the example

Eigen::Matrix3d rot(const Eigen::Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}
const Eigen::Vector3d kX = Eigen::Vector3d::UnitX(), kY = Eigen::Vector3d::UnitY(),
                      kZ = Eigen::Vector3d::UnitZ();

// The hinges of examples/bricard.yaml's open chain O -> A -> B -> C -> D -> E at its coordinates
// (relative angles about y, z, x, y, z at O, A, B, C, D), and rod 5's orientation.
struct Chain {
  Eigen::Vector3d C, D, E;
  Eigen::Matrix3d rod5;
};
Chain chain(const Eigen::VectorXd& q) {
  const Eigen::Matrix3d r1 = rot(kY, q[0]), r2 = r1 * rot(kZ, q[1]), r3 = r2 * rot(kX, q[2]),
                        r4 = r3 * rot(kY, q[3]), r5 = r4 * rot(kZ, q[4]);
  Chain c;
  const Eigen::Vector3d A = r1 * (kL * kX), B = A - r2 * (kL * kY);
  c.C = B + r3 * (kL * kZ);
  c.D = c.C - r4 * (kL * kX);
  c.E = c.D + r5 * (kL * kY);
  c.rod5 = r5;
  return c;
}

// The same mechanism cut at hinge C: branch O -> A -> B -> C (q1, q2, q3 as in the example) and
// branch E -> D -> C (p6 about x at E, p5 about z at D). C reached along both branches must agree
// and the hinge axis at C (rod 3's y axis) must be normal to rod 4's x and z axes: of those five
// conditions the x component of C's is dropped, which leaves four independent along the whole
// motion (their smallest singular value stays above 0.6).
constexpr const char* kCutAtC = R"yaml(
name: bricard-cut-at-c
parameters: {m: 1.0, L: 1.0, g: 9.81}
coordinates: [q1, q2, q3, p5, p6]
frames:
  rod1: {parent: world, rotation: rot_y(q1)}
  rod2: {parent: rod1, translation: [L, 0, 0], rotation: rot_z(q2)}
  rod3: {parent: rod2, translation: [0, -L, 0], rotation: rot_x(q3)}
  rod5: {parent: world, translation: [0, 0, L], rotation: rot_x(p6)}
  rod4: {parent: rod5, translation: [0, -L, 0], rotation: rot_z(p5)}
bodies:
  bar1: {frame: rod1, mass: m, com: [L/2, 0, 0], inertia: {rod: {length: L, axis: x}}}
  bar2: {frame: rod2, mass: m, com: [0, -L/2, 0], inertia: {rod: {length: L, axis: y}}}
  bar3: {frame: rod3, mass: m, com: [0, 0, L/2], inertia: {rod: {length: L, axis: z}}}
  bar4: {frame: rod4, mass: m, com: [L/2, 0, 0], inertia: {rod: {length: L, axis: x}}}
  bar5: {frame: rod5, mass: m, com: [0, -L/2, 0], inertia: {rod: {length: L, axis: y}}}
gravity: [0, -g, 0]
constraints:
  - {name: c_y, holonomic: "L*(-sin(q3)*cos(q2) - sin(p5)*cos(p6) - cos(q2) + cos(p6))"}
  - name: c_z
    holonomic: >-
      L*(-sin(q1)*sin(q2)*sin(q3) - sin(q1)*sin(q2) - sin(q1) - sin(p5)*sin(p6) + sin(p6)
      + cos(q1)*cos(q3) - 1)
  - name: axis_x
    holonomic: >-
      (sin(q1)*sin(q3) - sin(q2)*cos(q1)*cos(q3))*cos(p5)
      + (sin(q1)*sin(q2)*cos(q3) + sin(q3)*cos(q1))*sin(p5)*sin(p6)
      + sin(p5)*cos(q2)*cos(q3)*cos(p6)
  - name: axis_z
    holonomic: >-
      (sin(q1)*sin(q2)*cos(q3) + sin(q3)*cos(q1))*cos(p6) - sin(p6)*cos(q2)*cos(q3)
)yaml";

// Hinges C (along the branch through A and B) and D of the model cut at C.
std::pair<Eigen::Vector3d, Eigen::Vector3d> cut_at_c(const Eigen::VectorXd& q) {
  const Eigen::Matrix3d r1 = rot(kY, q[0]), r2 = r1 * rot(kZ, q[1]), r3 = r2 * rot(kX, q[2]);
  const Eigen::Vector3d C = r1 * (kL * kX) - r2 * (kL * kY) + r3 * (kL * kZ);
  const Eigen::Vector3d D = kL * kZ - rot(kX, q[4]) * (kL * kY);
  return {C, D};
}

struct Trajectory {
  std::vector<double> t, energy;
  std::vector<Eigen::VectorXd> q;
  num::SimulationResult result;
};

Trajectory simulate(const std::shared_ptr<const model::Model>& model, double tolerance) {
  num::SimulationOptions options;
  options.t_end = 10.0;  // the benchmark's span
  options.output_step = 0.01;
  options.rtol = options.atol = tolerance;
  Trajectory run;
  run.result = num::simulate(principles::derive(model, principles::Method::GibbsAppell), options,
                             [&](const num::SimulationRow& row) {
                               run.t.push_back(row.t);
                               run.q.push_back(row.q);
                               run.energy.push_back(row.total);
                             });
  return run;
}

TEST(Bricard, TheLoopIsRedundantlyClosedWithOneDegreeOfFreedom) {
  const auto model = io::read_model_file(kBricard);
  const num::CompiledEquations compiled(principles::derive(model, principles::Method::Lagrange));
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b;
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(5);
  compiled.evaluate(0.0, q, q, M, f);
  compiled.constraints(A, b);
  ASSERT_EQ(A.rows(), 5);
  // Five constraints on five coordinates, and still one motion: rank four.
  EXPECT_EQ(num::redundant_constraints(A).size(), 1u);
  const Chain at_rest = chain(q);
  EXPECT_LT((at_rest.E - kL * kZ).norm(), 1e-15);
}

TEST(Bricard, SimulatesTenSecondsWithTheLoopClosedAndTheEnergyKept) {
  const Trajectory run = simulate(io::read_model_file(kBricard), 1e-10);
  ASSERT_EQ(run.t.size(), 1001u);
  EXPECT_DOUBLE_EQ(run.t.back(), 10.0);
  ASSERT_EQ(run.result.redundant_constraints.size(), 1u);
  // Hinge E closed: rod 5's end on E and its hinge axis along the world's x axis, at every row.
  double gap = 0, tilt = 0, swing = 0;
  for (const auto& q : run.q) {
    const Chain c = chain(q);
    gap = std::max(gap, (c.E - kL * kZ).norm());
    tilt = std::max(tilt, (c.rod5 * kX - kX).norm());
    swing = std::max(swing, q[0]);
  }
  EXPECT_LT(gap, 1e-9);
  EXPECT_LT(tilt, 1e-9);
  // It moves: released from rest at q = 0, it swings over to the mirror configuration at
  // q1 = pi (the same potential energy) and back. A solver that loses the motion's direction
  // in the drift (as the velocity projection at rounding-level rank did) stays near 0.
  EXPECT_GT(swing, 3.0);
  EXPECT_LT(swing, std::numbers::pi + 1e-3);
  // Conservative: E stays at E0 = -sum(m g y_com) = -29.43 J to the integrator's tolerance.
  EXPECT_NEAR(run.energy.front(), -3 * 9.81, 1e-12);
  EXPECT_TRUE(run.result.conservative);
  EXPECT_LT(run.result.energy_drift, 1e-5);
}

TEST(Bricard, EnergyDriftFallsWithTheTolerances) {
  const auto model = io::read_model_file(kBricard);
  const Trajectory loose = simulate(model, 1e-6), tight = simulate(model, 1e-10);
  EXPECT_LT(tight.result.energy_drift, 0.01 * loose.result.energy_drift);
  EXPECT_LT(loose.result.max_violation.position, 1e-8);
}

TEST(Bricard, AgreesWithTheLoopCutAtAnotherHingeByIndependentConstraints) {
  const Trajectory redundant = simulate(io::read_model_file(kBricard), 1e-10);
  const Trajectory reference = simulate(io::parse_model(kCutAtC, "bricard-cut-at-c.yaml"), 1e-10);
  ASSERT_EQ(redundant.t.size(), reference.t.size());
  EXPECT_TRUE(reference.result.redundant_constraints.empty());
  double q1 = 0, hinge_c = 0, hinge_d = 0;
  for (std::size_t k = 0; k < redundant.t.size(); ++k) {
    const Chain c = chain(redundant.q[k]);
    const auto [C, D] = cut_at_c(reference.q[k]);
    q1 = std::max(q1, std::abs(redundant.q[k][0] - reference.q[k][0]));
    hinge_c = std::max(hinge_c, (c.C - C).norm());
    hinge_d = std::max(hinge_d, (c.D - D).norm());
  }
  EXPECT_LT(q1, 1e-6);
  EXPECT_LT(hinge_c, 1e-6);
  EXPECT_LT(hinge_d, 1e-6);
  EXPECT_NEAR(redundant.result.initial_energy, reference.result.initial_energy, 1e-12);
}

TEST(Bricard, VelocityProjectionKeepsTheMotionOffTheConstraints) {
  // A state 1e-9 off the constraints (what an integration step leaves) with the velocity of the
  // mechanism's one motion: the Jacobian's fifth singular value is then about 1e-9 instead of 0.
  // Projected with the rank decided at that size, the velocity stays; decided at rounding level,
  // the five constraints look independent and the only velocity left is zero.
  const auto model = io::read_model_file(kBricard);
  const GiNaC::exmap values = model::bind(*model, {}).substitution();
  const num::ConstraintManifold drift_sized(*model, values, 1e-6);
  const num::ConstraintManifold rounding_level(*model, values, 1e-15);
  Eigen::VectorXd q(5), motion(5);
  q << 1, 2, 3, 4, 5;
  q *= 1e-9;                  // off the constraints, near q = 0
  motion << 1, -1, 1, -1, 1;  // the tangent at q = 0: q1 = q3 = q5 = -q2 = -q4
  Eigen::VectorXd qd = motion;
  drift_sized.project_velocities(0.0, q, qd);
  EXPECT_LT((qd - motion).norm(), 1e-6);
  EXPECT_LT(drift_sized.violation(0.0, q, qd).velocity, 1e-8);
  qd = motion;
  rounding_level.project_velocities(0.0, q, qd);
  EXPECT_LT(qd.norm(), 1e-3);  // the finding: the motion projected away
}

using BricardCli = test_support::ScratchDirTest;

TEST_F(BricardCli, SimulatesTheBenchmarksTenSeconds) {
  const std::string csv = (dir_ / "bricard.csv").string();
  const auto run = test_support::run_cli("simulate " + kBricard + " --t-end 10 --out " + csv);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("to t = 10: 1001 rows"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("redundant constraints (combinations of the others at t = 0): hinge_z"),
            std::string::npos)
      << run.out;
}

TEST_F(BricardCli, InconsistentRedundantConstraintsStillStopTheRun) {
  // z = 0 twice, once as z - t^2/20: equal at t = 0 in position and velocity, but asking for
  // z'' = 0 and z'' = 1/10: no drift of any tolerance explains that.
  const std::string model = write("inconsistent.yaml", R"(
name: inconsistent
parameters: {m: 2.0, l: 1.5, g: 9.81}
coordinates:
  - {name: x, initial: 1.5*sin(0.7)}
  - {name: y, initial: -1.5*cos(0.7)}
  - z
frames:
  slider: {translation: [x, y, z]}
particles:
  bob: {frame: slider, mass: m}
gravity: [0, -g, 0]
constraints:
  - {name: plane, holonomic: z}
  - {name: circle, holonomic: x^2 + y^2 - l^2}
  - {name: lifted, holonomic: z - t^2/20}
)");
  for (const char* tolerance : {"1e-8", "1e-4"}) {
    const auto run =
        test_support::run_cli("simulate " + model + " --t-end 1 --rtol " + tolerance + " --atol " +
                              tolerance + " --out " + (dir_ / "out.csv").string());
    EXPECT_EQ(run.code, 1) << run.out;
    EXPECT_NE(run.out.find("inconsistent"), std::string::npos) << run.out;
  }
}

}  // namespace
