// Linearization (num::linearize, `appell linearize`): A and B against closed forms, against
// finite differences of the nonlinear equations, and on the independent states of constrained
// models.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "appell/io/model_file.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/numeric/symbolic_linearization.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/spawn_cli.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// An inverted pendulum on a cart: cart mass mc on x, a point mass m at distance l above the
// pivot when theta = 0, a horizontal force F on the cart.
constexpr const char* kCartPole = R"yaml(name: cart-pole
parameters: {mc: 2.0, m: 0.5, l: 0.8, g: 9.81}
coordinates: [x, theta]
inputs: [F]
frames:
  cart: {translation: [x, 0, 0]}
  pole: {parent: cart, rotation: rot_z(theta)}
bodies:
  carriage: {frame: cart, mass: mc, inertia: {box: {size: [0.4, 0.2, 0.2]}}}
particles:
  bob: {frame: pole, mass: m, position: [0, l, 0]}
gravity: [0, -g, 0]
loads:
  - {force: [F, 0, 0], on: cart}
)yaml";

constexpr const char* kDoublePendulum = R"yaml(name: double-pendulum
parameters: {m1: 1.0, m2: 0.5, l1: 1.0, l2: 0.7, g: 9.81, c: 0.3}
coordinates: [q1, q2]
inputs: [tau]
frames:
  rod1: {rotation: rot_z(q1)}
  rod2: {parent: rod1, translation: [0, -l1, 0], rotation: rot_z(q2)}
particles:
  bob1: {frame: rod1, mass: m1, position: [0, -l1, 0]}
  bob2: {frame: rod2, mass: m2, position: [0, -l2, 0]}
gravity: [0, -g, 0]
loads:
  - {generalized: {coordinate: q2, value: "tau - c*dot(q2)"
}
}
  - {force: [0.4*tau, 0, 0], on: rod2, at: [0, -l2, 0]}
)yaml";

constexpr const char* kSliderCrank = R"yaml(name: slider-crank
parameters: {m1: 0.5, m2: 1.0, m3: 2.0, r: 0.1, L: 0.3, g: 9.81}
coordinates: [q1, q2, x]
inputs: [torque]
frames:
  crank: {rotation: rot_z(q1)}
  rod: {translation: [r*cos(q1), r*sin(q1), 0], rotation: rot_z(q2)}
  slider: {translation: [x, 0, 0]}
bodies:
  crank_body: {frame: crank, mass: m1, com: [r/2, 0, 0], inertia: {rod: {length: r, axis: x}}}
  rod_body: {frame: rod, mass: m2, com: [L/2, 0, 0], inertia: {rod: {length: L, axis: x}}}
particles:
  block: {frame: slider, mass: m3, position: [0, 0, 0]}
gravity: [0, -g, 0]
loads:
  - {generalized: {coordinate: q1, value: torque}}
constraints:
  - {name: loop_x, holonomic: "r*cos(q1) + L*cos(q2) - x"}
  - {name: loop_y, holonomic: "r*sin(q1) + L*sin(q2)"
  }
)yaml";

// The Chaplygin sleigh: a knife edge at the origin of its frame, the centre of mass a ahead.
constexpr const char* kSleigh = R"yaml(name: sleigh
parameters: {m: 2.0, I: 0.05, a: 0.2}
coordinates: [x, y, theta]
frames:
  sleigh: {translation: [x, y, 0], rotation: rot_z(theta)}
bodies:
  hull: {frame: sleigh, mass: m, com: [a, 0, 0], inertia: [I, I, I, 0, 0, 0]}
constraints:
  - {name: knife, nonholonomic: "-sin(theta)*dot(x) + cos(theta)*dot(y)"}
)yaml";

num::LinearModel linearize(const char* yaml, const VectorXd& q, const VectorXd& qd,
                           const std::vector<std::string>& inputs, model::Values values = {}) {
  const auto model = io::parse_model(yaml, "model.yaml");
  num::LinearizationOptions options;
  options.inputs = inputs;
  options.values = std::move(values);
  return num::linearize(principles::derive(model, principles::Method::GibbsAppell), q, qd, options);
}

// Central differences of ẋ_r = F(x_r, u) (each of size states): the columns of A, then of B.
MatrixXd finite_difference(const std::function<VectorXd(const VectorXd&, const VectorXd&)>& F,
                           const VectorXd& x, const VectorXd& u) {
  const double h = 1e-6;
  MatrixXd J(x.size(), x.size() + u.size());
  for (Eigen::Index k = 0; k < x.size() + u.size(); ++k) {
    VectorXd xp = x, xm = x, up = u, um = u;
    if (k < x.size()) {
      xp[k] += h;
      xm[k] -= h;
    } else {
      up[k - x.size()] += h;
      um[k - x.size()] -= h;
    }
    J.col(k) = (F(xp, up) - F(xm, um)) / (2 * h);
  }
  return J;
}

