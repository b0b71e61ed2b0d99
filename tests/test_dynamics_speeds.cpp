// num::Dynamics in generalized speeds: the recursions formed in u (quaternion frames, declared
// speeds, URDF floating bases) against an independent route, the equations in the speeds formed
// by Gibbs–Appell in GiNaC (principles::speed_form) and their tape (CompiledEquations), at random
// states: M̃, f̃, u̇, τ, q̇ = W u, q̈ = W u̇ + γ, W, and T, V from the kinematics in the speeds.
// Then physics no formed equation is needed for: a free rigid body turned by a quaternion obeys
// Euler's equations I ẇ + w × I w = M; its simulation keeps E = T + V; eight threads sharing one
// Dynamics get the bits of one; and what is still refused says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/kinematics/kinematics.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/principles/speed_form.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/spawn_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

const std::string examples = APPELL_EXAMPLES_DIR;

// A particle in the plane at (x, y) with the declared speeds of tests/data/pendulum_polar_speeds
// (h = x ẏ − y ẋ, r = x ẋ + y ẏ: each coordinate's rate mixes both speeds through W) held by a
// spring, pushed by a generalized force on x that depends on ẋ, and in a potential: Q_j and
// −∂V/∂q_j reach the speeds as W_jk Q_j.
const std::string polar_particle = R"yaml(name: polar-particle
parameters: {m: 1.5, k: 7, L: 0.4, c: 0.3, g: 9.81}
coordinates:
  - {name: x, initial: 0.48}
  - {name: y, initial: -0.64}
speeds:
  - {name: h, value: "x*dot(y) - y*dot(x)"}
  - {name: r, value: "x*dot(x) + y*dot(y)"}
frames:
  slider: {translation: [x, y, 0]}
particles:
  bob: {frame: slider, mass: m}
gravity: [0, -g, 0]
loads:
  - {spring: {from: [world, [0, 0, 0]], to: [slider, [0, 0, 0]], stiffness: k, rest_length: L}}
  - {generalized: {coordinate: x, value: "-c*dot(x) + 0.2*sin(t)"}}
  - {potential: "0.5*x^2*y^2"}
)yaml";

// A rigid body with a full inertia tensor free in space, turned by a quaternion, under a constant
// torque in its own axes, its position's speeds declared.
const std::string torqued_body = R"yaml(name: torqued-body
parameters: {m: 1.3, Ixx: 0.4, Iyy: 0.7, Izz: 0.9, Ixy: 0.05, Iyz: -0.03, Ixz: 0.02,
             Mx: 0.3, My: -0.2, Mz: 0.15}
coordinates: [x, y, z, e0, e1, e2, e3]
speeds:
  - {name: vx, value: "dot(x)"}
  - {name: vy, value: "dot(y)"}
  - {name: vz, value: "dot(z)"}
frames:
  body: {parent: world, translation: [x, y, z], rotation: "rot_quat(e0, e1, e2, e3)",
         speeds: [w1, w2, w3]}
bodies:
  b: {frame: body, mass: m, inertia: [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]}
loads:
  - {torque: [Mx, My, Mz], on: body, in: body}
)yaml";

std::shared_ptr<const model::Model> floating(const std::string& robot) {
  io::UrdfOptions options;
  options.floating_base = true;
  return io::read_urdf_file(examples + "/urdf/" + robot, options);
}

Eigen::VectorXd random_vector(std::mt19937& engine, Eigen::Index n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(engine);
  return v;
}

// A random state: q with its quaternions of length 1, u.
void random_state(const model::Model& m, std::mt19937& engine, Eigen::VectorXd& q,
                  Eigen::VectorXd& u) {
  q = random_vector(engine, static_cast<Eigen::Index>(m.dof()), -1.5, 1.5);
  num::normalize_quaternions(m, q);
  u = random_vector(engine, static_cast<Eigen::Index>(m.speeds.size()), -2.0, 2.0);
}

