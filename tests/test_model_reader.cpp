// The model reader and its expression parser: what a model file means (MODEL_FORMAT.md), and that
// every mistake is reported at its line and column with the offending name.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <numbers>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/model/expression_parser.hpp"
#include "appell/sym/differentiator.hpp"

namespace {

using namespace appell;
using GiNaC::ex;

bool same(const ex& a, const ex& b) { return (a - b).expand().is_zero(); }

// -- helpers ------------------------------------------------------------------------------------

/// Runs `action`, expecting a ModelError at line:column whose message contains `message` and
/// that names `offending`.
void expect_error(const std::function<void()>& action, int line, int column,
                  const std::string& offending, const std::string& message) {
  try {
    action();
    ADD_FAILURE() << "no error; expected \"" << message << "\" at " << line << ":" << column;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

void expect_model_error(const std::string& yaml, int line, int column, const std::string& offending,
                        const std::string& message) {
  SCOPED_TRACE(yaml);
  expect_error([&] { io::parse_model(yaml, "m.yaml"); }, line, column, offending, message);
}

/// A scope with parameters a, b, omega, coordinates q, r, unspecified prescribed p, prescribed
/// s = omega*t and input u.
struct ScopeFixture {
  std::shared_ptr<sym::TimeFunctions> functions = std::make_shared<sym::TimeFunctions>();
  model::ExpressionScope scope{functions};
  GiNaC::symbol a{"a"}, b{"b"}, omega{"omega"};

  ScopeFixture() {
    scope.add_parameter("a", a);
    scope.add_parameter("b", b);
    scope.add_parameter("omega", omega);
    scope.add_coordinate("q");
    scope.add_coordinate("r");
    scope.add_prescribed("p", std::nullopt);
    scope.add_prescribed("s", ex(omega * functions->time()));
    scope.add_input("u");
  }

  ex parse(const std::string& text, model::Dependence allowed = model::Dependence::Anything) {
    return model::parse_expression(text, scope, model::locate_on_one_line({"e.yaml", 3, 10}),
                                   allowed);
  }
  GiNaC::symbol q(int order = 0) { return functions->derivative("q", order); }
};

// -- expressions --------------------------------------------------------------------------------

TEST(ExpressionParser, DecimalNumbersAreExactRationals) {
  ScopeFixture f;
  EXPECT_TRUE(f.parse("0.5").is_equal(GiNaC::numeric(1, 2)));
  EXPECT_TRUE(f.parse("2e-3").is_equal(GiNaC::numeric(1, 500)));
  EXPECT_TRUE(f.parse("1.25E2").is_equal(GiNaC::numeric(125)));
  EXPECT_TRUE(f.parse(".25").is_equal(GiNaC::numeric(1, 4)));
  EXPECT_TRUE(f.parse("9.81").is_equal(GiNaC::numeric(981, 100)));
  EXPECT_TRUE(f.parse("12345678901234567890").is_equal(GiNaC::numeric("12345678901234567890")));
}

TEST(ExpressionParser, PrecedenceAndAssociativity) {
  ScopeFixture f;
  const ex a = f.a, b = f.b;
  EXPECT_TRUE(same(f.parse("-a^2"), -GiNaC::pow(a, 2)));
  EXPECT_TRUE(f.parse("2^3^2").is_equal(512));  // right-associative
  EXPECT_TRUE(same(f.parse("a - b - 1"), a - b - 1));
  EXPECT_TRUE(same(f.parse("a / b / 2"), a / (2 * b)));
  EXPECT_TRUE(same(f.parse("2*(a + b)"), 2 * a + 2 * b));
  EXPECT_TRUE(same(f.parse("a^-2"), GiNaC::pow(a, -2)));
  EXPECT_TRUE(same(f.parse("-a*b + +a"), -a * b + a));
  EXPECT_TRUE(same(f.parse("a*b^2/4"), a * GiNaC::pow(b, 2) / 4));
}

TEST(ExpressionParser, FunctionsAndConstants) {
  ScopeFixture f;
  const ex a = f.a, b = f.b;
  EXPECT_TRUE(f.parse("sin(a)*cos(b)").is_equal(GiNaC::sin(a) * GiNaC::cos(b)));
  EXPECT_TRUE(f.parse("atan2(a, b)").is_equal(GiNaC::atan2(a, b)));
  EXPECT_TRUE(f.parse("sqrt(a) + abs(b)").is_equal(GiNaC::sqrt(a) + GiNaC::abs(b)));
  EXPECT_TRUE(f.parse("exp(log(a))").is_equal(a));
  EXPECT_TRUE(f.parse("cos(pi)").is_equal(-1));
  EXPECT_TRUE(f.parse("tanh(a) + asin(b) + acos(a) + atan(b) + sinh(a) + cosh(b) + tan(a)")
                  .is_equal(GiNaC::tanh(a) + GiNaC::asin(b) + GiNaC::acos(a) + GiNaC::atan(b) +
                            GiNaC::sinh(a) + GiNaC::cosh(b) + GiNaC::tan(a)));
}

TEST(ExpressionParser, NamesResolveThroughTheScope) {
  ScopeFixture f;
  const GiNaC::symbol t = f.functions->time();
  EXPECT_TRUE(f.parse("q").is_equal(f.q()));
  EXPECT_TRUE(f.parse("dot(q)").is_equal(f.q(1)));
  EXPECT_TRUE(f.parse("ddot(q)").is_equal(f.q(2)));
  EXPECT_TRUE(f.parse("dot(p)").is_equal(f.functions->derivative("p", 1)));
  EXPECT_EQ(f.functions->kind("p"), sym::TimeFunctionKind::Prescribed);
  EXPECT_TRUE(f.parse("dot(u)").is_equal(f.functions->derivative("u", 1)));
  // A prescribed expression is substituted, and dot() of it is its time derivative.
  EXPECT_TRUE(same(f.parse("s + t"), f.omega * t + t));
  EXPECT_TRUE(f.parse("dot(s)").is_equal(f.omega));
  EXPECT_TRUE(f.parse("ddot(s)").is_zero());
}

TEST(ExpressionParser, UnknownNameAtItsColumn) {
  ScopeFixture f;
  // The text starts at column 10 of line 3; "foo" is its 5th character.
  expect_error([&] { f.parse("a + foo*2"); }, 3, 14, "foo", "unknown name in expression");
  expect_error([&] { f.parse("dot(zz)"); }, 3, 14, "zz", "unknown name in expression");
  expect_error([&] { f.parse("bar(a)"); }, 3, 10, "bar", "unknown function");
}

TEST(ExpressionParser, SyntaxErrorsAtTheirColumn) {
  ScopeFixture f;
  expect_error([&] { f.parse("a +"); }, 3, 13, "", "ends too early");
  expect_error([&] { f.parse("(a + b"); }, 3, 16, "", "expected ')'");
  expect_error([&] { f.parse("a b"); }, 3, 12, "b", "expected an operator");
  expect_error([&] { f.parse("2x"); }, 3, 11, "x", "expected an operator");
  expect_error([&] { f.parse("a + $"); }, 3, 14, "$", "unexpected character");
  expect_error([&] { f.parse("a)"); }, 3, 11, ")", "unbalanced");
  expect_error([&] { f.parse(""); }, 3, 10, "", "empty expression");
  expect_error([&] { f.parse("a * * b"); }, 3, 14, "*", "syntax error");
  expect_error([&] { f.parse("1/0"); }, 3, 11, "/", "has no value: division by zero");
  expect_error([&] { f.parse("2 * log(0)"); }, 3, 14, "log", "has no value");
}

TEST(ExpressionParser, FunctionMisuse) {
  ScopeFixture f;
  expect_error([&] { f.parse("atan2(a)"); }, 3, 10, "atan2", "takes 2 arguments");
  expect_error([&] { f.parse("sin(a, b)"); }, 3, 10, "sin", "takes 1 argument");
  expect_error([&] { f.parse("1 + sin"); }, 3, 14, "sin", "without its arguments");
  expect_error([&] { f.parse("dot(a)"); }, 3, 14, "a", "not a parameter");
  expect_error([&] { f.parse("dot(q + r)"); }, 3, 16, "+", "expected ')'");
  expect_error([&] { f.parse("rot_z(q)"); }, 3, 10, "rot_z", "only allowed as a frame's rotation");
  expect_error([&] { f.parse("q(2)"); }, 3, 10, "q", "not a function");
}

TEST(ExpressionParser, WhatAnExpressionMayDependOn) {
  ScopeFixture f;
  EXPECT_TRUE(same(f.parse("a*pi", model::Dependence::Parameters), f.a * GiNaC::Pi));
  expect_error([&] { f.parse("a*t", model::Dependence::Parameters); }, 3, 12, "t",
               "only numbers and parameters");
  expect_error([&] { f.parse("a + q", model::Dependence::TimeAndParameters); }, 3, 14, "q",
               "only numbers, parameters and t");
  expect_error([&] { f.parse("dot(p)", model::Dependence::TimeAndParameters); }, 3, 10, "dot(p)",
               "only numbers, parameters and t");
  EXPECT_TRUE(same(f.parse("omega*t", model::Dependence::TimeAndParameters),
                   f.omega * f.functions->time()));
}

TEST(ExpressionParser, RotationProducts) {
  ScopeFixture f;
  const auto locate = model::locate_on_one_line({"e.yaml", 1, 1});
  const auto factors = model::parse_rotation("rot_z(q) * rot_x(r)*rot_y(2*a)", f.scope, locate);
  ASSERT_EQ(factors.size(), 3u);
  const model::Vector3 z{0, 0, 1}, x{1, 0, 0}, y{0, 1, 0};
  const model::Vector3* axes[] = {&z, &x, &y};
  const ex angles[] = {f.q(), f.functions->derivative("r", 0), 2 * f.a};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(factors[i].kind, model::RotationFactor::Kind::Axis);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(factors[i].axis[k].is_equal((*axes[i])[k]));
    EXPECT_TRUE(factors[i].angle.is_equal(angles[i]));
  }

  // rot(ax, ay, az, a) normalises its axis.
  const auto general = model::parse_rotation("rot(1, 1, 0, q)", f.scope, locate);
  ASSERT_EQ(general.size(), 1u);
  EXPECT_TRUE(same(general[0].axis[0], 1 / GiNaC::sqrt(ex(2))));
  EXPECT_TRUE(same(general[0].axis[1], 1 / GiNaC::sqrt(ex(2))));
  EXPECT_TRUE(general[0].axis[2].is_zero());
  EXPECT_TRUE(general[0].angle.is_equal(f.q()));
  const auto unit = model::parse_rotation("rot(0, 0, -1, q)", f.scope, locate);
  EXPECT_TRUE(unit[0].axis[2].is_equal(-1));

  expect_error([&] { model::parse_rotation("rot(0, 0, 0, q)", f.scope, locate); }, 1, 1, "rot",
               "axis must not be zero");
  expect_error([&] { model::parse_rotation("rot(q, 0, 1, q)", f.scope, locate); }, 1, 5, "q",
               "only numbers and parameters");
  expect_error([&] { model::parse_rotation("rot_z(q)*sin(r)", f.scope, locate); }, 1, 10, "sin",
               "a rotation is rot_x(a)");
  expect_error([&] { model::parse_rotation("rot_z(q, r)", f.scope, locate); }, 1, 1, "rot_z",
               "takes 1 argument");
  expect_error([&] { model::parse_rotation("rot_z(q)*", f.scope, locate); }, 1, 10, "",
               "rotation ends too early");
}

TEST(ExpressionParser, NamesAndReservedWords) {
  EXPECT_TRUE(model::is_valid_name("M_S"));
  EXPECT_TRUE(model::is_valid_name("q12"));
  EXPECT_FALSE(model::is_valid_name("_q"));
  EXPECT_FALSE(model::is_valid_name("1q"));
  EXPECT_FALSE(model::is_valid_name("q-1"));
  for (const char* reserved :
       {"t", "pi", "world", "sin", "atan2", "abs", "dot", "ddot", "rot", "rot_x", "rot_y", "rot_z"})
    EXPECT_TRUE(model::is_reserved_name(reserved)) << reserved;
  EXPECT_FALSE(model::is_reserved_name("theta"));
}

// -- models -------------------------------------------------------------------------------------

const char* const kSeed000Robot = R"(name: planar-2r
description: Two homogeneous rods O1O2 and O2P joined by revolute joints, point force at P
parameters:          # named constants with default values; `--set M=2` overrides
  M: 1.0
  l: 0.5
  M_S: 0.2
  g: 9.81
coordinates: [q1, q2]          # generalized coordinates q_j(t), in this order
frames:
  link1: {parent: world, rotation: rot_z(q1)}
  link2: {parent: link1, translation: [l, 0, 0], rotation: rot_z(q2)}
bodies:
  rod1: {frame: link1, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
  rod2: {frame: link2, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}
gravity: [0, -g, 0]
loads:
  - {force: [0, -M_S*g, 0], on: link2, at: [l, 0, 0]}
)";

TEST(ModelReader, Seed000Robot) {
  const auto m = io::parse_model(kSeed000Robot, "robot.yaml");
  EXPECT_EQ(m->name, "planar-2r");
  EXPECT_EQ(m->source, "robot.yaml");
  EXPECT_NE(m->description.find("Two homogeneous rods"), std::string::npos);

  ASSERT_EQ(m->parameters.size(), 4u);
  EXPECT_EQ(m->parameters[2].name, "M_S");
  EXPECT_TRUE(m->parameters[1].default_value.is_equal(GiNaC::numeric(1, 2)));
  EXPECT_TRUE(m->parameters[3].default_value.is_equal(GiNaC::numeric(981, 100)));
  EXPECT_EQ(m->parameters[0].where.line, 4);
  EXPECT_EQ(m->parameters[0].where.column, 3);
  const ex M = m->parameters[0].symbol, l = m->parameters[1].symbol;
  const ex M_S = m->parameters[2].symbol, g = m->parameters[3].symbol;

  ASSERT_EQ(m->dof(), 2u);
  EXPECT_EQ(m->coordinates[0].name, "q1");
  EXPECT_EQ(m->coordinates[1].name, "q2");
  EXPECT_EQ(m->time_functions->kind("q1"), sym::TimeFunctionKind::Coordinate);

  ASSERT_EQ(m->frames.size(), 2u);
  EXPECT_EQ(m->frames[0].name, "link1");
  EXPECT_EQ(m->frames[0].parent, "world");
  EXPECT_EQ(m->frames[1].name, "link2");
  EXPECT_EQ(m->frames[1].parent, "link1");
  EXPECT_TRUE(m->frames[1].translation[0].is_equal(l));
  ASSERT_EQ(m->frames[1].rotation.size(), 1u);
  EXPECT_TRUE(m->frames[1].rotation[0].angle.is_equal(m->coordinate_symbol(1)));
  EXPECT_TRUE(m->frames[1].rotation[0].axis[2].is_equal(1));

  ASSERT_EQ(m->bodies.size(), 2u);
  const model::Body& rod = m->bodies[1];
  EXPECT_EQ(rod.frame, "link2");
  EXPECT_TRUE(rod.mass.is_equal(M));
  EXPECT_TRUE(same(rod.com[0], l / 2));
  // A thin rod along x: M l²/12 about y and z, nothing about x.
  EXPECT_TRUE(rod.inertia(0, 0).is_zero());
  EXPECT_TRUE(same(rod.inertia(1, 1), M * l * l / 12));
  EXPECT_TRUE(same(rod.inertia(2, 2), M * l * l / 12));
  EXPECT_TRUE(rod.inertia(0, 1).is_zero());

  ASSERT_TRUE(m->gravity.has_value());
  EXPECT_TRUE((*m->gravity)[1].is_equal(-g));

  ASSERT_EQ(m->loads.size(), 1u);
  const auto& force = std::get<model::ForceLoad>(m->loads[0].kind);
  EXPECT_EQ(force.at.frame, "link2");
  EXPECT_TRUE(force.at.point[0].is_equal(l));
  EXPECT_TRUE(same(force.force[1], -M_S * g));
  EXPECT_EQ(force.in, "world");
  EXPECT_EQ(m->loads[0].where.line, 17);
  EXPECT_EQ(m->loads[0].where.column, 5);

  const auto values = m->parameter_values();
  EXPECT_DOUBLE_EQ(values.at("g"), 9.81);
}

TEST(ModelReader, ReadsAFile) {
  const std::string path = ::testing::TempDir() + "appell_reader_robot.yaml";
  {
    std::ofstream out(path);
    out << kSeed000Robot;
  }
  const auto m = io::read_model_file(path);
  EXPECT_EQ(m->source, path);
  EXPECT_EQ(m->frames.size(), 2u);
  std::remove(path.c_str());
  expect_error([&] { io::read_model_file(path); }, 0, 0, "", "no such model file");
}

TEST(ModelReader, FramesAreOrderedParentsFirst) {
  const auto m = io::parse_model(R"(name: tree
coordinates: [a, b, c]
frames:
  hand: {parent: forearm, rotation: rot_x(c)}
  forearm: {parent: arm, rotation: rot_y(b)}
  arm: {rotation: rot_z(a)}
  base:
)",
                                 "tree.yaml");
  ASSERT_EQ(m->frames.size(), 4u);
  EXPECT_EQ(m->frames[0].name, "arm");
  EXPECT_EQ(m->frames[1].name, "forearm");
  EXPECT_EQ(m->frames[2].name, "hand");
  EXPECT_EQ(m->frames[3].name, "base");
  EXPECT_TRUE(m->frames[3].rotation.empty());
  EXPECT_EQ(*m->frame_index("hand"), 2);
}

TEST(ModelReader, EveryInertiaForm) {
  const auto m = io::parse_model(R"(name: shapes
parameters: {m: 2, L: 3, r: 0.5, a: 1, b: 2, c: 4}
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  matrix: {frame: f, mass: m, inertia: [[1, 0.5, 0], [0.5, 2, 0], [0, 0, 3]]}
  entries: {frame: f, mass: m, inertia: [20, 21, 22, 1, 2, 3]}
  rod: {frame: f, mass: m, inertia: {rod: {length: L, axis: y}}}
  disk: {frame: f, mass: m, inertia: {disk: {radius: r, axis: z}}}
  cylinder: {frame: f, mass: m, inertia: {cylinder: {radius: r, length: L, axis: x}}}
  box: {frame: f, mass: m, inertia: {box: {size: [a, b, c]}}}
  sphere: {frame: f, mass: m, inertia: {sphere: {radius: r}}}
  point: {frame: f, mass: m}
)",
                                 "shapes.yaml");
  ASSERT_EQ(m->bodies.size(), 8u);
  const auto& symbols = m->parameters;
  const ex mass = symbols[0].symbol, L = symbols[1].symbol, r = symbols[2].symbol;
  const ex a = symbols[3].symbol, b = symbols[4].symbol, c = symbols[5].symbol;
  auto expect_inertia = [](const GiNaC::matrix& actual, std::initializer_list<ex> rows) {
    unsigned k = 0;
    for (const ex& expected : rows) {
      EXPECT_TRUE(same(actual(k / 3, k % 3), expected))
          << "entry " << k / 3 << "," << k % 3 << ": " << actual(k / 3, k % 3);
      ++k;
    }
  };
  const ex half = GiNaC::numeric(1, 2);
  expect_inertia(m->bodies[0].inertia, {1, half, 0, half, 2, 0, 0, 0, 3});
  // [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]
  expect_inertia(m->bodies[1].inertia, {20, 1, 3, 1, 21, 2, 3, 2, 22});
  const ex rod = mass * L * L / 12;
  expect_inertia(m->bodies[2].inertia, {rod, 0, 0, 0, 0, 0, 0, 0, rod});
  const ex axial = mass * r * r / 2, diameter = mass * r * r / 4;
  expect_inertia(m->bodies[3].inertia, {diameter, 0, 0, 0, diameter, 0, 0, 0, axial});
  const ex transverse = mass * (3 * r * r + L * L) / 12;
  expect_inertia(m->bodies[4].inertia, {axial, 0, 0, 0, transverse, 0, 0, 0, transverse});
  expect_inertia(m->bodies[5].inertia,
                 {mass * (b * b + c * c) / 12, 0, 0, 0, mass * (a * a + c * c) / 12, 0, 0, 0,
                  mass * (a * a + b * b) / 12});
  const ex sphere = GiNaC::numeric(2, 5) * mass * r * r;
  expect_inertia(m->bodies[6].inertia, {sphere, 0, 0, 0, sphere, 0, 0, 0, sphere});
  expect_inertia(m->bodies[7].inertia, {0, 0, 0, 0, 0, 0, 0, 0, 0});
}