TEST(Linearize, CartPoleAgainstTheClosedForm) {
  // Upright: M ẍ = F + m g θ, M l θ̈ = (M + m) g θ + F (M the cart, m the bob); eigenvalues
  // 0, 0, ±√((M + m) g / (M l)).
  const double mc = 2.0, m = 0.5, l = 0.8, g = 9.81;
  const auto lin = linearize(kCartPole, VectorXd::Zero(2), VectorXd::Zero(2), {"F"});
  EXPECT_EQ(lin.states, (std::vector<std::string>{"x", "theta", "dot(x)", "dot(theta)"}));
  EXPECT_EQ(lin.inputs, std::vector<std::string>{"F"});
  MatrixXd A(4, 4);
  A << 0, 0, 1, 0,  //
      0, 0, 0, 1,   //
      0, m * g / mc, 0, 0, 0, (mc + m) * g / (mc * l), 0, 0;
  VectorXd B(4);
  B << 0, 0, 1 / mc, 1 / (mc * l);
  EXPECT_LT((lin.A - A).cwiseAbs().maxCoeff(), 1e-12) << lin.A;
  EXPECT_LT((lin.B - B).cwiseAbs().maxCoeff(), 1e-12) << lin.B;
  ASSERT_EQ(lin.eigenvalues.size(), 4);
  const double s = std::sqrt((mc + m) * g / (mc * l));
  EXPECT_LT(std::abs(lin.eigenvalues[0]), 1e-6);
  EXPECT_LT(std::abs(lin.eigenvalues[1]), 1e-6);
  EXPECT_NEAR(lin.eigenvalues[2].real(), -s, 1e-10);
  EXPECT_NEAR(lin.eigenvalues[3].real(), s, 1e-10);
  EXPECT_EQ(lin.eigenvalues[3].imag(), 0.0);

  // Hanging down (θ = π) the pole oscillates: ±i√((M + m) g / (M l)), undamped.
  VectorXd down(2);
  down << 0.3, M_PI;
  const auto hanging = linearize(kCartPole, down, VectorXd::Zero(2), {"F"});
  const auto modes = num::modes(hanging);
  EXPECT_NEAR(modes[3].natural_frequency, s, 1e-9);
  EXPECT_NEAR(std::abs(modes[3].eigenvalue.imag()), s, 1e-9);
  EXPECT_NEAR(modes[3].damping_ratio, 0.0, 1e-9);
  EXPECT_FALSE(modes[2].unstable);
  EXPECT_FALSE(modes[3].unstable);
  // Upright, the pole falls: one mode unstable (s > 0), the other decays.
  const auto upright = num::modes(lin);
  EXPECT_FALSE(upright[2].unstable);
  EXPECT_TRUE(upright[3].unstable);
  EXPECT_NEAR(upright[3].damping_ratio, -1.0, 1e-12);
  EXPECT_TRUE(std::isnan(modes[0].damping_ratio) || std::abs(modes[0].natural_frequency) < 1e-6);
}

TEST(Linearize, DoublePendulumAgainstFiniteDifferencesOfTheEquations) {
  const auto model = io::parse_model(kDoublePendulum, "model.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  for (const auto& [q, qd, tau] : std::vector<std::tuple<VectorXd, VectorXd, double>>{
           {VectorXd::Constant(2, 0.0), VectorXd::Constant(2, 0.0), 0.0},
           {(VectorXd(2) << 0.8, -0.4).finished(), (VectorXd(2) << 1.3, -2.1).finished(), 0.7},
           {(VectorXd(2) << -2.2, 1.9).finished(), (VectorXd(2) << -0.6, 3.0).finished(), -1.5}}) {
    num::LinearizationOptions options;
    options.inputs = {"tau"};
    options.values.set("tau", tau);
    const auto lin = num::linearize(eq, q, qd, options);
    auto F = [&](const VectorXd& x, const VectorXd& u) {
      const num::CompiledEquations compiled(eq, model::Values{{"tau", u[0]}});
      const auto state = num::evaluate_state(compiled, 0.0, x.head(2), x.tail(2));
      VectorXd rate(4);
      rate << x.tail(2), state.qdd;
      return rate;
    };
    VectorXd x(4);
    x << q, qd;
    const MatrixXd J = finite_difference(F, x, VectorXd::Constant(1, tau));
    EXPECT_LT((lin.A - J.leftCols(4)).cwiseAbs().maxCoeff(), 1e-6) << lin.A << "\n\n" << J;
    EXPECT_LT((lin.B - J.rightCols(1)).cwiseAbs().maxCoeff(), 1e-6) << lin.B << "\n\n" << J;
  }
}

