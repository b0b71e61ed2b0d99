// Derivatives of the dynamics by differentiating the recursions' program (forward mode through
// sym::ScalarProgram), against independent references: every operation's derivative against
// central differences of the operation itself; ∂τ/∂q, ∂τ/∂q̇ and ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ, ∂q̈/∂u
// against central differences of num::Dynamics (a separate program: inverse and forward dynamics
// without derivatives) for chains, a branching tree with every kind of load, the URDF robots and
// the examples the recursions cover; and the derivatives against each other: ∂q̈/∂q = −M⁻¹ ∂τ/∂q
// at q̈ = forward(q, q̇, τ), M⁻¹ M = I with M from num::Dynamics.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/program_derivatives.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;
using sym::Node;
using sym::Op;

// ---- every operation ------------------------------------------------------------------------

struct OpCase {
  const char* name;
  std::function<Node(sym::ScalarProgram&, Node, Node)> build;
  double x, y;  // where: inside every domain, away from kinks
};

std::vector<OpCase> op_cases() {
  auto unary = [](Op op) {
    return [op](sym::ScalarProgram& p, Node x, Node) { return p.apply(op, x); };
  };
  auto binary = [](Op op) {
    return [op](sym::ScalarProgram& p, Node x, Node y) { return p.apply(op, x, y); };
  };
  return {
      {"add", binary(Op::Add), 0.3, -1.2},
      {"sub", binary(Op::Sub), 0.3, -1.2},
      {"neg", unary(Op::Neg), 0.3, 0.0},
      {"mul", binary(Op::Mul), 0.3, -1.2},
      {"div", binary(Op::Div), 0.3, -1.2},
      {"powint3", [](sym::ScalarProgram& p, Node x, Node) { return p.apply(Op::PowInt, x, 0, 3); },
       0.7, 0.0},
      {"powint-2",
       [](sym::ScalarProgram& p, Node x, Node) { return p.apply(Op::PowInt, x, 0, -2); }, 0.7, 0.0},
      {"pow", binary(Op::Pow), 1.3, 0.6},
      {"sqrt", unary(Op::Sqrt), 1.3, 0.0},
      {"sin", unary(Op::Sin), 0.4, 0.0},
      {"cos", unary(Op::Cos), 0.4, 0.0},
      {"tan", unary(Op::Tan), 0.4, 0.0},
      {"exp", unary(Op::Exp), 0.4, 0.0},
      {"log", unary(Op::Log), 1.4, 0.0},
      {"asin", unary(Op::Asin), 0.4, 0.0},
      {"acos", unary(Op::Acos), 0.4, 0.0},
      {"atan", unary(Op::Atan), 0.4, 0.0},
      {"atan2", binary(Op::Atan2), 0.4, -0.9},
      {"sinh", unary(Op::Sinh), 0.4, 0.0},
      {"cosh", unary(Op::Cosh), 0.4, 0.0},
      {"tanh", unary(Op::Tanh), 0.4, 0.0},
      {"abs", unary(Op::Abs), -0.4, 0.0},
      // The chain rule through a composition and a shared operand.
      {"composite",
       [](sym::ScalarProgram& p, Node x, Node y) {
         const Node s = p.apply(Op::Sin, p.mul(x, y));
         return p.div(p.mul(s, s), p.add(p.constant(2.0), p.apply(Op::Cos, x)));
       },
       0.4, 1.7},
  };
}

double value_of(const sym::ScalarProgram& p, Node n, double x, double y) {
  const double variables[2] = {x, y};
  double out = 0.0;
  std::vector<double> work;
  p.evaluate(variables, {n}, &out, work);
  return out;
}

