// One way to give values (model/values.hpp): Values and bind(), and every consumer binding
// through them — the same numbers in M, f and the constraint rows A, b; an unknown name is an
// error naming it, never a silent 0.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/statics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/minimal_form.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

// A particle on a massless rod of length l hanging from a pivot that an unspecified function u
// of time moves along x; m b = 2 m is a parameter whose default follows m; an input w pushes
// with a force w + c dot(w) along x at the particle.
constexpr const char* kPendulum = R"(
name: values-pendulum
parameters: {m: 1.0, l: 2.0, g: 9.81, mb: 2*m, c: 0.5}
coordinates: [{name: theta, initial: 0.3}]
prescribed: {u: null}
inputs: [w]
frames:
  pivot: {translation: [u, 0, 0]}
  arm: {parent: pivot, rotation: rot_z(theta)}
particles:
  bob: {frame: arm, mass: m, position: [0, -l, 0]}
gravity: [0, -g, 0]
loads:
  - {force: [w + c*dot(w), 0, 0], on: arm, at: [0, -l, 0]}
)";

std::shared_ptr<const model::Model> pendulum() { return io::parse_model(kPendulum, "p.yaml"); }

// Runs `f`, expecting a ModelError that names `name` (as its offending item and in what()).
void expect_names(const std::function<void()>& f, const std::string& name,
                  const std::string& where = "values") {
  try {
    f();
    ADD_FAILURE() << "accepted; expected an error naming " << name;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.offending(), name) << e.what();
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    EXPECT_EQ(e.where().file, where) << e.what();
  }
}

TEST(Values, MapsConvertAndEveryValueKeepsItsPlace) {
  const std::map<std::string, double> map{{"m", 2.0}};
  const model::Values from_map = map;
  EXPECT_EQ(from_map.numbers().at("m"), 2.0);
  const model::Values from_list = {{"m", 2.0}, {"l", 3.0}};
  EXPECT_EQ(from_list.numbers().size(), 2u);
  model::Values v;
  EXPECT_TRUE(v.empty());
  v["m"] = 4.0;
  v.set("l", 1.5, {"--set", 0, 0}).drive("w", GiNaC::ex(1));
  EXPECT_EQ(v.numbers().at("m"), 4.0);
  EXPECT_EQ(v.where("m").file, "values");
  EXPECT_EQ(v.where("l").file, "--set");
  EXPECT_EQ(v.count("w"), 1u);
  EXPECT_EQ(v.count("nosuch"), 0u);
  model::Values more;
  more.set("m", 5.0);
  v.merge(more);
  EXPECT_EQ(v.numbers().at("m"), 5.0);
}

TEST(Values, BindResolvesParametersFunctionsAndDerivatives) {
  const auto model = pendulum();
  const auto& tf = *model->time_functions;
  const auto bound = model::bind(*model, {{"m", 3.0}, {"dot(w)", 0.25}, {"ddot(u)", -1.0}});
  // Defaults are evaluated in order with the overrides: mb = 2 m follows m.
  EXPECT_EQ(bound.parameters.at("m"), 3.0);
  EXPECT_EQ(bound.parameters.at("mb"), 6.0);
  EXPECT_EQ(bound.parameters.at("l"), 2.0);
  const GiNaC::ex dot_w = *tf.find_derivative("w", 1), ddot_u = *tf.find_derivative("u", 2);
  const GiNaC::ex w = *tf.find_derivative("w", 0);
  EXPECT_TRUE(bound.numbers.at(dot_w).is_equal(GiNaC::numeric(0.25)));
  EXPECT_TRUE(bound.numbers.at(ddot_u).is_equal(GiNaC::numeric(-1.0)));
  EXPECT_TRUE(bound.unset.at(w).is_zero());  // an input not given is a constant 0
  EXPECT_EQ(bound.numbers.count(w), 0u);
  // Exactly what was given: what printed equations substitute.
  EXPECT_EQ(bound.given.size(), 3u);
  EXPECT_TRUE(bound.driven.empty());
}