TEST(ModelReader, RotationsAsProductsAndMatrices) {
  const auto m = io::parse_model(R"yaml(name: rotations
parameters: {c: 1, s: 0}
coordinates: [psi, theta, phi]
frames:
  top: {rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
  tilted: {rotation: [[0, -1, 0], [1, 0, 0], [0, 0, 1]]}
  symbolic: {rotation: [[c, -s, 0], [s, c, 0], [0, 0, 1]]}
  skew: {rotation: "rot(0, 3, 4, psi)"}
)yaml",
                                 "rotations.yaml");
  ASSERT_EQ(m->frames.size(), 4u);
  const auto& top = m->frames[0].rotation;
  ASSERT_EQ(top.size(), 3u);
  EXPECT_TRUE(top[0].axis[2].is_equal(1));
  EXPECT_TRUE(top[1].axis[0].is_equal(1));
  EXPECT_TRUE(top[1].angle.is_equal(m->coordinate_symbol(1)));
  EXPECT_TRUE(top[2].angle.is_equal(m->coordinate_symbol(2)));
  ASSERT_EQ(m->frames[1].rotation.size(), 1u);
  EXPECT_EQ(m->frames[1].rotation[0].kind, model::RotationFactor::Kind::Matrix);
  EXPECT_TRUE(m->frames[1].rotation[0].matrix(1, 0).is_equal(1));
  EXPECT_EQ(m->frames[2].rotation[0].kind, model::RotationFactor::Kind::Matrix);
  EXPECT_TRUE(m->frames[2].rotation[0].matrix(0, 0).is_equal(m->parameters[0].symbol));
  EXPECT_TRUE(m->frames[3].rotation[0].axis[1].is_equal(GiNaC::numeric(3, 5)));
  EXPECT_TRUE(m->frames[3].rotation[0].axis[2].is_equal(GiNaC::numeric(4, 5)));
}