TEST(Linearize, SliderCrankOnTheCrankAngleAgainstTheReducedClosedForm) {
  // With the crank down (q1 = −π/2) everything translates with the crank pin's speed r q̇1:
  // M_r = m1 r²/3 + (m2 + m3) r², V_r = g r (m1 + m2) sin(q1) / 2, so
  // q̈1 = −V_r''/M_r δq1 = −g r (m1 + m2) / (2 M_r) δq1 and B = 1/M_r.
  const double m1 = 0.5, m2 = 1.0, m3 = 2.0, r = 0.1, L = 0.3, g = 9.81;
  const double q1 = -M_PI / 2, q2 = std::asin(-r * std::sin(q1) / L);
  VectorXd q(3);
  q << q1, q2, r * std::cos(q1) + L * std::cos(q2);
  const auto lin = linearize(kSliderCrank, q, VectorXd::Zero(3), {"torque"});
  EXPECT_EQ(lin.states, (std::vector<std::string>{"q1", "dot(q1)"}));
  EXPECT_EQ(lin.dependent_coordinates, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(lin.dependent_speeds, (std::vector<std::size_t>{1, 2}));
  EXPECT_FALSE(lin.completed);
  const double Mr = m1 * r * r / 3 + (m2 + m3) * r * r;
  MatrixXd A(2, 2);
  A << 0, 1, -g * r * (m1 + m2) / (2 * Mr), 0;
  EXPECT_LT((lin.A - A).cwiseAbs().maxCoeff(), 1e-9) << lin.A;
  EXPECT_NEAR(lin.B(0, 0), 0.0, 1e-12);
  EXPECT_NEAR(lin.B(1, 0), 1 / Mr, 1e-9);
  EXPECT_NEAR(std::abs(lin.eigenvalues[0].imag()), std::sqrt(g * r * (m1 + m2) / (2 * Mr)), 1e-9);

  // A slider position off the loop is completed from the crank angle: the same model.
  VectorXd off = q;
  off[2] += 0.05;
  off[1] -= 0.1;
  const auto completed = linearize(kSliderCrank, off, VectorXd::Zero(3), {"torque"});
  EXPECT_TRUE(completed.completed);
  EXPECT_LT((completed.q - q).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((completed.A - lin.A).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Linearize, SliderCrankAwayFromEquilibriumAgainstFiniteDifferencesOnTheLoop) {
  // The reduced dynamics (q1, q̇1) -> (q̇1, q̈1) along the loop, q2, x and their speeds from the
  // closed-form loop (q2 = asin(−r sin q1 / L)), q̈1 from the full constrained equations.
  const double r = 0.1, L = 0.3;
  const auto model = io::parse_model(kSliderCrank, "model.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  auto full = [&](double q1, double w1) {
    const double q2 = std::asin(-r * std::sin(q1) / L);
    const double w2 = -r * std::cos(q1) * w1 / (L * std::cos(q2));
    VectorXd q(3), qd(3);
    q << q1, q2, r * std::cos(q1) + L * std::cos(q2);
    qd << w1, w2, -r * std::sin(q1) * w1 - L * std::sin(q2) * w2;
    return std::make_pair(q, qd);
  };
  const auto [q, qd] = full(0.7, 2.3);
  num::LinearizationOptions options;
  options.inputs = {"torque"};
  options.values.set("torque", 0.2);
  const auto lin = num::linearize(eq, q, qd, options);
  auto F = [&](const VectorXd& x, const VectorXd& u) {
    const auto [qf, qdf] = full(x[0], x[1]);
    const num::CompiledEquations compiled(eq, model::Values{{"torque", u[0]}});
    const auto state = num::evaluate_state(compiled, 0.0, qf, qdf);
    return VectorXd((VectorXd(2) << x[1], state.qdd[0]).finished());
  };
  const MatrixXd J =
      finite_difference(F, (VectorXd(2) << 0.7, 2.3).finished(), VectorXd::Constant(1, 0.2));
  EXPECT_LT((lin.A - J.leftCols(2)).cwiseAbs().maxCoeff(), 1e-5) << lin.A << "\n\n" << J;
  EXPECT_LT((lin.B - J.rightCols(1)).cwiseAbs().maxCoeff(), 1e-5) << lin.B << "\n\n" << J;
}

TEST(Linearize, ChaplyginSleighKeepsTheIndependentSpeeds) {
  // Nonholonomic: the coordinates stay (x, y, θ), the speeds are (ẋ, θ̇) with ẏ = tan θ ẋ.
  const auto model = io::parse_model(kSleigh, "sleigh.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const double th = 0.4, vx = 0.9, w = 1.1;
  VectorXd q(3), qd(3);
  q << 0.2, -0.1, th;
  qd << vx, std::tan(th) * vx, w;
  const auto lin = num::linearize(eq, q, qd, {});
  EXPECT_EQ(lin.states, (std::vector<std::string>{"x", "y", "theta", "dot(x)", "dot(theta)"}));
  auto F = [&](const VectorXd& x, const VectorXd&) {
    VectorXd qf = x.head(3), qdf(3);
    qdf << x[3], std::tan(x[2]) * x[3], x[4];
    const num::CompiledEquations compiled(eq);
    const auto state = num::evaluate_state(compiled, 0.0, qf, qdf);
    VectorXd rate(5);
    rate << qdf, state.qdd[0], state.qdd[2];
    return rate;
  };
  VectorXd x(5);
  x << q, vx, w;
  const MatrixXd J = finite_difference(F, x, VectorXd(0));
  EXPECT_LT((lin.A - J).cwiseAbs().maxCoeff(), 1e-6) << lin.A << "\n\n" << J;
}

TEST(Linearize, CommandLineJsonHasTheFieldsInOrder) {
  const std::string path = ::testing::TempDir() + "/cart_pole_linearize.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kCartPole, f);
    std::fclose(f);
  }
  const auto run =
      test_support::run_cli("linearize " + path + " --q 0,0 --qd 0,0 --inputs F --json");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::ordered_json::parse(run.out);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"states", "inputs", "A", "B", "eigenvalues",
                                            "eigenvalue_groups"}));
  EXPECT_EQ(j["states"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"x", "theta", "dot(x)", "dot(theta)"}));
  EXPECT_NEAR(j["A"][3][1].get<double>(), (2.5 * 9.81) / (2.0 * 0.8), 1e-12);
  EXPECT_NEAR(j["B"][2][0].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(j["eigenvalues"].size(), 4u);

  const auto modes =
      test_support::run_cli("linearize " + path + " --q 0,3.141592653589793 --modes");
  ASSERT_EQ(modes.code, 0) << modes.out;
  EXPECT_NE(modes.out.find("rad/s"), std::string::npos) << modes.out;
  EXPECT_NE(modes.out.find("damping ratio 0"), std::string::npos) << modes.out;

  const auto bad = test_support::run_cli("linearize " + path + " --inputs G");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--inputs"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("(G)"), std::string::npos) << bad.out;
}