TEST(Values, BindDrivesAFunctionAndItsDerivatives) {
  const auto model = pendulum();
  const GiNaC::symbol t = model->time_functions->time();
  const GiNaC::symbol l = model->find_parameter("l")->symbol;
  model::Values values;
  values.set("l", 4.0).drive("u", l * GiNaC::sin(3 * t));
  const auto bound = model::bind(*model, values);
  const auto& tf = *model->time_functions;
  EXPECT_TRUE(bound.driven.at(*tf.find_derivative("u", 0)).is_equal(4 * GiNaC::sin(3 * t)));
  EXPECT_TRUE(bound.driven.at(*tf.find_derivative("u", 2)).is_equal(-36 * GiNaC::sin(3 * t)));
}

TEST(Values, BadValuesAreErrorsNamingThem) {
  const auto model = pendulum();
  const auto t = model->time_functions->time();
  auto bind = [&](const model::Values& v) { return [&model, v] { model::bind(*model, v); }; };
  expect_names(bind({{"nosuch", 1.0}}), "nosuch");
  expect_names(bind(model::Values().set("nosuch", 1.0, {"--set", 0, 0})), "nosuch", "--set");
  expect_names(bind({{"dot(nosuch)", 1.0}}), "dot(nosuch)");
  expect_names(bind({{"theta", 1.0}}), "theta");    // a coordinate is the state
  expect_names(bind({{"dot(m)", 1.0}}), "dot(m)");  // a parameter has no derivatives
  expect_names(bind({{"m", std::nan("")}}), "m");   // not finite
  expect_names(bind({{"l", std::numeric_limits<double>::infinity()}}), "l");
  expect_names(bind(model::Values().drive("m", t)), "m");            // a parameter is constant
  expect_names(bind(model::Values().drive("dot(u)", t)), "dot(u)");  // drive u itself
  expect_names(bind(model::Values().set("dot(u)", 1.0).drive("u", t)), "u");  // both
  const GiNaC::symbol stray("stray");
  expect_names(bind(model::Values().drive("u", stray * t)), "u");
  // Prescribed functions given by an expression in the model take no value.
  const auto blade = io::read_model_file(examples + "/fem/rotating_blade.yaml");
  EXPECT_THROW(model::bind(*blade, {{"psi", 1.0}}), model::ModelError);
}

TEST(Values, GivenValuesThatMakeABodyImpossibleAreBadInput) {
  // The builder checks masses and inertias at the defaults; values given later are checked the
  // same way (issue 12: --set m=-1 was a "singular mass matrix", exit 1; an inertia A, A, C with
  // C > 2A was accepted). Each error is located at the value and names its parameter. The box
  // turns about x: an inertia breaking the triangle inequality about z is no planar body's.
  const auto model = io::parse_model(R"(
name: box-on-axis
parameters: {m: 1.0, A: 1.0, C: 1.5, k: 0, mp: 2}
coordinates: [q]
frames: {b: {rotation: rot_x(q)}}
bodies:
  box: {frame: b, mass: m, inertia: [A, A, C, k, 0, 0]}
particles:
  tip: {frame: b, mass: mp, position: [1, 0, 0]}
)",
                                     "box.yaml");
  auto bind = [&](const model::Values& v) { return [&model, v] { model::bind(*model, v); }; };
  expect_names(bind({{"C", 2.5}}), "C");    // triangle inequality: C > A + A
  expect_names(bind({{"k", 1.6}}), "k");    // a product of inertia that leaves a moment < 0
  expect_names(bind({{"m", -1.0}}), "m");   // the body's mass
  expect_names(bind({{"mp", 0.0}}), "mp");  // the particle's mass
  expect_names(bind(model::Values().set("A", 0.5, {"--set", 0, 0})), "A", "--set");
  // On the edge of the triangle inequality, and a nonzero product that keeps it physical.
  EXPECT_NO_THROW(model::bind(*model, {{"C", 2.0}}));
  EXPECT_NO_THROW(model::bind(*model, {{"k", 0.5}, {"m", 3.0}, {"mp", 0.1}}));
  // Through every consumer that binds: eval exits 2 (not 1) with the option's place.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "appell_values_box.yaml";
  {
    std::ofstream out(file);
    out << "name: b\nparameters: {m: 1.0, A: 1.0, C: 1.5}\ncoordinates: [q]\nframes: {b: "
           "{rotation: rot_x(q)}}\nbodies:\n  box: {frame: b, mass: m, inertia: [A, A, C, 0, 0, "
           "0]}\n";
  }
  for (const std::string command : {"eval", "simulate --t-end 0.1 --out /dev/null", "statics"}) {
    const auto r = test_support::run_cli(command + " " + file.string() + " --set C=3");
    EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("--set: with C=3, box's inertia breaks the triangle inequality"),
              std::string::npos)
        << r.out;
  }
  std::filesystem::remove(file);
}

