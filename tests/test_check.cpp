// Issue 17: `appell check` — published claims about a model judged against its equations.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "appell/io/check_writer.hpp"
#include "appell/io/claims_reader.hpp"
#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/claim_check.hpp"

namespace {

using namespace appell;

std::shared_ptr<const model::Model> robot() {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml");
}

std::vector<num::ClaimResult> check(const std::string& yaml) {
  const auto model = robot();
  const auto claims = io::parse_claims(yaml, "claims.yaml", *model);
  return num::check_claims(model, claims.claims, claims.multipliers);
}

// The robot's equation of q2, derived by hand from T and the virtual work of gravity and the
// tip force (seed 000 eqs. 121, 126, with Q_S2 = -M_S g l cos(q1 + q2)).
const std::string eq2 =
    "1/3*M*l^2*ddot(q2) + (1/3*M*l^2 + 1/2*M*l^2*cos(q2))*ddot(q1) + 1/2*M*l^2*dot(q1)^2*sin(q2)"
    " + 1/2*M*g*l*cos(q1 + q2) + M_S*g*l*cos(q1 + q2)";

TEST(Check, TrueClaimsHold) {
  const auto results = check(R"Y(claims:
  - {name: M11, mass_matrix: [1, 1], value: "5/3*M*l^2 + M*l^2*cos(q2)"}
  - {name: f2, forcing: 2, value: "-1/2*M*l^2*dot(q1)^2*sin(q2) - (1/2*M + M_S)*g*l*cos(q1 + q2)"}
  - {name: Qg2, generalized_force: q2, load: gravity, value: "-M*g*l/2*cos(q1 + q2)"}
  - {name: QS1, generalized_force: q1, load: 1, value: "-M_S*g*l*(cos(q1) + cos(q1 + q2))"}
  - {name: T, kinetic_energy: "1/6*M*l^2*dot(q1)^2 + 1/2*M*(l^2*dot(q1)^2 + l^2/4*(dot(q1) + dot(q2))^2 + l^2*dot(q1)*(dot(q1) + dot(q2))*cos(q2)) + 1/24*M*l^2*(dot(q1) + dot(q2))^2"}
  - {name: eq2, coordinate: q2, equation: ")Y" +
                             eq2 + R"Y( = 0"}
)Y");
  ASSERT_EQ(results.size(), 6u);
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, num::Verdict::Holds) << r.name;
    EXPECT_TRUE(r.difference.empty()) << r.name;
    EXPECT_FALSE(r.witness) << r.name;
  }
}

TEST(Check, EquationMultipliedThroughOrSwappedHoldsUpToItsFactor) {
  const auto results = check(R"Y(claims:
  - {name: doubled, coordinate: q2, equation: "2*()Y" +
                             eq2 + R"Y() = 0"}
  - {name: swapped, coordinate: q2, equation: "0 = )Y" +
                             eq2 + R"Y("}
)Y");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].verdict, num::Verdict::HoldsUpToFactor);
  ASSERT_TRUE(results[0].factor);
  EXPECT_EQ(*results[0].factor, GiNaC::ex(2));
  EXPECT_EQ(results[1].verdict, num::Verdict::HoldsUpToFactor);
  EXPECT_EQ(*results[1].factor, GiNaC::ex(-1));
}

