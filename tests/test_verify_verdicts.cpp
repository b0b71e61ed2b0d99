// appell verify's three verdicts (issue 27): equal (proved symbolically), agree numerically (the
// symbolic test inconclusive within its budget, or not run, and the numbers agree at
// well-conditioned states within a bound that scales with the conditioning) and differ (with a
// witness state). Only differ exits 1, and a symbolic "not zero" is never a differ on its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "appell/appell.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

const std::string examples = APPELL_EXAMPLES_DIR;

// A particle at [1, 0, b] in a frame turned about z, then x, then y: Gibbs-Appell's f(2) and
// Lagrange's agree to 2.6e-16 and SymPy simplifies their difference to 0, but appell's readable
// form of the difference did not reach 0 and verify said "gibbs-appell differs from lagrange in
// f(2)" (exit 1).
const char* const particle_yaml = R"yaml(name: particle-zxy
parameters: {m: 1.0, b: 0.5, g: 9.81}
coordinates: [psi, phi, theta]
frames:
  f: {rotation: "rot_z(psi)*rot_x(phi)*rot_y(theta)"
}
particles:
  p: {frame: f, mass: m, position: [1, 0, b]}
gravity: [0, 0, -g]
)yaml";

// A thin disk rolling without slipping on a plane: (x, y) the contact point, psi the heading,
// theta the lean, phi the spin about the axle. The minimal form's M̃ in (psi', theta', phi') has a
// determinant in cos²(theta) (the spin axis turns towards the vertical), so at random states the
// solves carry κ·ε of rounding: verify said "minimal differs from lagrange" at 7.1e-12.
const char* const disk_yaml = R"yaml(name: rolling-disk
parameters: {m: 1.0, r: 0.3, g: 9.81}
coordinates: [x, y, psi, theta, phi]
frames:
  heading: {translation: [x, y, 0], rotation: rot_z(psi)}
  lean: {parent: heading, rotation: rot_x(theta)}
  disk: {parent: lean, translation: [0, 0, r], rotation: rot_y(phi)}
bodies:
  wheel: {frame: disk, mass: m, inertia: {disk: {radius: r, axis: y}}}
gravity: [0, 0, -g]
constraints:
  - {name: roll_x, nonholonomic: "dot(x) - r*cos(psi)*dot(phi)"
}
  - {name: roll_y, nonholonomic: "dot(y) - r*sin(psi)*dot(phi)"}
independent: [psi, theta, phi]
)yaml";

