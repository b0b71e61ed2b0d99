// num::Dynamics, the numbers of a model from the recursions without forming its equations,
// against an independent route: the equations derived by Gibbs–Appell through GiNaC and their
// tape (CompiledEquations), at random states, for every example the recursions cover, chains, a
// branching tree with every kind of load, and the URDF robots. Then what only the recursions
// reach: a 100-link chain, where forward (articulated bodies) and inverse (Newton–Euler)
// dynamics undo each other and M q̈ by columns equals τ − τ(q̈ = 0); and threads sharing one
// Dynamics get the bits one thread gets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "support/c_compiler.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;
using test_support::spatial_chain_yaml;
using test_support::tree_yaml;

Eigen::VectorXd random_vector(std::mt19937& engine, std::size_t n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = u(engine);
  return v;
}

// Every function of Dynamics against the tape of the derived equations with the same values.
void check_against_equations(const std::shared_ptr<const model::Model>& model,
                             const model::Values& values = {}) {
  const num::Dynamics dynamics(model, values);
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations compiled(eq, values);
  const std::size_t n = model->dof();
  ASSERT_EQ(dynamics.dof(), n);
  std::mt19937 engine(20261126);
  num::DynamicsWorkspace work;
  for (int s = 0; s < 4; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const double t = 0.3 + 0.4 * s;
    const Eigen::VectorXd q = random_vector(engine, n, -1.2, 1.2),
                          qd = random_vector(engine, n, -2.0, 2.0),
                          qdd = random_vector(engine, n, -3.0, 3.0);
    Eigen::MatrixXd M_want, M;
    Eigen::VectorXd f_want, f, tau, h, a;
    compiled.evaluate(t, q, qd, M_want, f_want);
    const double scale = M_want.cwiseAbs().maxCoeff() * (1.0 + qdd.cwiseAbs().maxCoeff()) +
                         f_want.cwiseAbs().maxCoeff() + 1e-12;

    dynamics.mass_matrix_and_forcing(t, q, qd, M, f, work);
    EXPECT_LE((M - M_want).cwiseAbs().maxCoeff(), 1e-12 * scale) << "M\n" << M << "\n" << M_want;
    EXPECT_EQ(M, M.transpose());
    EXPECT_LE((f - f_want).cwiseAbs().maxCoeff(), 1e-11 * scale) << "f";
    dynamics.nonlinear_effects(t, q, qd, h, work);
    EXPECT_EQ(h, -f);

    dynamics.inverse_dynamics(t, q, qd, qdd, tau, work);
    EXPECT_LE((tau - (M_want * qdd - f_want)).cwiseAbs().maxCoeff(), 1e-11 * scale) << "tau";

    // With constraints q̈ and λ are solved with the rows: tests/test_dynamics_constraints.cpp.
    if (!model->constraints.empty()) continue;
    dynamics.accelerations(t, q, qd, a, work);
    const Eigen::VectorXd a_want = compiled.accelerations(M_want, f_want);
    const double cond = M_want.norm() * M_want.inverse().norm();
    EXPECT_LE((a - a_want).cwiseAbs().maxCoeff(),
              1e-12 * cond * (1.0 + a_want.cwiseAbs().maxCoeff()))
        << dynamics.forward_method();
    // Forward dynamics with extra forces undoes inverse dynamics.
    Eigen::VectorXd back;
    dynamics.accelerations(t, q, qd, back, work, tau);
    EXPECT_LE((back - qdd).cwiseAbs().maxCoeff(), 1e-12 * cond * (1.0 + qdd.cwiseAbs().maxCoeff()));
  }
}

std::vector<std::string> covered_examples() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class DynamicsExample : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicsExample, AgreesWithTheFormedEquations) {
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + GetParam() + ".yaml");
  const std::string reason = principles::recursions_do_not_cover(*model);
  if (!reason.empty()) {
    // Refused with the reason, never wrong numbers.
    try {
      num::Dynamics refused(model);
      ADD_FAILURE() << "built for a model the recursions do not cover: " << reason;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
    return;
  }
  model::Values values;
  for (const auto& input : model->inputs) values.set(input.name, 0.7);
  check_against_equations(model, values);
}

