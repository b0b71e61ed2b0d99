// The regressor's numbers at a state (num::regressor_numbers, `appell regressor --q --qd --qdd`)
// and its readable form through named intermediates (principles::readable_regressor):
//   - Y π = M q̈ − f of the model without its loads (gravity is in Y), M and f from the
//     composite-body and bias recursions (not the Newton–Euler pass Y is built from) and, for the
//     YAML examples, from the Gibbs–Appell equations formed symbolically; Y_b β the same;
//   - the base count equals the numeric rank of Y stacked over random states (an SVD);
//   - the readable Y, its names substituted back, equals the numbers; no UR5 entry is longer than
//     2,000 characters;
//   - the command line's text and JSON, and its refusals (exit 2).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "appell/io/model_file.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/regressor_numbers.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/regressor.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;
namespace fs = std::filesystem;

const std::string examples = APPELL_EXAMPLES_DIR;

// Several kinds of tree: planar and spatial chains, a top on a fixed point, particles, a cart
// with springs (loads, which Y leaves out), two real robots.
const char* const covered_models[] = {
    "planar_2r.yaml",          "three_link_arm.yaml", "double_pendulum.yaml", "heavy_top.yaml",
    "spring_damper_cart.yaml", "urdf/two_link.urdf",  "urdf/ur5_robot.urdf",  "urdf/panda.urdf"};

std::shared_ptr<const model::Model> read(const std::string& name) {
  return io::read_model(examples + "/" + name).model;
}

std::shared_ptr<const model::Model> without_loads(const model::Model& m) {
  auto copy = std::make_shared<model::Model>(m);
  copy->loads.clear();
  return copy;
}

num::RegressorState random_state(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  num::RegressorState s;
  s.t = 0.2 + 0.1 * u(rng);
  s.q.resize(static_cast<Eigen::Index>(n));
  s.qd.resize(static_cast<Eigen::Index>(n));
  s.qdd.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(n); ++j) {
    s.q(j) = u(rng);
    s.qd(j) = u(rng);
    s.qdd(j) = u(rng);
  }
  return s;
}

// τ = M q̈ − f of the model without loads, by the composite bodies and the bias pass.
Eigen::VectorXd inverse_dynamics(const num::Dynamics& d, const num::RegressorState& s) {
  num::DynamicsWorkspace work;
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  d.mass_matrix_and_forcing(s.t, s.q, s.qd, M, f, work);
  return M * s.qdd - f;
}

TEST(RegressorNumbers, YTimesPiIsMqddMinusFOfEveryModelAndYbBetaToo) {
  for (const char* name : covered_models) {
    SCOPED_TRACE(name);
    const auto m = read(name);
    const auto unloaded = without_loads(*m);
    const num::Dynamics dynamics(unloaded);
    std::optional<num::InverseDynamics> formed;
    if (std::string(name).find(".yaml") != std::string::npos)
      formed.emplace(principles::derive(unloaded, principles::Method::GibbsAppell));
    std::mt19937 rng(41);
    for (int trial = 0; trial < 4; ++trial) {
      const num::RegressorState s = random_state(rng, m->dof());
      const num::RegressorNumbers r = num::regressor_numbers(*m, {}, s, true);
      ASSERT_EQ(r.regressor.rows(), static_cast<Eigen::Index>(m->dof()));
      ASSERT_EQ(r.regressor.cols(), static_cast<Eigen::Index>(r.standard.size()));
      const Eigen::VectorXd tau = inverse_dynamics(dynamics, s);
      const double scale = 1.0 + tau.norm();
      EXPECT_LE((r.regressor * r.values - tau).norm(), 1e-9 * scale)
          << (r.regressor * r.values).transpose() << "\nvs " << tau.transpose();
      if (formed) {
        const Eigen::VectorXd symbolic = formed->driving_forces(s.t, s.q, s.qd, s.qdd);
        EXPECT_LE((r.regressor * r.values - symbolic).norm(), 1e-9 * scale);
      }
      ASSERT_TRUE(r.base.has_value());
      ASSERT_EQ(r.base_regressor.cols(), r.base_values.size());
      EXPECT_LE((r.base_regressor * r.base_values - tau).norm(), 1e-8 * scale);
      // Y_b holds Y's kept columns, as the roles say.
      for (std::size_t k = 0; k < r.base->base.size(); ++k) {
        EXPECT_EQ(r.base->roles[r.base->base[k].kept], num::ParameterRole::Kept);
        EXPECT_TRUE(r.base_regressor.col(static_cast<Eigen::Index>(k)) ==
                    r.regressor.col(static_cast<Eigen::Index>(r.base->base[k].kept)));
      }
    }
  }
}

