// What a field may contain is checked where it is read (issue 25, item 4: "wrong numbers, exit
// 0"). Each finding of the audit is a test here, through the library and the command line:
// ddot(q) in a load (derive printed one M, eval and simulate used another, exit 0); velocities
// and accelerations in positions, rotations and centres of mass (eval exit 0, simulate "internal
// error"); a URDF mass of nan, inf or 1e400 (a massless link); negative sizes and rest lengths;
// 1e-400 and 1e400 (0 and inf). Each is now a located error naming the field or the name (exit
// 2), and what the format allows (dot(q) in a damper or a load, t in a driven translation) still
// derives and evaluates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/io/urdf_reader.hpp"
#include "support/model_error_of.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

std::string temporary(const std::string& name) {
  return "/tmp/appell_field_checks_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temporary(name);
  std::ofstream(path) << text;
  return path;
}

struct Place {
  int line = 0, column = 0;
};

/// The line and column (1-based) where `needle` first occurs in `text`.
Place place_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return {};
  Place p{1, 1};
  for (std::size_t k = 0; k < at; ++k) {
    if (text[k] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

/// `yaml` is refused at the first place `where` is written, naming `offending`, with `message`.
void expect_refused(const std::string& yaml, const std::string& where, const std::string& offending,
                    const std::string& message) {
  const auto e = test_support::model_error_of(yaml);
  const Place p = place_of(yaml, where);
  ASSERT_GT(p.line, 0) << where;
  EXPECT_EQ(e.where().file, "m.yaml") << e.what();
  EXPECT_EQ(e.where().line, p.line) << e.what() << "\n" << yaml;
  EXPECT_EQ(e.where().column, p.column) << e.what() << "\n" << yaml;
  EXPECT_EQ(e.offending(), offending) << e.what();
  EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
}

/// A pendulum of one coordinate, phi: `frames`, a particle at `position` on frame arm, then
/// `rest`.
std::string pendulum(const std::string& frames, const std::string& rest,
                     const std::string& position = "[l, 0, 0]") {
  return "name: pendulum\n"
         "parameters: {m: 1, l: 1, g: 9.81, c: 0.1, k: 5}\n"
         "coordinates: [{name: phi, initial: 0.3}]\n"
         "frames:\n" +
         frames +
         "particles:\n"
         "  bob: {frame: arm, mass: m, position: " +
         position +
         "}\n"
         "gravity: [0, -g, 0]\n" +
         rest;
}

const std::string arm = "  arm: {rotation: rot_z(phi)}\n";

/// The command line refuses the model file with exit 2, at FILE:LINE:COLUMN of `where`, naming
/// `offending`, for each of `commands`.
void expect_cli_refuses(const std::string& name, const std::string& yaml, const std::string& where,
                        const std::string& offending,
                        const std::vector<std::string>& commands = {"derive", "eval"}) {
  const std::string path = write_file(name, yaml);
  const Place p = place_of(yaml, where);
  const std::string location =
      path + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
  for (const auto& command : commands) {
    std::string args = command + " " + path;
    if (command == "simulate") args += " --t-end 0.1 --out " + temporary("out.csv");
    if (command == "codegen") args += " --out " + temporary("out.hpp");
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(location), std::string::npos) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("(" + offending + ")"), std::string::npos) << args << "\n" << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << args << "\n" << r.out;
  }
  std::remove(path.c_str());
  std::remove(temporary("out.csv").c_str());
  std::remove(temporary("out.hpp").c_str());
}

// -- accelerations in loads ------------------------------------------------------------------