TEST(Values, EveryConsumerRejectsAnUnknownName) {
  const model::Values bad = {{"nosuch", 1.0}};
  const auto model = pendulum();
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  expect_names([&] { num::CompiledEquations c(eq, bad); }, "nosuch");
  expect_names([&] { num::InverseDynamics c(eq, bad); }, "nosuch");
  expect_names([&] { num::Trajectory c("theta = sin(t)", *model, bad); }, "nosuch");
  expect_names(
      [&] {
        num::SimulationOptions o;
        o.values = bad;
        num::simulate(eq, o, [](const num::SimulationRow&) {});
      },
      "nosuch");
  expect_names(
      [&] {
        num::StaticsOptions o;
        o.values = bad;
        num::solve_statics(model, o);
      },
      "nosuch");
  expect_names(
      [&] {
        codegen::generate_cpp_header(eq, codegen::CodegenOptions{"ns", bad});
      },
      "nosuch");
  expect_names([&] { codegen::generated_layout(eq, bad); }, "nosuch");

  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  expect_names([&] { num::CompiledEquations c(principles::minimal_form(sleigh), bad); }, "nosuch");

  const auto blade = io::read_model_file(examples + "/fem/rotating_blade.yaml");
  expect_names([&] { fem::build_flexible_body(*blade, 0, bad); }, "nosuch");
  expect_names([&] { fem::FrameMotion m(blade, "hub", bad, 1.0, 0.01, {}); }, "nosuch");
  expect_names(
      [&] {
        fem::FrameMotion m(blade, "hub", {{"L", std::nan("")}}, 1.0, 0.01, {});
      },
      "L");
}

TEST(Values, AnOverriddenMassGivesTheClosedFormPendulum) {
  // With the pivot at rest: M = m l², f = −m g l sin θ + (w + c ẇ) l cos θ.
  const auto model = pendulum();
  for (auto method : principles::all_methods) {
    SCOPED_TRACE(principles::method_name(method));
    const auto eq = principles::derive(model, method);
    const double m = 3.5, l = 2.0, g = 9.81, c = 0.5, w = 0.7, wd = -0.4, theta = 0.8;
    const num::CompiledEquations compiled(eq, {{"m", m}, {"w", w}, {"dot(w)", wd}});
    Eigen::MatrixXd M;
    Eigen::VectorXd f;
    compiled.evaluate(0.0, Eigen::VectorXd::Constant(1, theta), Eigen::VectorXd::Constant(1, 1.3),
                      M, f);
    EXPECT_NEAR(M(0, 0), m * l * l, 1e-12);
    EXPECT_NEAR(f[0], -m * g * l * std::sin(theta) + (w + c * wd) * l * std::cos(theta), 1e-12);
  }
}

TEST(Values, TheMovingPivotTakesANumberOrAnExpression) {
  // f gains −m l cos θ ü when the pivot accelerates.
  const auto model = pendulum();
  const auto eq = principles::derive(model, principles::Method::Lagrange);
  const double m = 1.0, l = 2.0, g = 9.81, theta = 0.4, t = 0.9;
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(1, theta), qd = Eigen::VectorXd::Zero(1);
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  const num::CompiledEquations constant(eq, {{"ddot(u)", 2.0}});
  constant.evaluate(t, q, qd, M, f);
  EXPECT_NEAR(f[0], -m * g * l * std::sin(theta) - m * l * std::cos(theta) * 2.0, 1e-12);

  const GiNaC::symbol time = model->time_functions->time();
  const num::CompiledEquations driven(eq, model::Values().drive("u", GiNaC::sin(3 * time)));
  driven.evaluate(t, q, qd, M, f);
  const double uddot = -9 * std::sin(3 * t);
  EXPECT_NEAR(f[0], -m * g * l * std::sin(theta) - m * l * std::cos(theta) * uddot, 1e-12);
}

