// The edges of the input (issue 12): hostile nesting, numbers that overflow, a second YAML
// document, inertias and rotations that cannot be, each a located error rather than a crash, a
// hang or a model accepted though wrong.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "appell/fem/mesh.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/model/builder.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "support/model_error_of.hpp"

namespace {

using namespace appell;

std::string repeated(const std::string& text, int times) {
  std::string result;
  for (int k = 0; k < times; ++k) result += text;
  return result;
}

std::string with_potential(const std::string& potential) {
  return "name: m\ncoordinates: [q]\nframes:\n  arm: {rotation: rot_z(q)}\nparticles:\n"
         "  p: {frame: arm, mass: 1, position: [1, 0, 0]}\nloads:\n  - {potential: \"" +
         potential + "\"}\n";
}

TEST(Edges, DeepNestingIsALocatedErrorNotAStackOverflow) {
  for (const std::string& deep :
       {std::string(50000, '(') + "q" + std::string(50000, ')'), std::string(100000, '-') + "q",
        repeated("q^", 20000) + "2", repeated("sin(", 20000) + "q" + std::string(20000, ')')}) {
    const auto e = test_support::model_error_of(with_potential(deep));
    EXPECT_EQ(e.where().line, 8) << e.what();
    EXPECT_NE(std::string(e.what()).find("nested too deeply"), std::string::npos) << e.what();
  }
  // Nesting a person could write is fine.
  const std::string fine = std::string(200, '(') + "q" + std::string(200, ')');
  EXPECT_NO_THROW(io::parse_model(with_potential(fine), "m.yaml"));
}

TEST(Edges, ParametersThatOverflowAreLocated) {
  // A literal a double cannot hold (1e999) is refused where it is written (test_field_checks).
  // A value exact arithmetic takes out of range is refused at the parameter, naming it...
  for (const char* value : {"1e308*1e308", "1e308*1e308*pi"}) {
    const auto e = test_support::model_error_of(std::string("name: m\nparameters:\n  a: ") + value +
                                                "\ncoordinates: [q]\n");
    EXPECT_EQ(e.where().line, 3) << value << ": " << e.what();
    EXPECT_EQ(e.where().column, 6) << value << ": " << e.what();
    EXPECT_EQ(e.offending(), "a") << e.what();
    EXPECT_NE(std::string(e.what()).find("not a real number"), std::string::npos) << e.what();
  }
  // ...and a function or a power that leaves the range, where it is written (issue 39: CLN took
  // exp(exp(1000)) for 1), naming the function or the power.
  for (const auto& [value, column, name] :
       {std::tuple{"exp(1000)", 6, "exp"}, std::tuple{"1e300^2", 11, "^"},
        std::tuple{"2*exp(exp(1000))", 12, "exp"}}) {
    const auto e = test_support::model_error_of(std::string("name: m\nparameters:\n  a: ") + value +
                                                "\ncoordinates: [q]\n");
    EXPECT_EQ(e.where().line, 3) << value << ": " << e.what();
    EXPECT_EQ(e.where().column, column) << value << ": " << e.what();
    EXPECT_EQ(e.offending(), name) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a finite real number"), std::string::npos)
        << e.what();
  }
}

TEST(Edges, ASecondYamlDocumentIsAnError) {
  const auto e = test_support::model_error_of(
      "name: m\ncoordinates: [q]\n---\nname: other\ncoordinates: [r]\n");
  EXPECT_EQ(e.where().line, 4) << e.what();
  EXPECT_NE(std::string(e.what()).find("one YAML document"), std::string::npos) << e.what();
  // A file that opens with --- is one document.
  EXPECT_NO_THROW(io::parse_model("---\nname: m\ncoordinates: [q]\n", "m.yaml"));
}

TEST(Edges, InertiaMustBeAPhysicalInertia) {
  const std::string head =
      "name: m\ncoordinates: [q]\nframes:\n  arm: {rotation: rot_x(q)}\nbodies:\n"
      "  box: {frame: arm, mass: 1, inertia: ";
  // Izz > Ixx + Iyy: no distribution of mass has it, and the arm turns about x (a planar body
  // turning about z alone is accepted: tests/test_planar_inertias.cpp).
  auto e = test_support::model_error_of(head + "[1, 1, 3, 0, 0, 0]}\n");
  EXPECT_EQ(e.where().line, 6) << e.what();
  EXPECT_EQ(e.offending(), "box");
  EXPECT_NE(std::string(e.what()).find("triangle inequality"), std::string::npos) << e.what();
  // Not positive semi-definite: a product of inertia larger than the moments.
  e = test_support::model_error_of(head + "[1, 1, 1, 2, 0, 0]}\n");
  EXPECT_NE(std::string(e.what()).find("not positive semi-definite"), std::string::npos)
      << e.what();
  // The shapes and a thin rod (zero axial moment) are physical.
  EXPECT_NO_THROW(io::parse_model(head + "{rod: {length: 2, axis: x}}}\n", "m.yaml"));
  EXPECT_NO_THROW(io::parse_model(head + "[2, 3, 4, 0.5, 0, 0]}\n", "m.yaml"));

  // The same check for a body built in code, named by its place.
  model::ModelBuilder b("m");
  b.coordinate("q");
  b.frame("arm", {.rotation = model::Rotation::x("q")});
  try {
    b.body("box", {.frame = "arm", .mass = 1, .inertia = model::Inertia::entries(1, 1, 3)});
    b.build();
    ADD_FAILURE() << "no error";
  } catch (const model::ModelError& error) {
    EXPECT_EQ(error.where().str(), "bodies.box.inertia");
  }
}

TEST(Edges, ASymbolicRotationMatrixMustBeARotation) {
  const std::string head = "name: m\ncoordinates: [q]\nframes:\n  arm: {rotation: ";
  // Not orthonormal for q != 0.
  auto e = test_support::model_error_of(head +
                                        "[[cos(q), sin(q), 0], [sin(q), cos(q), 0], [0, 0, 1]]}\n");
  EXPECT_EQ(e.where().line, 4) << e.what();
  EXPECT_EQ(e.offending(), "arm");
  EXPECT_NE(std::string(e.what()).find("at a sample state"), std::string::npos) << e.what();
  // A true rotation about z.
  EXPECT_NO_THROW(io::parse_model(
      head + "[[cos(q), -sin(q), 0], [sin(q), cos(q), 0], [0, 0, 1]]}\n", "m.yaml"));
}

TEST(Edges, AnUnclosedQuoteIsLocatedWhereItOpens) {
  for (const char quote : {'"', '\''}) {
    const auto e = test_support::model_error_of(
        std::string("name: m\ncoordinates: [q]\nparameters:\n  a: ") + quote + "1 + 2\n");
    EXPECT_EQ(e.where().line, 4) << e.what();
    EXPECT_EQ(e.where().column, 6) << e.what();
    EXPECT_NE(std::string(e.what()).find("unclosed quote"), std::string::npos) << e.what();
  }
  // Inside a flow map or list the open string swallows the closing bracket, and the YAML parser
  // complains where the text ends: the error points at the quote all the same.
  for (const char quote : {'"', '\''}) {
    const auto e = test_support::model_error_of(
        std::string("name: m # it's\ncoordinates: [q]\nframes: {f: {rotation: ") + quote +
        "rot_z(q)}}\nparticles: {p: {frame: f, mass: 1, position: [1, "
        "0, 0]}}\n");
    EXPECT_EQ(e.where().line, 3) << e.what();
    EXPECT_EQ(e.where().column, 24) << e.what();
    EXPECT_NE(std::string(e.what()).find("unclosed quote"), std::string::npos) << e.what();
  }
  {
    const auto e =
        test_support::model_error_of("name: m\ncoordinates: [q]\ngravity: [0, \"-g, 0]\n");
    EXPECT_EQ(e.where().line, 3) << e.what();
    EXPECT_EQ(e.where().column, 14) << e.what();
  }
  // A bracket left open with every quote closed is still the parser's "not found".
  {
    const auto e =
        test_support::model_error_of("name: \"m\"\ncoordinates: [q]\ngravity: [0, -1, 0\n");
    EXPECT_NE(std::string(e.what()).find("malformed YAML"), std::string::npos) << e.what();
  }
  // Escaped and doubled quotes inside closed strings are fine.
  EXPECT_NO_THROW(
      io::parse_model("name: \"a \\\" b\"\ndescription: 'it''s'\ncoordinates: [q]\n", "m.yaml"));
}

TEST(Edges, AnExpressionSplitAtACommaGetsAHintToQuoteIt) {
  auto e = test_support::model_error_of(
      "name: m\ncoordinates: [q]\nframes:\n  arm: {rotation: rot_z(q)}\nparticles:\n"
      "  p: {frame: arm, mass: 1, position: [1, 0, 0]}\nloads:\n  - {potential: atan2(q, 1)}\n");
  EXPECT_EQ(e.where().line, 8) << e.what();
  EXPECT_NE(std::string(e.what()).find("must be quoted"), std::string::npos) << e.what();
  e = test_support::model_error_of("name: m\ncoordinates: [q]\ngravity: [0, -atan2(1, 2), 0]\n");
  EXPECT_EQ(e.where().line, 3) << e.what();
  EXPECT_NE(std::string(e.what()).find("must be quoted"), std::string::npos) << e.what();
  // No hint where no expression was split.
  e = test_support::model_error_of("name: m\ncoordinates: [q]\ngravity: [0, 1]\n");
  EXPECT_EQ(std::string(e.what()).find("must be quoted"), std::string::npos) << e.what();
}

// -- bounded work ------------------------------------------------------------------------------

std::shared_ptr<const model::Model> pendulum() {
  return io::parse_model(
      "name: p\nparameters: {g: 9.81}\ncoordinates: [q]\nframes:\n  arm: {rotation: rot_z(q)}\n"
      "particles:\n  bob: {frame: arm, mass: 1, position: [1, 0, 0]}\ngravity: [0, -g, 0]\n",
      "p.yaml");
}

TEST(Edges, ASimulationThatAsksForTooManyRowsIsRefusedBeforeIntegrating) {
  const auto eq = principles::derive(pendulum(), principles::Method::GibbsAppell);
  std::size_t rows = 0;
  const auto count = [&](const num::SimulationRow&) { ++rows; };
  // Located at what the caller chose: the span when the output step is the default one.
  for (const auto& [t_end, step, blamed] :
       {std::tuple{1e300, 0.01, "t_end"}, std::tuple{1.0, 1e-10, "output_step"}}) {
    num::SimulationOptions options;
    options.t_end = t_end;
    options.output_step = step;
    try {
      num::simulate(eq, options, count);
      ADD_FAILURE() << "no error";
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().str(), blamed) << e.what();
      EXPECT_NE(std::string(e.what()).find("more than the limit of 10000000"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(rows, 0u);
  // The limit is the caller's to raise or lower.
  num::SimulationOptions options;
  options.t_end = 1.0;
  options.output_step = 0.01;
  options.max_rows = 50;
  EXPECT_THROW(num::simulate(eq, options, count), model::ModelError);
  options.max_rows = 101;
  EXPECT_NO_THROW(num::simulate(eq, options, count));
  EXPECT_EQ(rows, 101u);
}

TEST(Edges, TheOrderOfGibbsAppellEquationsIsBounded) {
  for (int order : {0, -3, 13, 1000000}) {
    try {
      principles::derive_gibbs_appell(pendulum(), order);
      ADD_FAILURE() << "no error for order " << order;
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.offending(), std::to_string(order));
      EXPECT_NE(std::string(e.what()).find("from 1 to 12"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(principles::derive_gibbs_appell(pendulum(), 3).order, 3);
}

TEST(Edges, AMeshFileThatIsADeviceIsRefused) {
  try {
    fem::read_gmsh("/dev/zero", model::SourceLocation{"m.yaml", 7, 12});
    ADD_FAILURE() << "no error";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 7);
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