TEST(FieldChecks, AnAccelerationInALoadIsRefused) {
  // The finding: derive printed M = m l^2 - 1 while eval and simulate solved another equation.
  const std::string generalized =
      pendulum(arm, "loads:\n  - {generalized: {coordinate: phi, value: \"-ddot(phi)\"}}\n");
  expect_refused(generalized, "ddot(phi)", "ddot(phi)", "ddot(phi) in a load");
  expect_refused(generalized, "ddot(phi)", "ddot(phi)", "never on accelerations");
  expect_refused(pendulum(arm, "loads:\n  - {force: [0, \"m*ddot(phi)\", 0], on: bob}\n"),
                 "ddot(phi)", "ddot(phi)", "in a load");
  expect_refused(pendulum(arm, "loads:\n  - {torque: [0, 0, \"c*ddot(phi)\"], on: arm}\n"),
                 "ddot(phi)", "ddot(phi)", "in a load");
  // A damper's coefficient may use velocities, never accelerations.
  expect_refused(pendulum(arm,
                          "loads:\n  - damper: {from: [world, [0, 1, 0]], to: [arm, [1, 0, 0]], "
                          "coefficient: \"c + ddot(phi)^2\"}\n"),
                 "ddot(phi)", "ddot(phi)", "in a damper");
  for (const char* command : {"derive", "eval", "simulate", "codegen"})
    expect_cli_refuses("load.yaml", generalized, "ddot(phi)", "ddot(phi)", {command});
}

// -- velocities and accelerations in positions -------------------------------------------------

TEST(FieldChecks, VelocitiesAndAccelerationsInPositionsAreRefused) {
  const std::string message = "never on velocities or accelerations";
  for (const char* rate : {"dot(phi)", "ddot(phi)"}) {
    const std::string r = rate;
    // A translation, a rotation (elementary and matrix), a centre of mass, a particle's position,
    // the point where a force acts, a spring's end.
    expect_refused(
        pendulum("  arm: {rotation: rot_z(phi), translation: [0, \"0.1*" + r + "\", 0]}\n", ""), r,
        r, "in a position");
    expect_refused(pendulum("  arm: {rotation: \"rot_z(phi + " + r + ")\"}\n", ""), r, r, message);
    expect_refused(
        pendulum(arm + "  tip: {parent: arm, rotation: [[1, 0, 0], [0, 1, 0], [0, 0, \"1 + " + r +
                     "\"]]}\n",
                 ""),
        r, r, message);
    expect_refused(
        pendulum(arm, "bodies:\n  rod: {frame: arm, mass: m, com: [\"l*" + r + "\", 0, 0]}\n"), r,
        r, message);
    expect_refused(pendulum(arm, "", "[\"l + " + r + "\", 0, 0]"), r, r, message);
    expect_refused(
        pendulum(arm, "loads:\n  - {force: [1, 0, 0], on: arm, at: [\"" + r + "\", 0, 0]}\n"), r, r,
        message);
    expect_refused(pendulum(arm, "loads:\n  - spring: {from: [world, [0, 1, 0]], to: [arm, [\"" +
                                     r + "\", 0, 0]], stiffness: k}\n"),
                   r, r, message);
    // A potential and a spring's stiffness: functions of the positions too.
    expect_refused(pendulum(arm, "loads:\n  - potential: \"k*phi^2/2 + " + r + "\"\n"), r, r,
                   "in a potential or spring");
    expect_refused(pendulum(arm,
                            "loads:\n  - spring: {from: [world, [0, 1, 0]], to: [arm, [1, "
                            "0, 0]], stiffness: \"k + " +
                                r + "\"}\n"),
                   r, r, "in a potential or spring");
  }
  // Through the command line: eval used to exit 0 and simulate and codegen to say "internal
  // error".
  const std::string moving =
      pendulum("  arm: {rotation: rot_z(phi), translation: [0, \"0.1*dot(phi)\", 0]}\n", "");
  expect_cli_refuses("position.yaml", moving, "dot(phi)", "dot(phi)",
                     {"derive", "eval", "simulate", "codegen"});
  expect_cli_refuses("rotation.yaml", pendulum("  arm: {rotation: \"rot_z(ddot(phi))\"}\n", ""),
                     "ddot(phi)", "ddot(phi)", {"eval", "simulate"});
}