TEST(Values, ConstraintRowsSeeTheOverriddenParameters) {
  // The slider-crank's loop: r cos q1 + L cos q2 − x = 0, r sin q1 + L sin q2 = 0. At
  // acceleration level A q̈ = b with
  //   A = [[−r sin q1, −L sin q2, −1], [r cos q1, L cos q2, 0]],
  //   b = [r cos q1 q̇1² + L cos q2 q̇2², r sin q1 q̇1² + L sin q2 q̇2²].
  const auto model = io::read_model_file(examples + "/slider_crank.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const double r = 0.25, L = 0.7;
  const num::CompiledEquations compiled(eq, {{"r", r}, {"L", L}});
  Eigen::VectorXd q(3), qd(3);
  q << 0.9, -0.3, 0.4;
  qd << 1.7, -0.6, 0.2;
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b;
  compiled.evaluate(0.0, q, qd, M, f);
  compiled.constraints(A, b);
  ASSERT_EQ(A.rows(), 2);
  // A row may come scaled by a nonzero factor (the same for b): compare A q̈ − b for any q̈ by
  // the ratio of each row to the closed form.
  Eigen::MatrixXd A_exact(2, 3);
  A_exact << -r * std::sin(q[0]), -L * std::sin(q[1]), -1, r * std::cos(q[0]), L * std::cos(q[1]),
      0;
  Eigen::VectorXd b_exact(2);
  b_exact << r * std::cos(q[0]) * qd[0] * qd[0] + L * std::cos(q[1]) * qd[1] * qd[1],
      r * std::sin(q[0]) * qd[0] * qd[0] + L * std::sin(q[1]) * qd[1] * qd[1];
  for (Eigen::Index i = 0; i < 2; ++i) {
    const Eigen::Index k = i == 0 ? 2 : 0;  // an entry nonzero in the closed form
    const double scale = A(i, k) / A_exact(i, k);
    EXPECT_NEAR(std::abs(scale), 1.0, 1e-12);  // rows are φ differentiated, not rescaled
    for (Eigen::Index j = 0; j < 3; ++j) EXPECT_NEAR(A(i, j), scale * A_exact(i, j), 1e-12);
    EXPECT_NEAR(b[i], scale * b_exact[i], 1e-12);
  }
}

// A point in the plane pinned to x = u(t) by a holonomic constraint (an unspecified function):
// A = [1, 0] (or its negative), b = ü — the constraint rows see u's values as M and f do.
constexpr const char* kPinned = R"(
name: pinned
parameters: {m: 1.0, g: 9.81}
coordinates: [{name: x}, {name: y}]
prescribed: {u: null}
frames:
  point: {translation: [x, y, 0]}
particles:
  p: {frame: point, mass: m, position: [0, 0, 0]}
gravity: [0, -g, 0]
constraints:
  - {name: pin, holonomic: "x - u"}
)";

TEST(Values, ConstraintRowsSeeDrivenFunctions) {
  const auto model = io::parse_model(kPinned, "pinned.yaml");
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const GiNaC::symbol t = model->time_functions->time();
  const double time = 0.6;
  Eigen::MatrixXd M, A;
  Eigen::VectorXd f, b;
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(2), qd = Eigen::VectorXd::Zero(2);
  for (const bool driven : {false, true}) {
    SCOPED_TRACE(driven ? "driven" : "number");
    const model::Values values =
        driven ? model::Values().drive("u", 2 * GiNaC::sin(t)) : model::Values{{"ddot(u)", 1.5}};
    const double uddot = driven ? -2 * std::sin(time) : 1.5;
    const num::CompiledEquations compiled(eq, values);
    compiled.evaluate(time, q, qd, M, f);
    compiled.constraints(A, b);
    ASSERT_EQ(A.rows(), 1);
    EXPECT_NEAR(std::abs(A(0, 0)), 1.0, 1e-15);
    EXPECT_NEAR(A(0, 1), 0.0, 1e-15);
    EXPECT_NEAR(b[0], A(0, 0) * uddot, 1e-12);
    Eigen::VectorXd qdd, lambda;
    compiled.accelerations_and_multipliers(M, f, A, b, qdd, lambda);
    EXPECT_NEAR(qdd[0], uddot, 1e-12);
  }

  // Simulated: x follows u = 0.1 sin(t) from a consistent start, the constraints projected.
  num::SimulationOptions o;
  o.t_end = 1.0;
  o.output_step = 0.25;
  o.q0 = {0.0, 0.0};
  o.qd0 = {0.1, 0.0};
  o.values.drive("u", GiNaC::numeric(1, 10) * GiNaC::sin(t));
  double worst = 0.0;
  num::simulate(eq, o, [&](const num::SimulationRow& row) {
    worst = std::max(worst, std::abs(row.q[0] - 0.1 * std::sin(row.t)));
  });
  EXPECT_LT(worst, 1e-6);
}

