// The inertial-parameter regressor and the base parameters: Y π against two independent inverse
// dynamics (the recursions' Newton–Euler, and the Gibbs–Appell equations formed symbolically),
// the base count against the rank of a fresh stack of regressors, the classical groupings of a
// planar arm, and the command line.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_file.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/base_parameters.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/regressor.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using test_support::run_cli;
namespace fs = std::filesystem;

const std::string examples = APPELL_EXAMPLES_DIR;

std::vector<fs::path> example_models() {
  std::vector<fs::path> out;
  for (const auto& folder : {fs::path(examples), fs::path(examples) / "urdf"})
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().extension() == ".yaml" || e.path().extension() == ".urdf")
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// π at the model's parameter values.
Eigen::VectorXd standard_values(const model::Model& m) {
  const GiNaC::exmap numbers = m.parameter_substitution();
  const auto standard = principles::standard_parameters(m);
  Eigen::VectorXd pi(static_cast<Eigen::Index>(standard.size()));
  for (std::size_t k = 0; k < standard.size(); ++k)
    pi(static_cast<Eigen::Index>(k)) =
        GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(standard[k].value.subs(numbers))).to_double();
  return pi;
}

struct State {
  double t;
  Eigen::VectorXd q, qd, qdd;
};
State random_state(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  State s{0.3 + 0.1 * u(rng), Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n)};
  for (std::size_t j = 0; j < n; ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    s.q(i) = u(rng);
    s.qd(i) = u(rng);
    s.qdd(i) = u(rng);
  }
  return s;
}

std::shared_ptr<const model::Model> without_loads(const model::Model& m) {
  auto copy = std::make_shared<model::Model>(m);
  copy->loads.clear();
  return copy;
}

TEST(Regressor, YTimesStandardParametersIsTheInverseDynamicsOfEveryExample) {
  std::size_t covered = 0;
  for (const auto& path : example_models()) {
    SCOPED_TRACE(path.string());
    const auto m = io::read_model(path.string()).model;
    if (!principles::regressor_not_covered(*m).empty()) {
      // Constraints, carrier frames, speeds: refused with the place that is the reason.
      EXPECT_THROW(num::RegressorEvaluator{*m}, model::ModelError);
      continue;
    }
    ++covered;
    const num::RegressorEvaluator Y(*m);
    const Eigen::VectorXd pi = standard_values(*m);
    // Gravity is in Y, the loads are not: the references are the model without its loads.
    const auto unloaded = without_loads(*m);
    const num::Dynamics recursions(unloaded);
    num::DynamicsWorkspace work;
    std::optional<num::InverseDynamics> formed;
    if (path.extension() == ".yaml")
      formed.emplace(principles::derive(unloaded, principles::Method::GibbsAppell));
    std::mt19937 rng(7);
    for (int trial = 0; trial < 3; ++trial) {
      const State s = random_state(rng, m->dof());
      const Eigen::VectorXd tau = Y.evaluate(s.t, s.q, s.qd, s.qdd) * pi;
      Eigen::VectorXd reference;
      recursions.inverse_dynamics(s.t, s.q, s.qd, s.qdd, reference, work);
      EXPECT_LE((tau - reference).norm(), 1e-9 * (1.0 + reference.norm()));
      if (formed) {
        const Eigen::VectorXd symbolic = formed->driving_forces(s.t, s.q, s.qd, s.qdd);
        EXPECT_LE((tau - symbolic).norm(), 1e-9 * (1.0 + symbolic.norm()));
      }
    }
  }
  EXPECT_GE(covered, 8u);
}

// The rank of a fresh stack of regressors at the model's own parameter values (other states,
// another generator, an SVD instead of the QR): what the base count must equal. And Y_b β = Y π.
TEST(Regressor, BaseCountIsTheNumericRankAndTheBaseReproducesTau) {
  for (const auto& path : example_models()) {
    SCOPED_TRACE(path.string());
    const auto m = io::read_model(path.string()).model;
    if (!principles::regressor_not_covered(*m).empty()) continue;
    const num::RegressorEvaluator Y(*m);
    const num::BaseParameters base = num::base_parameters(*m);
    const std::size_t n = m->dof(), N = Y.columns(), samples = 4 * N / n + 8;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    Eigen::MatrixXd W(static_cast<Eigen::Index>(samples * n), static_cast<Eigen::Index>(N));
    for (std::size_t k = 0; k < samples; ++k) {
      // An unspecified prescribed function moves like a coordinate: random too.
      model::Values motion;
      for (const auto& p : m->prescribed)
        if (!p.expression)
          for (const char* order : {"", "dot", "ddot"})
            motion.set(*order ? std::string(order) + "(" + p.name + ")" : p.name, u(rng));
      const num::RegressorEvaluator moving(*m, motion);
      const State s = random_state(rng, n);
      W.middleRows(static_cast<Eigen::Index>(k * n), static_cast<Eigen::Index>(n)) =
          moving.evaluate(s.t, s.q, s.qd, s.qdd);
    }
    // Columns scaled to unit norm; those of no effect (zero up to rounding) left out.
    const double largest = W.colwise().norm().maxCoeff();
    for (Eigen::Index c = 0; c < W.cols(); ++c) {
      if (W.col(c).norm() > 1e-10 * largest)
        W.col(c).normalize();
      else
        W.col(c).setZero();
    }
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(W);
    svd.setThreshold(1e-7);
    EXPECT_EQ(static_cast<std::size_t>(svd.rank()), base.base.size());

    const Eigen::VectorXd pi = standard_values(*m);
    Eigen::VectorXd beta(static_cast<Eigen::Index>(base.base.size()));
    for (std::size_t k = 0; k < base.base.size(); ++k)
      beta(static_cast<Eigen::Index>(k)) =
          GiNaC::ex_to<GiNaC::numeric>(base.base[k].value).to_double();
    for (int trial = 0; trial < 3; ++trial) {
      const State s = random_state(rng, n);
      const Eigen::MatrixXd y = Y.evaluate(s.t, s.q, s.qd, s.qdd);
      const Eigen::VectorXd tau = y * pi;
      EXPECT_LE((num::reduced_regressor(base, y) * beta - tau).norm(), 1e-8 * (1.0 + tau.norm()));
    }
  }
}