INSTANTIATE_TEST_SUITE_P(Dynamics, DynamicsExample, ::testing::ValuesIn(covered_examples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(Dynamics, ChainsAgreeWithTheFormedEquations) {
  for (int n : {1, 2, 7}) {
    SCOPED_TRACE(std::to_string(n) + " links");
    check_against_equations(io::parse_model(spatial_chain_yaml(n), "chain.yaml"));
  }
  check_against_equations(io::parse_model(spatial_chain_yaml(9, true), "planar.yaml"));
}

TEST(Dynamics, BranchingTreeWithEveryLoadAgreesWithTheFormedEquations) {
  model::Values values;
  values.set("u", 0.4);
  values.set("m", 1.1);  // a parameter folded into the program
  check_against_equations(io::parse_model(tree_yaml, "tree.yaml"), values);
}

TEST(Dynamics, UrdfRobotsAgreeWithTheFormedEquations) {
  for (const char* robot : {"ur5_robot.urdf", "panda.urdf"}) {
    SCOPED_TRACE(robot);
    check_against_equations(
        io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/" + robot));
  }
}

// g(q) is what holds the model still: M q̈ = f + g at rest gives q̈ = 0.
TEST(Dynamics, GravityHoldsTheRobotStill) {
  const auto model = io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/panda.urdf");
  const num::Dynamics dynamics(model);
  num::DynamicsWorkspace work;
  std::mt19937 engine(7);
  const Eigen::VectorXd q = random_vector(engine, dynamics.dof(), -1.0, 1.0);
  const Eigen::VectorXd rest = Eigen::VectorXd::Zero(q.size());
  Eigen::VectorXd g, qdd, f;
  dynamics.gravity(0.0, q, g, work);
  EXPECT_GT(g.cwiseAbs().maxCoeff(), 1.0);  // the arm is heavy
  dynamics.accelerations(0.0, q, rest, qdd, work, g);
  EXPECT_LE(qdd.cwiseAbs().maxCoeff(), 1e-10);
  dynamics.forcing(0.0, q, rest, f, work);
  EXPECT_LE((f + g).cwiseAbs().maxCoeff(), 1e-12 * g.cwiseAbs().maxCoeff());
}

// A chain no formed equations reach in reasonable time: three algorithms agree with each other
// (articulated bodies, Newton–Euler, M by Newton–Euler columns) and the kinetic energy's rate
// equals the power of gravity.
TEST(Dynamics, HundredLinkChainIsSelfConsistent) {
  const auto model = io::parse_model(spatial_chain_yaml(100), "chain100.yaml");
  const num::Dynamics dynamics(model);
  EXPECT_EQ(dynamics.forward_method(), "articulated bodies");
  num::DynamicsWorkspace work;
  std::mt19937 engine(100);
  const std::size_t n = dynamics.dof();
  const Eigen::VectorXd q = random_vector(engine, n, -1.0, 1.0),
                        qd = random_vector(engine, n, -0.5, 0.5);
  Eigen::VectorXd qdd, tau, f, g;
  Eigen::MatrixXd M;
  dynamics.accelerations(0.0, q, qd, qdd, work);
  dynamics.inverse_dynamics(0.0, q, qd, qdd, tau, work);
  EXPECT_LE(tau.cwiseAbs().maxCoeff(), 1e-8) << "inverse(forward) is not zero";
  dynamics.mass_matrix_and_forcing(0.0, q, qd, M, f, work);
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  ASSERT_EQ(llt.info(), Eigen::Success);
  EXPECT_LE((M * qdd - f).norm(), 1e-8 * f.norm());
  // dT/dt = q̇ᵀ M q̈ + ½ q̇ᵀ Ṁ q̇ = q̇ᵀ(f_gravity-only power): with gravity the only force,
  // q̇ᵀ M q̈ + ½ q̇ᵀ Ṁ q̇ = −q̇ᵀ g(q); Ṁ by a central difference along q̇.
  const double step = 1e-6;
  Eigen::MatrixXd M_plus, M_minus;
  dynamics.mass_matrix(0.0, q + step * qd, M_plus, work);
  dynamics.mass_matrix(0.0, q - step * qd, M_minus, work);
  const Eigen::MatrixXd M_dot = (M_plus - M_minus) / (2 * step);
  dynamics.gravity(0.0, q, g, work);
  const double power = qd.dot(M * qdd) + 0.5 * qd.dot(M_dot * qd);
  EXPECT_NEAR(power, -qd.dot(g), 1e-5 * (std::fabs(power) + qd.norm() * g.norm()));
}

// `run(out)` fills out[s] for each of `states` states: by one thread, then by eight at once,
// which must give the same bits.
template <typename Run>
void expect_threads_give_the_bits_of_one(std::size_t states, const Run& run) {
  std::vector<Eigen::VectorXd> alone(states);
  run(alone);
  std::vector<std::vector<Eigen::VectorXd>> shared(8, std::vector<Eigen::VectorXd>(states));
  std::vector<std::thread> threads;
  for (auto& out : shared) threads.emplace_back([&run, &out] { run(out); });
  for (auto& thread : threads) thread.join();
  for (const auto& out : shared)
    for (std::size_t s = 0; s < states; ++s) {
      ASSERT_EQ(out[s].size(), alone[s].size()) << "state " << s;
      ASSERT_EQ(std::memcmp(out[s].data(), alone[s].data(),
                            sizeof(double) * static_cast<std::size_t>(alone[s].size())),
                0)
          << "state " << s;
    }
}

// One Dynamics, eight threads, each with its own workspace: the bits of one thread.
TEST(Dynamics, ThreadsSharingOneDynamicsGetTheBitsOfOneThread) {
  const auto model = io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/panda.urdf");
  const num::Dynamics dynamics(model);
  const std::size_t n = dynamics.dof();
  std::mt19937 engine(8);
  std::vector<Eigen::VectorXd> qs, qds;
  for (int s = 0; s < 200; ++s) {
    qs.push_back(random_vector(engine, n, -2.0, 2.0));
    qds.push_back(random_vector(engine, n, -2.0, 2.0));
  }
  auto run = [&](std::vector<Eigen::VectorXd>& out) {
    num::DynamicsWorkspace work;
    Eigen::VectorXd qdd, tau;
    for (std::size_t s = 0; s < qs.size(); ++s) {
      dynamics.accelerations(0.1, qs[s], qds[s], qdd, work);
      dynamics.inverse_dynamics(0.1, qs[s], qds[s], qdd, tau, work);
      out[s].resize(2 * static_cast<Eigen::Index>(n));
      out[s] << qdd, tau;
    }
  };
  expect_threads_give_the_bits_of_one(qs.size(), run);
}

// The JIT's compiled recursions shared the same way (a num::Dynamics calling pure functions of
// the loaded object, each thread with its workspace): eight threads get the bits of one thread,
// the interpreted energies and g it keeps beside them included.
TEST(DynamicsJit, ThreadsSharingOneCompiledDynamicsGetTheBitsOfOneThread) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache =
      fs::temp_directory_path() / ("appell-dynamics-threads-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  const auto model = io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/panda.urdf");
  const num::Dynamics dynamics = jit::compile_dynamics(model, {}, options);
  ASSERT_STREQ(dynamics.kind(), "jit") << dynamics.compilation().note;
  const std::size_t n = dynamics.dof();
  std::mt19937 engine(9);
  std::vector<Eigen::VectorXd> qs, qds;
  for (int s = 0; s < 200; ++s) {
    qs.push_back(random_vector(engine, n, -2.0, 2.0));
    qds.push_back(random_vector(engine, n, -2.0, 2.0));
  }
  auto run = [&](std::vector<Eigen::VectorXd>& out) {
    Eigen::VectorXd qdd, tau, f, g;
    Eigen::MatrixXd M;
    num::DynamicsWorkspace work;
    double T = 0, V = 0;
    for (std::size_t s = 0; s < qs.size(); ++s) {
      dynamics.accelerations(0.1, qs[s], qds[s], qdd, work);
      dynamics.inverse_dynamics(0.1, qs[s], qds[s], qdd, tau, work);
      dynamics.mass_matrix_and_forcing(0.1, qs[s], qds[s], M, f, work);
      dynamics.gravity(0.1, qs[s], g, work);
      dynamics.energies(0.1, qs[s], qds[s], T, V, work);
      const auto m = static_cast<Eigen::Index>(n);
      out[s].resize(4 * m + m * m + 2);
      out[s] << qdd, tau, f, g, M.reshaped(), T, V;
    }
  };
  expect_threads_give_the_bits_of_one(qs.size(), run);
  fs::remove_all(cache);
}

TEST(Dynamics, RefusesWhatTheRecursionsDoNotCoverAndBadValues) {
  // A particle that moves in its frame is not carried rigidly by it: the formed equations.
  const auto sliding = io::parse_model(
      "name: s\nparameters: {m: 2, l: 0.5}\ncoordinates: [q, x]\nframes:\n"
      "  arm: {parent: world, rotation: rot_z(q)}\n"
      "particles:\n  bead: {frame: arm, mass: m, position: [x + l, 0, 0]}\n",
      "sliding.yaml");
  EXPECT_EQ(principles::recursions_do_not_cover(*sliding),
            "particle bead, which moves in its frame");
  EXPECT_THROW(num::Dynamics{sliding}, std::invalid_argument);
  const auto chain = io::parse_model(spatial_chain_yaml(2), "chain.yaml");
  model::Values unknown;
  unknown.set("no_such_parameter", 1.0);
  EXPECT_THROW((num::Dynamics{chain, unknown}), model::ModelError);
  const num::Dynamics dynamics(chain);
  num::DynamicsWorkspace work;
  Eigen::VectorXd qdd;
  EXPECT_THROW(
      dynamics.accelerations(0.0, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(2), qdd, work),
      std::invalid_argument);
}

}  // namespace

namespace {

// The simulation of a model without its equations (num::simulate of the model: num::Dynamics for
// q̈, T and V from the recursions) against the simulation of its formed equations: the same
// rows, energies and verdict on conservation.
void check_simulations_agree(const std::shared_ptr<const model::Model>& model,
                             const model::Values& values = {}) {
  num::SimulationOptions options;
  options.t_end = 1.0;
  options.output_step = 0.25;
  options.rtol = options.atol = 1e-10;
  options.values = values;
  std::vector<std::vector<double>> by_model, by_equations;
  auto recorder = [](std::vector<std::vector<double>>& rows) {
    return [&rows](const num::SimulationRow& row) {
      std::vector<double> r{row.t, row.kinetic, row.potential};
      r.insert(r.end(), row.q.data(), row.q.data() + row.q.size());
      r.insert(r.end(), row.qd.data(), row.qd.data() + row.qd.size());
      rows.push_back(r);
    };
  };
  const num::SimulationResult a = num::simulate(model, options, recorder(by_model));
  const num::SimulationResult b = num::simulate(
      principles::derive(model, principles::Method::GibbsAppell), options, recorder(by_equations));
  EXPECT_EQ(a.conservative, b.conservative)
      << a.not_conservative_because << " / " << b.not_conservative_because;
  EXPECT_EQ(a.not_conservative_because, b.not_conservative_because);
  ASSERT_EQ(by_model.size(), by_equations.size());
  for (std::size_t r = 0; r < by_model.size(); ++r)
    for (std::size_t k = 0; k < by_model[r].size(); ++k)
      EXPECT_NEAR(by_model[r][k], by_equations[r][k], 1e-7 * (1.0 + std::fabs(by_equations[r][k])))
          << "row " << r << ", column " << k;
}

}  // namespace

TEST(DynamicsSimulation, AgreesWithTheFormedEquationsOnExamples) {
  for (const char* name : {"double_pendulum", "spring_damper_cart", "bead_on_hoop",
                           "turntable_pendulum", "spinning_disk", "three_link_arm"}) {
    SCOPED_TRACE(name);
    const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
    ASSERT_EQ(principles::recursions_do_not_cover(*model), "");
    check_simulations_agree(model);
  }
}

TEST(DynamicsSimulation, AgreesOnTheTreeWithEveryLoad) {
  model::Values values;
  values.set("u", 0.4);
  check_simulations_agree(io::parse_model(tree_yaml, "tree.yaml"), values);
}

// The JIT of a model's recursions (jit::compile_dynamics(model)): the numbers of num::Dynamics;
// found again in the cache for the same model written differently (whitespace, comments, key
// order), compiled anew when a value the code folds changes (a parameter of the geometry is a
// struct member, passed at run time: the same code).
TEST(DynamicsJit, CompiledRecursionsAgreeAndTheCacheKeyFollowsTheCode) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache =
      fs::temp_directory_path() / ("appell-dynamics-jit-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  const std::string plain = spatial_chain_yaml(4);
  std::string spaced = "# the same chain, written otherwise\n" + plain;
  for (std::size_t at = spaced.find(", "); at != std::string::npos; at = spaced.find(", ", at + 3))
    spaced.replace(at, 2, " ,  ");
  const auto a = io::parse_model(plain, "chain.yaml");
  const auto b = io::parse_model(spaced, "chain.yaml");
  const num::Dynamics first = jit::compile_dynamics(a, {}, options);
  ASSERT_STREQ(first.kind(), "jit") << first.compilation().note;
  EXPECT_TRUE(first.compilation().compiled_now);
  const num::Dynamics again = jit::compile_dynamics(b, {}, options);
  EXPECT_FALSE(again.compilation().compiled_now) << "whitespace and comments changed the key";
  EXPECT_EQ(again.compilation().library_path, first.compilation().library_path);
  model::Values heavier;
  heavier.set("m", 3.0);  // a struct member of the generated code: the same library
  EXPECT_EQ(jit::compile_dynamics(a, heavier, options).compilation().library_path,
            first.compilation().library_path);
  // A different axis is different code.
  std::string turned = plain;
  turned.replace(turned.find("rot_z(q3)"), 9, "rot_x(q3)");
  const num::Dynamics other =
      jit::compile_dynamics(io::parse_model(turned, "chain.yaml"), {}, options);
  EXPECT_NE(other.compilation().library_path, first.compilation().library_path);

  const num::Dynamics interpreted(a, heavier);
  const num::Dynamics compiled = jit::compile_dynamics(a, heavier, options);
  // The first library with the heavier numbers bound (a sweep's case): nothing compiled, the
  // bits of the library compiled for them, and energies from programs built on first need.
  const num::Dynamics rebound = first.with_values(heavier);
  EXPECT_STREQ(rebound.kind(), "jit");
  std::mt19937 engine(4);
  num::DynamicsWorkspace work;
  for (int s = 0; s < 5; ++s) {
    const Eigen::VectorXd q = random_vector(engine, 4, -1.5, 1.5),
                          qd = random_vector(engine, 4, -2.0, 2.0);
    Eigen::VectorXd want, got, tau_want, tau_got, again_got;
    interpreted.accelerations(0.2, q, qd, want, work);
    compiled.accelerations(0.2, q, qd, got, work);
    EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-10 * (1.0 + want.cwiseAbs().maxCoeff()));
    rebound.accelerations(0.2, q, qd, again_got, work);
    EXPECT_EQ(again_got, got);
    interpreted.inverse_dynamics(0.2, q, qd, want, tau_want, work);
    compiled.inverse_dynamics(0.2, q, qd, want, tau_got, work);
    EXPECT_LE((tau_got - tau_want).cwiseAbs().maxCoeff(), 1e-10);
    double T_want = 0, V_want = 0, T_got = 0, V_got = 0;
    interpreted.energies(0.2, q, qd, T_want, V_want, work);
    rebound.energies(0.2, q, qd, T_got, V_got, work);
    EXPECT_EQ(T_got, T_want);
    EXPECT_EQ(V_got, V_want);
  }
  // The unbound first library gives the lighter chain's numbers still: with_values copies.
  Eigen::VectorXd light, heavy;
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(4, 0.3), qd = Eigen::VectorXd::Zero(4);
  first.mass_matrix_and_forcing(0.0, q, qd, work.M, light, work);
  rebound.mass_matrix_and_forcing(0.0, q, qd, work.M, heavy, work);
  EXPECT_GT((heavy - light).norm(), 1e-3);
  fs::remove_all(cache);
}

