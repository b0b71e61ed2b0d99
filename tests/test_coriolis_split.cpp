// The split M q̈ + C(q, q̇) q̇ + g(q) = Q (principles/coriolis_split.hpp): Ṁ − 2C skew-symmetric
// (symbolically and at random states, Ṁ by the chain rule through q), the split reproducing
// f (C q̇ + g − Q = −f, symbolically and at random states for every example it covers), C of
// the planar 2R arm against the textbook closed form, g against the generalized forces of
// gravity at rest, the named terms of prescribed and carrier motion against hand derivations,
// and the command line (derive --split, eval --split, codegen's coriolis_matrix).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/examples.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
using GiNaC::ex;
using test_support::run_cli;

std::string example(const std::string& name) {
  return std::string(APPELL_EXAMPLES_DIR) + "/" + name;
}

std::shared_ptr<const model::Model> model_of(const std::string& name) {
  if (name.ends_with(".urdf")) return io::read_urdf_file(example("urdf/" + name));
  return io::read_model_file(example(name));
}

sym::ReadableContext context_of(const model::Model& m) { return principles::readable_context(m); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool simplifies_to_zero(const ex& e, const model::Model& m) {
  return sym::readable(e, context_of(m)).is_zero();
}

// Entries evaluated at a state by a tape of their own (not the split's): parameters at their
// defaults, t, q, q̇ given, every other symbol (prescribed functions and their derivatives) at
// `others`.
Eigen::MatrixXd evaluated(const model::Model& m, const GiNaC::matrix& entries, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double others) {
  GiNaC::exmap values = m.parameter_substitution();
  GiNaC::exvector all;
  for (unsigned i = 0; i < entries.rows(); ++i)
    for (unsigned j = 0; j < entries.cols(); ++j)
      all.push_back(sym::substitute(entries(i, j), values));
  std::vector<GiNaC::symbol> variables{m.time_functions->time()};
  for (std::size_t k = 0; k < m.dof(); ++k) variables.push_back(m.coordinate_symbol(k));
  for (std::size_t k = 0; k < m.dof(); ++k) variables.push_back(m.coordinate_symbol(k, 1));
  std::vector<double> x{t};
  x.insert(x.end(), q.data(), q.data() + q.size());
  x.insert(x.end(), qd.data(), qd.data() + qd.size());
  sym::SymbolSet rest = sym::symbols_in(all);
  for (const auto& v : variables) rest.erase(v);
  for (const auto& s : rest) {
    variables.push_back(GiNaC::ex_to<GiNaC::symbol>(s));
    x.push_back(others);
  }
  const sym::Tape tape(all, variables);
  std::vector<double> out(all.size()), workspace;
  tape.evaluate(x.data(), out.data(), workspace);
  Eigen::MatrixXd result(entries.rows(), entries.cols());
  for (unsigned i = 0; i < entries.rows(); ++i)
    for (unsigned j = 0; j < entries.cols(); ++j) result(i, j) = out[i * entries.cols() + j];
  return result;
}

Eigen::VectorXd random_vector(std::mt19937& rng, std::size_t n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index k = 0; k < v.size(); ++k) v[k] = u(rng);
  return v;
}

// The examples the split covers: equations in the coordinates (no generalized speeds).
std::vector<std::filesystem::path> covered_examples() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// --- Ṁ − 2C skew-symmetric --------------------------------------------------------------------

class SkewSymmetry : public ::testing::TestWithParam<std::string> {};