TEST(RegressorNumbers, BaseCountIsTheRankOfYStackedOverRandomStates) {
  for (const char* name : covered_models) {
    SCOPED_TRACE(name);
    const auto m = read(name);
    std::mt19937 rng(3);
    const std::size_t n = m->dof();
    num::RegressorNumbers first = num::regressor_numbers(*m, {}, random_state(rng, n), true);
    const std::size_t N = first.standard.size(), samples = 3 * N / n + 10;
    Eigen::MatrixXd W(static_cast<Eigen::Index>(samples * n), static_cast<Eigen::Index>(N));
    for (std::size_t k = 0; k < samples; ++k)
      W.middleRows(static_cast<Eigen::Index>(k * n), static_cast<Eigen::Index>(n)) =
          num::regressor_numbers(*m, {}, random_state(rng, n)).regressor;
    // Columns of unit norm (the masses' and the inertias' differ by orders of magnitude), those
    // of no effect left out.
    const double largest = W.colwise().norm().maxCoeff();
    for (Eigen::Index c = 0; c < W.cols(); ++c) {
      if (W.col(c).norm() > 1e-10 * largest)
        W.col(c).normalize();
      else
        W.col(c).setZero();
    }
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(W);
    svd.setThreshold(1e-7);
    EXPECT_EQ(static_cast<std::size_t>(svd.rank()), first.base->base.size());
  }
}

TEST(RegressorNumbers, ValuesAreBoundAsEverywhere) {
  const auto m = read("planar_2r.yaml");
  model::Values values;
  values.set("l", 0.7);
  values.set("M", 2.5);
  std::mt19937 rng(8);
  const num::RegressorState s = random_state(rng, m->dof());
  const num::RegressorNumbers r = num::regressor_numbers(*m, values, s, true);
  const num::Dynamics dynamics(without_loads(*m), values);
  const Eigen::VectorXd tau = inverse_dynamics(dynamics, s);
  EXPECT_LE((r.regressor * r.values - tau).norm(), 1e-9 * (1.0 + tau.norm()));
  EXPECT_LE((r.base_regressor * r.base_values - tau).norm(), 1e-8 * (1.0 + tau.norm()));
  // m_rod1 = M: the value bound, not the default.
  EXPECT_EQ(r.standard[0].name, "m_rod1");
  EXPECT_DOUBLE_EQ(r.values(0), 2.5);
}

