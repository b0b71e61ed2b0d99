// The model builder: a model built in code is the model the YAML reader makes of the same file
// (same equations), and every class of mistake the reader reports is reported by the builder
// with the same message, the item's place in the model standing where a file location would.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/model/builder.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;
using GiNaC::ex;
using model::BodySpec;
using model::Expr;
using model::FrameSpec;
using model::Inertia;
using model::ModelBuilder;
using model::Rotation;

/// The planar 2R robot of seed 000 (examples/planar_2r.yaml), built in code; expressions as text
/// or as GiNaC expressions over the builder's symbols.
std::shared_ptr<const model::Model> planar_2r(bool with_ginac_expressions) {
  ModelBuilder b("planar-2r");
  const auto M = b.parameter("M", 1.0);
  const auto l = b.parameter("l", 0.5);
  const auto M_S = b.parameter("M_S", 0.2);
  const auto g = b.parameter("g", 9.81);
  const auto q1 = b.coordinate("q1");
  const auto q2 = b.coordinate("q2");
  if (with_ginac_expressions) {
    b.frame("link1", {.rotation = Rotation::z(q1)});
    b.frame("link2", {.parent = "link1", .translation = {l, 0, 0}, .rotation = Rotation::z(q2)});
    for (const char* rod : {"rod1", "rod2"})
      b.body(rod, {.frame = rod == std::string("rod1") ? "link1" : "link2",
                   .mass = M,
                   .com = {l / 2, 0, 0},
                   .inertia = Inertia::rod(l, "x")});
    b.gravity({0, -g, 0});
    b.force({.force = {0, -M_S * g, 0}, .on = "link2", .at = model::Expr3{l, 0, 0}});
  } else {
    // Frames in any order: link2 before its parent.
    b.frame("link2", {.parent = "link1", .translation = {"l", 0, 0}, .rotation = "rot_z(q2)"});
    b.frame("link1", {.rotation = "rot_z(q1)"});
    b.body(
        "rod1",
        {.frame = "link1", .mass = "M", .com = {"l/2", 0, 0}, .inertia = Inertia::rod("l", "x")});
    b.body(
        "rod2",
        {.frame = "link2", .mass = "M", .com = {"l/2", 0, 0}, .inertia = Inertia::rod("l", "x")});
    b.gravity({0, "-g", 0});
    b.force({.force = {0, "-M_S*g", 0}, .on = "link2", .at = model::Expr3{"l", 0, 0}});
  }
  return b.build();
}

/// M and f of two models agree at random states (their symbols differ: each model has its own).
void expect_same_equations(const std::shared_ptr<const model::Model>& a,
                           const std::shared_ptr<const model::Model>& b) {
  ASSERT_EQ(a->dof(), b->dof());
  const num::CompiledEquations ca(principles::derive(a, principles::Method::GibbsAppell));
  const num::CompiledEquations cb(principles::derive(b, principles::Method::Lagrange));
  std::mt19937 random(7);
  std::uniform_real_distribution<double> angle(-3, 3);
  const auto n = static_cast<Eigen::Index>(a->dof());
  for (int k = 0; k < 10; ++k) {
    Eigen::VectorXd q(n), qd(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      q[j] = angle(random);
      qd[j] = angle(random);
    }
    Eigen::MatrixXd Ma, Mb;
    Eigen::VectorXd fa, fb;
    ca.evaluate(0.0, q, qd, Ma, fa);
    cb.evaluate(0.0, q, qd, Mb, fb);
    EXPECT_LT((Ma - Mb).norm(), 1e-12 * (1 + Ma.norm()));
    EXPECT_LT((fa - fb).norm(), 1e-12 * (1 + fa.norm()));
  }
}

TEST(ModelBuilder, BuiltInCodeEqualsTheModelFile) {
  const auto from_file = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml");
  expect_same_equations(from_file, planar_2r(false));
  expect_same_equations(from_file, planar_2r(true));
}

