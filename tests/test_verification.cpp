// num::verify: every principle against Lagrange II, with what each cost (what `appell verify`
// prints).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/verification.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name);
}

TEST(Verification, EveryPrincipleAgreesOnThePlanarRobot) {
  const auto model = example("planar_2r.yaml");
  const num::VerificationReport report = num::verify(model);

  EXPECT_EQ(report.model, "planar-2r");
  EXPECT_EQ(report.dof, 2u);
  EXPECT_EQ(report.reference, principles::Method::Lagrange);
  EXPECT_EQ(report.options.states, 20u);
  EXPECT_TRUE(report.all_agree);
  EXPECT_EQ(report.first_disagreement, "");
  EXPECT_FALSE(report.has_minimal);
  ASSERT_EQ(report.methods, std::size(principles::all_methods));
  ASSERT_EQ(report.rows.size(), report.methods);

  for (std::size_t k = 0; k < report.rows.size(); ++k) {
    const auto& row = report.rows[k];
    const auto method = principles::all_methods[k];
    SCOPED_TRACE(row.method);
    EXPECT_EQ(row.method, principles::method_name(method));
    ASSERT_TRUE(row.principle.has_value());
    EXPECT_EQ(*row.principle, method);
    EXPECT_TRUE(row.symbolic);
    EXPECT_TRUE(row.agrees);
    EXPECT_LE(row.max_error, 1e-12);
    EXPECT_EQ(row.first_difference, "");
    // The counts are deterministic: they are those of forming the equations alone.
    const auto formed = principles::derive(model, method);
    EXPECT_EQ(row.differentiations, formed.cost.differentiations);
    EXPECT_EQ(row.derivative_nodes, formed.cost.derivative_nodes);
    EXPECT_EQ(row.size_before, formed.cost.size_before);
    EXPECT_EQ(row.size_after, principles::simplify(formed).cost.size_after);
    EXPECT_GT(row.differentiations, 0u);
    EXPECT_GT(row.size_after, 0u);
    EXPECT_GT(row.derive_seconds, 0.0);
    EXPECT_GT(row.simplify_seconds, 0.0);
  }
  // The readable equations are the same, so every method simplifies to the same size.
  for (const auto& row : report.rows) EXPECT_EQ(row.size_after, report.rows[0].size_after);

  // Lagrange differentiates T twice (∂/∂q̇, then d/dt), Gibbs–Appell S once (∂/∂q̈) but needs
  // the accelerations: the two count differently, and Gibbs–Appell applies fewer derivative
  // rules (docs/user-guide.md, "appell verify").
  const auto& lagrange = report.rows[0];
  const auto& gibbs_appell = report.rows[1];
  ASSERT_TRUE(gibbs_appell.principle == principles::Method::GibbsAppell);
  EXPECT_NE(lagrange.differentiations, gibbs_appell.differentiations);
  EXPECT_LT(gibbs_appell.derivative_nodes, lagrange.derivative_nodes);
}

TEST(Verification, TheMinimalFormJoinsWithIndependentSpeeds) {
  const num::VerificationReport report = num::verify(example("slider_crank.yaml"), {5, 1e-10});
  EXPECT_EQ(report.options.states, 5u);
  EXPECT_EQ(report.dof, 3u);
  EXPECT_TRUE(report.has_minimal);
  EXPECT_EQ(report.methods, std::size(principles::all_methods));
  ASSERT_EQ(report.rows.size(), report.methods + 1);
  const auto& minimal = report.rows.back();
  EXPECT_EQ(minimal.method, "minimal");
  EXPECT_FALSE(minimal.principle.has_value());
  EXPECT_TRUE(minimal.symbolic);
  EXPECT_TRUE(minimal.agrees);
  EXPECT_LE(minimal.max_error, 1e-10);
  EXPECT_GT(minimal.differentiations, 0u);
  EXPECT_TRUE(report.all_agree) << report.first_disagreement;
}

TEST(Verification, ADisagreementIsAResultNamingTheFirstMethod) {
  // A tolerance far below rounding admits identical numbers only: compared at the random states
  // alone, the methods whose rounding differs disagree, and the report names the first of them.
  // The reference against itself differs nowhere (a tolerance of 0 or less, which once made it
  // "differ from lagrange", is refused: Verification.ATolerancePastItsRangeIsRefused).
  num::VerifyOptions options;
  options.tolerance = 1e-300;
  options.symbolic = false;
  const num::VerificationReport report = num::verify(example("planar_2r.yaml"), options);
  EXPECT_FALSE(report.all_agree);
  ASSERT_FALSE(report.rows.empty());
  EXPECT_EQ(report.rows.front().method, "lagrange");
  EXPECT_TRUE(report.rows.front().agrees);
  const std::string& first = report.first_disagreement;
  EXPECT_NE(first.find(" differs from lagrange in "), std::string::npos) << first;
  EXPECT_NE(first.rfind("lagrange differs", 0), 0u) << first;
}

TEST(Verification, ATolerancePastItsRangeIsRefused) {
  for (const double bad : {-1.0, 0.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    num::VerifyOptions options;
    options.tolerance = bad;
    try {
      num::verify(example("planar_2r.yaml"), options);
      ADD_FAILURE() << "tolerance " << bad << " was accepted";
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().file, "tolerance") << e.what();
      EXPECT_NE(std::string(e.what()).find("the tolerance must be a positive number"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace

namespace {

TEST(Verification, EquationsThatOverflowAtTheRandomStatesGiveAReasonNotAVerdict) {
  // exp(400 q) overflows at q near 2: every comparison would be NaN, once reported as "lagrange
  // differs from lagrange"; now a failed computation naming the entry and the state.
  const auto model = appell::io::parse_model(
      "name: overflow\nparameters: {m: 1.0}\ncoordinates: [q]\nparticles:\n  p: {frame: world, "
      "mass: m, position: [q, 0, 0]}\nloads:\n  - {potential: \"exp(400*q)\"}\n",
      "overflow.yaml");
  const auto a = appell::principles::derive(model, appell::principles::Method::Lagrange);
  try {
    appell::num::compare(a, a, 20, /*symbolic=*/false);
    ADD_FAILURE() << "compared equations that are not finite";
  } catch (const appell::model::ComputationError& e) {
    EXPECT_NE(std::string(e.what()).find("f(1) is not a finite number at a random state"),
              std::string::npos)
        << e.what();
  }
  // Finite everywhere it is evaluated: the same model with a gentler potential compares.
  const auto gentle = appell::io::parse_model(
      "name: gentle\nparameters: {m: 1.0}\ncoordinates: [q]\nparticles:\n  p: {frame: world, "
      "mass: m, position: [q, 0, 0]}\nloads:\n  - {potential: \"exp(4*q)\"}\n",
      "gentle.yaml");
  const auto b = appell::principles::derive(gentle, appell::principles::Method::Lagrange);
  EXPECT_EQ(appell::num::compare(b, b, 20, false).max_numeric_error, 0.0);
}

}  // namespace
