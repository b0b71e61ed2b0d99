// Generalized speeds together with constraints (issue 26, item 4): the equations in the speeds
// carry the constraints as Ã u̇ = b̃ with the forces Ãᵀλ. Checked against independent routes:
// a quaternion body whose tip slides in a slot (a closed loop) moves as the same mechanism in
// Euler angles, multipliers included; a pendulum in declared speeds has the coordinates'
// equations projected (Ã = AW, b̃ = b − Aγ), symbolically, and the coordinates' multiplier; the
// simulation stays on the constraints; the command line prints and writes the multipliers.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/speed_form.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

// The options with the initial speeds `u0` (SimulationOptions::u0).
appell::num::SimulationOptions with_u0(appell::num::SimulationOptions options,
                                       std::vector<double> u0) {
  options.u0 = std::move(u0);
  return options;
}

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string data = APPELL_TEST_DATA_DIR;

// R(e) of a unit quaternion (e0 the scalar part), as rot_quat turns a frame.
Eigen::Matrix3d quaternion_rotation(const Eigen::VectorXd& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
}

// rot_z(psi) rot_y(theta) rot_x(phi).
Eigen::Matrix3d euler_rotation(const Eigen::VectorXd& q) {
  return (Eigen::AngleAxisd(q[0], Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(q[1], Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(q[2], Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

struct Sample {
  double t;
  Eigen::Matrix3d R;
  double lambda, energy;
};

TEST(SpeedsWithConstraints, AQuaternionBodyInASlotMovesAsInEulerAngles) {
  // Body angular velocity w = (0, 0.3, 1.5): a swing about the slot's normal and a spin about the
  // box's axis, both allowed by the slot. In Z-Y-X angles at psi = phi = 0, theta = 0.5:
  // w1 = dot(phi) - dot(psi) sin(theta), w2 = dot(theta), w3 = dot(psi) cos(theta).
  const double theta = 0.5, w2 = 0.3, w3 = 1.5;
  num::SimulationOptions options;
  options.t_end = 3.0;
  options.output_step = 0.05;
  options.rtol = options.atol = 1e-10;

  const auto quaternion_model = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  const auto speeds = principles::speed_form(quaternion_model);
  ASSERT_EQ(speeds.constraint_count(), 1u);
  std::vector<Sample> in_speeds;
  double worst_position = 0.0;
  const auto speed_run =
      num::simulate(speeds, with_u0(options, {0.0, w2, w3}), [&](const num::SimulationRow& r) {
        in_speeds.push_back({r.t, quaternion_rotation(r.q), r.lambda[0], r.total});
        worst_position = std::max(worst_position, std::abs(r.q[2] * r.q[3] - r.q[0] * r.q[1]));
      });

  const auto euler_model = io::read_model_file(data + "/slotted_ball_joint_euler.yaml");
  num::SimulationOptions euler_options = options;
  euler_options.qd0 = {w3 / std::cos(theta), w2, w3 * std::tan(theta)};
  std::vector<Sample> in_angles;
  num::simulate(principles::derive(euler_model, principles::Method::GibbsAppell), euler_options,
                [&](const num::SimulationRow& r) {
                  in_angles.push_back({r.t, euler_rotation(r.q), r.lambda[0], r.total});
                });

  ASSERT_EQ(in_speeds.size(), in_angles.size());
  ASSERT_EQ(in_speeds.size(), 61u);
  double lambda_scale = 0.0;
  for (const auto& s : in_angles) lambda_scale = std::max(lambda_scale, std::abs(s.lambda));
  EXPECT_GT(lambda_scale, 0.05);  // the slot pushes: the test is not of a free body
  // The same initial state needed no projection: the given speeds were on the constraints.
  EXPECT_LT(speed_run.initial_correction.velocity, 1e-14);
  EXPECT_NEAR(in_speeds.front().lambda, in_angles.front().lambda, 1e-12);
  for (std::size_t k = 0; k < in_speeds.size(); ++k) {
    EXPECT_LT((in_speeds[k].R - in_angles[k].R).cwiseAbs().maxCoeff(), 1e-7)
        << "t = " << in_speeds[k].t;
    EXPECT_NEAR(in_speeds[k].lambda, in_angles[k].lambda, 1e-7 + 1e-6 * lambda_scale)
        << "t = " << in_speeds[k].t;
    // The slot does no work: E is conserved in both.
    EXPECT_NEAR(in_speeds[k].energy, in_speeds.front().energy, 1e-7) << "t = " << in_speeds[k].t;
  }
  EXPECT_LT(worst_position, 1e-10);
  EXPECT_EQ(speed_run.constraints, 1u);
  EXPECT_LT(speed_run.max_violation.position, 1e-10);
  EXPECT_LT(speed_run.max_violation.velocity, 1e-10);
}

TEST(SpeedsWithConstraints, TheEquationsAreTheCoordinatesProjectedMultipliersIncluded) {
  const auto model = io::read_model_file(data + "/pendulum_polar_speeds.yaml");
  const auto coordinates = principles::derive(model, principles::Method::GibbsAppell);
  for (auto method : {principles::Method::GibbsAppell, principles::Method::Dalembert}) {
    const auto speeds = principles::speed_form(model, method);
    ASSERT_EQ(speeds.constraint_count(), 1u);
    EXPECT_EQ(speeds.multipliers, coordinates.multipliers);
    // M̃ = WᵀMW, f̃ = Wᵀ(f − Mγ), Ã = AW and b̃ = b − Aγ, symbolically and at random states.
    const num::Agreement agreement = num::compare(coordinates, speeds, 20, true);
    EXPECT_TRUE(agreement.symbolic) << agreement.symbolic_unresolved;
    EXPECT_LT(agreement.max_numeric_error, 1e-12) << agreement.first_difference;
  }

  // A state on the circle moving along it: the same accelerations and the same multiplier.
  const double angle = 0.9, l = 0.8, rate = 1.7;
  Eigen::VectorXd q(2), qd(2);
  q << l * std::sin(angle), -l * std::cos(angle);
  qd << l * std::cos(angle) * rate, l * std::sin(angle) * rate;
  const num::CompiledEquations compiled(coordinates);
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b, qdd, lambda;
  compiled.evaluate(0.0, q, qd, M, f);
  compiled.constraints(A, b);
  compiled.accelerations_and_multipliers(M, f, A, b, qdd, lambda);

  const num::CompiledEquations in_speeds(principles::speed_form(model));
  const Eigen::VectorXd u = num::speeds_from_velocities(*model, {}, 0.0, q, qd);
  EXPECT_NEAR(u[1], 0.0, 1e-15);  // r = x ẋ + y ẏ vanishes on the circle
  const auto state = in_speeds.solve(0.0, q, u);
  EXPECT_LT((state.qd - qd).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((state.qdd - qdd).cwiseAbs().maxCoeff(), 1e-12);
  ASSERT_EQ(state.lambda.size(), 1);
  EXPECT_NEAR(state.lambda[0], lambda[0], 1e-12);
  // The tension: m (g cos(angle) + l rate²) = −2 l λ along the string (∂φ/∂q = 2 q).
  EXPECT_NEAR(-2.0 * l * lambda[0], 1.5 * (9.81 * std::cos(angle) + l * rate * rate), 1e-12);
  EXPECT_NEAR(state.velocity_residual[0], 0.0, 1e-15);
}

TEST(SpeedsWithConstraints, AnInconsistentStartIsProjectedOntoTheConstraints) {
  // The slot allows no motion about the world's x at this attitude: w1 = 0.4 is taken away by the
  // smallest change of the speeds, and the run stays on the constraints.
  const auto model = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  num::SimulationOptions options;
  options.t_end = 1.0;
  options.output_step = 0.5;
  options.q0 = {0.97, 0.02, 0.25, 0.0};  // not quite in the slot, not of length 1
  Eigen::VectorXd first_q, first_u;
  const auto result =
      num::simulate(principles::speed_form(model), with_u0(options, {0.4, 0.3, 1.5}),
                    [&](const num::SimulationRow& r) {
                      if (first_q.size() == 0) {
                        first_q = r.q;
                        first_u = r.v;
                      }
                    });
  EXPECT_NEAR(first_q.norm(), 1.0, 1e-14);
  EXPECT_LT(std::abs(first_q[2] * first_q[3] - first_q[0] * first_q[1]), 1e-10);
  EXPECT_GT(result.initial_correction.position, 1e-3);
  EXPECT_GT(result.initial_correction.velocity, 0.1);
  // Only the swing about the slot's normal and the spin remain; the spin is not touched.
  EXPECT_NEAR(first_u[2], 1.5, 0.05);
  EXPECT_LT(result.max_violation.position, 1e-9);
  EXPECT_LT(result.max_violation.velocity, 1e-9);
}

class SpeedsWithConstraintsCli : public test_support::ScratchDirTest {};

TEST_F(SpeedsWithConstraintsCli, TheCommandLinePrintsAndWritesTheMultipliers) {
  const std::string model = examples + "/speeds/slotted_ball_joint.yaml";
  const auto derive = test_support::run_cli("derive " + model);
  ASSERT_EQ(derive.code, 0) << derive.out;
  EXPECT_NE(derive.out.find("lambda_slot"), std::string::npos) << derive.out;
  EXPECT_NE(derive.out.find("constraints at acceleration level, A u' = b:\n  slot: "),
            std::string::npos)
      << derive.out;
  // |e|^4/|e|^4 of the box's inertia in its speeds cancels on the page (M is m*l^2 + ...
  // about the pivot), and nothing of the quaternion's length is left but gravity's |e|^2.
  EXPECT_EQ(derive.out.find("e0^4"), std::string::npos) << derive.out;
  EXPECT_NE(derive.out.find("M[1,1] = m*l^2 + 1/12*m*(b^2 + c^2)\n"), std::string::npos)
      << derive.out;
  const auto json = test_support::run_cli("derive " + model + " --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed.at("multipliers"), nlohmann::json::array({"lambda_slot"}));
  EXPECT_EQ(parsed.at("constraint_matrix").size(), 1u);
  EXPECT_EQ(parsed.at("constraint_matrix")[0].size(), 3u);
  const auto latex = test_support::run_cli("derive " + model + " --format latex");
  ASSERT_EQ(latex.code, 0) << latex.out;
  EXPECT_NE(latex.out.find("\\lambda_{"), std::string::npos) << latex.out;

  const auto eval = test_support::run_cli("eval " + model + " --u 0,0.3,1.5 --json");
  ASSERT_EQ(eval.code, 0) << eval.out;
  const auto state = nlohmann::json::parse(eval.out);
  ASSERT_EQ(state.at("lambda").size(), 1u);
  // The slot's reaction at rest in the swing plane: none of the weight, the swing and spin's
  // inertia only (w1 = 0): λ = −0.0072 (as the Euler-angle model gives; see the first test).
  EXPECT_NEAR(state.at("lambda")[0].get<double>(), -0.0072, 1e-12);

  const std::string csv = (dir_ / "run.csv").string();
  const auto run =
      test_support::run_cli("simulate " + model + " --t-end 1 --u0 0,0.3,1.5 --out " + csv);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("constraints: 1 (projected after every step)"), std::string::npos)
      << run.out;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("t,e0,e1,e2,e3,w1,w2,w3,T,V,E,lambda_slot", 0), 0u) << header;

  // Adams cannot project: refused at the option, as for constraints in the coordinates.
  const auto adams =
      test_support::run_cli("simulate " + model + " --t-end 1 --integrator adams --out " + csv);
  EXPECT_EQ(adams.code, 2) << adams.out;
  EXPECT_NE(adams.out.find("--integrator"), std::string::npos) << adams.out;
}

}  // namespace