TEST(ModelBuilder, MassMatrixOfThePendulumInClosedForm) {
  ModelBuilder b("pendulum");
  const auto m = b.parameter("m", 2);
  const auto l = b.parameter("l", "3/2");
  b.parameter("g", 9.81);
  const auto theta = b.coordinate("theta", 0.3);
  b.frame("arm", {.rotation = Rotation::z(theta)});
  b.particle("bob", {.frame = "arm", .mass = m, .position = {l, 0, 0}});
  b.gravity({0, "-g", 0});
  const auto model = b.build();
  const auto eq = principles::derive(model, principles::Method::Lagrange);
  // m l² θ̈ = −m g l cos θ
  const ex w = GiNaC::wild();
  const ex sin2 = GiNaC::pow(GiNaC::sin(w), 2) == 1 - GiNaC::pow(GiNaC::cos(w), 2);
  EXPECT_TRUE((eq.mass_matrix(0, 0) - m * l * l).expand().subs(sin2).expand().is_zero())
      << eq.mass_matrix(0, 0);
  const GiNaC::symbol g = model->parameters[2].symbol;
  EXPECT_TRUE((eq.forcing(0, 0) + m * g * l * GiNaC::cos(theta)).expand().is_zero())
      << eq.forcing(0, 0);
  EXPECT_EQ(model->coordinates[0].initial, 0.3);
}

TEST(ModelBuilder, DerivativesInputsAndTimeAreTheBuildersSymbols) {
  ModelBuilder b("cart");
  const auto k = b.parameter("k", 10);
  const auto c = b.parameter("c", "1/2");
  const auto x = b.coordinate("x");
  const auto u = b.input("u");
  b.frame("cart", {.translation = {x, 0, 0}});
  b.particle("mass", {.frame = "cart", .mass = 3});
  // A spring, a damper and a time-varying drive, written with the builder's symbols.
  b.generalized_force("x", -k * x - c * b.derivative("x") + u * GiNaC::sin(b.time()));
  const auto model = b.build();
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);
  EXPECT_TRUE((eq.mass_matrix(0, 0) - 3).is_zero());
  const ex expected = -k * x - c * b.derivative("x") + u * GiNaC::sin(b.time());
  EXPECT_TRUE((eq.forcing(0, 0) - expected).expand().is_zero()) << eq.forcing(0, 0);
  EXPECT_EQ(model->inputs.size(), 1u);
}

// -- every class of mistake, named by its place in the model ------------------------------------

void expect_builder_error(const std::function<void()>& action, const std::string& place,
                          const std::string& message, const std::string& offending) {
  try {
    action();
    ADD_FAILURE() << "no error; expected " << place << ": " << message;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 0) << e.what();
    EXPECT_EQ(e.where().str(), place) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    // The whole message reads "PLACE: message (offending)", as a file location would.
    EXPECT_EQ(std::string(e.what()).rfind(place + ": ", 0), 0u) << e.what();
  }
}

/// A builder with parameters l, coordinate q, frame arm (rot_z(q)) and body rod on it.
ModelBuilder with_arm() {
  ModelBuilder b("m");
  b.parameter("l", 1);
  b.coordinate("q");
  b.frame("arm", {.rotation = "rot_z(q)"});
  b.body("rod", {.frame = "arm", .mass = 1, .inertia = Inertia::rod("l", "z")});
  return b;
}

TEST(ModelBuilderErrors, Names) {
  expect_builder_error([] { ModelBuilder("m").parameter("2a", 1); }, "parameters.2a",
                       "invalid name", "2a");
  expect_builder_error([] { ModelBuilder("m").coordinate("pi"); }, "coordinates.pi",
                       "reserved name", "pi");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.particle("q", {.frame = "arm", .mass = 1});
      },
      "particles.q", "name already defined as coordinates.q", "q");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.holonomic_constraint("c", "q");
        b.holonomic_constraint("c", "q - 1");
      },
      "constraints.c", "duplicate constraint name", "c");
}