// `e` (an expression of t, q, the speeds and the parameters) at (t, q, u), the parameters at their
// defaults, evaluated by GiNaC: a reference independent of any tape.
double value_at(const model::Model& m, const GiNaC::ex& e, double t, const Eigen::VectorXd& q,
                const Eigen::VectorXd& u) {
  GiNaC::exmap at = model::bind(m, {}).substitution();
  at[m.time_functions->time()] = t;
  for (std::size_t j = 0; j < m.dof(); ++j)
    at[m.coordinate_symbol(j)] = q[static_cast<Eigen::Index>(j)];
  for (std::size_t k = 0; k < m.speeds.size(); ++k)
    at[m.speed_symbol(k)] = u[static_cast<Eigen::Index>(k)];
  const GiNaC::ex value = GiNaC::evalf(sym::substitute(sym::substitute(e, at), at));
  if (!GiNaC::is_a<GiNaC::numeric>(value)) {
    ADD_FAILURE() << "not a number at the state: " << value;
    return 0.0;
  }
  return GiNaC::ex_to<GiNaC::numeric>(value).to_double();
}

double relative(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want) {
  return (got - want).cwiseAbs().maxCoeff() / (1.0 + want.cwiseAbs().maxCoeff());
}

// Everything the Dynamics gives in the speeds against the formed equations, to 1e-9 relative.
void check_against_formed_equations(std::shared_ptr<const model::Model> model) {
  const model::Model& m = *model;
  ASSERT_TRUE(m.has_speeds());
  ASSERT_EQ(principles::recursions_do_not_cover(m), "");
  const num::Dynamics dynamics(model);
  EXPECT_EQ(dynamics.dof(), m.dof());
  EXPECT_EQ(dynamics.speed_count(), m.speeds.size());
  const num::CompiledEquations formed(principles::speed_form(model));
  sym::Differentiator differentiator(m.time_functions);
  kin::Kinematics kinematics(model, differentiator, kin::Rates::Speeds);
  const GiNaC::ex T = principles::kinetic_energy(kinematics),
                  V = principles::potential_energy(kinematics);
  std::mt19937 engine(26);
  num::DynamicsWorkspace work;
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("state " + std::to_string(trial));
    Eigen::VectorXd q, u;
    random_state(m, engine, q, u);
    const double t = 0.3 * trial;
    const auto want = formed.solve(t, q, u);
    Eigen::MatrixXd M, W;
    Eigen::VectorXd f, udot, tau, qd, qdd;
    dynamics.mass_matrix_and_forcing(t, q, u, M, f, work);
    EXPECT_LE(relative(M, want.mass_matrix), 1e-9) << "M\n" << M << "\n" << want.mass_matrix;
    EXPECT_LE(relative(f, want.forcing), 1e-9)
        << "f " << f.transpose() << " | " << want.forcing.transpose();
    dynamics.accelerations(t, q, u, udot, work);
    EXPECT_LE(relative(udot, want.vdot), 1e-9) << dynamics.forward_method();
    dynamics.inverse_dynamics(t, q, u, want.vdot, tau, work);
    EXPECT_LE(relative(tau, want.mass_matrix * want.vdot - want.forcing), 1e-9) << "tau";
    dynamics.speed_kinematics(t, q, W, work);
    EXPECT_LE(relative(W, want.speed_matrix), 1e-12) << "W";
    dynamics.coordinate_velocities(t, q, u, qd, work);
    EXPECT_LE(relative(qd, want.qd), 1e-12) << "qd";
    dynamics.coordinate_accelerations(t, q, u, want.vdot, qdd, work);
    EXPECT_LE(relative(qdd, want.qdd), 1e-9) << "qdd";
    if (m.constraints.empty()) {
      EXPECT_EQ(dynamics.constraint_count(), 0u);
    } else {
      // The rows in the speeds, Ã u̇ = b̃ and Ã u + ã0, and λ of the constrained solve.
      Eigen::MatrixXd A, A_velocity;
      Eigen::VectorXd b, residual, lambda, constrained;
      dynamics.constraints(t, q, u, A, b, work);
      EXPECT_LE(relative(A, want.constraint_matrix), 1e-9) << "A";
      EXPECT_LE(relative(b, want.constraint_rhs), 1e-9) << "b";
      dynamics.velocity_constraints(t, q, u, A_velocity, residual, work);
      EXPECT_LE(relative(A_velocity, want.constraint_matrix), 1e-9) << "A at velocity level";
      EXPECT_LE(relative(residual, want.velocity_residual), 1e-9) << "A u + a0";
      dynamics.accelerations(t, q, u, constrained, lambda, work, num::ConstraintTolerances{});
      EXPECT_LE(relative(lambda, want.lambda), 1e-8) << "lambda";
      const auto state = num::solve_in_speeds(dynamics, t, q, u);
      EXPECT_LE(relative(state.lambda, want.lambda), 1e-8) << "lambda of solve_in_speeds";
      EXPECT_LE(relative(state.vdot, want.vdot), 1e-9) << "udot of solve_in_speeds";
    }
    double kinetic = 0.0, potential = 0.0;
    dynamics.energies(t, q, u, kinetic, potential, work);
    const std::vector<double> energy{value_at(m, T, t, q, u), value_at(m, V, t, q, u)};
    EXPECT_NEAR(kinetic, energy[0], 1e-9 * (1.0 + std::abs(energy[0])));
    EXPECT_NEAR(potential, energy[1], 1e-9 * (1.0 + std::abs(energy[1])));
  }
}