TEST(FieldChecks, MassesAndInertiasAreNumbersAndParametersOnly) {
  for (const char* rate : {"dot(phi)", "ddot(phi)"}) {
    const std::string r = rate;
    expect_refused(pendulum(arm, "bodies:\n  rod: {frame: arm, mass: \"m + " + r + "\"}\n"), r, r,
                   "only numbers and parameters");
    expect_refused(pendulum(arm, "bodies:\n  rod: {frame: arm, mass: m, inertia: [1, 1, \"1 + " +
                                     r + "\", 0, 0, 0]}\n"),
                   r, r, "only numbers and parameters");
    expect_refused(pendulum(arm,
                            "bodies:\n  rod: {frame: arm, mass: m, inertia: {sphere: "
                            "{radius: \"l*" +
                                r + "\"}}}\n"),
                   r, r, "only numbers and parameters");
  }
  expect_cli_refuses("mass.yaml",
                     pendulum(arm, "bodies:\n  rod: {frame: arm, mass: \"m*ddot(phi)\"}\n"),
                     "ddot(phi)", "ddot(phi)");
}

// -- the builder: a model built in code gets the same checks -------------------------------------

TEST(FieldChecks, TheBuilderRefusesTheSameInCode) {
  using model::ModelBuilder;
  auto expect_refused_in_code = [](const std::function<void(ModelBuilder&)>& add,
                                   const std::string& place, const std::string& offending,
                                   const std::string& message) {
    ModelBuilder b("m");
    b.parameter("m", 1);
    b.coordinate("phi");
    b.frame("arm", {.rotation = model::Rotation::z("phi")});
    try {
      add(b);
      b.build();
      ADD_FAILURE() << "accepted: " << place;
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().str().rfind(place, 0), 0u) << e.what();
      EXPECT_EQ(e.offending(), offending) << e.what();
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  // GiNaC expressions over the builder's symbols, judged by the rule the parser applies to text.
  expect_refused_in_code(
      [](ModelBuilder& b) { b.generalized_force("phi", -b.derivative("phi", 2)); },
      "loads[0].value", "ddot(phi)", "ddot(phi) in a load");
  expect_refused_in_code(
      [](ModelBuilder& b) {
        b.frame("tip", {.parent = "arm", .translation = {b.derivative("phi", 1), 0, 0}});
      },
      "frames.tip.translation[0]", "dot(phi)", "in a position");
  expect_refused_in_code(
      [](ModelBuilder& b) {
        b.frame("tip", {.parent = "arm", .rotation = model::Rotation::x(b.derivative("phi", 2))});
      },
      "frames.tip.rotation.angle", "ddot(phi)", "in a position");
  expect_refused_in_code(
      [](ModelBuilder& b) { b.particle("p", {.frame = "arm", .mass = b.derivative("phi", 1)}); },
      "particles.p.mass", "dot(phi)", "only numbers and parameters");
  expect_refused_in_code(
      [](ModelBuilder& b) {
        b.body("rod", {.frame = "arm", .mass = 1, .com = {"ddot(phi)", 0, 0}});
      },
      "bodies.rod.com[0]", "ddot(phi)", "in a position");
  // A number built in code that a double cannot hold.
  expect_refused_in_code(
      [](ModelBuilder& b) {
        b.particle(
            "p",
            {.frame = "arm", .mass = 1, .position = {GiNaC::pow(GiNaC::numeric(10), 400), 0, 0}});
      },
      "particles.p.position[0]", "1.0E400", "number out of range");
  // What such a number would have been: inf, everywhere the position is evaluated.
  EXPECT_TRUE(
      std::isinf(GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(GiNaC::pow(10, 400))).to_double()));
}

// -- numbers a double cannot hold --------------------------------------------------------------