// A planar arm of two revolute joints about parallel z axes (the classical grouping rules for
// parallel revolute axes, Khalil & Dombre 2002, ch. 12): the second link's m, m·c_z and I_yy
// (its I_xx too, as the motion is planar) act through the first link's parameters, I_zz1 takes
// l²·m2 and m·c_x1 takes l·m2.
const char* planar_arm = R"(name: planar-arm
parameters: {m1: 1.0, m2: 0.7, l: 0.5, c1: 0.2, c2: 0.3, g: 9.81}
coordinates: [q1, q2]
frames:
  link1: {rotation: rot_z(q1)}
  link2: {parent: link1, translation: [l, 0, 0], rotation: rot_z(q2)}
bodies:
  one: {frame: link1, mass: m1, com: [c1, 0, 0], inertia: [0.01, 0.02, 0.03, 0, 0, 0]}
  two: {frame: link2, mass: m2, com: [c2, 0, 0], inertia: [0.01, 0.02, 0.04, 0, 0, 0]}
)";

const GiNaC::ex& expression_of(const num::BaseParameters& base, const std::string& name) {
  for (const auto& b : base.base)
    if (base.standard[b.kept].name == name) return b.expression;
  throw std::runtime_error("no base parameter " + name);
}
GiNaC::symbol symbol_of(const num::BaseParameters& base, const std::string& name) {
  for (const auto& p : base.standard)
    if (p.name == name) return p.symbol;
  throw std::runtime_error("no standard parameter " + name);
}

TEST(Regressor, PlanarArmInAHorizontalPlaneHasFourBaseParameters) {
  // Without gravity: I_zz1 + l² m2, I_zz2, m·c_x2, m·c_y2. (With the centres of mass on the
  // links' lines, m·c_y2 = 0 and the three remaining are the textbook three of the planar elbow
  // arm, Spong, Hutchinson & Vidyasagar, "Robot Modeling and Control", 2006.)
  const auto m = io::parse_model(planar_arm, "planar_arm.yaml");
  const num::BaseParameters base = num::base_parameters(*m);
  ASSERT_EQ(base.base.size(), 4u);
  const GiNaC::symbol l = m->find_parameter("l")->symbol;
  EXPECT_TRUE((expression_of(base, "Izz_one") - symbol_of(base, "Izz_one") -
               GiNaC::pow(l, 2) * symbol_of(base, "m_two"))
                  .expand()
                  .is_zero())
      << expression_of(base, "Izz_one");
  EXPECT_TRUE((expression_of(base, "Izz_two") - symbol_of(base, "Izz_two")).is_zero());
  EXPECT_TRUE((expression_of(base, "mx_two") - symbol_of(base, "mx_two")).is_zero());
  EXPECT_TRUE((expression_of(base, "my_two") - symbol_of(base, "my_two")).is_zero());
  for (const auto& b : base.base) EXPECT_TRUE(b.exact);
}

TEST(Regressor, PlanarArmUnderGravityInItsPlaneHasSixBaseParameters) {
  // Gravity along −y adds m·c_x1 + l m2 and m·c_y1 (the first link's first moments).
  const auto m = io::parse_model(std::string(planar_arm) + "gravity: [0, -g, 0]\n", "arm.yaml");
  const num::BaseParameters base = num::base_parameters(*m);
  ASSERT_EQ(base.base.size(), 6u);
  const GiNaC::symbol l = m->find_parameter("l")->symbol;
  EXPECT_TRUE(
      (expression_of(base, "mx_one") - symbol_of(base, "mx_one") - l * symbol_of(base, "m_two"))
          .expand()
          .is_zero())
      << expression_of(base, "mx_one");
  EXPECT_TRUE((expression_of(base, "my_one") - symbol_of(base, "my_one")).is_zero());
  std::size_t vanish = 0, grouped = 0;
  for (auto role : base.roles) {
    vanish += role == num::ParameterRole::Vanishes;
    grouped += role == num::ParameterRole::Grouped;
  }
  // Of each link m·c_z, I_xx, I_xy, I_xz, I_yy and I_yz (a motion in the plane, about z), and the
  // first link's m (its origin never moves); the second link's m is the one grouped.
  EXPECT_EQ(vanish, 13u);
  EXPECT_EQ(grouped, 1u);
}