TEST(RegressorNumbers, RefusesWhatTheRegressorDoesNotCoverAndStatesOfTheWrongSize) {
  const auto speeds = read("speeds/free_box_quaternion.yaml");
  EXPECT_THROW(num::regressor_numbers(*speeds, {}, {}), model::ModelError);
  const auto constrained = read("slider_crank.yaml");
  EXPECT_THROW(num::regressor_numbers(*constrained, {}, {}), model::ModelError);
  const auto m = read("planar_2r.yaml");
  num::RegressorState s;
  s.q = s.qd = Eigen::VectorXd::Zero(2);
  s.qdd = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(num::regressor_numbers(*m, {}, s), std::invalid_argument);
  s.qdd = Eigen::VectorXd::Zero(2);
  s.qd(1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(num::regressor_numbers(*m, {}, s), std::invalid_argument);
}

// The readable Y at a state: its names' definitions evaluated in order, then its entries.
Eigen::MatrixXd evaluate(const model::Model& m, const principles::ReadableRegressor& readable,
                         const num::RegressorState& s) {
  // The parameters' numbers, prescribed motions as expressions of t, then t and the state.
  const GiNaC::exmap values = model::bind(m, {}).substitution();
  GiNaC::exmap at;
  at[m.time_functions->time()] = s.t;
  for (std::size_t j = 0; j < m.dof(); ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    at[m.coordinate_symbol(j, 0)] = s.q(i);
    at[m.coordinate_symbol(j, 1)] = s.qd(i);
    at[m.coordinate_symbol(j, 2)] = s.qdd(i);
  }
  auto number = [&](const GiNaC::ex& e) { return GiNaC::evalf(e.subs(values).subs(at)); };
  if (readable.named)
    for (const auto& i : readable.named->intermediates) at[i.name] = number(i.value);
  const GiNaC::matrix& Y = readable.regressor;
  Eigen::MatrixXd out(Y.rows(), Y.cols());
  for (unsigned i = 0; i < Y.rows(); ++i)
    for (unsigned c = 0; c < Y.cols(); ++c) {
      const GiNaC::ex v = number(Y(i, c));
      EXPECT_TRUE(GiNaC::is_a<GiNaC::numeric>(v)) << Y(i, c);
      out(i, c) =
          GiNaC::is_a<GiNaC::numeric>(v) ? GiNaC::ex_to<GiNaC::numeric>(v).to_double() : 0.0;
    }
  return out;
}

TEST(ReadableRegressor, ThroughNamesOrWholeItIsTheRegressor) {
  struct Case {
    std::string name;
    bool intermediates;  // asked for; the UR5 gets them by itself
    bool named;          // whether Y is written through names
  };
  std::vector<Case> cases = {{"planar_2r.yaml", false, false},
                             {"urdf/ur5_robot.urdf", false, true}};
  // Every example the regressor covers through names: prescribed motions, particles, loads, real
  // robots, a humanoid's tree.
  for (const auto& folder : {fs::path(examples), fs::path(examples) / "urdf"})
    for (const auto& e : fs::directory_iterator(folder)) {
      const std::string ext = e.path().extension().string();
      if (ext != ".yaml" && ext != ".urdf") continue;
      const std::string name = fs::relative(e.path(), examples).string();
      if (principles::regressor_not_covered(*read(name)).empty())
        cases.push_back({name, true, true});
    }
  std::sort(cases.begin() + 2, cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  EXPECT_GE(cases.size(), 14u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + (c.intermediates ? " --intermediates" : ""));
    const auto m = read(c.name);
    principles::RegressorRequest request;
    request.intermediates = c.intermediates;
    const principles::ReadableRegressor readable = principles::readable_regressor(*m, request);
    ASSERT_EQ(readable.named.has_value(), c.named);
    if (readable.named) {
      EXPECT_EQ(readable.named->automatic, !c.intermediates);
      EXPECT_EQ(readable.named->construction, principles::IntermediateConstruction::Recursions);
      // Every name in exactly one group, in order.
      std::size_t next = 0;
      for (const auto& g : readable.named->groups) {
        EXPECT_EQ(g.first, next);
        EXPECT_GT(g.count, 0u);
        next += g.count;
      }
      EXPECT_EQ(next, readable.named->intermediates.size());
    }
    std::mt19937 rng(17);
    for (int trial = 0; trial < 3; ++trial) {
      const num::RegressorState s = random_state(rng, m->dof());
      const Eigen::MatrixXd expected = num::regressor_numbers(*m, {}, s).regressor;
      const Eigen::MatrixXd got = evaluate(*m, readable, s);
      EXPECT_LE((got - expected).cwiseAbs().maxCoeff(),
                1e-9 * (1.0 + expected.cwiseAbs().maxCoeff()));
    }
  }
}

// ---- the command line ------------------------------------------------------------------------

std::string planar(const std::string& options) {
  return "regressor " + examples + "/planar_2r.yaml " + options;
}

TEST(RegressorCommand, JsonHoldsTheNumbersOfTheLibraryUnderTodaysNames) {
  const auto r = run_cli(planar("--q 0.3,-0.5 --qd 1,0.25 --qdd 1,2 --base --json"));
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "planar-2r");
  EXPECT_EQ(j["coordinates"], nlohmann::json({"q1", "q2"}));
  EXPECT_EQ(j["equation"], "Y(q, dot(q), ddot(q)) pi = tau + Q_loads");
  EXPECT_EQ(j["state"]["q"], nlohmann::json({0.3, -0.5}));
  EXPECT_EQ(j["state"]["qdd"], nlohmann::json({1.0, 2.0}));

  const auto m = read("planar_2r.yaml");
  num::RegressorState s;
  s.q = Eigen::Vector2d(0.3, -0.5);
  s.qd = Eigen::Vector2d(1, 0.25);
  s.qdd = Eigen::Vector2d(1, 2);
  const num::RegressorNumbers expected = num::regressor_numbers(*m, {}, s, true);
  ASSERT_EQ(j["parameters"].size(), expected.standard.size());
  ASSERT_EQ(j["regressor"].size(), 2u);
  for (std::size_t k = 0; k < expected.standard.size(); ++k) {
    const auto& p = j["parameters"][k];
    EXPECT_EQ(p["name"], expected.standard[k].name);
    EXPECT_TRUE(p.contains("owner") && p.contains("kind") && p.contains("value"));
    EXPECT_DOUBLE_EQ(p["number"].get<double>(), expected.values(static_cast<Eigen::Index>(k)));
    for (std::size_t i = 0; i < 2; ++i)
      EXPECT_DOUBLE_EQ(
          j["regressor"][i][k].get<double>(),
          expected.regressor(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)));
  }
  const auto& base = j["base"];
  EXPECT_EQ(base["count"], 6);
  for (const char* key : {"samples", "tolerance", "kept", "grouped", "vanish"})
    EXPECT_TRUE(base.contains(key)) << key;
  ASSERT_EQ(base["parameters"].size(), 6u);
  EXPECT_EQ(base["parameters"][0]["column"], "mx_rod1");
  EXPECT_EQ(base["parameters"][0]["expression"], "l*m_rod2 + mx_rod1");
  EXPECT_DOUBLE_EQ(base["parameters"][0]["value"].get<double>(), 0.75);
  // Y_b β from the printed numbers is Y π from the printed numbers.
  for (std::size_t i = 0; i < 2; ++i) {
    double y_pi = 0, y_beta = 0;
    for (std::size_t k = 0; k < j["parameters"].size(); ++k)
      y_pi += j["regressor"][i][k].get<double>() * j["parameters"][k]["number"].get<double>();
    for (std::size_t k = 0; k < 6; ++k)
      y_beta +=
          base["regressor"][i][k].get<double>() * base["parameters"][k]["value"].get<double>();
    EXPECT_NEAR(y_pi, y_beta, 1e-9 * (1.0 + std::abs(y_pi)));
  }
  // The same bytes every run; --format json is --json.
  EXPECT_EQ(run_cli(planar("--q 0.3,-0.5 --qd 1,0.25 --qdd 1,2 --base --format json")).out, r.out);
}