TEST_P(SkewSymmetry, SymbolicallyWithTheChainRule) {
  const auto m = model_of(GetParam());
  const auto eq = principles::derive(m, principles::Method::GibbsAppell);
  const auto split = principles::coriolis_split(eq);
  const GiNaC::matrix n =
      principles::mass_matrix_rate_along_q(*m, eq.mass_matrix).sub(split.coriolis.mul_scalar(2));
  for (unsigned i = 0; i < n.rows(); ++i)
    for (unsigned j = i; j < n.cols(); ++j)
      EXPECT_TRUE(simplifies_to_zero(n(i, j) + n(j, i), *m)) << GetParam() << " at " << i << j;
  // Not trivially: the arm's C is not zero.
  EXPECT_FALSE(sym::readable(split.coriolis, context_of(*m)).is_zero_matrix()) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Examples, SkewSymmetry,
                         ::testing::Values("double_pendulum.yaml", "planar_2r.yaml",
                                           "three_link_arm.yaml", "heavy_top.yaml",
                                           "two_link.urdf"));

class SkewAtStates : public ::testing::TestWithParam<std::string> {};

TEST_P(SkewAtStates, AndTheSplitReproducesTheForcing) {
  const auto m = model_of(GetParam());
  const auto eq = principles::derive(m, principles::Method::GibbsAppell);
  const auto split = principles::coriolis_split(eq);
  const GiNaC::matrix rate = principles::mass_matrix_rate_along_q(*m, eq.mass_matrix);
  const num::CompiledSplit compiled(split);
  const num::CompiledEquations equations(eq);
  std::mt19937 rng(29);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd q = random_vector(rng, m->dof(), 3.0),
                          qd = random_vector(rng, m->dof(), 2.0);
    const num::SplitEvaluation s = compiled.evaluate(0.4, q, qd);
    const Eigen::MatrixXd n = evaluated(*m, rate, 0.4, q, qd, 0.0) - 2 * s.coriolis;
    const double scale = 1.0 + s.coriolis.norm();
    EXPECT_LT((n + n.transpose()).norm(), 1e-11 * scale) << GetParam();
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    equations.evaluate(0.4, q, qd, M, f);
    EXPECT_LT((s.nonlinear_effects() + f).norm(), 1e-10 * (1.0 + f.norm())) << GetParam();
    EXPECT_LT((s.mass_matrix - M).norm(), 1e-12 * M.norm()) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, SkewAtStates,
                         ::testing::Values("double_pendulum.yaml", "planar_2r.yaml",
                                           "three_link_arm.yaml", "heavy_top.yaml", "two_link.urdf",
                                           "ur5_robot.urdf"));

// --- C q̇ + g − Q = −f -------------------------------------------------------------------------

TEST(CoriolisSplit, ReproducesTheForcingOfEveryExampleAtRandomStates) {
  std::size_t covered = 0, moving = 0;
  for (const auto& file : covered_examples()) {
    const auto m = io::read_model_file(file.string());
    if (m->has_speeds() || m->dof() == 0) continue;
    const auto eq = principles::derive(m, principles::Method::Lagrange);
    const auto split = principles::coriolis_split(eq);
    ++covered;
    moving += split.moving ? 1 : 0;
    // Inputs and unspecified prescribed functions get numbers, so that their terms count.
    model::Values values;
    for (const auto& input : m->inputs) values.set(input.name, 0.7);
    for (const auto& p : m->prescribed)
      if (!p.expression)
        for (const char* form : {"%s", "dot(%s)", "ddot(%s)"}) {
          std::string name = form;
          name.replace(name.find("%s"), 2, p.name);
          values.set(name, 0.3 + static_cast<double>(name.size()) / 10);
        }
    const num::CompiledSplit compiled(split, values);
    const num::CompiledEquations equations(eq, values);
    std::mt19937 rng(7);
    for (int trial = 0; trial < 3; ++trial) {
      Eigen::VectorXd q = random_vector(rng, m->dof(), 1.0), qd = random_vector(rng, m->dof(), 1.0);
      Eigen::MatrixXd M;
      Eigen::VectorXd f;
      equations.evaluate(0.3 * trial, q, qd, M, f);
      const Eigen::VectorXd h = compiled.evaluate(0.3 * trial, q, qd).nonlinear_effects();
      if (!f.allFinite()) continue;  // a closed chain's coordinates off its constraints
      EXPECT_LT((h + f).norm(), 1e-9 * (1.0 + f.norm())) << file.filename();
    }
  }
  EXPECT_GE(covered, 15u);
  EXPECT_GE(moving, 4u);  // the turntable, hoop, carrier and block examples
}