std::vector<std::string> speed_examples() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(examples + "/speeds"))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class DynamicsSpeedsExample : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicsSpeedsExample, AgreesWithTheFormedSpeedEquations) {
  const auto model = io::read_model_file(examples + "/speeds/" + GetParam() + ".yaml");
  check_against_formed_equations(model);
}

INSTANTIATE_TEST_SUITE_P(DynamicsSpeeds, DynamicsSpeedsExample,
                         ::testing::ValuesIn(speed_examples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(DynamicsSpeeds, DeclaredSpeedsWithEveryGeneralizedLoadAgreeWithTheFormedEquations) {
  check_against_formed_equations(io::parse_model(polar_particle, "polar.yaml"));
}

TEST(DynamicsSpeeds, FloatingBaseRobotsAgreeWithTheFormedEquations) {
  for (const char* robot : {"satellite_arm.urdf", "ur5_robot.urdf"}) {
    SCOPED_TRACE(robot);
    check_against_formed_equations(floating(robot));
  }
}

// Euler's equations, written out here: I ẇ = M − w × I w for the turning, m v̇ = 0 for the
// centre of mass; and inverse dynamics gives back the torque.
TEST(DynamicsSpeeds, FreeRigidBodyByQuaternionObeysEulersEquations) {
  const auto model = io::parse_model(torqued_body, "body.yaml");
  const num::Dynamics dynamics(model);
  ASSERT_EQ(dynamics.speed_count(), 6u);
  Eigen::Matrix3d I;
  I << 0.4, 0.05, 0.02, 0.05, 0.7, -0.03, 0.02, -0.03, 0.9;
  const Eigen::Vector3d torque(0.3, -0.2, 0.15);
  std::mt19937 engine(3);
  num::DynamicsWorkspace work;
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::VectorXd q, u, udot, tau;
    random_state(*model, engine, q, u);
    const Eigen::Vector3d w = u.tail<3>();
    const Eigen::Vector3d wdot = I.ldlt().solve(torque - w.cross(I * w));
    dynamics.accelerations(0.0, q, u, udot, work);
    EXPECT_LE(udot.head<3>().cwiseAbs().maxCoeff(), 1e-12) << udot.transpose();
    EXPECT_LE((udot.tail<3>() - wdot).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + wdot.norm()))
        << udot.tail<3>().transpose() << " | " << wdot.transpose();
    // τ = M̃ u̇ − f̃ at u̇ = 0 is −f̃: −(M − w × I w) on the turning.
    dynamics.inverse_dynamics(0.0, q, u, Eigen::VectorXd::Zero(6), tau, work);
    EXPECT_LE((tau.tail<3>() + torque - w.cross(I * w)).cwiseAbs().maxCoeff(), 1e-12);
    // ė = ½ e ⊗ (0, w).
    Eigen::VectorXd qd;
    dynamics.coordinate_velocities(0.0, q, u, qd, work);
    const Eigen::Quaterniond e(q[3], q[4], q[5], q[6]);
    const Eigen::Quaterniond rate = e * Eigen::Quaterniond(0.0, w[0], w[1], w[2]);
    EXPECT_LE((qd.segment<4>(3) - 0.5 * Eigen::Vector4d(rate.w(), rate.x(), rate.y(), rate.z()))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-14);
    EXPECT_LE((qd.head<3>() - u.head<3>()).cwiseAbs().maxCoeff(), 0.0);
  }
}