TEST(ModelReader, PrescribedFunctionsAreSubstituted) {
  const auto m = io::parse_model(R"(name: hoop
parameters: {omega: 6.0}
coordinates: [{name: theta, initial: 0.3, velocity: -pi/2}]
prescribed: {psi: omega*t, wobble: null}
inputs: [u]
frames:
  hoop: {rotation: rot_z(psi)}
loads:
  - {generalized: {coordinate: theta, value: dot(psi) + ddot(psi) + dot(wobble) + u}}
)",
                                 "hoop.yaml");
  const ex omega = m->parameters[0].symbol;
  const ex t = m->time_functions->time();
  EXPECT_TRUE(same(m->frames[0].rotation[0].angle, omega * t));
  ASSERT_EQ(m->prescribed.size(), 2u);
  EXPECT_TRUE(m->prescribed[0].expression.has_value());
  EXPECT_FALSE(m->prescribed[1].expression.has_value());
  EXPECT_EQ(m->time_functions->kind("wobble"), sym::TimeFunctionKind::Prescribed);
  ASSERT_EQ(m->inputs.size(), 1u);
  EXPECT_EQ(m->inputs[0].name, "u");
  EXPECT_TRUE(m->time_functions->is_declared("u"));
  EXPECT_FALSE(m->time_functions->is_declared("psi"));
  EXPECT_DOUBLE_EQ(m->coordinates[0].initial, 0.3);
  EXPECT_DOUBLE_EQ(m->coordinates[0].velocity, -std::numbers::pi / 2);

  const auto& load = std::get<model::GeneralizedLoad>(m->loads[0].kind);
  EXPECT_EQ(load.coordinate, 0u);
  // d/dt (omega t) = omega, d²/dt² (omega t) = 0.
  EXPECT_TRUE(same(load.value, omega + m->time_functions->derivative("wobble", 1) +
                                   m->time_functions->derivative("u", 0)));
}