TEST(CoriolisSplit, ReproducesTheForcingOfATreeWithEveryLoad) {
  const auto m = io::parse_model(test_support::tree_yaml, "tree.yaml");
  const auto eq = principles::derive(m, principles::Method::Dalembert);
  const auto split = principles::coriolis_split(eq);
  EXPECT_FALSE(split.moving);
  model::Values values;
  values.set("u", -1.2);
  const num::CompiledSplit compiled(split, values);
  const num::CompiledEquations equations(eq, values);
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd q = random_vector(rng, m->dof(), 1.0),
                          qd = random_vector(rng, m->dof(), 1.5);
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    equations.evaluate(0, q, qd, M, f);
    const num::SplitEvaluation s = compiled.evaluate(0, q, qd);
    EXPECT_LT((s.nonlinear_effects() + f).norm(), 1e-10 * (1.0 + f.norm()));
    // The spring and the potential load are in g, the damper and the generalized load in Q:
    // at rest Q holds no velocity term, and Q changes with q̇ only through the damper and
    // the generalized load's -c dot(s).
    const num::SplitEvaluation rest = compiled.evaluate(0, q, Eigen::VectorXd::Zero(6));
    EXPECT_GT((s.loads - rest.loads).norm(), 1e-3);
    EXPECT_LT((s.gravity - rest.gravity).norm(), 1e-12 * (1.0 + s.gravity.norm()));
  }
}

TEST(CoriolisSplit, ReproducesTheForcingSymbolically) {
  for (const char* name : {"double_pendulum.yaml", "planar_2r.yaml", "heavy_top.yaml",
                           "bead_on_hoop.yaml", "rod_on_rotating_axes.yaml",
                           "pendulum_on_translating_block.yaml", "spring_damper_cart.yaml"}) {
    const auto m = model_of(name);
    const auto eq = principles::derive(m, principles::Method::Nielsen);
    const GiNaC::matrix r = principles::split_residual(principles::coriolis_split(eq), eq);
    for (unsigned i = 0; i < r.rows(); ++i) EXPECT_TRUE(simplifies_to_zero(r(i, 0), *m)) << name;
  }
}

// --- closed forms -------------------------------------------------------------------------------

// planar_2r: two uniform rods of mass M and length l (centre at l/2, I = M l²/12 about it).
// With m2 = M, l1 = l, lc2 = l/2, the textbook h = −m2 l1 lc2 sin(q2) = −M l² sin(q2)/2 and
// C = [[h q̇2, h (q̇1 + q̇2)], [−h q̇1, 0]]; V = M g (3l/2 sin q1 + l/2 sin(q1 + q2)) with
// gravity along −y, so g = M g l [3/2 cos q1 + 1/2 cos(q1 + q2), 1/2 cos(q1 + q2)]; the
// payload force −M_S g ŷ at the tip is a load: Q = −M_S g l [cos q1 + cos(q1 + q2),
// cos(q1 + q2)].
TEST(CoriolisSplit, PlanarTwoLinkArmAgainstTheTextbook) {
  const auto m = model_of("planar_2r.yaml");
  const auto split =
      principles::coriolis_split(principles::derive(m, principles::Method::Lagrange));
  EXPECT_FALSE(split.moving);
  const auto param = [&](const char* name) { return m->find_parameter(name)->symbol; };
  const ex M = param("M"), l = param("l"), MS = param("M_S"), g = param("g");
  const ex q1 = m->coordinate_symbol(0), q2 = m->coordinate_symbol(1);
  const ex v1 = m->coordinate_symbol(0, 1), v2 = m->coordinate_symbol(1, 1);
  const ex h = -M * l * l * sin(q2) / 2;
  const GiNaC::matrix C = {{h * v2, h * (v1 + v2)}, {-h * v1, 0}};
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j)
      EXPECT_TRUE(simplifies_to_zero(split.coriolis(i, j) - C(i, j), *m)) << i << j;
  const ex g1 = M * g * l * (ex(3) / 2 * cos(q1) + cos(q1 + q2) / 2),
           g2 = M * g * l * cos(q1 + q2) / 2;
  EXPECT_TRUE(simplifies_to_zero(split.gravity(0, 0) - g1, *m));
  EXPECT_TRUE(simplifies_to_zero(split.gravity(1, 0) - g2, *m));
  EXPECT_TRUE(simplifies_to_zero(split.loads(0, 0) + MS * g * l * (cos(q1) + cos(q1 + q2)), *m));
  EXPECT_TRUE(simplifies_to_zero(split.loads(1, 0) + MS * g * l * cos(q1 + q2), *m));
}