TEST(ProgramDerivatives, EveryOperationAgreesWithCentralDifferences) {
  for (const OpCase& c : op_cases()) {
    SCOPED_TRACE(c.name);
    sym::ScalarProgram p;
    const Node x = p.variable(0), y = p.variable(1);
    const Node f = c.build(p, x, y);
    sym::Seeds seeds;
    sym::seed_directions(p, seeds, {x, y}, 0);
    const std::vector<Node> J = sym::jacobian(p, {f}, seeds, 2);
    ASSERT_EQ(J.size(), 2u);
    const double h = 1e-6;
    const double fd_x = (value_of(p, f, c.x + h, c.y) - value_of(p, f, c.x - h, c.y)) / (2 * h);
    const double fd_y = (value_of(p, f, c.x, c.y + h) - value_of(p, f, c.x, c.y - h)) / (2 * h);
    const double dx = value_of(p, J[0], c.x, c.y), dy = value_of(p, J[1], c.x, c.y);
    EXPECT_NEAR(dx, fd_x, 1e-6 * std::max(1.0, std::fabs(fd_x)));
    EXPECT_NEAR(dy, fd_y, 1e-6 * std::max(1.0, std::fabs(fd_y)));
    // What the operation does not read has the constant 0 as derivative, not a node computing 0.
    if (c.y == 0.0) {
      EXPECT_TRUE(p.is_zero(J[1]));
    }
    // The tape of the Jacobian computes the same numbers (the fast path).
    const sym::Tape tape = p.tape(J, 2);
    double out[2];
    const double at[2] = {c.x, c.y};
    std::vector<double> work;
    tape.evaluate(at, out, work);
    EXPECT_NEAR(out[0], dx, 1e-14 * std::max(1.0, std::fabs(dx)));
    EXPECT_NEAR(out[1], dy, 1e-14 * std::max(1.0, std::fabs(dy)));
  }
}

TEST(ProgramDerivatives, HeldNodesAndSubstitution) {
  sym::ScalarProgram p;
  const Node x = p.variable(0), y = p.variable(1);
  const Node s = p.apply(Op::Sin, x);  // y = s is held: ∂/∂x of (s·x) is then s, not s + x cos x
  const Node f = p.mul(s, x);
  sym::Seeds seeds;
  sym::seed_directions(p, seeds, {x}, 0);
  seeds[s] = {};
  const std::vector<Node> held = sym::jacobian(p, {f}, seeds, 1);
  EXPECT_EQ(held[0], s);
  // f with x replaced by y·y: sin(y²) y²; what does not read x stays itself.
  const Node yy = p.mul(y, y);
  const std::vector<Node> replaced = sym::substitute(p, {f, y}, {{x, yy}});
  EXPECT_EQ(replaced[1], y);
  EXPECT_DOUBLE_EQ(value_of(p, replaced[0], 9.0, 0.7), std::sin(0.49) * 0.49);
  // Seeds outside the program are refused.
  sym::Seeds bad;
  bad[x] = {{3, x}};
  EXPECT_THROW(sym::jacobian(p, {f}, bad, 1), std::invalid_argument);
}

// ---- dynamics ---------------------------------------------------------------------------------

Eigen::VectorXd random_vector(std::mt19937& engine, std::size_t n, double low, double high) {
  std::uniform_real_distribution<double> u(low, high);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = u(engine);
  return v;
}

// Central differences of `f` (n → m) along each unit vector of its argument, at x.
Eigen::MatrixXd central_differences(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
                                    const Eigen::VectorXd& x) {
  const double h = 1e-6;
  Eigen::MatrixXd J;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    Eigen::VectorXd up = x, down = x;
    up[j] += h;
    down[j] -= h;
    const Eigen::VectorXd column = (f(up) - f(down)) / (2 * h);
    if (J.size() == 0) J.resize(column.size(), x.size());
    J.col(j) = column;
  }
  return J;
}

void expect_close(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, double relative,
                  const char* what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  if (got.size() == 0) return;
  const double scale = std::max(1.0, want.cwiseAbs().maxCoeff());
  EXPECT_LE((got - want).cwiseAbs().maxCoeff(), relative * scale) << what << "\ngot\n"
                                                                  << got << "\nwant\n"
                                                                  << want;
}