std::string write(const std::string& name, const std::string& text) {
  const std::string path =
      "/tmp/appell_verdicts_" + std::to_string(::getpid()) + "_" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

// Every row's verdict is one of the three and never differ; the numbers stayed within each row's
// bound.
void expect_no_row_differs(const num::VerificationReport& report) {
  EXPECT_TRUE(report.all_agree) << report.first_disagreement;
  EXPECT_EQ(report.first_disagreement, "");
  for (const auto& row : report.rows) {
    SCOPED_TRACE(row.method);
    EXPECT_NE(row.verdict, num::AgreementVerdict::Differ) << row.first_difference;
    EXPECT_TRUE(row.agrees);
    EXPECT_FALSE(row.witness.has_value());
    EXPECT_GT(row.states, 0u);
    EXPECT_LE(row.max_error, row.bound);
    EXPECT_GE(row.bound, report.options.tolerance);
    // equal exactly when the symbolic test reached 0.
    EXPECT_EQ(row.verdict == num::AgreementVerdict::Equal,
              row.symbolic_test == num::SymbolicTest::Zero);
  }
}

TEST(VerifyVerdicts, AParticleInAZxyFrameIsNeverSaidToDiffer) {
  const std::string path = write("particle", particle_yaml);
  const auto report = num::verify(io::read_model_file(path));
  expect_no_row_differs(report);
  // Lagrange against itself is proved; the rows whose difference did not simplify to 0 within
  // the budget agree numerically, to rounding.
  EXPECT_EQ(report.rows.front().verdict, num::AgreementVerdict::Equal);
  for (const auto& row : report.rows) EXPECT_LT(row.max_error, 1e-14) << row.method;

  const auto run = run_cli("verify " + path);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out.find("DISAGREEMENT"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("gibbs-appell "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(" differ "), std::string::npos) << run.out;
  std::remove(path.c_str());
}

TEST(VerifyVerdicts, ARollingDiskWithIndependentSpeedsIsNeverSaidToDiffer) {
  const std::string path = write("disk", disk_yaml);
  const auto report = num::verify(io::read_model_file(path));
  ASSERT_TRUE(report.has_minimal);
  expect_no_row_differs(report);
  const auto& minimal = report.rows.back();
  ASSERT_EQ(minimal.method, "minimal");
  EXPECT_EQ(minimal.states, report.options.states);
  // The bound of a solve grows with the conditioning of the state: above the tolerance here
  // (κ ≥ 1 always, and M mixes kg with kg·m²).
  EXPECT_GT(minimal.bound, report.options.tolerance);

  const auto run = run_cli("verify " + path);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out.find("DISAGREEMENT"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("minimal "), std::string::npos) << run.out;
  std::remove(path.c_str());
}

// The minimal form's states near a singular M̃ (cos θ → 0) are drawn again rather than compared,
// and each compared state is held to a bound that grows with its conditioning.
TEST(VerifyVerdicts, EveryStateIsHeldToTheBoundOfItsConditioning) {
  const std::string path = write("disk_many", disk_yaml);
  const auto model = io::read_model_file(path);
  const auto lagrange = principles::derive(model, principles::Method::Lagrange);
  const auto minimal = principles::minimal_form(model);
  const auto agreement = num::compare(lagrange, minimal, 400, /*symbolic=*/false);
  EXPECT_EQ(agreement.states, 400u);
  EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::AgreeNumerically);
  EXPECT_FALSE(agreement.witness.has_value());
  // Rounding alone, above the plain tolerance at some states, within each state's bound.
  EXPECT_GT(agreement.max_numeric_error, num::kDefaultTolerance);
  EXPECT_LE(agreement.max_numeric_error, agreement.bound);
  EXPECT_LE(agreement.bound,
            num::solve_bound(num::kDefaultTolerance, 1.0 / num::kMinReciprocalCondition));
  std::remove(path.c_str());
}

// A minimal form ill-conditioned everywhere (κ ≈ 2·10¹², from masses 10¹² apart on coordinates
// that move together): the first 10·states draws are redrawn, then the states are compared
// anyway, each held to its own bound, rather than "no state where both forms are regular".
TEST(VerifyVerdicts, IllConditionedStatesAreDrawnAgainThenComparedWithTheirBound) {
  const std::string path = write("ill", R"yaml(name: ill-conditioned
parameters: {m: 1.0, e: 1e-12, g: 9.81}
coordinates: [x1, x2, x3]
particles:
  a: {frame: world, mass: m, position: [x1 + x2, 0, 0]}
  b: {frame: world, mass: e, position: [0, x2, 0]}
  c: {frame: world, mass: e, position: [0, 0, x3]}
gravity: [-g, 0, 0]
constraints:
  - {name: follow, nonholonomic: "dot(x3) - dot(x1)"}
independent: [x1, x2]
)yaml");
  const auto model = io::read_model_file(path);
  const auto agreement = num::compare(principles::derive(model, principles::Method::Lagrange),
                                      principles::minimal_form(model), 20,
                                      /*symbolic=*/false);
  EXPECT_EQ(agreement.ill_conditioned, 200u);
  EXPECT_EQ(agreement.states, 20u);
  EXPECT_NE(num::verdict(agreement), num::AgreementVerdict::Differ) << agreement.first_difference;
  EXPECT_GT(agreement.bound, 1e-3);  // 1000·κ·ε
  std::remove(path.c_str());
}

// Lagrange's equations of the planar robot with one Coriolis term changed by a small amount:
// numbers that differ, at every state, far above the bound.
principles::Equations with_wrong_coriolis(const principles::Equations& right, double amount) {
  const model::Model& m = *right.model;
  principles::Equations wrong = right;
  wrong.forcing(0, 0) += amount * m.coordinate_symbol(0, 1) * m.coordinate_symbol(1, 1) *
                         GiNaC::sin(m.coordinate_symbol(1, 0));
  return wrong;
}

TEST(VerifyVerdicts, AWrongCoriolisTermDiffersWithAWitness) {
  const auto model = io::read_model_file(examples + "/planar_2r.yaml");
  const auto right = principles::derive(model, principles::Method::Lagrange);
  const double amount = 1e-3;
  const auto wrong = with_wrong_coriolis(right, amount);

  for (const bool symbolic : {true, false}) {
    SCOPED_TRACE(symbolic ? "symbolic" : "numeric only");
    const auto agreement = num::compare(right, wrong, 20, symbolic);
    EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::Differ);
    EXPECT_EQ(agreement.symbolic_test,
              symbolic ? num::SymbolicTest::Inconclusive : num::SymbolicTest::NotRun);
    ASSERT_TRUE(agreement.witness.has_value());
    const num::AgreementWitness& w = *agreement.witness;
    EXPECT_EQ(w.entry, "f(1)");
    EXPECT_EQ(agreement.first_difference, "f(1)");
    ASSERT_EQ(w.q.size(), 2u);
    ASSERT_EQ(w.qd.size(), 2u);
    // The witness is a real state: the entries there differ by the term that was added.
    EXPECT_NEAR(w.other - w.reference, amount * w.qd[0] * w.qd[1] * std::sin(w.q[1]), 1e-12);
    EXPECT_GT(w.error, 1e6 * w.bound);  // far above what rounding could explain
    // And evaluated afresh at that state, the two sets of equations differ there.
    const num::CompiledEquations a(right), b(wrong);
    Eigen::MatrixXd Ma, Mb;
    Eigen::VectorXd fa, fb;
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(w.q.data(), 2),
                          qd = Eigen::Map<const Eigen::VectorXd>(w.qd.data(), 2);
    a.evaluate(w.t, q, qd, Ma, fa);
    b.evaluate(w.t, q, qd, Mb, fb);
    EXPECT_DOUBLE_EQ(fa[0], w.reference);
    EXPECT_DOUBLE_EQ(fb[0], w.other);
  }
  // The same equations are proved equal.
  EXPECT_EQ(num::verdict(num::compare(right, right)), num::AgreementVerdict::Equal);
}