TEST(ModelReader, EveryLoad) {
  const auto m = io::parse_model(R"(name: loads
parameters: {k: 10, c: 0.5, L0: 0.2, F: 1}
coordinates: [x, y]
frames:
  cart: {translation: [x, 0, 0]}
  arm: {parent: cart, rotation: rot_z(y)}
bodies:
  pole: {frame: arm, mass: 1, com: [0, 0.5, 0]}
particles:
  tip: {frame: arm, mass: 0.1, position: [0, 1, 0]}
loads:
  - {force: [F, 0, 0], on: pole}
  - {force: [F, 0, 0], on: arm, at: [0, 1, 0], in: cart}
  - {torque: [0, 0, F], on: pole}
  - {torque: [0, 0, F], on: cart, in: arm}
  - {spring: {from: [world, [0, 0, 0]], to: [cart, [0, 0, 0]], stiffness: k, rest_length: L0}}
  - {spring: {from: [world, [0, 0, 0]], to: [pole, [0, 1, 0]], stiffness: k}}
  - {damper: {from: [world, [0, 0, 0]], to: [cart, [0, 0, 0]], coefficient: c}}
  - {generalized: {coordinate: y, value: -c*dot(y)}}
  - {potential: k*x^2/2}
)",
                                 "loads.yaml");
  ASSERT_EQ(m->loads.size(), 9u);
  const auto& on_body = std::get<model::ForceLoad>(m->loads[0].kind);
  EXPECT_EQ(on_body.at.frame, "arm");
  EXPECT_TRUE(on_body.at.point[1].is_equal(GiNaC::numeric(1, 2)));  // the body's com
  EXPECT_EQ(on_body.in, "world");
  const auto& on_frame = std::get<model::ForceLoad>(m->loads[1].kind);
  EXPECT_EQ(on_frame.at.frame, "arm");
  EXPECT_TRUE(on_frame.at.point[1].is_equal(1));
  EXPECT_EQ(on_frame.in, "cart");
  EXPECT_EQ(std::get<model::TorqueLoad>(m->loads[2].kind).on, "arm");
  EXPECT_EQ(std::get<model::TorqueLoad>(m->loads[3].kind).on, "cart");
  EXPECT_EQ(std::get<model::TorqueLoad>(m->loads[3].kind).in, "arm");
  const auto& spring = std::get<model::SpringLoad>(m->loads[4].kind);
  EXPECT_EQ(spring.from.frame, "world");
  EXPECT_EQ(spring.to.frame, "cart");
  EXPECT_TRUE(spring.rest_length.is_equal(m->parameters[2].symbol));
  const auto& default_rest = std::get<model::SpringLoad>(m->loads[5].kind);
  EXPECT_TRUE(default_rest.rest_length.is_zero());
  EXPECT_EQ(default_rest.to.frame, "arm");
  EXPECT_TRUE(default_rest.to.point[1].is_equal(1));
  EXPECT_TRUE(
      std::get<model::DamperLoad>(m->loads[6].kind).coefficient.is_equal(m->parameters[1].symbol));
  const auto& generalized = std::get<model::GeneralizedLoad>(m->loads[7].kind);
  EXPECT_EQ(generalized.coordinate, 1u);
  EXPECT_TRUE(same(generalized.value, -m->parameters[1].symbol * m->coordinate_symbol(1, 1)));
  EXPECT_TRUE(same(std::get<model::PotentialLoad>(m->loads[8].kind).potential,
                   m->parameters[0].symbol * GiNaC::pow(m->coordinate_symbol(0), 2) / 2));
  ASSERT_EQ(m->particles.size(), 1u);
  EXPECT_TRUE(m->particles[0].mass.is_equal(GiNaC::numeric(1, 10)));
}