// One Dynamics in the speeds, eight threads, each with its own workspace: the bits of one.
TEST(DynamicsSpeeds, ThreadsSharingOneDynamicsGetTheBitsOfOneThread) {
  const auto model = floating("ur5_robot.urdf");
  const num::Dynamics dynamics(model);
  std::mt19937 engine(8);
  std::vector<Eigen::VectorXd> qs, us;
  for (int s = 0; s < 100; ++s) {
    Eigen::VectorXd q, u;
    random_state(*model, engine, q, u);
    qs.push_back(q);
    us.push_back(u);
  }
  auto run = [&](std::vector<Eigen::VectorXd>& out) {
    num::DynamicsWorkspace work;
    Eigen::VectorXd udot, tau, qd, qdd;
    for (std::size_t s = 0; s < qs.size(); ++s) {
      dynamics.accelerations(0.1, qs[s], us[s], udot, work);
      dynamics.inverse_dynamics(0.1, qs[s], us[s], udot, tau, work);
      dynamics.coordinate_velocities(0.1, qs[s], us[s], qd, work);
      dynamics.coordinate_accelerations(0.1, qs[s], us[s], udot, qdd, work);
      out[s].resize(udot.size() + tau.size() + qd.size() + qdd.size());
      out[s] << udot, tau, qd, qdd;
    }
  };
  std::vector<Eigen::VectorXd> alone(qs.size());
  run(alone);
  std::vector<std::vector<Eigen::VectorXd>> shared(8, std::vector<Eigen::VectorXd>(qs.size()));
  std::vector<std::thread> threads;
  for (auto& out : shared) threads.emplace_back([&run, &out] { run(out); });
  for (auto& thread : threads) thread.join();
  for (const auto& out : shared)
    for (std::size_t s = 0; s < qs.size(); ++s) {
      ASSERT_EQ(out[s].size(), alone[s].size());
      ASSERT_EQ(std::memcmp(out[s].data(), alone[s].data(),
                            sizeof(double) * static_cast<std::size_t>(alone[s].size())),
                0)
          << "state " << s;
    }
}

// A run of examples/speeds/free_box_quaternion.yaml spun near its intermediate axis (it flips),
// rows every 0.5 s at tolerances 1e-10.
num::SimulationOptions tumbling_box_run(double t_end) {
  num::SimulationOptions options;
  options.t_end = t_end;
  options.output_step = 0.5;
  options.rtol = options.atol = 1e-10;
  options.u0 = {0.1, 0.0, -0.05, 0.01, 3.0, 0.02};
  return options;
}

// Each row's (q, speeds, E) kept in `into`.
num::RowCallback keep(std::vector<Eigen::VectorXd>& into) {
  return [&into](const num::SimulationRow& row) {
    Eigen::VectorXd y(row.q.size() + row.v.size() + 1);
    y << row.q, row.v, row.total;
    into.push_back(y);
  };
}