// The generated regressor (C++17 and C99, every warning an error) prints the numbers of
// num::RegressorEvaluator at a state, into an array that held other numbers before.
class RegressorCodegen : public test_support::ScratchDirTest {};

TEST_F(RegressorCodegen, GeneratedYIsTheLibrarysInCAndCpp) {
  for (const std::string name : {"urdf/ur5_robot.urdf", "three_link_arm.yaml"}) {
    for (const auto language : {codegen::Language::Cpp, codegen::Language::C}) {
      SCOPED_TRACE(name);
      const bool c = language == codegen::Language::C;
      const auto m = io::read_model(examples + "/" + name).model;
      codegen::CodegenOptions options;
      options.namespace_name = "gen";
      options.language = language;
      options.regressor = true;
      const std::string header =
          write(c ? "gen.h" : "gen.hpp", codegen::generate_code(*m, options));
      const num::RegressorEvaluator Y(*m);
      const std::size_t n = m->dof(), N = Y.columns();
      std::mt19937 rng(5);
      const State s = random_state(rng, n);
      auto list = [](const Eigen::VectorXd& v) {
        std::ostringstream out;
        out.precision(17);
        for (Eigen::Index i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v(i);
        return out.str();
      };
      std::ostringstream driver;
      driver << "#include <stdio.h>\n#include \"" << header << "\"\n"
             << "int main(void) {\n"
             << "  const double q[] = {" << list(s.q) << "}, qd[] = {" << list(s.qd)
             << "}, qdd[] = {" << list(s.qdd) << "};\n"
             << "  double Y[" << n * N
             << "];\n  int i;\n"
             // Garbage first: every entry, the structural zeros too, must be written.
             << "  for (i = 0; i < " << n * N << "; ++i) Y[i] = 12345.0;\n"
             << (c ? "  const gen_parameters p = gen_default_parameters();\n"
                     "  const gen_inputs in = gen_default_inputs();\n"
                     "  gen_regressor("
                   : "  const gen::Parameters p;\n  const gen::Inputs in;\n  gen::regressor(")
             << s.t << ", q, qd, qdd, " << (c ? "&p, &in" : "p, in") << ", Y);\n"
             << "  for (i = 0; i < " << n * N << "; ++i) printf(\"%.17g\\n\", Y[i]);\n"
             << "  return 0;\n}\n";
      const std::string source = write(c ? "driver.c" : "driver.cpp", driver.str());
      const std::string program = (dir_ / "driver").string(), out = (dir_ / "out").string();
      const std::string compile = (c ? "gcc -std=c99 -Wpedantic" : "g++ -std=c++17") +
                                  std::string(" -O1 -Wall -Wextra -Werror -o ") + program + " " +
                                  source + " -lm > " + out + " 2>&1";
      ASSERT_EQ(std::system(compile.c_str()), 0) << std::ifstream(out).rdbuf();
      ASSERT_EQ(std::system((program + " > " + out).c_str()), 0);
      std::ifstream numbers(out);
      const Eigen::MatrixXd expected = Y.evaluate(s.t, s.q, s.qd, s.qdd);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < N; ++k) {
          double value = 0;
          numbers >> value;
          EXPECT_NEAR(value, expected(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)),
                      1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
        }
      ASSERT_TRUE(numbers.good());
    }
  }
}

TEST(Regressor, CommandPrintsTheBaseParametersAsJson) {
  const auto r = run_cli("regressor " + examples + "/planar_2r.yaml --base --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["coordinates"].size(), 2u);
  EXPECT_EQ(j["parameters"].size(), 20u);
  EXPECT_EQ(j["regressor"].size(), 2u);
  EXPECT_EQ(j["regressor"][0].size(), 20u);
  EXPECT_EQ(j["base"]["count"], 6);
  EXPECT_EQ(j["base"]["parameters"].size(), 6u);
  EXPECT_EQ(j["base"]["regressor"][0].size(), 6u);
  // The same bytes every run.
  EXPECT_EQ(run_cli("regressor " + examples + "/planar_2r.yaml --base --format json").out, r.out);
}

TEST(Regressor, CommandRefusesWhatItDoesNotCover) {
  const auto constrained = run_cli("regressor " + examples + "/slider_crank.yaml");
  EXPECT_EQ(constrained.code, 2) << constrained.out;
  EXPECT_NE(constrained.out.find("slider_crank.yaml:"), std::string::npos) << constrained.out;
  EXPECT_NE(constrained.out.find("constraints"), std::string::npos) << constrained.out;
  const auto format = run_cli("regressor " + examples + "/planar_2r.yaml --format html");
  EXPECT_EQ(format.code, 2) << format.out;
  EXPECT_NE(format.out.find("--format"), std::string::npos) << format.out;
}

}  // namespace