// g against the generalized forces of gravity at rest: with no other load, f(q, 0) = −g(q).
TEST(CoriolisSplit, GravityIsWhatHoldsTheModelAtRest) {
  for (const char* name : {"double_pendulum.yaml", "heavy_top.yaml", "ur5_robot.urdf"}) {
    const auto m = model_of(name);
    const auto eq = principles::derive(m, principles::Method::GibbsAppell);
    const num::CompiledSplit compiled(principles::coriolis_split(eq));
    const num::CompiledEquations equations(eq);
    std::mt19937 rng(3);
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd q = random_vector(rng, m->dof(), 2.0),
                            rest = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m->dof()));
      Eigen::MatrixXd M;
      Eigen::VectorXd f;
      equations.evaluate(0, q, rest, M, f);
      const num::SplitEvaluation s = compiled.evaluate(0, q, rest);
      EXPECT_GT(s.gravity.norm(), 0.1) << name;
      EXPECT_LT((s.gravity + f).norm(), 1e-10 * (1.0 + f.norm())) << name;
      EXPECT_LT(s.loads.norm(), 1e-12) << name;
    }
  }
}

// --- prescribed and carrier motion
// ----------------------------------------------------------------

// A bead of mass m in a plane turning at the constant rate omega, (x, y) in the plane:
// T = ½ m ((ẋ − ω y)² + (ẏ + ω x)²), b = m ω (−y, x), so G = 2 m ω [[0, −1], [1, 0]] (the Coriolis
// force of the turning frame) and p = −∂T₀/∂q = −m ω² (x, y) (the centrifugal force, on the left).
TEST(CoriolisSplit, TurningPlaneHasGyroscopicAndCentrifugalTerms) {
  const auto m = io::parse_model(R"(name: turning-plane
parameters: {m: 2.0, omega: 3.0}
coordinates: [x, y]
prescribed: {psi: omega*t}
frames:
  plate: {rotation: rot_z(psi)}
  slider: {parent: plate, translation: [x, y, 0]}
particles:
  bead: {frame: slider, mass: m}
)",
                                 "turning_plane.yaml");
  const auto eq = principles::derive(m, principles::Method::GibbsAppell);
  const auto split = principles::coriolis_split(eq);
  ASSERT_TRUE(split.moving);
  const ex mass = m->find_parameter("m")->symbol, w = m->find_parameter("omega")->symbol;
  const ex x = m->coordinate_symbol(0), y = m->coordinate_symbol(1);
  const GiNaC::matrix G = {{0, -2 * mass * w}, {2 * mass * w, 0}};
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j) {
      EXPECT_TRUE(simplifies_to_zero(split.gyroscopic(i, j) - G(i, j), *m)) << i << j;
      EXPECT_TRUE(simplifies_to_zero(split.coriolis(i, j), *m)) << i << j;
      EXPECT_TRUE(simplifies_to_zero(split.mass_rate(i, j), *m)) << i << j;
    }
  EXPECT_TRUE(simplifies_to_zero(split.prescribed_motion(0, 0) + mass * w * w * x, *m));
  EXPECT_TRUE(simplifies_to_zero(split.prescribed_motion(1, 0) + mass * w * w * y, *m));
  const GiNaC::matrix r = principles::split_residual(split, eq);
  for (unsigned i = 0; i < 2; ++i) EXPECT_TRUE(simplifies_to_zero(r(i, 0), *m));
}