TEST(Values, StaticsAndCodegenTakeTheOverrides) {
  // The pendulum at rest pushed by a constant w: equilibrium tan θ = w / (m g).
  const auto model = pendulum();
  num::StaticsOptions o;
  o.values = {{"m", 2.0}, {"w", 3.0}};
  const auto result = num::solve_statics(model, o);
  ASSERT_FALSE(result.equilibria.empty());
  bool found = false;
  for (const auto& e : result.equilibria)
    found = found || std::abs(e.q[0] - std::atan2(3.0, 2.0 * 9.81)) < 1e-8;
  EXPECT_TRUE(found);

  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  const auto layout = codegen::generated_layout(eq, {{"m", 2.5}, {"dot(w)", 0.5}});
  std::map<std::string, double> defaults;
  for (const auto& p : layout.parameters) defaults[p.name] = p.default_value;
  EXPECT_EQ(defaults.at("m"), 2.5);
  EXPECT_EQ(defaults.at("mb"), 5.0);  // follows m
  bool dot_w = false;
  for (const auto& in : layout.inputs)
    if (in.name == "dot(w)") dot_w = in.default_value == 0.5;
  EXPECT_TRUE(dot_w);

  // A driven function is generated as its expression: no member of Inputs, t in the code.
  const GiNaC::symbol t = model->time_functions->time();
  const auto driven = codegen::generated_layout(eq, model::Values().drive("u", GiNaC::sin(t)));
  for (const auto& in : driven.inputs) EXPECT_EQ(in.name.find("(u)"), std::string::npos) << in.name;
  for (const auto& in : driven.inputs) EXPECT_NE(in.name, "u");
  const std::string header =
      codegen::generate_cpp_header(eq, {"pendulum", model::Values().drive("u", GiNaC::sin(t))});
  EXPECT_NE(header.find("std::sin(t)"), std::string::npos);
}

TEST(ValuesCli, SetIsLocatedAtTheOptionAndReachesTheConstraintRows) {
  const std::string crank = examples + "/slider_crank.yaml";
  const auto unknown = test_support::run_cli("eval " + crank + " --set nosuch=1");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("--set"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("(nosuch)"), std::string::npos) << unknown.out;
  const auto not_finite = test_support::run_cli("eval " + crank + " --set r=nan");
  EXPECT_EQ(not_finite.code, 2) << not_finite.out;
  EXPECT_NE(not_finite.out.find("(r)"), std::string::npos) << not_finite.out;

  // derive --set substitutes into A and b as into M and f: r is gone from every row.
  const auto derived = test_support::run_cli("derive " + crank + " --set r=2 --format json");
  ASSERT_EQ(derived.code, 0) << derived.out;
  const auto json = nlohmann::json::parse(derived.out);
  auto mentions_r = [](const nlohmann::json& rows) {
    const std::string text = rows.dump();
    for (std::size_t i = text.find('r'); i != std::string::npos; i = text.find('r', i + 1)) {
      const bool before = i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]));
      const bool after =
          i + 1 < text.size() && std::isalnum(static_cast<unsigned char>(text[i + 1]));
      if (!before && !after) return true;
    }
    return false;
  };
  EXPECT_FALSE(mentions_r(json["mass_matrix"])) << json["mass_matrix"];
  EXPECT_FALSE(mentions_r(json["constraint_matrix"])) << json["constraint_matrix"];
  EXPECT_FALSE(mentions_r(json["constraint_rhs"])) << json["constraint_rhs"];
}

}  // namespace