// The box of examples/speeds/free_box_quaternion.yaml spun near its intermediate axis flips
// (Dzhanibekov): E = T is kept by the integration through the recursions, which follow the
// formed equations' run.
TEST(DynamicsSpeeds, SimulationKeepsTheEnergyOfAFreeBodyAndFollowsTheFormedEquations) {
  const auto model = io::read_model_file(examples + "/speeds/free_box_quaternion.yaml");
  const num::SimulationOptions options = tumbling_box_run(20.0);
  std::vector<Eigen::VectorXd> recursions, formed;
  const auto result = num::simulate(model, options, keep(recursions));
  EXPECT_TRUE(result.conservative) << result.not_conservative_because;
  EXPECT_GT(result.initial_energy, 0.0);
  EXPECT_LE(result.energy_drift, 1e-7 * result.initial_energy);
  const auto reference = num::simulate(principles::speed_form(model), options, keep(formed));
  EXPECT_NEAR(reference.initial_energy, result.initial_energy, 1e-12);
  ASSERT_EQ(recursions.size(), formed.size());
  // It does flip: w2 changes sign on the way.
  double lowest_w2 = 3.0;
  for (std::size_t r = 0; r < recursions.size(); ++r) {
    EXPECT_LE((recursions[r] - formed[r]).cwiseAbs().maxCoeff(), 1e-6) << "row " << r;
    lowest_w2 = std::min(lowest_w2, recursions[r][11]);
    EXPECT_NEAR(recursions[r].segment<4>(3).norm(), 1.0, 1e-9) << "row " << r;
  }
  EXPECT_LT(lowest_w2, -2.0);
}

// What is still refused says why: what is written in q̇ and q̈ (the derivatives, the regressor)
// for any model with speeds, and sizes that are not the speeds'.
TEST(DynamicsSpeeds, RefusalsNameWhy) {
  const auto robot = floating("satellite_arm.urdf");
  EXPECT_EQ(principles::recursions_do_not_cover(*robot), "");
  EXPECT_EQ(principles::recursions_alone_do_not_cover(*robot), "generalized speeds");
  EXPECT_EQ(principles::regressor_not_covered(*robot), "generalized speeds");
  try {
    principles::regressor_matrix(*io::parse_model(polar_particle, "polar.yaml"));
    ADD_FAILURE() << "a regressor in the speeds";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("generalized speeds"), std::string::npos) << e.what();
  }
  const auto slotted = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  EXPECT_EQ(principles::recursions_do_not_cover(*slotted), "");  // its rows in the speeds
  EXPECT_EQ(principles::recursions_alone_do_not_cover(*slotted), "generalized speeds");
  // Sizes are checked: q has n entries, the rates p.
  const num::Dynamics dynamics(robot);
  num::DynamicsWorkspace work;
  Eigen::VectorXd f;
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(robot->dof()));
  try {
    dynamics.forcing(0.0, q, q, f, work);
    ADD_FAILURE() << "u with n entries accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("speeds"), std::string::npos) << e.what();
  }
}

// appell eval of a model with speeds: through the recursions, the numbers of the formed
// equations (--method gibbs-appell forms them).
TEST(DynamicsSpeedsCli, EvalAgreesWithTheFormedEquations) {
  const std::string model = examples + "/speeds/free_box_quaternion.yaml";
  const std::string state =
      " --q 0.1,0.2,0.3,0.9,0.1,-0.3,0.2 --u 0.3,-0.1,0.2,1.5,-0.7,0.4 --json";
  const auto recursions = test_support::run_cli("eval " + model + state);
  const auto formed = test_support::run_cli("eval " + model + state + " --method gibbs-appell");
  ASSERT_EQ(recursions.code, 0) << recursions.out;
  ASSERT_EQ(formed.code, 0) << formed.out;
  const auto a = nlohmann::json::parse(recursions.out), b = nlohmann::json::parse(formed.out);
  for (const char* key : {"qd", "forcing", "udot", "qdd", "u", "q"}) {
    SCOPED_TRACE(key);
    ASSERT_EQ(a[key].size(), b[key].size());
    for (std::size_t i = 0; i < a[key].size(); ++i)
      EXPECT_NEAR(a[key][i].get<double>(), b[key][i].get<double>(), 1e-12);
  }
  ASSERT_EQ(a["mass_matrix"].size(), b["mass_matrix"].size());
  for (std::size_t i = 0; i < a["mass_matrix"].size(); ++i)
    for (std::size_t j = 0; j < a["mass_matrix"][i].size(); ++j)
      EXPECT_NEAR(a["mass_matrix"][i][j].get<double>(), b["mass_matrix"][i][j].get<double>(),
                  1e-12);
}

}  // namespace