TEST(ModelBuilderErrors, ExpressionsAndNumbers) {
  expect_builder_error([] { ModelBuilder("m").parameter("a", "b + 1"); },
                       "parameters.a, character 1", "unknown name in expression", "b");
  expect_builder_error([] { ModelBuilder("m").parameter("a", "1/0"); }, "parameters.a, character 2",
                       "has no value", "/");
  expect_builder_error([] { ModelBuilder("m").coordinate("q", "t"); },
                       "coordinates.q.initial, character 1", "only numbers and parameters", "t");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.parameter("a", "q");
      },
      "parameters.a, character 1", "only numbers and parameters", "q");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q", 0, "sqrt(-1)");
      },
      "coordinates.q.velocity, character 1", "not a finite real number: it is complex", "sqrt");
  // A GiNaC symbol the builder did not make.
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.gravity({0, GiNaC::symbol("stranger"), 0});
      },
      "gravity[1]", "unknown symbol in expression", "stranger");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        const auto q = b.coordinate("q");
        b.gravity({0, q, 0});
      },
      "gravity[1]", "only numbers, parameters and t", "q");
}

TEST(ModelBuilderErrors, FramesAndRotations) {
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.frame("hand", {.parent = "elbow"});
        b.build();
      },
      "frames.hand.parent", "unknown parent frame", "elbow");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.frame("a", {.parent = "b"});
        b.frame("b", {.parent = "a"});
        b.build();
      },
      "frames.a", "cycle in the frame tree", "a");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.frame("a", {.rotation = Rotation::matrix({{{1, 0, 0}, {0, 1, 0}, {0, 0, 2}}})});
      },
      "frames.a.rotation", "not a rotation matrix", "a");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.frame("a", {.rotation = Rotation::about({0, 0, 0}, "q")});
      },
      "frames.a.rotation", "rotation axis must not be zero", "a");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("q");
        b.frame("a", {.rotation = "rot_z(q)*sin(q)"});
      },
      "frames.a.rotation, character 10", "a rotation is rot_x(a)", "sin");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.frame("carrier", {.rotation = "rot_z(q)"});
        b.relative_to("carrier");
      },
      "relative_to", "the carrier frame moves with the coordinate q", "carrier");
}

TEST(ModelBuilderErrors, BodiesAndParticles) {
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.body("b2", {.frame = "leg", .mass = 1});
      },
      "bodies.b2.frame", "unknown frame", "leg");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.body("b2", {.frame = "arm", .mass = "-l"});
      },
      "bodies.b2.mass", "mass must be positive", "b2");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.particle("p", {.frame = "arm", .mass = "sqrt(-l)"});
      },
      "particles.p.mass", "mass is not a real number", "p");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.body("b2", {.frame = "arm", .mass = 1, .inertia = Inertia::disk(1, "w")});
      },
      "bodies.b2.inertia.axis", "axis must be x, y or z", "w");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.body("b2", {.frame = "arm",
                      .mass = 1,
                      .inertia = Inertia::matrix({{{1, 2, 0}, {0, 1, 0}, {0, 0, 1}}})});
      },
      "bodies.b2.inertia", "inertia matrix must be symmetric", "inertia");
}

TEST(ModelBuilderErrors, LoadsConstraintsAndIndependentSpeeds) {
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.force({.force = {1, 0, 0}, .on = "leg"});
      },
      "loads[0].on", "unknown frame or body", "leg");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.torque({.torque = {0, 0, 1}, .on = "rod", .in = model::Name("nowhere")});
      },
      "loads[0].in", "unknown frame", "nowhere");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.generalized_force("x", 1);
      },
      "loads[0].coordinate", "unknown coordinate", "x");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.holonomic_constraint("c", "dot(q)");
      },
      "constraints.c", "a holonomic constraint depends on the coordinates and t only", "c");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.nonholonomic_constraint("c", "dot(q)^2");
      },
      "constraints.c", "must be linear in the velocities", "c");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.nonholonomic_constraint("c", "ddot(q)");
      },
      "constraints.c", "may not use accelerations", "c");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.independent({"q"});
        b.independent({"q", "q"});
      },
      "independent", "listed twice", "q");
  expect_builder_error(
      [] {
        auto b = with_arm();
        b.independent({});
      },
      "independent", "needs 1 independent speeds", "independent");
  expect_builder_error(
      [] {
        ModelBuilder b("m");
        b.coordinate("x");
        b.coordinate("y");
        b.holonomic_constraint("on_line", "y - 1");
        b.independent({"y"});
      },
      "independent", "do not determine the dependent ones (x)", "independent");
}