// The symbolic A and B (num::symbolic_linear_model) with the parameters put in: the numeric
// model's entries, to rounding.
void expect_symbolic_equals_numeric(const model::Model& model, const num::SymbolicLinearModel& sym,
                                    const num::LinearModel& lin) {
  GiNaC::exmap values;
  for (const auto& p : model.parameters) values[p.symbol] = p.default_value;
  const auto number = [&](const GiNaC::ex& e) {
    // Defaults may name earlier parameters: substitute until only numbers are left.
    GiNaC::ex v = e;
    for (std::size_t pass = 0; pass < model.parameters.size() + 1; ++pass) v = v.subs(values);
    const GiNaC::ex x = GiNaC::evalf(v);
    EXPECT_TRUE(GiNaC::is_a<GiNaC::numeric>(x)) << e;
    return GiNaC::ex_to<GiNaC::numeric>(x).to_double();
  };
  ASSERT_EQ(sym.A.rows(), static_cast<unsigned>(lin.A.rows()));
  ASSERT_EQ(sym.B.cols(), static_cast<unsigned>(lin.B.cols()));
  EXPECT_EQ(sym.states, lin.states);
  for (unsigned i = 0; i < sym.A.rows(); ++i) {
    for (unsigned k = 0; k < sym.A.cols(); ++k)
      EXPECT_NEAR(number(sym.A(i, k)), lin.A(i, k), 1e-9 * (1 + std::abs(lin.A(i, k))))
          << "A[" << i << "," << k << "] = " << sym.A(i, k);
    for (unsigned k = 0; k < sym.B.cols(); ++k)
      EXPECT_NEAR(number(sym.B(i, k)), lin.B(i, k), 1e-9 * (1 + std::abs(lin.B(i, k))))
          << "B[" << i << "," << k << "] = " << sym.B(i, k);
  }
}

num::SymbolicLinearModel symbolic(const std::shared_ptr<const model::Model>& model,
                                  const VectorXd& q, const VectorXd& qd,
                                  const std::vector<std::string>& inputs, num::LinearModel* lin) {
  num::LinearizationOptions options;
  options.inputs = inputs;
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  *lin = num::linearize(eq, q, qd, options);
  return num::symbolic_linear_model(eq, *lin, options);
}

TEST(SymbolicLinearize, CartPoleIsTheClosedFormInTheParameters) {
  const auto model = io::parse_model(kCartPole, "model.yaml");
  const auto p = [&](const char* name) { return GiNaC::ex(model->find_parameter(name)->symbol); };
  const GiNaC::ex mc = p("mc"), m = p("m"), l = p("l"), g = p("g");
  const auto zero = [](const GiNaC::ex& e) { return GiNaC::normal(e).is_zero(); };
  num::LinearModel lin;
  const auto up = symbolic(model, VectorXd::Zero(2), VectorXd::Zero(2), {"F"}, &lin);
  EXPECT_TRUE(zero(up.A(0, 2) - 1) && zero(up.A(1, 3) - 1));
  EXPECT_TRUE(zero(up.A(2, 1) - m * g / mc)) << up.A(2, 1);
  EXPECT_TRUE(zero(up.A(3, 1) - (mc + m) * g / (mc * l))) << up.A(3, 1);
  EXPECT_TRUE(zero(up.A(2, 0)) && zero(up.A(3, 0)) && zero(up.A(2, 2)) && zero(up.A(3, 3)));
  EXPECT_TRUE(zero(up.B(2, 0) - 1 / mc)) << up.B(2, 0);
  EXPECT_TRUE(zero(up.B(3, 0) - 1 / (mc * l))) << up.B(3, 0);
  expect_symbolic_equals_numeric(*model, up, lin);

  // Hanging (θ = π given as a double): π is recognised, so the entries are exact, not 1e-16.
  VectorXd down(2);
  down << 0.0, M_PI;
  const auto hanging = symbolic(model, down, VectorXd::Zero(2), {"F"}, &lin);
  EXPECT_TRUE(zero(hanging.A(3, 1) + (mc + m) * g / (mc * l))) << hanging.A(3, 1);
  EXPECT_TRUE(zero(hanging.B(3, 0) + 1 / (mc * l))) << hanging.B(3, 0);
  expect_symbolic_equals_numeric(*model, hanging, lin);
}

TEST(SymbolicLinearize, AwayFromEquilibriumAndWithConstraintsAsTheNumericModel) {
  num::LinearModel lin;
  VectorXd q(2), qd(2);
  q << 0.3, -0.2;
  qd << 0.5, 0.1;
  const auto pendulum = io::parse_model(kDoublePendulum, "model.yaml");
  const auto away = symbolic(pendulum, q, qd, {"tau"}, &lin);
  expect_symbolic_equals_numeric(*pendulum, away, lin);
  // sin² of the operating point's angles is written through cos²: no sin(3/10)^2 + cos(3/10)^2
  // left for the reader to cancel.
  for (unsigned k = 0; k < away.A.nops(); ++k) {
    bool squared_sine = false;
    for (GiNaC::const_preorder_iterator it = away.A.op(k).preorder_begin();
         it != away.A.op(k).preorder_end(); ++it)
      squared_sine = squared_sine ||
                     (GiNaC::is_a<GiNaC::power>(*it) && GiNaC::is_a<GiNaC::function>(it->op(0)) &&
                      GiNaC::ex_to<GiNaC::function>(it->op(0)).get_name() == "sin" &&
                      it->op(1).info(GiNaC::info_flags::even));
    EXPECT_FALSE(squared_sine) << away.A.op(k);
  }

  const double r = 0.1, L = 0.3, q1 = -M_PI / 2, q2 = std::asin(-r * std::sin(q1) / L);
  VectorXd crank(3);
  crank << q1, q2, r * std::cos(q1) + L * std::cos(q2);
  const auto slider = io::parse_model(kSliderCrank, "model.yaml");
  const auto reduced = symbolic(slider, crank, VectorXd::Zero(3), {"torque"}, &lin);
  EXPECT_EQ(reduced.states, (std::vector<std::string>{"q1", "dot(q1)"}));
  expect_symbolic_equals_numeric(*slider, reduced, lin);

  const auto sleigh = io::parse_model(kSleigh, "sleigh.yaml");
  VectorXd sq(3), sqd(3);
  sq << 0.2, -0.1, 0.4;
  sqd << 0.9, std::tan(0.4) * 0.9, 1.1;
  expect_symbolic_equals_numeric(*sleigh, symbolic(sleigh, sq, sqd, {}, &lin), lin);
}