// A particle on an arm of prescribed length L(t) turned by q: M = m L², so ∂M/∂t = 2 m L L̇, and
// the equation m L² q̈ + 2 m L L̇ q̇ = 0 holds its angular momentum.
TEST(CoriolisSplit, TelescopingArmHasAMassRate) {
  const auto m = io::parse_model(R"(name: telescope
parameters: {m: 0.5, l0: 1.0, a: 0.2}
coordinates: [q]
prescribed: {L: l0 + a*sin(t)}
frames:
  arm: {rotation: rot_z(q)}
particles:
  tip: {frame: arm, mass: m, position: [L, 0, 0]}
)",
                                 "telescope.yaml");
  const auto eq = principles::derive(m, principles::Method::Lagrange);
  const auto split = principles::coriolis_split(eq);
  ASSERT_TRUE(split.moving);
  const ex mass = m->find_parameter("m")->symbol, l0 = m->find_parameter("l0")->symbol,
           a = m->find_parameter("a")->symbol, t = m->time_functions->time();
  const ex L = l0 + a * sin(t);
  EXPECT_TRUE(simplifies_to_zero(split.mass_rate(0, 0) - 2 * mass * L * a * cos(t), *m));
  EXPECT_TRUE(simplifies_to_zero(split.coriolis(0, 0), *m));
  EXPECT_TRUE(simplifies_to_zero(split.prescribed_motion(0, 0), *m));
  EXPECT_TRUE(simplifies_to_zero(principles::split_residual(split, eq)(0, 0), *m));
}

// bead_on_hoop: T = ½ m R² (θ̇² + ω² sin²θ), so p = −m R² ω² sin θ cos θ and nothing else moves.
TEST(CoriolisSplit, BeadOnHoopHasTheCentrifugalTermOnly) {
  const auto m = model_of("bead_on_hoop.yaml");
  const auto split = principles::coriolis_split(principles::derive(m, principles::Method::Gauss));
  ASSERT_TRUE(split.moving);
  const ex mass = m->find_parameter("m")->symbol, R = m->find_parameter("R")->symbol,
           w = m->find_parameter("omega")->symbol, g = m->find_parameter("g")->symbol;
  const ex th = m->coordinate_symbol(0);
  EXPECT_TRUE(simplifies_to_zero(
      split.prescribed_motion(0, 0) + mass * R * R * w * w * sin(th) * cos(th), *m));
  EXPECT_TRUE(simplifies_to_zero(split.gravity(0, 0) - mass * g * R * sin(th), *m));
  EXPECT_TRUE(simplifies_to_zero(split.mass_rate(0, 0), *m));
  EXPECT_TRUE(simplifies_to_zero(split.gyroscopic(0, 0), *m));
}

TEST(CoriolisSplit, RefusesEquationsOfHigherOrder) {
  const auto m = model_of("double_pendulum.yaml");
  EXPECT_THROW(principles::coriolis_split(principles::derive_gibbs_appell(m, 2)),
               model::ModelError);
}

// --- the command line ---------------------------------------------------------------------------

