// The minimal form by Gibbs–Appell with quasi-accelerations (`independent:` speeds): the same
// motion as the multiplier form at consistent states, the projection BᵀMB and Bᵀ(f − Mγ) of the
// multiplier form, the closed forms of the examples, located errors, and the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

struct MultiplierForm {
  Eigen::MatrixXd M;
  Eigen::VectorXd f, qdd;
};

MultiplierForm multiplier_form(const principles::Equations& eq, double t, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd) {
  const num::CompiledEquations c(eq);
  MultiplierForm r;
  Eigen::MatrixXd A;
  Eigen::VectorXd b, lambda;
  c.evaluate(t, q, qd, r.M, r.f);
  c.constraints(A, b);
  c.accelerations_and_multipliers(r.M, r.f, A, b, r.qdd, lambda);
  return r;
}

// At a consistent state: the minimal form's q̈ equals the multiplier form's, and M̃, f̃ equal the
// multiplier form projected on the null space of A (B spans it).
void expect_same_motion(const principles::Equations& multipliers,
                        const num::CompiledEquations::State& s, double t,
                        const Eigen::VectorXd& q) {
  const MultiplierForm r = multiplier_form(multipliers, t, q, s.qd);
  const double scale = std::max(1.0, r.qdd.cwiseAbs().maxCoeff());
  for (Eigen::Index j = 0; j < r.qdd.size(); ++j) EXPECT_NEAR(s.qdd[j], r.qdd[j], 1e-11 * scale);
  const Eigen::MatrixXd& B = s.speed_matrix;
  const Eigen::MatrixXd projected_mass = B.transpose() * r.M * B;
  const Eigen::VectorXd projected_forcing = B.transpose() * (r.f - r.M * s.acceleration_offset);
  EXPECT_LT((projected_mass - s.mass_matrix).cwiseAbs().maxCoeff(), 1e-11 * scale);
  EXPECT_LT((projected_forcing - s.forcing).cwiseAbs().maxCoeff(), 1e-11 * scale);
}

TEST(MinimalForm, ChaplyginSleighEqualsTheMultiplierFormAndItsClosedForm) {
  auto model = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto eq = principles::minimal_form(model);
  ASSERT_EQ(eq.size(), 2u);
  EXPECT_EQ(eq.dependent, (std::vector<std::size_t>{1}));  // y
  const num::CompiledEquations minimal(eq);
  const auto multipliers = principles::derive(model, principles::Method::Lagrange);
  const double m = 2.0, I = 0.05, a = 0.2;
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int i = 0; i < 20; ++i) {
    const double theta = 0.6 * u(rng), xd = u(rng), w = u(rng), t = 1.5 + 0.7 * u(rng);
    Eigen::VectorXd q(3), speeds(2);
    q << u(rng), u(rng), theta;
    speeds << xd, w;
    const auto s = minimal.solve(t, q, speeds);
    // The knife edge: dot(y) = tan(theta) dot(x).
    EXPECT_NEAR(s.qd[1], std::tan(theta) * xd, 1e-12);
    EXPECT_NEAR(s.qd[2], w, 0.0);
    // Forward speed v and turning rate ω: v̇ = a ω², ω̇ = −m a v ω / (I + m a²).
    const double v = xd / std::cos(theta), vdot = a * w * w,
                 wdot = -m * a * v * w / (I + m * a * a);
    EXPECT_NEAR(s.vdot[0], vdot * std::cos(theta) - v * w * std::sin(theta), 1e-11);
    EXPECT_NEAR(s.vdot[1], wdot, 1e-11);
    expect_same_motion(multipliers, s, t, q);
  }
}

TEST(MinimalForm, SliderCrankEqualsTheMultiplierFormOnItsLoop) {
  auto model = io::read_model_file(examples + "/slider_crank.yaml");
  const auto eq = principles::minimal_form(model);
  ASSERT_EQ(eq.size(), 1u);
  EXPECT_EQ(eq.dependent, (std::vector<std::size_t>{1, 2}));  // q2, x
  const num::CompiledEquations minimal(eq);
  for (auto method : principles::all_methods) {
    SCOPED_TRACE(principles::method_name(method));
    const auto multipliers = principles::derive(model, method);
    const double r = 0.1, L = 0.3;
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < 20; ++i) {
      const double q1 = 3 * u(rng), q2 = std::asin(-r * std::sin(q1) / L), w1 = 3 * u(rng);
      Eigen::VectorXd q(3), speeds(1);
      q << q1, q2, r * std::cos(q1) + L * std::cos(q2);
      speeds << w1;
      const auto s = minimal.solve(0.0, q, speeds);
      // The loop closed at velocity level, independently of appell's differentiator.
      const double w2 = -r * std::cos(q1) * w1 / (L * std::cos(q2));
      EXPECT_NEAR(s.qd[1], w2, 1e-12);
      EXPECT_NEAR(s.qd[2], -r * std::sin(q1) * w1 - L * std::sin(q2) * w2, 1e-12);
      expect_same_motion(multipliers, s, 0.0, q);
    }
  }
}