// -- errors -------------------------------------------------------------------------------------

TEST(ModelReaderErrors, MalformedYaml) {
  expect_model_error("name: m\ncoordinates: [q1, q2]]\n", 2, 22, "", "malformed YAML");
}

TEST(ModelReaderErrors, UnknownNameInAnExpressionAtItsColumn) {
  expect_model_error(R"(name: m
parameters: {m: 1}
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mass: 2*m + mm}
)",
                     7, 29, "mm", "unknown name in expression");
  // Inside a quoted scalar the quote shifts the column by one.
  expect_model_error(R"yaml(name: m
coordinates: [q]
frames:
  f: {rotation: "rot_z(q + oops)"}
)yaml",
                     4, 28, "oops", "unknown name in expression");
  // On the second line of a folded plain scalar.
  expect_model_error(R"(name: m
coordinates: [q]
loads:
  - potential: q^2 +
      2*nope
)",
                     5, 9, "nope", "unknown name in expression");
  // A parameter may use only the parameters before it.
  expect_model_error(R"(name: m
parameters:
  a: 2*b
  b: 1
coordinates: [q]
)",
                     3, 8, "b", "unknown name in expression");
  expect_model_error(R"(name: m
parameters: {a: t}
coordinates: [q]
)",
                     2, 17, "t", "only numbers and parameters");
}