TEST(ModelBuilderErrors, FlexibleBodies) {
  auto beam = [] {
    model::FlexibleSpec spec;
    spec.mesh = model::BeamMeshInput{.length = 1, .elements = 4, .area = 1e-4, .Iz = 1e-9};
    spec.youngs_modulus = "2.1e11";
    spec.density = 7800;
    spec.poisson_ratio = "0.3";
    spec.clamp = {model::NodeSelectionSpec{.plane = {Expr(0), std::nullopt, std::nullopt}}};
    return spec;
  };
  expect_builder_error(
      [&] {
        ModelBuilder b("m");
        b.flexible("blade", beam());
      },
      "flexible.blade.mesh.section", "missing required key", "Iy");
  expect_builder_error(
      [&] {
        ModelBuilder b("m");
        auto spec = beam();
        std::get<model::BeamMeshInput>(spec.mesh).planar = true;
        spec.poisson_ratio = "0.5";
        b.flexible("blade", spec);
      },
      "flexible.blade.material.nu", "Poisson's ratio must lie in (-1, 0.5)", "nu");
  expect_builder_error(
      [&] {
        ModelBuilder b("m");
        auto spec = beam();
        spec.clamp = {model::NodeSelectionSpec{}};
        std::get<model::BeamMeshInput>(spec.mesh).planar = true;
        b.flexible("blade", spec);
      },
      "flexible.blade.clamp", "a node selection needs x, y, z (planes), nodes or group", "");
  expect_builder_error(
      [&] {
        ModelBuilder b("m");
        auto spec = beam();
        std::get<model::BeamMeshInput>(spec.mesh).planar = true;
        std::get<model::BeamMeshInput>(spec.mesh).elements = 0;
        b.flexible("blade", spec);
      },
      "flexible.blade.mesh.elements", "expected a whole number >= 1", "elements");
  // A valid planar beam needs no coordinate.
  ModelBuilder b("m");
  auto spec = beam();
  std::get<model::BeamMeshInput>(spec.mesh).planar = true;
  b.flexible("blade", spec);
  EXPECT_EQ(b.build()->flexible.size(), 1u);
}

TEST(ModelBuilderErrors, AModelNeedsACoordinate) {
  expect_builder_error([] { ModelBuilder("m").build(); }, "coordinates",
                       "at least one generalized coordinate is needed", "coordinates");
}

TEST(ModelBuilderErrors, TheReaderReportsTheSameMessageAtItsLine) {
  // The same mistake through the YAML reader: located in the file instead of by its item.
  try {
    io::parse_model(
        "name: m\ncoordinates: [q]\nframes:\n  arm: {rotation: rot_z(q)}\nbodies:\n"
        "  rod: {frame: arm, mass: -1}\n",
        "m.yaml");
    ADD_FAILURE() << "no error";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "m.yaml:6:27: mass must be positive (rod)");
  }
}

TEST(ModelBuilderErrors, AnUnknownPlaceIsLeftOutOfTheMessage) {
  EXPECT_EQ(std::string(model::ModelError({}, "no place", "x").what()), "no place (x)");
  EXPECT_EQ(std::string(model::ModelError({"m.yaml", 2, 3}, "a place", "x").what()),
            "m.yaml:2:3: a place (x)");
}

}  // namespace
