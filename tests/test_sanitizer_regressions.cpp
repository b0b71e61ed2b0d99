// Regression tests of the memory-safety bugs the sanitizer build (docs/development.md) found.
// In the ordinary build they check the results; in build-asan they are what would have failed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/moving_frame.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/model/expression_parser.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/time_functions.hpp"
#include "support/run_cli.hpp"

namespace appell {
namespace {

const char* kClampedBox = R"yaml(
name: clamped-box
parameters: {P: -100.0}
coordinates: []
frames: {base: {}}
flexible:
  - name: bar
    frame: base
    mesh: {box: {size: [1.0, 0.1, 0.1], divisions: [4, 1, 1]}}
    material: {E: 2.1e11, nu: 0.3, rho: 7850}
    clamp: {x: 0}
    loads:
      - {at: {x: 1.0}, force: [0, 0, P/4]}
)yaml";

// A body clamped but with no prescribed displacement: the free-by-prescribed block has no
// columns. Its selection matrix was built with SparseMatrix::reserve and makeCompressed, which on
// zero columns read before a heap buffer (AddressSanitizer: heap-buffer-overflow).
TEST(SanitizerRegressions, FreePrescribedBlockWithNoPrescribedDofs) {
  const auto model = io::parse_model(kClampedBox, "test.yaml");
  const fem::FlexibleBodyInstance body = fem::build_flexible_body(*model, 0, {});
  ASSERT_TRUE(body.prescribed_dofs.empty());
  ASSERT_FALSE(body.free_dofs.empty());
  const fem::SparseMatrix block = fem::free_prescribed_block(body, body.assembled.stiffness);
  EXPECT_EQ(block.rows(), Eigen::Index(body.free_dofs.size()));
  EXPECT_EQ(block.cols(), 0);
  const fem::SparseMatrix free = fem::free_block(body, body.assembled.stiffness);
  EXPECT_EQ(free.rows(), Eigen::Index(body.free_dofs.size()));
  EXPECT_EQ(free.cols(), Eigen::Index(body.free_dofs.size()));
}

// The documented example that showed it from the command line.
TEST(SanitizerRegressions, CantileverBoxResponseRuns) {
  const auto r = test_support::run_cli(std::string("fem ") + APPELL_EXAMPLES_DIR +
                                       "/fem/cantilever_box.yaml --response --t-end 0.001 "
                                       "--step 0.0005 --csv /dev/null");
  EXPECT_EQ(r.code, 0) << r.out;
}

// A value that evaluates to a pole once the parameters are substituted (1/0, log(0)) is a located
// error. GiNaC evaluated the node it rebuilt on the heap before anything owned it and leaked it
// when the evaluation threw (LeakSanitizer: GiNaC::power::map); sym::substitute now rebuilds
// powers and functions on the stack.
TEST(SanitizerRegressions, APoleInAParameterIsALocatedErrorWithoutALeak) {
  for (const char* value : {"2/(a - 1)", "log(a - 1)", "(a - 1)^(-3)"}) {
    const std::string yaml =
        std::string("name: m\nparameters: {a: 1, b: ") + value + "}\ncoordinates: [q]\n";
    try {
      io::parse_model(yaml, "test.yaml");
      ADD_FAILURE() << value << " was accepted";
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().line, 2) << e.what();
      EXPECT_EQ(e.where().column, 23) << e.what();
    }
  }
}

TEST(SanitizerRegressions, SubstitutingIntoAPoleThrowsWithoutALeak) {
  const GiNaC::symbol x("x"), y("y");
  const GiNaC::exmap zero{{x, 0}};
  EXPECT_THROW(sym::substitute(y + 1 / x, zero), GiNaC::pole_error);
  EXPECT_THROW(sym::substitute(y * GiNaC::log(x), zero), GiNaC::pole_error);
  EXPECT_THROW(sym::substitute(GiNaC::pow(x, -2) + y, zero), GiNaC::pole_error);
  // Unchanged nodes are the same nodes; changed ones are evaluated as GiNaC would.
  const GiNaC::ex e = GiNaC::sin(y) * GiNaC::pow(x, 2);
  for (const GiNaC::ex& node : {e.op(0), e.op(1)})
    EXPECT_TRUE(GiNaC::are_ex_trivially_equal(sym::substitute(node, {}), node)) << node;
  EXPECT_TRUE(sym::substitute(e, {{x, 3}, {y, 0}}).is_zero());
  EXPECT_EQ(sym::substitute(GiNaC::pow(x, 2) * GiNaC::cos(y), {{x, 3}, {y, 0}}), GiNaC::ex(9));
}

// Found by fuzz_expression_parser ("0e8^0tan(3.1e0.04"): 0^0 built by GiNaC::pow leaked the power
// node when its evaluation threw; the parser builds powers on the stack.
TEST(SanitizerRegressions, AnUndefinedPowerIsALocatedErrorWithoutALeak) {
  model::ExpressionScope scope(std::make_shared<sym::TimeFunctions>());
  const auto locate = model::locate_on_one_line({"test.yaml", 4, 10});
  for (const char* text : {"0^0", "0e8^0", "2*(1-1)^(-1)", "(0^0)^2"}) {
    try {
      model::parse_expression(text, scope, locate);
      ADD_FAILURE() << text << " was accepted";
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().line, 4) << e.what();
      EXPECT_NE(std::string(e.what()).find("expression has no value"), std::string::npos)
          << e.what();
    }
  }
}

// Found by fuzz_expression_parser: an exact power with a huge exponent computed a number of
// hundreds of millions of digits (a timeout). Now "number out of range" at the '^'.
TEST(SanitizerRegressions, AHugeExactPowerIsOutOfRange) {
  model::ExpressionScope scope(std::make_shared<sym::TimeFunctions>());
  scope.add_coordinate("q");
  const auto locate = model::locate_on_one_line({"test.yaml", 4, 10});
  for (const char* text : {"2.066666666666330^33333333", "(2*q)^100000000", "(3^(1/2))^1e9",
                           "2^(-100000000)", "(1/7)^1e999"}) {
    try {
      model::parse_expression(text, scope, locate);
      ADD_FAILURE() << text << " was accepted";
    } catch (const model::ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("number out of range"), std::string::npos) << e.what();
    }
  }
  // Large but reasonable, and symbolic powers of any size, are fine.
  EXPECT_NO_THROW(model::parse_expression("2^1000 + q^100000000 + (-1)^1e300", scope, locate));
  // The same through a parameter's value.
  try {
    io::parse_model("name: m\nparameters: {a: 2, b: a^1000000000}\ncoordinates: [q]\n", "m.yaml");
    ADD_FAILURE() << "a^1000000000 was accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 2) << e.what();
  }
}

// Found by fuzz_model_reader (",j\x11"): yaml-cpp's LoadAll never returned on a text where a
// document starts with ','. Now a located error at once.
TEST(SanitizerRegressions, AMalformedYamlDocumentStartIsAnErrorNotAHang) {
  for (const char* text : {",j\x11", ",", "]\n", ",a: 1\n"}) {
    try {
      io::parse_model(text, "m.yaml");
      ADD_FAILURE() << text << " was accepted";
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().line, 1) << e.what();
    }
  }
}

}  // namespace
}  // namespace appell