TEST(VerifyVerdicts, AWrongMinimalFormDiffersWithAWitness) {
  const auto model = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  const auto lagrange = principles::derive(model, principles::Method::Lagrange);
  auto minimal = principles::minimal_form(model);
  EXPECT_EQ(num::verdict(num::compare(lagrange, minimal)), num::AgreementVerdict::Equal);
  // A gyroscopic term too many in the first equation (ẋ θ̇ · 1e-3).
  minimal.forcing(0, 0) += 1e-3 * model->coordinate_symbol(0, 1) * model->coordinate_symbol(2, 1);
  const auto agreement = num::compare(lagrange, minimal);
  EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::Differ);
  ASSERT_TRUE(agreement.witness.has_value());
  EXPECT_NE(agreement.witness->entry.find("of the minimal form"), std::string::npos);
  EXPECT_EQ(agreement.witness->q.size(), 3u);
  EXPECT_EQ(agreement.witness->qd.size(), 3u);
  EXPECT_GT(agreement.witness->error, 1e3 * agreement.witness->bound);
}

// A symbolic "not zero" alone is not a verdict: the test is inconclusive, the numbers decide.
TEST(VerifyVerdicts, AnInconclusiveSymbolicTestIsNotADifference) {
  num::Agreement agreement;
  agreement.symbolic_test = num::SymbolicTest::Inconclusive;
  agreement.symbolic_unresolved = "f(2)";
  agreement.states = 20;
  EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::AgreeNumerically);
  agreement.symbolic_test = num::SymbolicTest::Zero;
  EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::Equal);
  agreement.witness = num::AgreementWitness{};
  agreement.first_difference = "f(2)";
  EXPECT_EQ(num::verdict(agreement), num::AgreementVerdict::Differ);
  EXPECT_EQ(num::verdict_name(num::AgreementVerdict::AgreeNumerically), "agree numerically");
}