// Every derivative against central differences of num::Dynamics, and against each other.
void check_derivatives(const std::shared_ptr<const model::Model>& model,
                       const model::Values& values = {},
                       const std::vector<std::string>& inputs = {}) {
  const num::DynamicsDerivativesEvaluator derivatives(model, values, inputs);
  const num::Dynamics dynamics(model, values);
  const std::size_t n = model->dof();
  ASSERT_EQ(derivatives.dof(), n);
  std::mt19937 engine(20261127);
  num::DerivativesWorkspace work;
  num::DynamicsWorkspace dwork;
  for (int s = 0; s < 3; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const double t = 0.2 + 0.3 * s;
    const Eigen::VectorXd q = random_vector(engine, n, -1.2, 1.2),
                          qd = random_vector(engine, n, -2.0, 2.0),
                          qdd = random_vector(engine, n, -3.0, 3.0),
                          tau = random_vector(engine, n, -2.0, 2.0);

    num::InverseDynamicsDerivatives inv;
    derivatives.inverse(t, q, qd, qdd, inv, work);
    Eigen::VectorXd tau_want;
    dynamics.inverse_dynamics(t, q, qd, qdd, tau_want, dwork);
    expect_close(inv.tau, tau_want, 1e-11, "tau");
    auto tau_of_q = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd out;
      dynamics.inverse_dynamics(t, x, qd, qdd, out, dwork);
      return out;
    };
    auto tau_of_qd = [&](const Eigen::VectorXd& x) {
      Eigen::VectorXd out;
      dynamics.inverse_dynamics(t, q, x, qdd, out, dwork);
      return out;
    };
    expect_close(inv.dtau_dq, central_differences(tau_of_q, q), 1e-6, "dtau/dq");
    expect_close(inv.dtau_dqd, central_differences(tau_of_qd, qd), 1e-6, "dtau/dqd");

    num::ForwardDynamicsDerivatives fwd;
    derivatives.forward(t, q, qd, tau, fwd, work);
    Eigen::VectorXd qdd_want;
    dynamics.accelerations(t, q, qd, qdd_want, dwork, tau);
    expect_close(fwd.qdd, qdd_want, 1e-9, "qdd");
    auto qdd_of = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                      const Eigen::VectorXd& f) {
      Eigen::VectorXd out;
      dynamics.accelerations(t, x, v, out, dwork, f);
      return out;
    };
    expect_close(
        fwd.dqdd_dq,
        central_differences([&](const Eigen::VectorXd& x) { return qdd_of(x, qd, tau); }, q), 1e-6,
        "dqdd/dq");
    expect_close(
        fwd.dqdd_dqd,
        central_differences([&](const Eigen::VectorXd& x) { return qdd_of(q, x, tau); }, qd), 1e-6,
        "dqdd/dqd");
    expect_close(
        fwd.minv,
        central_differences([&](const Eigen::VectorXd& x) { return qdd_of(q, qd, x); }, tau), 1e-6,
        "Minv");

    // Against each other: M⁻¹ M = I, and at q̈ = forward, ∂q̈/∂(q, q̇) = −M⁻¹ ∂τ/∂(q, q̇).
    Eigen::MatrixXd M;
    dynamics.mass_matrix(t, q, M, dwork);
    expect_close(fwd.minv * M, Eigen::MatrixXd::Identity(M.rows(), M.cols()), 1e-9, "Minv M");
    EXPECT_EQ(fwd.minv, fwd.minv.transpose());
    num::InverseDynamicsDerivatives at;
    derivatives.inverse(t, q, qd, fwd.qdd, at, work);
    expect_close(at.tau, tau, 1e-9, "tau(forward)");
    expect_close(fwd.dqdd_dq, -fwd.minv * at.dtau_dq, 1e-9, "dqdd/dq = -Minv dtau/dq");
    expect_close(fwd.dqdd_dqd, -fwd.minv * at.dtau_dqd, 1e-9, "dqdd/dqd = -Minv dtau/dqd");
    expect_close(fwd.dqdd_du, -fwd.minv * at.dtau_du, 1e-9, "dqdd/du = -Minv dtau/du");

    // Along the inputs: against central differences with the input's value moved.
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      SCOPED_TRACE(inputs[k]);
      const double u0 = values.numbers().at(inputs[k]), h = 1e-6;
      auto at_input = [&](double u) {
        model::Values moved = values;
        moved.set(inputs[k], u);
        const num::Dynamics other(model, moved);
        Eigen::VectorXd out;
        other.accelerations(t, q, qd, out, dwork, tau);
        return out;
      };
      const Eigen::VectorXd fd = (at_input(u0 + h) - at_input(u0 - h)) / (2 * h);
      expect_close(fwd.dqdd_du.col(static_cast<Eigen::Index>(k)), fd, 1e-6, "dqdd/du");
    }
  }
}

TEST(DynamicsDerivatives, ChainsAgreeWithFiniteDifferencesAndEachOther) {
  for (int n : {1, 2, 7}) {
    SCOPED_TRACE(std::to_string(n) + " links");
    check_derivatives(io::parse_model(test_support::spatial_chain_yaml(n), "chain.yaml"));
  }
  check_derivatives(io::parse_model(test_support::spatial_chain_yaml(6, true), "planar.yaml"));
}