namespace {

// The box on a ball joint whose tip slides in a slot (examples/speeds/slotted_ball_joint.yaml: a
// quaternion body closing a loop) integrated through the recursions in the speeds with the
// constraints' rows beside them follows the formed equations' run, λ included, with the slot
// held.
TEST(DynamicsSpeeds, AConstrainedQuaternionBodyFollowsTheFormedEquations) {
  const auto model = io::read_model_file(examples + "/speeds/slotted_ball_joint.yaml");
  ASSERT_FALSE(model->constraints.empty());
  num::SimulationOptions options;
  options.t_end = 2.0;
  options.output_step = 0.1;
  options.rtol = options.atol = 1e-10;
  struct Row {
    Eigen::VectorXd y, lambda;
  };
  auto keep = [](std::vector<Row>& into) {
    return [&into](const num::SimulationRow& row) {
      Eigen::VectorXd y(row.q.size() + row.v.size());
      y << row.q, row.v;
      into.push_back({y, row.lambda});
    };
  };
  std::vector<Row> recursions, formed;
  const auto result = num::simulate(model, options, keep(recursions));
  const auto reference = num::simulate(principles::speed_form(model), options, keep(formed));
  EXPECT_EQ(result.constraints, model->constraints.size());
  EXPECT_LT(result.max_violation.position, 1e-8);
  EXPECT_NEAR(result.energy_drift, reference.energy_drift, 1e-7);
  ASSERT_EQ(recursions.size(), formed.size());
  for (std::size_t r = 0; r < recursions.size(); ++r) {
    EXPECT_LT((recursions[r].y - formed[r].y).cwiseAbs().maxCoeff(), 1e-6) << "row " << r;
    ASSERT_EQ(recursions[r].lambda.size(), formed[r].lambda.size());
    EXPECT_LT((recursions[r].lambda - formed[r].lambda).cwiseAbs().maxCoeff(),
              1e-5 * (1.0 + formed[r].lambda.cwiseAbs().maxCoeff()))
        << "row " << r;
  }
}

}  // namespace