TEST(RegressorCommand, TextIsAMatrixWithRowAndColumnNames) {
  const auto r = run_cli(planar("--q 0.3,-0.5 --qd 1,0 --qdd 1,2 --base --set l=0.7"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("regressor of planar-2r at a state"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  q = [0.3, -0.5]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Izz_rod2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reduced regressor Y_b (2 x 6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  Izz_rod1R = l^2*m_rod2 + Izz_rod1  (0.653333333333)"), std::string::npos)
      << r.out;
  // Each table row: a name, then one number per column of its block.
  std::istringstream lines(r.out);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != "q1" && first != "q2" && first != "pi" && first != "beta") continue;
    ++rows;
    std::string word;
    while (words >> word) {
      std::size_t used = 0;
      EXPECT_NO_THROW((void)std::stod(word, &used)) << line;
      EXPECT_EQ(used, word.size()) << line;
    }
  }
  EXPECT_GE(rows, 6u) << r.out;  // pi, q1, q2 in Y's blocks; beta, q1, q2 in Y_b's
  EXPECT_EQ(run_cli(planar("--q 0.3,-0.5 --qd 1,0 --qdd 1,2 --base --set l=0.7")).out, r.out);
}

TEST(RegressorCommand, BadStatesAndOptionsExitTwo) {
  struct Case {
    std::string options, names;
  };
  for (const Case& c : {
           Case{"--q 1,2,3 --qd 0,0 --qdd 1,2", "--q"},   // three values for two coordinates
           Case{"--q 0.1,0.2 --qd 0,0", "--qdd"},         // no accelerations
           Case{"--qdd 1", "--qdd"},                      // one value for two
           Case{"--qdd 1,nan", "--qdd"},                  // not a finite number
           Case{"--qdd 1,2 --u 1,2", "--u"},              // no generalized speeds
           Case{"--qdd 1,2 --format latex", "--format"},  // numbers are text or JSON
           Case{"--qdd 1,2 --intermediates", "--intermediates"},  // names are symbolic
           Case{"--json --format latex", "--json"},
       }) {
    SCOPED_TRACE(c.options);
    const auto r = run_cli(planar(c.options));
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << r.out;
  }
  // A model in generalized speeds: the regressor's refusal as without a state, at the model.
  const std::string box = examples + "/speeds/free_box_quaternion.yaml";
  const auto symbolic = run_cli("regressor " + box);
  const auto numeric = run_cli("regressor " + box + " --u 0,0,0,0,0,0 --udot 0,0,0,0,0,0");
  EXPECT_EQ(symbolic.code, 2) << symbolic.out;
  EXPECT_EQ(numeric.code, 2) << numeric.out;
  EXPECT_NE(numeric.out.find("generalized speeds"), std::string::npos) << numeric.out;
  EXPECT_EQ(numeric.out, symbolic.out);
}

// The UR5's readable regressor through named intermediates: no entry (a name's definition, an
// entry of Y or Y_b, a base parameter) longer than 2,000 characters (whole, they reached 40,000),
// and the names in the JSON as `derive --format json` has them.
TEST(RegressorCommand, UR5ReadableEntriesAreShort) {
  const std::string ur5 = examples + "/urdf/ur5_robot.urdf";
  const auto r = run_cli("regressor " + ur5 + " --base --format json", 300);
  ASSERT_EQ(r.code, 0) << r.out.substr(0, 2000);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("intermediates"));
  EXPECT_EQ(j["intermediates_automatic"], true);
  EXPECT_EQ(j["intermediates_construction"], "recursions");
  ASSERT_TRUE(j.contains("intermediate_groups"));
  EXPECT_GT(j["intermediates"].size(), 20u);
  std::size_t longest = 0, entries = 0;
  auto see = [&](const std::string& text) {
    longest = std::max(longest, text.size());
    ++entries;
  };
  for (const auto& i : j["intermediates"]) see(i["value"].get<std::string>());
  for (const auto& row : j["regressor"])
    for (const auto& e : row) see(e.get<std::string>());
  for (const auto& row : j["base"]["regressor"])
    for (const auto& e : row) see(e.get<std::string>());
  for (const auto& p : j["base"]["parameters"]) see(p["expression"].get<std::string>());
  const std::size_t base = j["base"]["count"].get<std::size_t>();
  EXPECT_EQ(entries, j["intermediates"].size() + 6 * 70 + 6 * base + base);
  EXPECT_LE(longest, 2000u);

  const auto text = run_cli("regressor " + ur5 + " --base", 300);
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("# written through"), std::string::npos);
  EXPECT_NE(text.out.find("omega_4x = "), std::string::npos);
  std::istringstream lines(text.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  Y", 0) != 0 && line.find(" = ") == std::string::npos) continue;
    // One entry a line, or a quantity's components on one line separated by ";  ".
    for (std::size_t begin = 0; begin < line.size();) {
      const std::size_t end = std::min(line.find(";  ", begin), line.size());
      EXPECT_LE(end - begin, 2000u) << line.substr(begin, 200);
      begin = end + 3;
    }
  }
}