// A function driven by an expression that uses a parameter (u = 10 k sin t) follows the value
// given to that parameter in the compiled code too: the code keeps k a member read at run time
// (it once baked k's default into the driven term, so --set k=0 left a force 10·40·sin t).
TEST(DynamicsJit, DrivenExpressionsFollowTheParametersGiven) {
  if (!test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const fs::path cache =
      fs::temp_directory_path() / ("appell-dynamics-driven-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  jit::JitOptions options;
  options.compiler.cache_directory = cache;
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/spring_damper_cart.yaml");
  for (const double k : {0.0, 40.0, 7.5}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    model::Values values;
    values.set("k", k).drive("u", num::parse_time_function(*model, "10*k*sin(t)"));
    const num::Dynamics interpreted(model, values);
    const num::Dynamics compiled = jit::compile_dynamics(model, values, options);
    ASSERT_STREQ(compiled.kind(), "jit") << compiled.compilation().note;
    const Eigen::VectorXd q = Eigen::Vector2d(0.1, 0.4), qd = Eigen::Vector2d(-0.3, 0.8);
    Eigen::VectorXd want, got;
    num::DynamicsWorkspace work;
    interpreted.accelerations(1.0, q, qd, want, work);
    compiled.accelerations(1.0, q, qd, got, work);
    EXPECT_LE((got - want).cwiseAbs().maxCoeff(), 1e-10 * (1.0 + want.cwiseAbs().maxCoeff()));
  }
  fs::remove_all(cache);
}