// The JIT compiles a model in its speeds (jit::compile_dynamics): M̃, f̃, u̇, τ and the kinematic
// equations by the generated code agree with the recursions interpreted for every speeds example
// the generated code writes and two floating bases; one compiled with constraints in the speeds
// runs interpreted and says why; a compiled simulation follows the interpreted one.
TEST(DynamicsSpeedsJit, CompiledInTheSpeedsAgreesWithTheRecursionsInterpreted) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache =
      fs::temp_directory_path() / ("appell-speeds-jit-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  std::vector<std::pair<std::string, std::shared_ptr<const model::Model>>> models;
  for (const auto& name : speed_examples())
    models.emplace_back(name, io::read_model_file(examples + "/speeds/" + name + ".yaml"));
  models.emplace_back("satellite_arm", floating("satellite_arm.urdf"));
  models.emplace_back("simple_humanoid", floating("simple_humanoid.urdf"));
  std::mt19937 engine(27);
  std::size_t compiled_models = 0;
  for (const auto& [name, model] : models) {
    SCOPED_TRACE(name);
    const num::Dynamics compiled = jit::compile_dynamics(model, {}, options);
    if (!model->constraints.empty()) {
      EXPECT_STREQ(compiled.kind(), "recursions");
      EXPECT_NE(compiled.compilation().note.find("constraints in generalized speeds"),
                std::string::npos)
          << compiled.compilation().note;
      continue;
    }
    ASSERT_STREQ(compiled.kind(), "jit") << compiled.compilation().note;
    ++compiled_models;
    const num::Dynamics interpreted(model);
    const auto n = static_cast<Eigen::Index>(model->dof());
    const auto p = static_cast<Eigen::Index>(model->speeds.size());
    ASSERT_EQ(compiled.speed_count(), static_cast<std::size_t>(p));
    num::DynamicsWorkspace work;
    for (int s = 0; s < 4; ++s) {
      Eigen::VectorXd q = random_vector(engine, n, -1.0, 1.0);
      num::normalize_quaternions(*model, q);
      const Eigen::VectorXd u = random_vector(engine, p, -1.5, 1.5),
                            udot = random_vector(engine, p, -2.0, 2.0);
      Eigen::MatrixXd M1, M2;
      Eigen::VectorXd f1, f2, a1, a2, tau1, tau2, qd1, qd2, qdd1, qdd2;
      compiled.mass_matrix_and_forcing(0.2, q, u, M1, f1, work);
      interpreted.mass_matrix_and_forcing(0.2, q, u, M2, f2, work);
      EXPECT_LE(relative(M1, M2), 1e-10);
      EXPECT_LE(relative(f1, f2), 1e-10);
      compiled.accelerations(0.2, q, u, a1, work);
      interpreted.accelerations(0.2, q, u, a2, work);
      EXPECT_LE(relative(a1, a2), 1e-9);
      compiled.inverse_dynamics(0.2, q, u, udot, tau1, work);
      interpreted.inverse_dynamics(0.2, q, u, udot, tau2, work);
      EXPECT_LE(relative(tau1, tau2), 1e-10);
      compiled.coordinate_velocities(0.2, q, u, qd1, work);
      interpreted.coordinate_velocities(0.2, q, u, qd2, work);
      EXPECT_LE(relative(qd1, qd2), 1e-12);
      compiled.coordinate_accelerations(0.2, q, u, udot, qdd1, work);
      interpreted.coordinate_accelerations(0.2, q, u, udot, qdd2, work);
      EXPECT_LE(relative(qdd1, qdd2), 1e-12);
    }
  }
  EXPECT_GE(compiled_models, 4u);

  // The free box tumbling for 5 s by the compiled code: the interpreted run's motion and energy.
  const auto box = io::read_model_file(examples + "/speeds/free_box_quaternion.yaml");
  num::SimulationOptions run = tumbling_box_run(5.0);
  std::vector<Eigen::VectorXd> by_jit, by_recursions;
  num::simulate(box, run, keep(by_recursions));
  run.dynamics = std::make_shared<const num::Dynamics>(jit::compile_dynamics(box, {}, options));
  ASSERT_STREQ(run.dynamics->kind(), "jit");
  num::simulate(box, run, keep(by_jit));
  ASSERT_EQ(by_jit.size(), by_recursions.size());
  for (std::size_t r = 0; r < by_jit.size(); ++r)
    EXPECT_LE((by_jit[r] - by_recursions[r]).cwiseAbs().maxCoeff(), 1e-7) << "row " << r;
  fs::remove_all(cache);
}

