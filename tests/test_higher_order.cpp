// Gibbs–Appell equations of order 2 (energy of jerks): the q⃛ they give at a state equals the
// time derivative of q̈ = M⁻¹f along the ordinary equations.
#include <gtest/gtest.h>

#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

// q⃛ from M q⃛ = f⁽²⁾(t, q, q̇, q̈).
Eigen::VectorXd jerk(const principles::Equations& eq, double t, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd) {
  const model::Model& m = *eq.model;
  const std::size_t n = m.dof();
  std::vector<GiNaC::symbol> variables{m.time_functions->time()};
  std::vector<double> values{t};
  for (int order = 0; order <= 2; ++order) {
    const Eigen::VectorXd& v = order == 0 ? q : order == 1 ? qd : qdd;
    for (std::size_t j = 0; j < n; ++j) {
      variables.push_back(m.coordinate_symbol(j, order));
      values.push_back(v[static_cast<Eigen::Index>(j)]);
    }
  }
  const auto parameters = m.parameter_values();
  for (const auto& p : m.parameters) {
    variables.push_back(p.symbol);
    values.push_back(parameters.at(p.name));
  }
  const num::Tape tape(eq.entries(), variables);
  std::vector<double> out(n * n + n), work;
  tape.evaluate(values.data(), out.data(), work);
  const auto dim = static_cast<Eigen::Index>(n);
  const Eigen::MatrixXd M = Eigen::Map<const Eigen::MatrixXd>(out.data(), dim, dim).transpose();
  const Eigen::VectorXd f = Eigen::Map<const Eigen::VectorXd>(out.data() + n * n, dim);
  return M.llt().solve(f);
}

TEST(HigherOrder, JerkEquationsAreTheDerivativeOfTheEquationsOfMotion) {
  for (const std::string name :
       {"planar_2r", "double_pendulum", "heavy_top", "bead_on_hoop", "thread_pendulum"}) {
    SCOPED_TRACE(name);
    auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name + ".yaml");
    const auto ordinary = principles::derive(model, principles::Method::GibbsAppell);
    const auto second = principles::derive_gibbs_appell(model, 2);
    EXPECT_EQ(second.order, 2);
    const num::CompiledEquations motion(ordinary);
    auto acceleration = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
      Eigen::MatrixXd M;
      Eigen::VectorXd f;
      motion.evaluate(t, q, qd, M, f);
      return Eigen::VectorXd(motion.accelerations(M, f));
    };
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> u(-1, 1);
    const auto n = static_cast<Eigen::Index>(model->dof());
    for (int s = 0; s < 10; ++s) {
      Eigen::VectorXd q(n), qd(n);
      for (Eigen::Index j = 0; j < n; ++j) {
        q[j] = 0.6 + 0.5 * u(rng);  // keeps the heavy top away from θ = 0
        qd[j] = u(rng);
      }
      const double t = 1 + u(rng);
      const Eigen::VectorXd qdd = acceleration(t, q, qd);
      // Central difference along the flow: the h² terms of q̇(t ± h) cancel, so O(h²) overall.
      const double h = 1e-4;
      const Eigen::VectorXd ahead = acceleration(t + h, q + h * qd + h * h / 2 * qdd, qd + h * qdd);
      const Eigen::VectorXd behind =
          acceleration(t - h, q - h * qd + h * h / 2 * qdd, qd - h * qdd);
      const Eigen::VectorXd expected = (ahead - behind) / (2 * h);
      const Eigen::VectorXd got = jerk(second, t, q, qd, qdd);
      EXPECT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-5 * std::max(1.0, expected.norm()))
          << "got " << got.transpose() << " expected " << expected.transpose();
    }
  }
}

TEST(HigherOrder, OrderOneIsTheOrdinaryGibbsAppell) {
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml");
  const auto a = principles::derive_gibbs_appell(model, 1);
  EXPECT_EQ(a.order, 1);
  const auto b = principles::derive(model, principles::Method::GibbsAppell);
  const auto ea = a.entries(), eb = b.entries();
  ASSERT_EQ(ea.size(), eb.size());
}

}  // namespace