TEST(RegressorCommand, NumbersOfTheUR5AndPandaWithTheirBase) {
  for (const char* name : {"urdf/ur5_robot.urdf", "urdf/panda.urdf"}) {
    SCOPED_TRACE(name);
    const auto m = read(name);
    std::ostringstream q, qd, qdd;
    std::mt19937 rng(23);
    const num::RegressorState s = random_state(rng, m->dof());
    for (Eigen::Index i = 0; i < s.q.size(); ++i) {
      q.precision(17);
      qd.precision(17);
      qdd.precision(17);
      q << (i ? "," : "") << s.q(i);
      qd << (i ? "," : "") << s.qd(i);
      qdd << (i ? "," : "") << s.qdd(i);
    }
    const auto r = run_cli("regressor " + examples + "/" + name + " --q " + q.str() + " --qd " +
                               qd.str() + " --qdd " + qdd.str() + " --base --json",
                           120);
    ASSERT_EQ(r.code, 0) << r.out.substr(0, 2000);
    const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    // τ of the unloaded model from the printed numbers alone.
    const num::Dynamics dynamics(without_loads(*m));
    const Eigen::VectorXd tau = inverse_dynamics(dynamics, s);
    for (std::size_t i = 0; i < m->dof(); ++i) {
      double y_pi = 0, y_beta = 0;
      for (std::size_t k = 0; k < j["parameters"].size(); ++k)
        y_pi += j["regressor"][i][k].get<double>() * j["parameters"][k]["number"].get<double>();
      for (std::size_t k = 0; k < j["base"]["parameters"].size(); ++k)
        y_beta += j["base"]["regressor"][i][k].get<double>() *
                  j["base"]["parameters"][k]["value"].get<double>();
      const double reference = tau(static_cast<Eigen::Index>(i));
      EXPECT_NEAR(y_pi, reference, 1e-9 * (1.0 + tau.norm()));
      EXPECT_NEAR(y_beta, reference, 1e-8 * (1.0 + tau.norm()));
    }
  }
}

}  // namespace