// Inverse dynamics in the speeds from a motion given in the coordinates: u = W⁺ q̇ and
// u̇ = W⁺ (q̈ − γ) recovered, so τ = M̃ u̇ − f̃ at the speeds the motion has (a floating arm at
// random states), and the CLI's forces on a box spun up about its z axis and pushed along x:
// m ẍ and I_zz θ̈, nothing else.
TEST(DynamicsSpeeds, InverseDynamicsFromAMotionInTheCoordinatesActsOnTheSpeeds) {
  const auto robot = floating("satellite_arm.urdf");
  const auto dynamics = std::make_shared<const num::Dynamics>(robot);
  const num::InverseDynamics inverse(dynamics);
  ASSERT_TRUE(inverse.in_speeds());
  const auto n = static_cast<Eigen::Index>(robot->dof());
  const auto p = static_cast<Eigen::Index>(robot->speeds.size());
  EXPECT_EQ(inverse.force_count(), static_cast<std::size_t>(p));
  std::mt19937 engine(31);
  num::DynamicsWorkspace work;
  for (int s = 0; s < 5; ++s) {
    Eigen::VectorXd q = random_vector(engine, n, -1.0, 1.0);
    num::normalize_quaternions(*robot, q);
    const Eigen::VectorXd u = random_vector(engine, p, -1.0, 1.0),
                          udot = random_vector(engine, p, -2.0, 2.0);
    Eigen::VectorXd qd, qdd, f;
    Eigen::MatrixXd M;
    dynamics->coordinate_velocities(0.1, q, u, qd, work);
    dynamics->coordinate_accelerations(0.1, q, u, udot, qdd, work);
    dynamics->mass_matrix_and_forcing(0.1, q, u, M, f, work);
    const Eigen::VectorXd tau = inverse.driving_forces(0.1, q, qd, qdd);
    ASSERT_EQ(tau.size(), p);
    EXPECT_LE(relative(tau, M * udot - f), 1e-10) << "state " << s;
  }

  const fs::path dir =
      fs::temp_directory_path() / ("appell-inverse-speeds-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "forces.csv").string();
  const auto run = test_support::run_cli(
      "inverse " + examples +
      "/speeds/free_box_quaternion.yaml --trajectory 'x=t^2; y=0; z=0; e0=cos(t^2/2); e1=0; "
      "e2=0; e3=sin(t^2/2)' --t-end 1 --output-step 0.5 --out " +
      out);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("(6 speeds, the recursions)"), std::string::npos) << run.out;
  std::ifstream in(out);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header, "t,Q_vx,Q_vy,Q_vz,Q_w1,Q_w2,Q_w3");
  const double m = 2, a = 0.3, b = 0.2, izz = m * (a * a + b * b) / 12;  // θ = t², θ̈ = 2
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<double> cells;
    std::stringstream cut(line);
    for (std::string cell; std::getline(cut, cell, ',');) cells.push_back(std::stod(cell));
    ASSERT_EQ(cells.size(), 7u);
    EXPECT_NEAR(cells[1], 2 * m, 1e-12);
    EXPECT_NEAR(cells[6], 2 * izz, 1e-12);
    for (int k : {2, 3, 4, 5}) EXPECT_NEAR(cells[k], 0.0, 1e-12);
    ++rows;
  }
  EXPECT_EQ(rows, 3);
  // --method asks for the equations in the coordinates, which a quaternion model has not: exit 2
  // at the rotation, naming the frame.
  const auto refused = test_support::run_cli(
      "inverse " + examples +
      "/speeds/free_box_quaternion.yaml --method lagrange --trajectory 'x=t; y=0; z=0; e0=1; "
      "e1=0; e2=0; e3=0' --t-end 1 --output-step 0.5 --out " +
      out);
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("free_box_quaternion.yaml:"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("rot_quat"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("(box)"), std::string::npos) << refused.out;
  // A quaternion of length 0 has no speeds (W = ½E(0) = 0): exit 1 naming the time, the file
  // marked incomplete.
  const auto singular = test_support::run_cli(
      "inverse " + examples +
      "/speeds/free_box_quaternion.yaml --trajectory 'x=t; y=0; z=0; e0=0; e1=0; e2=0; e3=0' "
      "--t-end 1 --output-step 0.5 --out " +
      out);
  EXPECT_EQ(singular.code, 1) << singular.out;
  EXPECT_NE(singular.out.find("W (q' = W u) is singular at this state (t = 0)"), std::string::npos)
      << singular.out;
  EXPECT_NE(test_support::file_text(out).find("# incomplete:"), std::string::npos);
  fs::remove_all(dir);
}