TEST(VerifyVerdicts, TheCommandLineShowsADifferenceWithItsWitnessAndExits1) {
  // A tolerance far below rounding asks for identical numbers: Gibbs-Appell's rounding differs
  // from Lagrange's, so that row differs, with the state where it does. (A tolerance of 0 is
  // refused: a tolerance is a finite number > 0.)
  const std::string path = write("particle_strict", particle_yaml);
  const auto run = run_cli("verify " + path + " --tolerance 1e-300 --numeric-only");
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_NE(run.out.find("DISAGREEMENT: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  witness: t = "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(q = [psi, phi, theta])"), std::string::npos) << run.out;

  const auto json = run_cli("verify " + path + " --tolerance 1e-300 --numeric-only --json");
  EXPECT_EQ(json.code, 1) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_FALSE(j.at("all_agree").get<bool>());
  bool differs = false;
  for (const auto& row : j.at("rows")) {
    if (row.at("verdict") != "differ") continue;
    differs = true;
    const auto& w = row.at("witness");
    ASSERT_TRUE(w.is_object()) << row.dump();
    EXPECT_EQ(w.at("q").size(), 3u);
    EXPECT_EQ(w.at("qd").size(), 3u);
    EXPECT_TRUE(w.at("t").is_number());
    EXPECT_FALSE(w.at("entry").get<std::string>().empty());
    EXPECT_GT(w.at("error").get<double>(), w.at("bound").get<double>());
  }
  EXPECT_TRUE(differs) << json.out;
  std::remove(path.c_str());
}

TEST(VerifyVerdicts, JsonShowsTheVerdictOfEveryRow) {
  const std::string path = write("particle_json", particle_yaml);
  const auto run = run_cli("verify " + path + " --json --states 5");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("model"), "particle-zxy");
  EXPECT_EQ(j.at("coordinates"), nlohmann::json({"psi", "phi", "theta"}));
  EXPECT_EQ(j.at("states"), 5);
  EXPECT_TRUE(j.at("all_agree").get<bool>());
  ASSERT_EQ(j.at("rows").size(), 5u);
  for (const auto& row : j.at("rows")) {
    const std::string verdict = row.at("verdict");
    EXPECT_TRUE(verdict == "equal" || verdict == "agree numerically") << row.dump();
    EXPECT_TRUE(row.at("witness").is_null());
    // The keys Python's verify() has always given.
    for (const char* key : {"method", "agrees", "symbolic", "max_error", "first_difference",
                            "differentiations", "derivative_nodes", "size_before", "size_after"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_FALSE(row.contains("seconds"));  // deterministic without --timing
  }
  // Two runs print the same bytes.
  EXPECT_EQ(run_cli("verify " + path + " --json --states 5").out, run.out);
  std::remove(path.c_str());
}

TEST(VerifyVerdicts, NumericOnlyGivesRowsThatAgreeNumerically) {
  // The Panda takes about 10 s so (every principle formed and compiled), against minutes with
  // the symbolic comparison; the three-link arm shows the same in a fraction of a second.
  const auto run = run_cli("verify " + examples + "/three_link_arm.yaml --numeric-only");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("No row differs: 0 equal"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the symbolic test was not run"), std::string::npos) << run.out;
  // Rows print the verdict padded to its column; the closing sentence has it once, unpadded.
  std::size_t rows = 0;
  for (std::size_t at = run.out.find("agree numerically  "); at != std::string::npos;
       at = run.out.find("agree numerically  ", at + 1))
    ++rows;
  EXPECT_EQ(rows, 5u) << run.out;
  EXPECT_EQ(run.out.find(" equal  "), std::string::npos) << run.out;
}

TEST(VerifyVerdicts, AVerdictNeedsAtLeastOneState) {
  const auto model = io::read_model_file(examples + "/planar_2r.yaml");
  num::VerifyOptions options;
  options.states = 0;
  EXPECT_THROW(num::verify(model, options), std::invalid_argument);
  const auto run = run_cli("verify " + examples + "/planar_2r.yaml --states 0");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--states"), std::string::npos) << run.out;
}

}  // namespace