TEST(Check, WrongSignAndMissingTermAreFoundAndShown) {
  const auto model = robot();
  const auto claims = io::parse_claims(R"Y(claims:
  - {name: sign, forcing: 2, value: "1/2*M*l^2*dot(q1)^2*sin(q2) - (1/2*M + M_S)*g*l*cos(q1 + q2)"
}
  - {name: missing, generalized_force: q1, load: 1, value: "-M_S*g*l*cos(q1)"}
)Y",
                                       "claims.yaml", *model);
  const auto results = num::check_claims(model, claims.claims, claims.multipliers);
  ASSERT_EQ(results.size(), 2u);
  const auto context = io::readable_context(*model);
  // claim - appell = M l² sin(q2) q̇1²: one term, the wrong sign's double.
  EXPECT_EQ(results[0].verdict, num::Verdict::Differs);
  ASSERT_EQ(results[0].difference.size(), 1u);
  EXPECT_EQ(io::expression_text(results[0].difference[0], context), "M*l^2*sin(q2)*dot(q1)^2");
  ASSERT_TRUE(results[0].witness);
  EXPECT_NE(results[0].witness->claimed, results[0].witness->appell);
  // The missing term M_S g l cos(q1 + q2).
  EXPECT_EQ(results[1].verdict, num::Verdict::Differs);
  ASSERT_EQ(results[1].difference.size(), 1u);
  EXPECT_EQ(io::expression_text(results[1].difference[0], context), "l*M_S*g*cos(q1 + q2)");
  const std::string json = io::write_check_json(*model, results);
  EXPECT_NE(json.find("\"verdict\": \"differs\""), std::string::npos);
  EXPECT_NE(json.find("\"witness\""), std::string::npos);
}

TEST(Check, AccelerationEnergyUpToTermsFreeOfAccelerations) {
  const auto model = robot();
  const auto claims = io::parse_claims(R"Y(claims:
  - {name: S, acceleration_energy: "5/6*M*l^2*ddot(q1)^2 + 1/2*M*l^2*ddot(q1)^2*cos(q2) + 1/6*M*l^2*ddot(q2)^2 + 1/2*M*l^2*ddot(q1)*ddot(q2)*cos(q2) - M*l^2*dot(q1)*dot(q2)*ddot(q1)*sin(q2) + 1/3*M*l^2*ddot(q1)*ddot(q2) + 1/2*M*l^2*dot(q1)^2*ddot(q2)*sin(q2) - 1/2*M*l^2*dot(q2)^2*ddot(q1)*sin(q2) + 7*M*l^2*dot(q1)^4"}
  - {name: S_wrong, acceleration_energy: "5/6*M*l^2*ddot(q1)^2"}
)Y",
                                       "claims.yaml", *model);
  const auto results = num::check_claims(model, claims.claims, claims.multipliers);
  EXPECT_EQ(results[0].verdict, num::Verdict::Holds);
  EXPECT_EQ(results[1].verdict, num::Verdict::Differs);
  for (const auto& term : results[1].difference)
    EXPECT_TRUE(term.has(model->coordinate_symbol(0, 2)) ||
                term.has(model->coordinate_symbol(1, 2)));
}

TEST(Check, TheSeedsPrintedClaims) {
  // examples/claims: what seed 000 printed; its M, T, S and Q_g2 hold, its Q_g1 (M g l instead
  // of M g l/2 at cos(q1 + q2)) and Q_S (r_S with cos q2 for cos(q1 + q2)) do not.
  const auto model = robot();
  const auto claims = io::read_claims_file(
      std::string(APPELL_EXAMPLES_DIR) + "/claims/planar_2r_negrean2024.yaml", *model);
  const auto results = num::check_claims(model, claims.claims, claims.multipliers);
  std::map<std::string, num::Verdict> verdict;
  for (const auto& r : results) verdict[r.name] = r.verdict;
  for (const char* holds :
       {"T_112", "S_139", "M11_117", "M12_117", "M21_121", "M22_121", "Qg2_126"})
    EXPECT_EQ(verdict.at(holds), num::Verdict::Holds) << holds;
  for (const char* differs : {"Qg1_125", "QS1_127", "QS2_128", "eq143", "eq144"})
    EXPECT_EQ(verdict.at(differs), num::Verdict::Differs) << differs;
}

void expect_bad(const std::string& yaml, int line, const std::string& offending) {
  const auto model = robot();
  try {
    io::parse_claims(yaml, "claims.yaml", *model);
    FAIL() << "accepted: " << yaml;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "claims.yaml");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
  }
}