TEST(SymbolicLinearize, ExactNumbers) {
  EXPECT_TRUE((num::exact_number(M_PI) - GiNaC::Pi).is_zero());
  EXPECT_TRUE((num::exact_number(-M_PI / 2) + GiNaC::Pi / 2).is_zero());
  EXPECT_TRUE((num::exact_number(0.25) - GiNaC::numeric(1, 4)).is_zero());
  EXPECT_TRUE((num::exact_number(0.0)).is_zero());
  EXPECT_TRUE(GiNaC::ex_to<GiNaC::numeric>(num::exact_number(0.1234567891)).is_real());
  EXPECT_FALSE(GiNaC::ex_to<GiNaC::numeric>(num::exact_number(0.1234567891)).is_rational());
}

TEST(SymbolicLinearize, CommandLineTextJsonLatexAndTheSizeLimit) {
  const std::string path = ::testing::TempDir() + "/cart_pole_symbolic.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kCartPole, f);
    std::fclose(f);
  }
  const auto text = test_support::run_cli("linearize " + path + " --symbolic");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("symbolic, in the parameters"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("B[4,1] = "), std::string::npos) << text.out;
  const auto json = test_support::run_cli("linearize " + path + " --symbolic --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::ordered_json::parse(json.out);
  EXPECT_EQ(j["A_symbolic"].size(), 4u);
  EXPECT_EQ(j["A_symbolic"][0][2].get<std::string>(), "1");
  EXPECT_EQ(j["B_symbolic"][3].size(), 1u);
  const auto latex = test_support::run_cli("linearize " + path + " --latex");
  ASSERT_EQ(latex.code, 0) << latex.out;
  EXPECT_NE(latex.out.find("\\begin{pmatrix}"), std::string::npos) << latex.out;

  // Nine free particles: 9 coordinates, over the symbolic limit of 8.
  std::string big = "name: nine\nparameters: {m: 1.0}\ncoordinates: [";
  for (int i = 1; i <= 9; ++i) big += (i > 1 ? ", x" : "x") + std::to_string(i);
  big += "]\nframes:\n";
  for (int i = 1; i <= 9; ++i)
    big += "  f" + std::to_string(i) + ": {translation: [x" + std::to_string(i) + ", 0, 0]}\n";
  big += "particles:\n";
  for (int i = 1; i <= 9; ++i)
    big += "  p" + std::to_string(i) + ": {frame: f" + std::to_string(i) +
           ", mass: m, position: [0, 0, 0]}\n";
  const std::string big_path = ::testing::TempDir() + "/nine_particles.yaml";
  {
    std::FILE* f = std::fopen(big_path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(big.c_str(), f);
    std::fclose(f);
  }
  // Past the limit the numeric model is printed and a note says why the symbolic one is not.
  const auto limit = test_support::run_cli("linearize " + big_path + " --symbolic");
  EXPECT_EQ(limit.code, 0) << limit.out;
  EXPECT_NE(limit.out.find("at most 8"), std::string::npos) << limit.out;
  EXPECT_NE(limit.out.find("dx/dt = A x + B u"), std::string::npos) << limit.out;
  EXPECT_EQ(test_support::run_cli("linearize " + big_path).code, 0);
  // Redundant constraints (three for a pendulum's two): the numeric model (minimum-norm) and a
  // note saying so.
  const auto redundant = test_support::run_cli("linearize " + std::string(APPELL_EXAMPLES_DIR) +
                                               "/overconstrained_pendulum.yaml --symbolic");
  EXPECT_EQ(redundant.code, 0) << redundant.out;
  EXPECT_NE(redundant.out.find("note: no symbolic A and B: the constraints are redundant"),
            std::string::npos)
      << redundant.out;
  EXPECT_NE(redundant.out.find("dx/dt"), std::string::npos) << redundant.out;
  EXPECT_EQ(redundant.out.find("symbolic, in the parameters"), std::string::npos) << redundant.out;
  const auto both = test_support::run_cli("linearize " + path + " --latex --json");
  EXPECT_EQ(both.code, 2) << both.out;
  EXPECT_NE(both.out.find("--latex"), std::string::npos) << both.out;
}

// A planar chain of nine pendulums hanging at rest, a torque tau at the first joint: 9
// coordinates, past the symbolic limit. `--symbolic`, `--symbolic --json` and `--latex` print the
// numeric model that plain `linearize` prints (to the byte, as JSON, and as LaTeX numbers), exit
// 0, and say on stderr why the symbolic model is absent.
class SymbolicLinearizeCli : public test_support::ScratchDirTest {};

double latex_value(const std::string& entry) {
  // "1.5 \times 10^{-7}" or "-0.25"
  const auto times = entry.find("\\times 10^{");
  if (times == std::string::npos) return std::stod(entry);
  return std::stod(entry.substr(0, times)) *
         std::pow(10.0, std::stod(entry.substr(times + 11, entry.find('}', times) - times - 11)));
}

// The rows of the pmatrix after "NAME = " in `latex`.
std::vector<std::vector<double>> latex_rows(const std::string& latex, const std::string& name) {
  std::vector<std::vector<double>> rows;
  const auto begin = latex.find(name + " = \\begin{pmatrix}\n");
  if (begin == std::string::npos) return rows;
  std::istringstream in(latex.substr(begin + name.size() + 19));
  for (std::string line; std::getline(in, line) && line != "\\end{pmatrix}";) {
    if (line.ends_with(" \\\\")) line.resize(line.size() - 3);
    std::vector<double> row;
    for (std::size_t start = 0;;) {
      const auto amp = line.find(" & ", start);
      row.push_back(latex_value(line.substr(start, amp - start)));
      if (amp == std::string::npos) break;
      start = amp + 3;
    }
    rows.push_back(row);
  }
  return rows;
}

TEST_F(SymbolicLinearizeCli, PastTheSizeLimitTheNumericModelIsPrintedWithANote) {
  constexpr int links = 9;
  std::string yaml = "name: chain9\nparameters: {m: 0.7, l: 0.4, g: 9.81}\ncoordinates: [";
  for (int i = 1; i <= links; ++i) yaml += (i > 1 ? ", q" : "q") + std::to_string(i);
  yaml += "]\ninputs: [tau]\nframes:\n  l1: {rotation: rot_z(q1)}\n";
  for (int i = 2; i <= links; ++i)
    yaml += "  l" + std::to_string(i) + ": {parent: l" + std::to_string(i - 1) +
            ", translation: [0, -l, 0], rotation: rot_z(q" + std::to_string(i) + ")}\n";
  yaml += "particles:\n";
  for (int i = 1; i <= links; ++i)
    yaml += "  p" + std::to_string(i) + ": {frame: l" + std::to_string(i) +
            ", mass: m, position: [0, -l, 0]}\n";
  yaml += "gravity: [0, -g, 0]\nloads:\n  - {generalized: {coordinate: q1, value: tau}}\n";
  const std::string model = write("chain9.yaml", yaml);
  const auto run = [&](std::vector<std::string> args, const std::string& name) {
    args.insert(args.begin(), {"linearize", model});
    return test_support::run_cli_into(args, (dir_ / (name + ".out")).string(),
                                      (dir_ / (name + ".err")).string());
  };
  const auto out = [&](const std::string& name) {
    return test_support::file_text((dir_ / (name + ".out")).string());
  };

  const auto plain = run({}, "plain");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
  const auto text = run({"--symbolic"}, "text");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(out("text"), out("plain"));
  const std::string note =
      "note: no symbolic A and B: the symbolic linear model is formed for at most 8 coordinates "
      "and constraints together; this model has 9 and 0; the numeric A and B printed hold at the "
      "operating point\n";
  EXPECT_EQ(text.err, note);

  const auto plain_json = run({"--json"}, "plain_json");
  ASSERT_EQ(plain_json.code, 0) << plain_json.err;
  const auto json = run({"--json", "--symbolic"}, "json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(json.err, note);
  const auto numeric = nlohmann::ordered_json::parse(out("plain_json"));
  const auto j = nlohmann::ordered_json::parse(out("json"));
  EXPECT_EQ(j["A"], numeric["A"]);
  EXPECT_EQ(j["B"], numeric["B"]);
  EXPECT_EQ(j["eigenvalues"], numeric["eigenvalues"]);
  EXPECT_TRUE(j["A_symbolic"].is_null());
  EXPECT_TRUE(j["B_symbolic"].is_null());
  EXPECT_NE(j["symbolic_absent"].get<std::string>().find("at most 8"), std::string::npos);

  // The numbers are the chain's: 18 states, hanging at rest it oscillates (every eigenvalue on
  // the imaginary axis, none zero), and the torque accelerates the first joint forward.
  const auto A = j["A"].get<std::vector<std::vector<double>>>();
  const auto B = j["B"].get<std::vector<std::vector<double>>>();
  ASSERT_EQ(A.size(), 2u * links);
  ASSERT_EQ(B.size(), 2u * links);
  ASSERT_EQ(B[0].size(), 1u);
  EXPECT_GT(B[links][0], 0.0);
  for (const auto& s : j["eigenvalues"]) {
    EXPECT_LT(std::abs(s[0].get<double>()), 1e-8) << s;
    EXPECT_GT(std::abs(s[1].get<double>()), 1.0) << s;
  }

  const auto latex = run({"--latex"}, "latex");
  ASSERT_EQ(latex.code, 0) << latex.err;
  EXPECT_EQ(latex.err, note);
  const std::string tex = out("latex");
  EXPECT_NE(tex.find("% numeric A and B about t = 0, q = [0, 0, 0, 0, 0, 0, 0, 0, 0]"),
            std::string::npos)
      << tex;
  EXPECT_NE(tex.find("(no symbolic model: the symbolic linear model is formed for at most 8"),
            std::string::npos)
      << tex;
  const auto latex_A = latex_rows(tex, "A"), latex_B = latex_rows(tex, "B");
  ASSERT_EQ(latex_A.size(), A.size()) << tex;
  ASSERT_EQ(latex_B.size(), B.size()) << tex;
  for (std::size_t i = 0; i < A.size(); ++i) {
    ASSERT_EQ(latex_A[i].size(), A[i].size()) << tex;
    for (std::size_t k = 0; k < A[i].size(); ++k)
      EXPECT_NEAR(latex_A[i][k], A[i][k], 1e-11 * std::max(1.0, std::abs(A[i][k])));
    EXPECT_NEAR(latex_B[i][0], B[i][0], 1e-11 * std::max(1.0, std::abs(B[i][0])));
  }
}

// The UR5 at rest in its zero pose: its stiffness under gravity is defective (rank 1 here: only
// the wrist-1 joint is restored), so A has ten zero eigenvalues in Jordan blocks that a general
// eigensolver returns as ±1e-5 ("unstable"). Found by deflation they are exactly 0, and the one
// oscillating pair is s² = the only nonzero eigenvalue of ∂q̈/∂q, its trace.
TEST(Linearize, DefectiveZeroEigenvaluesOfARobotAreExactlyZero) {
  const auto robot = io::read_model(std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf");
  const auto eq = principles::derive(robot.model, principles::Method::GibbsAppell);
  const std::size_t n = robot.model->dof();
  const auto lin = num::linearize(eq, VectorXd::Zero(static_cast<Eigen::Index>(n)),
                                  VectorXd::Zero(static_cast<Eigen::Index>(n)), {});
  const Eigen::Index N = static_cast<Eigen::Index>(n);
  const MatrixXd K = lin.A.bottomLeftCorner(N, N);
  ASSERT_LT(K.trace(), 0.0);
  int zeros = 0;
  for (Eigen::Index k = 0; k < lin.eigenvalues.size(); ++k) zeros += lin.eigenvalues[k] == 0.0;
  EXPECT_EQ(zeros, 2 * static_cast<int>(n) - 2) << lin.eigenvalues.transpose();
  const auto last = lin.eigenvalues[lin.eigenvalues.size() - 1];
  EXPECT_NEAR(std::abs(last.real()), 0.0, 1e-12);
  EXPECT_NEAR(last.imag() * last.imag(), -K.trace(), 1e-7 * std::abs(K.trace()));
  for (const auto& mode : num::modes(lin)) EXPECT_FALSE(mode.unstable) << mode.eigenvalue;
}

// The recursions differentiated (∂q̈/∂x = −M⁻¹ ∂τ/∂x) and the symbolic partials of M and f are
// two independent routes to A and B: they agree to rounding, on a robot and on a tree with every
// load and an input (its column of B). A model linearized by itself (what `appell linearize`
// does without --symbolic) forms no equations where the recursions cover it, and its
// Gibbs-Appell equations where they do not (the slider-crank's loop): the same A and B.
TEST(Linearize, RecursionsDifferentiatedAgreeWithTheSymbolicPartials) {
  const auto ur5 = io::read_model(std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf").model;
  const auto tree = io::parse_model(appell::test_support::tree_yaml, "tree.yaml");
  const auto crank = io::read_model(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml").model;
  for (const auto& [model, inputs] :
       std::vector<std::pair<std::shared_ptr<const model::Model>, std::vector<std::string>>>{
           {ur5, {}}, {tree, {"u"}}, {crank, {}}}) {
    SCOPED_TRACE(model->name);
    const auto eq = principles::derive(model, principles::Method::GibbsAppell);
    const auto n = static_cast<Eigen::Index>(model->dof());
    VectorXd q(n), qd(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      q[j] = 0.3 + 0.5 * std::sin(1.3 * static_cast<double>(j));
      qd[j] = 0.8 * std::cos(0.7 * static_cast<double>(j));
    }
    num::LinearizationOptions options;
    options.inputs = inputs;
    if (!inputs.empty()) options.values.set("u", 0.4);
    options.t = 0.3;
    const auto recursive = num::linearize(eq, q, qd, options);
    const auto by_itself = num::linearize(model, q, qd, options);
    options.use_recursions = false;
    const auto symbolic = num::linearize(eq, q, qd, options);
    const double scale = symbolic.A.cwiseAbs().maxCoeff();
    ASSERT_GT(scale, 0.0);
    for (const num::LinearModel* other : {&recursive, &by_itself}) {
      ASSERT_EQ(other->A.rows(), symbolic.A.rows());
      EXPECT_LT((other->A - symbolic.A).cwiseAbs().maxCoeff(), 1e-10 * scale) << other->A << "\n\n"
                                                                              << symbolic.A;
      ASSERT_EQ(other->B.cols(), static_cast<Eigen::Index>(inputs.size()));
      if (!inputs.empty()) {
        EXPECT_GT(symbolic.B.cwiseAbs().maxCoeff(), 0.0);
        EXPECT_LT((other->B - symbolic.B).cwiseAbs().maxCoeff(),
                  1e-10 * symbolic.B.cwiseAbs().maxCoeff());
      }
      EXPECT_EQ(other->states, symbolic.states);
      EXPECT_EQ(other->dependent_coordinates, symbolic.dependent_coordinates);
    }
  }
}

// An inverted pendulum's real pair ±sqrt(g/l): the eigensolver's |−a| and |+a| differ in the
// last digits for some g/l, and the order must not follow them (the recursions and the formed
// equations, rounding differently, printed the pair in opposite orders).
TEST(Linearize, ARealPairIsOrderedNegativeFirstHoweverRounded) {
  const auto model = io::parse_model(R"yaml(name: upright
parameters: {m: 1.0, l: 1.0, g: 9.81}
coordinates: [q]
frames:
  rod: {rotation: rot_z(q)}
particles:
  bob: {frame: rod, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
)yaml",
                                     "upright.yaml");
  const VectorXd q = VectorXd::Constant(1, M_PI), qd = VectorXd::Zero(1);
  for (int k = 0; k < 200; ++k) {
    num::LinearizationOptions options;
    const double g = 1.0 + 0.173 * k;
    options.values.set("g", g);
    const auto lin = num::linearize(model, q, qd, options);
    ASSERT_EQ(lin.eigenvalues.size(), 2);
    EXPECT_NEAR(lin.eigenvalues[0].real(), -std::sqrt(g), 1e-9 * std::sqrt(g)) << "g = " << g;
    EXPECT_NEAR(lin.eigenvalues[1].real(), std::sqrt(g), 1e-9 * std::sqrt(g)) << "g = " << g;
  }
}

// Printed as a person reads them (issue 30): noise below 1e-12 of the modulus is 0, a conjugate
// pair is one group with Im > 0, equal values (the zeros) one group with their count.
TEST(Linearize, EigenvalueGroupsPairConjugatesAndCountZeros) {
  num::LinearModel linear;
  linear.eigenvalues.resize(7);
  linear.eigenvalues << 0.0, 0.0, 0.0, std::complex<double>(-6e-17, -2.0),
      std::complex<double>(-6e-17, 2.0), -3.0, std::complex<double>(1e-3, 5.0);
  // A lone complex value (no conjugate) stays as it is: it is not paired with anything.
  const auto groups = num::eigenvalue_groups(linear);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].value, std::complex<double>(0.0, 0.0));
  EXPECT_EQ(groups[0].count, 3u);
  EXPECT_FALSE(groups[0].conjugate_pair);
  EXPECT_EQ(groups[1].value, std::complex<double>(0.0, 2.0));  // -6e-17 is noise of |s| = 2
  EXPECT_TRUE(groups[1].conjugate_pair);
  EXPECT_EQ(groups[1].count, 1u);
  EXPECT_EQ(groups[1].first, 3u);
  EXPECT_EQ(groups[2].value, std::complex<double>(-3.0, 0.0));
  EXPECT_FALSE(groups[3].conjugate_pair);
  EXPECT_EQ(groups[3].value, std::complex<double>(1e-3, 5.0));  // 2e-4 of |s|: not noise
  // Matrices: an entry below 1e-12 of the largest is 0, one above stays.
  MatrixXd m(2, 2);
  m << 25.0, -4.7e-16, 3e-11, 1.0;
  const MatrixXd clean = num::without_rounding_noise(m);
  EXPECT_EQ(clean(0, 1), 0.0);
  EXPECT_EQ(clean(1, 0), 3e-11);
  EXPECT_EQ(clean(0, 0), 25.0);
}

// The cart's two damped modes: each pair printed once as a ± bi, in the text and the modes.
TEST(Linearize, CommandLinePrintsEachConjugatePairOnce) {
  const auto run = test_support::run_cli("linearize " + std::string(APPELL_EXAMPLES_DIR) +
                                         "/spring_damper_cart.yaml --q 0,0 --qd 0,0 --modes");
  ASSERT_EQ(run.code, 0) << run.out;
  const std::string eigenvalues =
      "eigenvalues of A:\n"
      "  -0.0962127803425 ± 3.00166216605i\n"
      "  -0.285214656624 ± 5.45525516849i\n"
      "modes (natural frequency |s|, damping ratio -Re(s)/|s|):\n"
      "  s = -0.0962127803425 ± 3.00166216605i: 3.00320373238 rad/s (0.477974719121 Hz), "
      "damping ratio 0.0320367144277\n"
      "  s = -0.285214656624 ± 5.45525516849i: 5.46270595526 rad/s (0.869416655438 Hz), "
      "damping ratio 0.0522112409051\n";
  EXPECT_NE(run.out.find(eigenvalues), std::string::npos) << run.out;
}

// The UR5 at rest: A as computed holds rounding noise (entries of 1e-16 where the physics has 0)
// and ten zero eigenvalues; printed, the noise is 0, the zeros one line with their count and the
// one oscillating pair one line. JSON keeps one [re, im] per eigenvalue and adds the groups.
// The angles as written (--exact-angles): the URDF's 1.57079632679 for pi/2 is what leaves the
// small entries this test needs.
TEST(Linearize, CommandLineUr5HasNoRoundingNoiseAndGroupedZeros) {
  const std::string ur5 = std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf --exact-angles";
  io::UrdfOptions exact;
  exact.exact_angles = true;
  const auto robot =
      io::read_model(std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf", exact);
  const auto eq = principles::derive(robot.model, principles::Method::GibbsAppell);
  const auto n = static_cast<Eigen::Index>(robot.model->dof());
  const auto lin = num::linearize(eq, VectorXd::Zero(n), VectorXd::Zero(n), {});
  const double largest = lin.A.cwiseAbs().maxCoeff();
  int noise = 0;
  for (Eigen::Index k = 0; k < lin.A.size(); ++k)
    noise += lin.A.data()[k] != 0.0 && std::abs(lin.A.data()[k]) < 1e-12 * largest;
  ASSERT_GT(noise, 0) << "no noise in A: the test below would prove nothing";

  const auto json = test_support::run_cli("linearize " + ur5 + " --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::ordered_json::parse(json.out);
  for (const auto& row : j["A"])
    for (const auto& entry : row) {
      const double v = entry.get<double>();
      EXPECT_TRUE(v == 0.0 || std::abs(v) >= 1e-12 * largest) << v;
    }
  EXPECT_EQ(j["eigenvalues"].size(), 12u);
  ASSERT_EQ(j["eigenvalue_groups"].size(), 2u) << j["eigenvalue_groups"];
  EXPECT_EQ(j["eigenvalue_groups"][0]["count"], 10);
  EXPECT_EQ(j["eigenvalue_groups"][0]["eigenvalue"][0], 0.0);
  EXPECT_EQ(j["eigenvalue_groups"][1]["conjugate_pair"], true);
  EXPECT_EQ(j["eigenvalue_groups"][1]["eigenvalue"][0], 0.0);  // undamped: no -6e-17
  EXPECT_GT(j["eigenvalue_groups"][1]["eigenvalue"][1].get<double>(), 0.0);

  const auto text = test_support::run_cli("linearize " + ur5);
  ASSERT_EQ(text.code, 0) << text.out;
  const auto at = text.out.find("eigenvalues of A:\n  0 (multiplicity 10)\n  0 ± ");
  EXPECT_NE(at, std::string::npos) << text.out;
  // The entries of 1e-25 and 1e-15 beside -2.49 are gone; those of 1e-10 stay: they are the
  // URDF's 1.570796325 for π/2, not rounding. Such an entry is a difference of terms of order 1,
  // known to about 1e-16 absolute, i.e. to about 6 of its digits: the symbolic partials gave
  // 1.18097243406e-10, the differentiated recursions 1.18097337465e-10.
  EXPECT_EQ(text.out.find("e-2"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("e-15"), std::string::npos) << text.out;
  EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(\[0, 1\.1809\d*e-10, )"))) << text.out;
}

}  // namespace