TEST(CoriolisSplitCli, DeriveJsonHasTheSplitsKeys) {
  const auto r = run_cli("derive " + example("planar_2r.yaml") + " --split --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto json = nlohmann::json::parse(r.out);
  for (const char* key : {"mass_matrix", "coriolis", "gravity", "loads", "forcing"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_FALSE(json.contains("mass_rate"));
  EXPECT_EQ(json["coriolis"].size(), 2u);
  EXPECT_EQ(json["coriolis"][1][1], "0");
  EXPECT_EQ(json["split_proved"], true);
  // The entry it prints is the textbook's h q̇2 (h = −M l² sin(q2)/2), read the same way.
  const auto m = model_of("planar_2r.yaml");
  const ex expected = -m->find_parameter("M")->symbol * pow(m->find_parameter("l")->symbol, 2) *
                      sin(m->coordinate_symbol(1)) / 2 * m->coordinate_symbol(1, 1);
  EXPECT_EQ(json["coriolis"][0][0],
            io::expression_text(sym::readable(expected, context_of(*m)), *m));
}

TEST(CoriolisSplitCli, DeriveTextAndLatexOfAMovingModelNameTheExtraTerms) {
  const auto text = run_cli("derive " + example("turntable_pendulum.yaml") + " --split");
  ASSERT_EQ(text.code, 0) << text.out;
  for (const char* part : {"coriolis C", "gravity g", "loads Q", "mass rate dM/dt", "gyroscopic G",
                           "prescribed motion p", "p[1] = ", "# proved"})
    EXPECT_NE(text.out.find(part), std::string::npos) << part << "\n" << text.out;
  const auto latex =
      run_cli("derive " + example("turntable_pendulum.yaml") + " --split --format latex");
  ASSERT_EQ(latex.code, 0) << latex.out;
  EXPECT_NE(latex.out.find("\\partial_t M_{11} &="), std::string::npos) << latex.out;
  EXPECT_NE(latex.out.find("C_{11} &="), std::string::npos) << latex.out;
  const auto json =
      run_cli("derive " + example("turntable_pendulum.yaml") + " --split --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  for (const char* key : {"mass_rate", "gyroscopic", "prescribed_motion"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST(CoriolisSplitCli, RefusalsExitTwoNamingTheOption) {
  const auto order = run_cli("derive " + example("double_pendulum.yaml") + " --split --order 2");
  EXPECT_EQ(order.code, 2) << order.out;
  EXPECT_NE(order.out.find("--split"), std::string::npos) << order.out;
  const auto speeds = run_cli("derive " + example("speeds/damped_cube.yaml") + " --split");
  EXPECT_EQ(speeds.code, 2) << speeds.out;
  EXPECT_NE(speeds.out.find("generalized speeds"), std::string::npos) << speeds.out;
  const auto eval = run_cli("eval " + example("speeds/damped_cube.yaml") + " --split");
  EXPECT_EQ(eval.code, 2) << eval.out;
  const auto minimal = run_cli("eval " + example("slider_crank.yaml") + " --split --minimal");
  EXPECT_EQ(minimal.code, 2) << minimal.out;
  for (const auto* r : {&order, &speeds, &eval, &minimal})
    EXPECT_EQ(r->out.find("internal error"), std::string::npos) << r->out;
}

TEST(CoriolisSplitCli, EvalSplitAgreesWithEval) {
  const std::string state = " --q 0.3,-0.7,1.1 --qd 0.5,-1.5,2.0 --set tau2=0.4";
  const auto split = run_cli("eval " + example("three_link_arm.yaml") + state + " --split --json");
  const auto plain = run_cli("eval " + example("three_link_arm.yaml") + state + " --json");
  ASSERT_EQ(split.code, 0) << split.out;
  ASSERT_EQ(plain.code, 0) << plain.out;
  const auto s = nlohmann::json::parse(split.out), p = nlohmann::json::parse(plain.out);
  for (const char* key : {"mass_matrix", "coriolis", "gravity", "loads", "nonlinear_effects"})
    EXPECT_TRUE(s.contains(key)) << key;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(s["nonlinear_effects"][i].get<double>(), -p["forcing"][i].get<double>(), 1e-9);
    for (std::size_t j = 0; j < 3; ++j)
      EXPECT_NEAR(s["mass_matrix"][i][j].get<double>(), p["mass_matrix"][i][j].get<double>(), 1e-9);
  }
  // The friction -b dot(q2) and the motor torque are loads: Q2 = tau2 - b dot(q2) = 0.4 -
  // 0.05*(-1.5).
  EXPECT_NEAR(s["loads"][1].get<double>(), 0.4 + 0.05 * 1.5, 1e-12);
  const auto text = run_cli("eval " + example("three_link_arm.yaml") + state + " --split");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("C row = ["), std::string::npos) << text.out;
}

// codegen --split: coriolis_matrix in the generated C++ and C, compiled and run, against
// eval --split at the same state.
class CoriolisCodegen : public test_support::ScratchDirTest {};

TEST_F(CoriolisCodegen, GeneratedCoriolisMatrixAgreesWithEvalSplit) {
  const std::string model = example("three_link_arm.yaml");
  const std::string q = "0.3,-0.7,1.1", qd = "0.5,-1.5,2.0";
  const auto eval = run_cli("eval " + model + " --q " + q + " --qd " + qd + " --split --json");
  ASSERT_EQ(eval.code, 0) << eval.out;
  const auto want = nlohmann::json::parse(eval.out)["coriolis"];
  for (const bool c : {false, true}) {
    SCOPED_TRACE(c ? "C99" : "C++17");
    const std::string header = (dir_ / (c ? "arm.h" : "arm.hpp")).string();
    const auto generated = run_cli("codegen " + model + " --split --namespace split_test --out " +
                                   header + (c ? " --language c" : ""));
    ASSERT_EQ(generated.code, 0) << generated.out;
    const std::string call = c ? "  split_test_parameters p = split_test_default_parameters();\n"
                                 "  split_test_inputs in = split_test_default_inputs();\n"
                                 "  split_test_coriolis_matrix(0.0, q, qd, &p, &in, C);\n"
                               : "  split_test::Parameters p;\n  split_test::Inputs in;\n"
                                 "  split_test::coriolis_matrix(0.0, q, qd, p, in, C);\n";
    const std::string driver =
        write(c ? "driver.c" : "driver.cpp",
              "#include \"" + header +
                  "\"\n#include <stdio.h>\n"
                  "int main(void) {\n  const double q[3] = {" +
                  q + "}, qd[3] = {" + qd + "};\n  double C[9];\n" + call +
                  "  for (int i = 0; i < 9; ++i) printf(\"%.17g\\n\", C[i]);\n"
                  "  return 0;\n}\n");
    const std::string program = (dir_ / (c ? "driver_c" : "driver_cpp")).string();
    const std::string compile = std::string(c ? "cc -std=c99" : APPELL_CXX_COMPILER " -std=c++17") +
                                " -O1 -Wall -Wextra -Werror -o " + program + " " + driver + " -lm";
    const std::string log = (dir_ / "compile.log").string(), out = (dir_ / "run.out").string();
    ASSERT_EQ(std::system((compile + " > " + log + " 2>&1").c_str()), 0) << read_file(log);
    ASSERT_EQ(std::system((program + " > " + out).c_str()), 0);
    std::istringstream numbers(read_file(out));
    double largest = 0;
    for (const auto& row : want)
      for (const auto& v : row) largest = std::max(largest, std::abs(v.get<double>()));
    EXPECT_GT(largest, 0.01);  // C is not zero at this state
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        double got = 0;
        numbers >> got;
        EXPECT_NEAR(got, want[i][j].get<double>(), 1e-12 * (1 + largest)) << i << j;
      }
  }
}

TEST(CoriolisCodegenLibrary, NeedsTheEquations) {
  const auto m = model_of("planar_2r.yaml");
  codegen::CodegenOptions options;
  options.coriolis_matrix = true;
  EXPECT_THROW(codegen::generate_code(*m, options), std::invalid_argument);
  const std::string header =
      codegen::generate_code(principles::derive(m, principles::Method::GibbsAppell), options);
  EXPECT_NE(header.find("inline void coriolis_matrix("), std::string::npos);
}

}  // namespace
