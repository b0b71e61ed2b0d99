// Symbolic work is bounded: models whose expressions explode when simplified or differentiated
// (issue 25) end with an answer or a located error, never with std::terminate (exit 134) or
// minutes of work.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "appell/sym/readable.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

using namespace appell;
namespace fs = std::filesystem;

namespace {

using SymbolicBounds = test_support::ScratchDirTest;

std::string repeated_cosine_model() {
  std::string position;
  for (int i = 0; i < 100; ++i) position += (i ? "*" : "") + std::string("cos(phi)");
  return "name: c\nparameters: {m: 1, g: 9.81}\ncoordinates: [phi]\n"
         "frames:\n  a: {parent: world, rotation: rot_z(phi)}\n"
         "particles:\n  p: {frame: a, mass: m, position: [\"" +
         position + "\", 0, 0]}\ngravity: [0, -g, 0]\n";
}

std::string high_power_model() {
  return "name: p\nparameters: {m: 1, l: 1, k: 2}\ncoordinates: [q1, q2]\n"
         "particles:\n  p: {frame: world, mass: m, position: [q1, q2, 0]}\n"
         "loads:\n  - {potential: \"k*(q1+q2+l)^1000/1000\"}\n";
}

std::string nested_sine_model(int levels) {
  std::string x = "q";
  for (int i = 0; i < levels; ++i) x = "sin(" + x + ")";
  return "name: n\nparameters: {m: 1}\ncoordinates: [q]\n"
         "particles:\n  p: {frame: world, mass: m, position: [\"" +
         x + "\", 0, 0]}\n";
}

}  // namespace

// These aborted with "terminate called after throwing ... OverBudget" (exit 134).
TEST_F(SymbolicBounds, ExplodingSimplificationsArePrintedAsFormed) {
  for (const auto& [name, text] : {std::pair{"cosines.yaml", repeated_cosine_model()},
                                   std::pair{"power.yaml", high_power_model()}}) {
    const std::string model = write(name, text);
    for (const std::string command :
         {"statics", "derive", "derive --method gauss --show compulsion", "derive --format latex",
          "verify --states 2"}) {
      SCOPED_TRACE(std::string(name) + ": " + command);
      const auto run = test_support::run_cli(command + " " + model);
      EXPECT_TRUE(run.code == 0 || run.code == 1) << run.code << "\n" << run.out;
      EXPECT_EQ(run.out.find("terminate"), std::string::npos) << run.out;
      EXPECT_EQ(run.out.find("internal error"), std::string::npos) << run.out;
    }
    // derive gives an answer, and says that entries were kept as formed.
    const auto derived = test_support::run_cli("derive " + model);
    EXPECT_EQ(derived.code, 0) << derived.out;
    EXPECT_NE(derived.out.find("too large to simplify within the budget"), std::string::npos)
        << derived.out;
  }
}

// readable() over its budget returns an expression still equal to the one given.
TEST(SymbolicBoundsReadable, OverTheBudgetTheExpressionIsKeptEqual) {
  const GiNaC::symbol q1("q1"), q2("q2"), l("l"), phi("phi");
  sym::ReadableContext context;
  context.coordinates = {q1, q2, phi};
  context.parameters = {l};
  const GiNaC::ex exploding = GiNaC::pow(q1 + q2 + l, 999) +
                              GiNaC::pow(GiNaC::cos(phi), 100) * GiNaC::pow(GiNaC::sin(phi), 3);
  const GiNaC::ex kept = sym::readable(exploding, context);
  std::mt19937 engine(5);
  std::uniform_real_distribution<double> u(-0.6, 0.2);
  for (int k = 0; k < 5; ++k) {
    GiNaC::exmap at{{q1, u(engine)}, {q2, u(engine)}, {l, 0.3}, {phi, 3 * u(engine)}};
    const double a = GiNaC::ex_to<GiNaC::numeric>(exploding.subs(at).evalf()).to_double();
    const double b = GiNaC::ex_to<GiNaC::numeric>(kept.subs(at).evalf()).to_double();
    EXPECT_NEAR(a, b, 1e-12 * (1 + std::abs(a)));
  }
  // Also entry by entry in a matrix, one over the budget and one not.
  GiNaC::matrix m(1, 2);
  m(0, 0) = exploding;
  m(0, 1) = GiNaC::pow(GiNaC::sin(phi), 2) + GiNaC::pow(GiNaC::cos(phi), 2);
  const GiNaC::matrix r = sym::readable(m, context);
  EXPECT_TRUE(r(0, 1).is_equal(1)) << r(0, 1);  // the small entry was still simplified
}

// 400 nested sines derived for minutes: function nesting is bounded, with a located error.
TEST_F(SymbolicBounds, FunctionNestingIsBoundedWithALocatedError) {
  const std::string deep = write("deep.yaml", nested_sine_model(65));
  const auto refused = test_support::run_cli("derive " + deep);
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("deep.yaml:5:"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("functions nested too deeply"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("(sin)"), std::string::npos) << refused.out;
  const std::string allowed = write("allowed.yaml", nested_sine_model(64));
  const auto derived = test_support::run_cli("eval " + allowed + " --q 0.5 --qd 0.1 --no-jit");
  EXPECT_EQ(derived.code, 0) << derived.out;
  // Parentheses alone are not functions: 200 of them are fine.
  const std::string parens =
      write("parens.yaml",
            "name: p\nparameters: {m: 1}\ncoordinates: [q]\nparticles:\n  p: {frame: "
            "world, mass: m, position: [\"" +
                std::string(200, '(') + "q" + std::string(200, ')') + "\", 0, 0]}\n");
  EXPECT_EQ(test_support::run_cli("derive " + parens).code, 0);
}