TEST(ModelReaderErrors, UnknownFrame) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: g, mass: 1}
)",
                     6, 14, "g", "unknown frame");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {parent: nowhere, rotation: rot_z(q)}
)",
                     4, 15, "nowhere", "unknown parent frame");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
loads:
  - {force: [1, 0, 0], on: f, in: elsewhere}
)",
                     6, 35, "elsewhere", "unknown frame");
}

TEST(ModelReaderErrors, UnknownBodyInALoad) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mass: 1}
loads:
  - {torque: [0, 0, 1], on: bb}
)",
                     8, 29, "bb", "unknown frame or body");
  expect_model_error(R"(name: m
coordinates: [q]
loads:
  - {generalized: {coordinate: qq, value: 1}}
)",
                     4, 32, "qq", "unknown coordinate");
}

TEST(ModelReaderErrors, VectorOfTheWrongLength) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mass: 1, com: [1, 2]}
)",
                     6, 31, "com", "expected a vector of 3 components");
  expect_model_error(R"(name: m
coordinates: [q]
gravity:
  - 0
  - -9.81
)",
                     4, 3, "gravity", "expected a vector of 3 components");
}

TEST(ModelReaderErrors, MissingRequiredKey) {
  expect_model_error("name: m\nparameters: {g: 9.81}\n", 1, 1, "coordinates",
                     "missing required key");
  expect_model_error("coordinates: [q]\n", 1, 1, "name", "missing required key");
  expect_model_error(R"(name: m
coordinates: [q]
bodies:
  b: {mass: 1}
)",
                     4, 6, "frame", "missing required key");
  expect_model_error("", 1, 1, "", "empty model");
  expect_model_error("name: m\ncoordinates: []\n", 2, 14, "coordinates",
                     "at least one generalized coordinate");
}