TEST(Check, BadClaimsFilesAreLocated) {
  expect_bad("claims:\n  - {name: a, forcing: 3, value: \"1\"}\n", 2, "3");
  expect_bad("claims:\n  - {name: a, forcing: 1, valu: \"1\"}\n", 2, "valu");
  expect_bad("claims:\n  - {name: a, coordinate: q9, equation: \"1 = 1\"}\n", 2, "q9");
  expect_bad("claims:\n  - {name: a, forcing: 1, value: \"2*qq\"}\n", 2, "qq");
  expect_bad("claims:\n  - {name: a, mass_matrix: [1, 1], forcing: 1, value: \"1\"}\n", 2,
             "forcing");
  expect_bad("claims:\n  - {name: a, coordinate: q1, equation: \"1 + 1\"}\n", 2, "1 + 1");
  expect_bad("claims:\n  - {name: a, generalized_force: q1, load: 5, value: \"1\"}\n", 2, "5");
  expect_bad(
      "claims:\n  - {name: a, forcing: 1, value: \"1\"}\n  - {name: a, forcing: 2, "
      "value: \"1\"}\n",
      3, "a");
  expect_bad("claim: []\n", 1, "claim");
}

// A load named in the model (`name: payload`) is claimed by its name exactly as by its position.
TEST(Check, ALoadIsClaimedByItsNameOrItsPosition) {
  const auto results = check(R"Y(claims:
  - {name: by_name, generalized_force: q1, load: payload, value: "-M_S*g*l*(cos(q1) + cos(q1 + q2))"}
  - {name: by_position, generalized_force: q1, load: 1, value: "-M_S*g*l*(cos(q1) + cos(q1 + q2))"}
  - {name: wrong, generalized_force: q2, load: payload, value: "-M_S*g*l*cos(q2)"}
)Y");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].verdict, num::Verdict::Holds);
  EXPECT_EQ(results[1].verdict, num::Verdict::Holds);
  EXPECT_EQ(results[2].verdict, num::Verdict::Differs);
  expect_bad("claims:\n  - {name: a, generalized_force: q1, load: motor, value: \"1\"}\n", 2,
             "motor");
}

// Load names are checked where the model is read: valid, unique, and never `gravity`.
TEST(Check, LoadNamesAreValidatedInTheModel) {
  const std::string head =
      "name: loaded\ncoordinates: [q]\nparameters: {m: 1, g: 9.81}\nframes:\n  a: {rotation: "
      "rot_z(q)}\n"
      "bodies:\n  b: {frame: a, mass: m, com: [1, 0, 0], inertia: [1, 1, 1, 0, 0, 0]}\n"
      "loads:\n";
  const auto bad = [&](const std::string& loads, int line, const std::string& offending) {
    try {
      io::parse_model(head + loads, "m.yaml");
      FAIL() << loads;
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().line, line) << e.what();
      EXPECT_EQ(e.offending(), offending) << e.what();
    }
  };
  bad("  - {name: gravity, torque: [0, 0, 1], on: b}\n", 9, "gravity");
  bad("  - {name: \"2x\", torque: [0, 0, 1], on: b}\n", 9, "2x");
  bad("  - {name: t1, torque: [0, 0, 1], on: b}\n  - {name: t1, potential: q^2}\n", 10, "t1");
  const auto model = io::parse_model(
      head + "  - {name: motor, generalized: {coordinate: q, value: 2}}\n  - {potential: q^2}\n",
      "m.yaml");
  ASSERT_EQ(model->loads.size(), 2u);
  EXPECT_EQ(model->loads[0].name, "motor");
  EXPECT_EQ(model->loads[1].name, "");
}

TEST(Check, UnknownNameInAnEquationIsLocatedAtItsColumn) {
  const auto model = robot();
  try {
    io::parse_claims("claims:\n  - {name: a, coordinate: q1, equation: \"q1 = zz\"}\n",
                     "claims.yaml", *model);
    FAIL();
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.offending(), "zz");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 47);  // the z of zz inside the quotes
  }
}

}  // namespace