TEST(MinimalForm, NoMultiplierAndTheDependentSpeedsInClosedForm) {
  auto model = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto eq = principles::simplify(principles::minimal_form(model));
  // dot(y) = tan(theta) dot(x): B's y row is (sin/cos, 0), β = 0.
  const GiNaC::symbol theta = model->coordinate_symbol(2);
  const GiNaC::ex tan_theta = GiNaC::sin(theta) / GiNaC::cos(theta);
  EXPECT_TRUE((eq.speed_matrix(1, 0) - tan_theta).normal().is_zero()) << eq.speed_matrix(1, 0);
  EXPECT_TRUE(eq.speed_matrix(1, 1).is_zero());
  EXPECT_TRUE(eq.speed_offset(1, 0).is_zero());
  for (const auto& e : eq.entries())
    for (std::size_t j = 0; j < 3; ++j) EXPECT_FALSE(e.has(model->coordinate_symbol(1, 1))) << e;
}

void expect_error(const std::string& yaml, int line, int column, const std::string& offending,
                  const std::string& message) {
  try {
    io::parse_model(yaml, "m.yaml");
    FAIL() << "expected a ModelError: " << message;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

const std::string sleigh_head = R"yaml(name: sleigh
parameters: {m: 2.0, I: 0.05, a: 0.2}
coordinates: [x, y, theta]
frames:
  sleigh: {translation: [x, y, 0], rotation: rot_z(theta)}
bodies:
  hull: {frame: sleigh, mass: m, com: [a, 0, 0], inertia: [I, I, I, 0, 0, 0]}
constraints:
  - {name: knife, nonholonomic: "-sin(theta)*dot(x) + cos(theta)*dot(y)"}
)yaml";

TEST(MinimalFormErrors, AreLocated) {
  expect_error(sleigh_head + "independent: [x]\n", 10, 14, "independent",
               "needs 2 independent speeds (3 coordinates - 1 constraints), got 1");
  expect_error(sleigh_head + "independent: [x, y, theta]\n", 10, 14, "independent",
               "needs 2 independent speeds");
  expect_error(sleigh_head + "independent: [x, phi]\n", 10, 18, "phi", "not a coordinate");
  expect_error(sleigh_head + "independent: [x, x]\n", 10, 18, "x", "listed twice");
  expect_error(sleigh_head + "independent: x\n", 10, 14, "independent", "expected a list");
  // At theta = 0 the knife edge does not involve dot(x): it cannot be the dependent speed.
  expect_error(sleigh_head + "independent: [y, theta]\n", 10, 14, "independent",
               "block of the constraint Jacobian is singular at the initial state");
}

TEST(MinimalFormCli, DeriveEvalAndVerify) {
  const auto sleigh = examples + "/chaplygin_sleigh.yaml";
  const auto text = test_support::run_cli("derive " + sleigh + " --minimal");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("dot(y) = "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("ddot(theta)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("lambda"), std::string::npos) << text.out;

  const auto json = test_support::run_cli("derive " + sleigh + " --minimal --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("independent"), (std::vector<std::string>{"x", "theta"}));
  EXPECT_EQ(j.at("mass_matrix").size(), 2u);
  EXPECT_EQ(j.at("forcing").size(), 2u);
  EXPECT_TRUE(j.at("dependent_speeds").contains("y"));
  EXPECT_GT(j.at("cost").at("differentiations").get<int>(), 0);

  const auto latex = test_support::run_cli("derive " + sleigh + " --minimal --format latex");
  ASSERT_EQ(latex.code, 0) << latex.out;
  EXPECT_NE(latex.out.find("\\dot{y} &="), std::string::npos) << latex.out;

  // eval --minimal: the same q̈ as the multiplier form at the consistent velocities.
  const auto e = test_support::run_cli("eval " + sleigh + " --q 0,0,0.3 --qd 1,2 --minimal --json");
  ASSERT_EQ(e.code, 0) << e.out;
  const auto ej = nlohmann::json::parse(e.out);
  const std::vector<double> qd = ej.at("qd");
  EXPECT_NEAR(qd[1], std::tan(0.3), 1e-12);
  const auto full = test_support::run_cli("eval " + sleigh + " --q 0,0,0.3 --qd 1," +
                                          std::to_string(std::tan(0.3)) + ",2 --json");
  ASSERT_EQ(full.code, 0) << full.out;
  const std::vector<double> a = ej.at("qdd"), b = nlohmann::json::parse(full.out).at("qdd");
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], 1e-5);

  const auto v = test_support::run_cli("verify " + examples + "/slider_crank.yaml");
  ASSERT_EQ(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("minimal"), std::string::npos) << v.out;

  // Usage errors: no independent speeds, another method.
  const auto none = test_support::run_cli("derive " + examples + "/planar_2r.yaml --minimal");
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_EQ(test_support::run_cli("derive " + sleigh + " --minimal --method lagrange").code, 2);
  // A located model error reaches the user as FILE:LINE:COLUMN, exit 2.
  const std::string bad = "/tmp/appell_minimal_bad.yaml";
  FILE* out = std::fopen(bad.c_str(), "w");
  ASSERT_NE(out, nullptr);
  const std::string yaml = sleigh_head + "independent: [x]\n";
  std::fputs(yaml.c_str(), out);
  std::fclose(out);
  const auto located = test_support::run_cli("derive " + bad + " --minimal");
  EXPECT_EQ(located.code, 2);
  EXPECT_NE(located.out.find(bad + ":10:14: needs 2 independent speeds"), std::string::npos)
      << located.out;
}

}  // namespace