TEST(FieldChecks, LiteralsThatUnderflowOrOverflowAreRefused) {
  for (const char* literal : {"1e-400", "1e400", "2.5e-320", "1e309"}) {
    const std::string n = literal;
    const std::string message = "number out of range";
    expect_refused(pendulum(arm, "bodies:\n  rod: {frame: arm, mass: " + n + "}\n"), n, n, message);
    expect_refused("name: m\nparameters: {a: " + n + "}\ncoordinates: [q]\n", n, n, message);
    expect_refused(
        pendulum("  arm: {rotation: rot_z(phi), translation: [\"" + n + "*phi\", 0, 0]}\n", ""), n,
        n, message);
    expect_refused(pendulum(arm, "loads:\n  - {generalized: {coordinate: phi, value: \"" + n +
                                     "*dot(phi)\"}}\n"),
                   n, n, message);
  }
  // What exact arithmetic makes of literals that fit: 1e200 * 1e200 is 1e400 all the same.
  const auto product = test_support::model_error_of(
      pendulum("  arm: {rotation: rot_z(phi), translation: [\"1e200*1e200*phi\", 0, 0]}\n", ""));
  EXPECT_NE(std::string(product.what()).find("number out of range"), std::string::npos)
      << product.what();
  // The extremes a double holds are fine.
  EXPECT_NO_THROW(
      io::parse_model("name: m\nparameters: {a: 2.2250738585072014e-308, b: "
                      "1.7976931348623157e308, c: 0}\ncoordinates: [q]\n",
                      "m.yaml"));
  expect_cli_refuses("tiny.yaml", pendulum(arm, "bodies:\n  rod: {frame: arm, mass: 1e-400}\n"),
                     "1e-400", "1e-400");
  expect_cli_refuses("huge.yaml", "name: m\nparameters: {a: 1e400}\ncoordinates: [q]\n", "1e400",
                     "1e400");
}

// -- sizes -------------------------------------------------------------------------------------

TEST(FieldChecks, NegativeSizesAndRestLengthsAreRefused) {
  auto body = [](const std::string& inertia) {
    return pendulum(arm, "bodies:\n  rod: {frame: arm, mass: m, inertia: " + inertia + "}\n");
  };
  expect_refused(body("{sphere: {radius: -0.1}}"), "-0.1", "sphere.radius", "must be positive");
  expect_refused(body("{sphere: {radius: 0}}"), "0}}", "sphere.radius", "must be positive");
  expect_refused(body("{box: {size: [1, -0.2, 0.3]}}"), "-0.2", "box.size[1]", "must be >= 0");
  expect_refused(body("{cylinder: {radius: -0.1, length: 1, axis: z}}"), "-0.1", "cylinder.radius",
                 "must be positive");
  expect_refused(body("{cylinder: {radius: 0.1, length: -1, axis: z}}"), "-1", "cylinder.length",
                 "must be positive");
  expect_refused(body("{rod: {length: -l, axis: x}}"), "-l", "rod.length", "must be positive");
  expect_refused(body("{disk: {radius: -l, axis: x}}"), "-l", "disk.radius", "must be positive");
  // A flat box is a plate: allowed.
  EXPECT_NO_THROW(io::parse_model(body("{box: {size: [1, 0.5, 0]}}"), "m.yaml"));

  const std::string spring =
      pendulum(arm,
               "loads:\n  - spring: {from: [world, [0, 1, 0]], to: [arm, [1, 0, 0]], stiffness: k, "
               "rest_length: -0.5}\n");
  expect_refused(spring, "-0.5", "rest_length", "rest length must be >= 0");
  expect_cli_refuses("sphere.yaml", body("{sphere: {radius: -0.1}}"), "-0.1", "sphere.radius");
  expect_cli_refuses("box.yaml", body("{box: {size: [-1, 1, 1]}}"), "-1", "box.size[0]");
  expect_cli_refuses("cylinder.yaml", body("{cylinder: {radius: 0.1, length: -2, axis: z}}"), "-2",
                     "cylinder.length");
  expect_cli_refuses("spring.yaml", spring, "-0.5", "rest_length");
}

