// Every principle gives the same equations on every example: D'Alembert (Kane), Gauss, Nielsen,
// Lagrange II and Gibbs–Appell, symbolically (difference simplified to zero) and at 20 random
// states to 1e-12 (Bricard's mechanism, whose symbolic test is inconclusive, only numerically:
// support/examples.hpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "appell/io/model_reader.hpp"
#include "appell/kinematics/kinematics.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/sym/differentiator.hpp"
#include "support/examples.hpp"

namespace {

using namespace appell;

TEST(PrinciplesAgree, EveryMethodOnEveryExample) {
  for (const auto& entry : std::filesystem::directory_iterator(APPELL_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    auto model = io::read_model_file(entry.path().string());
    const auto reference = principles::derive(model, principles::Method::GibbsAppell);
    for (auto method : principles::all_methods) {
      SCOPED_TRACE(principles::method_name(method));
      const auto eq = principles::derive(model, method);
      EXPECT_EQ(eq.method, method);
      const auto agreement = num::compare(reference, eq, 20, /*symbolic=*/true);
      if (test_support::symbolic_test_inconclusive(entry.path()))
        EXPECT_NE(agreement.symbolic_test, num::SymbolicTest::NotRun);
      else
        EXPECT_TRUE(agreement.symbolic) << agreement.first_difference;
      EXPECT_LT(agreement.max_numeric_error, 1e-12) << agreement.first_difference;
    }
  }
}

TEST(PrinciplesAgree, MethodNamesRoundTrip) {
  for (auto method : principles::all_methods)
    EXPECT_EQ(principles::parse_method(principles::method_name(method)), method);
  EXPECT_FALSE(principles::parse_method("newton").has_value());
}

TEST(PrinciplesAgree, CompulsionOfAFallingParticleIsHalfMassTimesDeviationSquared) {
  // A free particle under gravity: Z = ½ m |a − g|², minimal (zero) exactly at a = g.
  auto model = io::parse_model(R"(name: falling
parameters: {m: 2, g: 9.81}
coordinates: [x, z]
frames:
  slider: {translation: [x, 0, z]}
particles:
  p: {frame: slider, mass: m, position: [0, 0, 0]}
gravity: [0, 0, -g]
)",
                               "falling.yaml");
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kin(model, d);
  const GiNaC::ex z = principles::compulsion(kin);
  const GiNaC::symbol xdd = model->coordinate_symbol(0, 2), zdd = model->coordinate_symbol(1, 2);
  const GiNaC::symbol m = model->parameters[0].symbol, g = model->parameters[1].symbol;
  const GiNaC::ex expected = m / 2 * (xdd * xdd + (zdd + g) * (zdd + g));
  EXPECT_TRUE(GiNaC::expand(z - expected).is_zero()) << z;
}

}  // namespace