TEST(DynamicsDerivatives, BranchingTreeWithEveryLoadAndAnInput) {
  model::Values values;
  values.set("u", 0.4);
  check_derivatives(io::parse_model(test_support::tree_yaml, "tree.yaml"), values, {"u"});
}

TEST(DynamicsDerivatives, UrdfRobots) {
  for (const char* robot : {"ur5_robot.urdf", "panda.urdf", "satellite_arm.urdf"}) {
    SCOPED_TRACE(robot);
    check_derivatives(io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/" + robot));
  }
}

TEST(DynamicsDerivatives, ExamplesTheRecursionsCover) {
  int covered = 0;
  for (const char* name : {"double_pendulum", "three_link_arm", "planar_2r", "spring_damper_cart",
                           "heavy_top", "spinning_disk"}) {
    SCOPED_TRACE(name);
    const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
    const std::string reason = principles::recursions_alone_do_not_cover(*model);
    if (!reason.empty()) {
      // Refused with the reason, never wrong numbers.
      try {
        num::DynamicsDerivativesEvaluator refused(model, {});
        ADD_FAILURE() << "built for a model the recursions do not cover: " << reason;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
      }
      continue;
    }
    ++covered;
    model::Values values;
    for (const auto& input : model->inputs) values.set(input.name, 0.7);
    check_derivatives(model, values);
  }
  EXPECT_GE(covered, 4);
}

TEST(DynamicsDerivatives, RefusesWhatItCannotDo) {
  const auto slider = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/slider_crank.yaml");
  EXPECT_THROW(num::DynamicsDerivativesEvaluator(slider, {}), std::invalid_argument);
  const auto tree = io::parse_model(test_support::tree_yaml, "tree.yaml");
  EXPECT_THROW(num::DynamicsDerivativesEvaluator(tree, {}, {"nope"}), std::invalid_argument);
  EXPECT_THROW(num::DynamicsDerivativesEvaluator(tree, {}, {"u", "u"}), std::invalid_argument);
  const num::DynamicsDerivativesEvaluator chain(
      io::parse_model(test_support::spatial_chain_yaml(2), "chain.yaml"), {});
  num::DerivativesWorkspace work;
  num::ForwardDynamicsDerivatives fwd;
  EXPECT_THROW(chain.forward(0.0, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(2),
                             Eigen::VectorXd(), fwd, work),
               std::invalid_argument);
}

// ---- the command line and the generated code ---------------------------------------------------

namespace cli_tests {

using appell::test_support::run_cli;

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Eigen::MatrixXd rows(const nlohmann::json& j) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(j.size()),
                    j.empty() ? 0 : static_cast<Eigen::Index>(j[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index k = 0; k < m.cols(); ++k)
      m(i, k) = j[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)].get<double>();
  return m;
}

class DerivativesCli : public appell::test_support::ScratchDirTest {};

// `eval --derivatives --json` against the library, and the header of `codegen --derivatives`,
// compiled (C++17 and C99, warnings as errors), against `eval`: three routes, one set of numbers.
TEST_F(DerivativesCli, EvalAndGeneratedCodeGiveTheLibrarysNumbers) {
  const std::string ur5 = std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf";
  const std::string state = "--q 0.3,-1.1,1.4,0.2,-0.5,0.9 --qd 0.5,-0.3,0.8,1.1,-0.7,0.2";
  const auto run = run_cli("eval " + ur5 + " " + state + " --derivatives --json");
  ASSERT_EQ(run.code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  for (const char* key :
       {"coordinates", "q", "qd", "qdd", "dtau_dq", "dtau_dqd", "dqdd_dq", "dqdd_dqd", "minv"})
    EXPECT_TRUE(j.contains(key)) << key;

  const auto model = io::read_urdf_file(ur5);
  const num::DynamicsDerivativesEvaluator library(model, {});
  Eigen::VectorXd q(6), qd(6);
  q << 0.3, -1.1, 1.4, 0.2, -0.5, 0.9;
  qd << 0.5, -0.3, 0.8, 1.1, -0.7, 0.2;
  num::DerivativesWorkspace work;
  num::ForwardDynamicsDerivatives fwd;
  library.forward(0.0, q, qd, Eigen::VectorXd(), fwd, work);
  num::InverseDynamicsDerivatives inv;
  library.inverse(0.0, q, qd, fwd.qdd, inv, work);
  // JSON's shortest round-trip printing: the same doubles.
  EXPECT_EQ(rows(j["dqdd_dq"]), fwd.dqdd_dq);
  EXPECT_EQ(rows(j["dqdd_dqd"]), fwd.dqdd_dqd);
  EXPECT_EQ(rows(j["minv"]), fwd.minv);
  EXPECT_EQ(rows(j["dtau_dq"]), inv.dtau_dq);
  EXPECT_EQ(rows(j["dtau_dqd"]), inv.dtau_dqd);

  for (const char* language : {"c++", "c"}) {
    SCOPED_TRACE(language);
    const bool c = std::string(language) == "c";
    const fs::path header = dir_ / (c ? "ur5.h" : "ur5.hpp");
    const auto generated = run_cli("codegen " + ur5 + " --derivatives --namespace gen --language " +
                                   std::string(language) + " --out " + header.string());
    ASSERT_EQ(generated.code, 0) << generated.out;
    const std::string text = read_text(header);
    EXPECT_NE(text.find("forward_dynamics_derivatives:"), std::string::npos);
    const std::string pre = c ? "gen_" : "gen::";
    const std::string args = c ? "&p, &in" : "p, in";
    std::ostringstream driver;
    driver << "#include <stdio.h>\n#include \"" << header.string() << "\"\n"
           << "int main(void) {\n"
           << (c ? "  const gen_parameters p = gen_default_parameters();\n"
                   "  const gen_inputs in = gen_default_inputs();\n"
                 : "  const gen::Parameters p;\n  const gen::Inputs in;\n")
           << "  const double q[] = {0.3, -1.1, 1.4, 0.2, -0.5, 0.9};\n"
           << "  const double qd[] = {0.5, -0.3, 0.8, 1.1, -0.7, 0.2};\n"
           << "  double qdd[6], a[36], b[36], m[36], c[36], d[36];\n  int i, ok;\n"
           << "  ok = " << pre << "forward_dynamics_derivatives(0.0, q, qd, " << args
           << ", qdd, a, b, m, " << (c ? "0" : "nullptr") << ");\n"
           << "  " << pre << "inverse_dynamics_derivatives(0.0, q, qd, qdd, " << args
           << ", c, d);\n"
           << "  printf(\"%d\\n\", ok);\n"
           << "  for (i = 0; i < 36; ++i) printf(\"%.17g %.17g %.17g %.17g %.17g\\n\", a[i], b[i], "
              "m[i], c[i], d[i]);\n"
           << "  return 0;\n}\n";
    const fs::path source = dir_ / (c ? "driver.c" : "driver.cpp"), program = dir_ / "driver",
                   log = dir_ / "log", output = dir_ / "out";
    std::ofstream(source) << driver.str();
    const std::string compile = std::string(c ? "gcc -std=c99" : "g++ -std=c++17") +
                                " -O1 -Wall -Wextra -Wpedantic -Werror -o " + program.string() +
                                " " + source.string() + " -lm > " + log.string() + " 2>&1";
    ASSERT_EQ(exit_code(std::system(compile.c_str())), 0) << read_text(log);
    ASSERT_EQ(exit_code(std::system((program.string() + " > " + output.string()).c_str())), 0);
    std::ifstream numbers(output);
    int ok = 0;
    numbers >> ok;
    EXPECT_EQ(ok, 1);
    Eigen::MatrixXd a(6, 6), b(6, 6), m(6, 6), dq(6, 6), dqd(6, 6);
    for (Eigen::Index i = 0; i < 6; ++i)
      for (Eigen::Index k = 0; k < 6; ++k)
        numbers >> a(i, k) >> b(i, k) >> m(i, k) >> dq(i, k) >> dqd(i, k);
    ASSERT_TRUE(numbers.good());
    // The same program, compiled instead of interpreted: the same numbers to rounding.
    expect_close(a, fwd.dqdd_dq, 1e-12, "generated dqdd/dq");
    expect_close(b, fwd.dqdd_dqd, 1e-12, "generated dqdd/dqd");
    expect_close(m, fwd.minv, 1e-12, "generated Minv");
    expect_close(dq, inv.dtau_dq, 1e-12, "generated dtau/dq");
    expect_close(dqd, inv.dtau_dqd, 1e-12, "generated dtau/dqd");
  }
}

TEST_F(DerivativesCli, TextOutputAndWhatIsRefused) {
  const std::string examples = APPELL_EXAMPLES_DIR;
  const auto text =
      run_cli("eval " + examples + "/planar_2r.yaml --q 0.3,-0.5 --qd 1,0 --derivatives");
  ASSERT_EQ(text.code, 0) << text.out;
  for (const char* name : {"dtau_dq", "dtau_dqd", "dqdd_dq", "dqdd_dqd", "minv"})
    EXPECT_NE(text.out.find(std::string(name) + " ("), std::string::npos) << name;

  // Constraints: the recursions do not cover the model; refused with the reason (exit 2: what
  // the model does not have, as codegen --regressor).
  const auto constrained = run_cli("eval " + examples + "/slider_crank.yaml --derivatives");
  EXPECT_EQ(constrained.code, 2) << constrained.out;
  EXPECT_NE(constrained.out.find("do not cover"), std::string::npos) << constrained.out;
  EXPECT_EQ(constrained.out.find("internal error"), std::string::npos) << constrained.out;
  // A carrier frame (codegen takes the model, whose equations it could write without them).
  const auto generated =
      run_cli("codegen " + examples + "/rod_on_rotating_axes.yaml --derivatives --out " +
              (dir_ / "x.hpp").string());
  EXPECT_EQ(generated.code, 2) << generated.out;
  EXPECT_NE(generated.out.find("do not cover"), std::string::npos) << generated.out;

  // M singular (one particle moved by x + y): exit 1 naming it, never numbers of 1e16.
  const std::string coupled = write("coupled.yaml",
                                    "name: coupled\nparameters: {m: 2.0}\ncoordinates: [x, y]\n"
                                    "frames:\n  cart: {translation: [x + y, 0, 0]}\nparticles:\n"
                                    "  p: {frame: cart, mass: m, position: [0, 0, 0]}\n");
  const auto singular = run_cli("eval " + coupled + " --q 0.1,0.2 --derivatives");
  EXPECT_EQ(singular.code, 1) << singular.out;
  EXPECT_NE(singular.out.find("singular mass matrix"), std::string::npos) << singular.out;

  // Another form of the dynamics at once: a usage error.
  const auto method =
      run_cli("eval " + examples + "/planar_2r.yaml --derivatives --method lagrange");
  EXPECT_EQ(method.code, 2) << method.out;
  EXPECT_NE(method.out.find("--derivatives"), std::string::npos) << method.out;
}

}  // namespace cli_tests

// Built without forward dynamics (statics' use: ∂τ/∂q at rest), inverse dynamics and its
// derivatives are the bits of the full build, in fewer operations, and forward() is refused.
TEST(DynamicsDerivatives, InverseAloneGivesTheSameNumbers) {
  const auto model = io::read_urdf_file(std::string(APPELL_EXAMPLES_DIR) + "/urdf/panda.urdf");
  const num::DynamicsDerivativesEvaluator full(model, {});
  const num::DynamicsDerivativesEvaluator inverse(model, {}, {}, /*forward=*/false);
  EXPECT_EQ(inverse.forward_operations(), 0u);
  EXPECT_GT(full.forward_operations(), 0u);
  const auto n = static_cast<Eigen::Index>(model->dof());
  std::mt19937 engine(3);
  std::uniform_real_distribution<double> u(-2, 2);
  Eigen::VectorXd q(n), qd(n), qdd(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    q[j] = u(engine);
    qd[j] = u(engine);
    qdd[j] = u(engine);
  }
  num::DerivativesWorkspace work;
  num::InverseDynamicsDerivatives a, b;
  full.inverse(0.3, q, qd, qdd, a, work);
  inverse.inverse(0.3, q, qd, qdd, b, work);
  EXPECT_EQ(a.tau, b.tau);
  EXPECT_EQ(a.dtau_dq, b.dtau_dq);
  EXPECT_EQ(a.dtau_dqd, b.dtau_dqd);
  num::ForwardDynamicsDerivatives refused;
  EXPECT_THROW(inverse.forward(0.3, q, qd, Eigen::VectorXd(), refused, work), std::logic_error);
}

}  // namespace