TEST(ModelReaderErrors, MassMustBePositive) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mass: -1}
)",
                     6, 23, "b", "mass must be positive");
  expect_model_error(R"(name: m
parameters: {M: -2.5}
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
particles:
  p: {frame: f, mass: M}
)",
                     7, 23, "p", "mass must be positive");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mass: 1 + q}
)",
                     6, 27, "q", "only numbers and parameters");
  expect_model_error(R"(name: m
parameters: {a: 1, b: 2/(a - 1)}
coordinates: [q]
)",
                     2, 23, "b", "parameter value is not a real number");
  expect_model_error(R"(name: m
parameters: {a: 1}
coordinates: [q]
particles:
  p: {frame: world, mass: log(a - 2)}
)",
                     5, 27, "p", "mass is not a real number");
}

TEST(ModelReaderErrors, FrameCycle) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  a: {parent: c}
  b: {parent: a}
  c: {parent: b, rotation: rot_z(q)}
)",
                     4, 3, "a", "cycle in the frame tree");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  ok: {rotation: rot_z(q)}
  self: {parent: self}
)",
                     5, 3, "self", "cycle in the frame tree");
}

TEST(ModelReaderErrors, NumericRotationMustBeARotation) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f:
    rotation: [[1, 0, 0], [0, 2, 0], [0, 0, 1]]
)",
                     5, 15, "f", "rotation is not a rotation matrix");
  // Orthonormal but a reflection.
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}
)",
                     4, 17, "f", "rotation is not a rotation matrix");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: [[1, 0], [0, 1]]}
)",
                     4, 17, "rotation", "3x3 matrix");
}