// -- URDF --------------------------------------------------------------------------------------

std::string urdf_with(const std::string& mass, const std::string& ixx = "0.1",
                      const std::string& xyz = "0 0 -0.5", const std::string& effort = "10") {
  return "<robot name=\"r\">\n"
         "<link name=\"base\"/>\n"
         "<link name=\"arm\">\n"
         "  <inertial>\n"
         "    <origin xyz=\"" +
         xyz +
         "\"/>\n"
         "    <mass value=\"" +
         mass +
         "\"/>\n"
         "    <inertia ixx=\"" +
         ixx +
         "\" iyy=\"0.1\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\n"
         "  </inertial>\n"
         "</link>\n"
         "<joint name=\"shoulder\" type=\"revolute\">\n"
         "  <parent link=\"base\"/><child link=\"arm\"/>\n"
         "  <axis xyz=\"0 1 0\"/>\n"
         "  <limit lower=\"-1\" upper=\"1\" effort=\"" +
         effort +
         "\" velocity=\"1\"/>\n"
         "</joint>\n"
         "</robot>\n";
}

/// The URDF is refused at the line of `element`, naming `name` (a link or joint), its message
/// naming the element and attribute.
void expect_urdf_refused(const std::string& xml, const std::string& element,
                         const std::string& name, const std::string& field) {
  try {
    io::build_model(io::translate_urdf(xml, "robot.urdf"));
    ADD_FAILURE() << "accepted:\n" << xml;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "robot.urdf") << e.what();
    EXPECT_EQ(e.where().line, place_of(xml, element).line) << e.what();
    EXPECT_EQ(e.offending(), name) << e.what();
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(FieldChecks, UrdfNumbersMustBeFiniteAndInRange) {
  // The finding: these masses made the link massless without a word.
  for (const char* mass : {"nan", "inf", "-inf", "1e400", "1e-400", "NaN", "x"})
    expect_urdf_refused(urdf_with(mass), "<mass", "arm", "<mass value> of link 'arm'");
  for (const char* entry : {"nan", "inf", "1e999"})
    expect_urdf_refused(urdf_with("1", entry), "<inertia ", "arm", "<inertia ixx> of link 'arm'");
  expect_urdf_refused(urdf_with("1", "0.1", "0 nan -0.5"), "<origin", "arm",
                      "<origin xyz> of link 'arm'");
  expect_urdf_refused(urdf_with("1", "0.1", "0 0 -0.5", "inf"), "<limit", "shoulder",
                      "<limit effort> of joint 'shoulder'");
  // urdfdom logs an error for a number it cannot read and returns the robot all the same, the
  // value left at 0 (that is how the masses above became massless links): what appell does not
  // check itself, a <collision>'s size, is refused by urdfdom's message then.
  std::string collision = urdf_with("1");
  collision.replace(collision.find("</link>"), 0,
                    "<collision><geometry><sphere radius=\"nan\"/></geometry></collision>\n");
  try {
    io::build_model(io::translate_urdf(collision, "robot.urdf"));
    ADD_FAILURE() << "accepted:\n" << collision;
  } catch (const model::ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("urdfdom cannot read the robot"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.offending(), "arm") << e.what();
  }
  // As written by hand, the robot is fine (and so is a leading '+').
  EXPECT_NO_THROW(io::build_model(io::translate_urdf(urdf_with("+1.5"), "robot.urdf")));

  const std::string path = write_file("robot.urdf", urdf_with("nan"));
  const auto r = run_cli("eval " + path);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(path + ":" + std::to_string(place_of(urdf_with("nan"), "<mass").line)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(arm)"), std::string::npos) << r.out;
  std::remove(path.c_str());
}

// -- what the format allows still works ---------------------------------------------------------

TEST(FieldChecks, WhatTheFormatAllowsStillDerivesAndEvaluates) {
  // Velocities in a damper and in loads, t and a prescribed function in positions, an input in a
  // force, a declared speed in a torque.
  const std::string yaml =
      "name: allowed\n"
      "parameters: {m: 1, l: 1, g: 9.81, c: 0.2, A: 0.1, w: 3, k: 4}\n"
      "coordinates: [{name: phi, initial: 0.3}]\n"
      "prescribed: {psi: w*t}\n"
      "inputs: [u]\n"
      "frames:\n"
      "  cart: {translation: [\"A*sin(w*t)\", 0, 0]}\n"
      "  arm: {parent: cart, rotation: \"rot_z(phi)*rot_x(psi)\"}\n"
      "bodies:\n"
      "  rod: {frame: arm, mass: m, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n"
      "gravity: [0, -g, 0]\n"
      "loads:\n"
      "  - {generalized: {coordinate: phi, value: \"-c*dot(phi)\"}}\n"
      "  - damper: {from: [world, [0, 1, 0]], to: [arm, [l, 0, 0]], coefficient: \"c*(1 + "
      "dot(phi)^2)\"}\n"
      "  - spring: {from: [world, [0, 1, 0]], to: [arm, [l, 0, 0]], stiffness: k, rest_length: "
      "\"0.5 + 0.1*sin(t)\"}\n"
      "  - {force: [u, 0, 0], on: rod, at: [l, 0, 0]}\n"
      "  - potential: \"k*phi^2/2\"\n";
  const auto model = io::parse_model(yaml, "allowed.yaml");
  ASSERT_EQ(model->dof(), 1u);
  const std::string path = write_file("allowed.yaml", yaml);
  const auto derive = run_cli("derive " + path);
  EXPECT_EQ(derive.code, 0) << derive.out;
  const auto eval = run_cli("eval " + path + " --q 0.4 --qd 0.7 --t 0.2 --set u=1 --json");
  EXPECT_EQ(eval.code, 0) << eval.out;
  EXPECT_NE(eval.out.find("\"qdd\""), std::string::npos) << eval.out;
  std::remove(path.c_str());
}

TEST(FieldChecks, AVelocityInALoadAndTInATranslationGiveTheRightEquation) {
  // A pendulum on a cart driven along x by A sin(w t), damped by -c dot(phi):
  // m l^2 ddot(phi) = -m g l cos(phi) - c dot(phi) + m l sin(phi) xc'', xc'' = -A w^2 sin(w t).
  const double m = 1.5, l = 0.8, g = 9.81, c = 0.3, A = 0.2, w = 2.5;
  const auto model = io::parse_model(
      "name: driven\n"
      "parameters: {m: 1.5, l: 0.8, g: 9.81, c: 0.3, A: 0.2, w: 2.5}\n"
      "coordinates: [phi]\n"
      "frames:\n"
      "  cart: {translation: [\"A*sin(w*t)\", 0, 0]}\n"
      "  arm: {parent: cart, rotation: rot_z(phi)}\n"
      "particles:\n"
      "  bob: {frame: arm, mass: m, position: [l, 0, 0]}\n"
      "gravity: [0, -g, 0]\n"
      "loads:\n"
      "  - {generalized: {coordinate: phi, value: \"-c*dot(phi)\"}}\n",
      "driven.yaml");
  const num::CompiledEquations equations(principles::derive(model, principles::Method::Lagrange));
  const double t = 0.7, phi = 0.4, rate = -1.3;
  Eigen::VectorXd q(1), qd(1), f;
  Eigen::MatrixXd M;
  q << phi;
  qd << rate;
  equations.evaluate(t, q, qd, M, f);
  EXPECT_NEAR(M(0, 0), m * l * l, 1e-12);
  EXPECT_NEAR(
      f(0),
      -m * g * l * std::cos(phi) - c * rate - m * l * A * w * w * std::sin(w * t) * std::sin(phi),
      1e-12);
}

}  // namespace