TEST(ModelReaderErrors, UnknownKeyIsATypo) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  f: {rotation: rot_z(q)}
bodies:
  b: {frame: f, mas: 1}
)",
                     6, 17, "mas", "unknown key in a body");
  expect_model_error(R"(name: m
coordinates: [q]
gravty: [0, 0, -9.81]
)",
                     3, 1, "gravty", "unknown key in the model");
  expect_model_error(R"(name: m
coordinates: [q]
loads:
  - {force: [1, 0, 0], on: world, at: [0, 0, 0], inn: world}
)",
                     4, 50, "inn", "unknown key in a force");
  expect_model_error(R"(name: m
coordinates: [q]
loads:
  - {torque: [1, 0, 0], spring: {}}
)",
                     4, 25, "spring", "a load has one kind only");
  expect_model_error(R"(name: m
coordinates: [q]
name: again
)",
                     3, 1, "name", "duplicate key");
}

TEST(ModelReaderErrors, NotSupportedYet) {
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  carrier: {rotation: rot_z(q)}
relative_to: carrier
)",
                     5, 14, "carrier", "moves with the coordinate q");
  expect_model_error("name: m\ncoordinates: [q]\nflexible: {}\n", 3, 11, "flexible",
                     "expected a list");
}

TEST(ModelReaderErrors, ConstraintsMustBeWellFormed) {
  // Nonholonomic constraints must be linear in the velocities (the multiplier form needs it).
  expect_model_error(R"yaml(name: m
coordinates: [x, y]
constraints:
  - {name: bad, nonholonomic: "dot(x)*dot(y)"}
)yaml",
                     4, 31, "bad", "linear in the velocities");
  expect_model_error(R"yaml(name: m
coordinates: [x, y]
constraints:
  - {name: rate, holonomic: "dot(x) - y"}
)yaml",
                     4, 29, "rate", "coordinates and t only");
  expect_model_error(R"yaml(name: m
coordinates: [x, y]
constraints:
  - {name: c, holonomic: "x - y"}
  - {name: c, holonomic: "x + y"}
)yaml",
                     5, 12, "c", "duplicate constraint name");
  expect_model_error(R"yaml(name: m
coordinates: [x]
constraints:
  - {name: c}
)yaml",
                     4, 5, "c", "either holonomic or nonholonomic");
}

TEST(ModelReader, ConstraintsAreRead) {
  auto model = appell::io::parse_model(R"yaml(name: m
coordinates: [x, y, theta]
constraints:
  - {name: loop, holonomic: "x^2 + y^2 - 1"}
  - {name: knife, nonholonomic: "-sin(theta)*dot(x) + cos(theta)*dot(y)"}
)yaml",
                                       "c.yaml");
  ASSERT_EQ(model->constraints.size(), 2u);
  EXPECT_EQ(model->constraints[0].name, "loop");
  EXPECT_EQ(model->constraints[0].kind, appell::model::Constraint::Kind::Holonomic);
  EXPECT_EQ(model->constraints[1].kind, appell::model::Constraint::Kind::Nonholonomic);
  EXPECT_EQ(model->constraints[1].where.line, 5);
}

TEST(ModelReaderErrors, NamesMustBeValidUniqueAndNotReserved) {
  expect_model_error(R"(name: m
parameters: {l: 1}
coordinates: [q, l]
)",
                     3, 18, "l", "name already defined at line 2, column 14");
  expect_model_error(R"(name: m
coordinates: [q]
frames:
  q: {}
)",
                     4, 3, "q", "name already defined");
  expect_model_error("name: m\ncoordinates: [q, t]\n", 2, 18, "t", "reserved name");
  expect_model_error("name: m\ncoordinates: [q]\nframes: {world: {}}\n", 3, 10, "world",
                     "reserved name");
  expect_model_error("name: m\ncoordinates: [{name: 2q}]\n", 2, 22, "2q", "invalid name");
  expect_model_error("name: m\ncoordinates: [{name: q, initial: x}]\n", 2, 34, "x",
                     "unknown name in expression");
}

TEST(ModelReaderErrors, AsymmetricInertiaAndUnknownAxis) {
  expect_model_error(R"(name: m
coordinates: [q]
bodies:
  b: {frame: world, mass: 1, inertia: [[1, 2, 0], [0, 1, 0], [0, 0, 1]]}
)",
                     4, 39, "inertia", "must be symmetric");
  expect_model_error(R"(name: m
coordinates: [q]
bodies:
  b: {frame: world, mass: 1, inertia: {rod: {length: 1, axis: w}}}
)",
                     4, 63, "w", "axis must be x, y or z");
  expect_model_error(R"(name: m
coordinates: [q]
bodies:
  b: {frame: world, mass: 1, inertia: [1, 2, 3, 4]}
)",
                     4, 39, "inertia", "inertia must be");
}

}  // namespace
