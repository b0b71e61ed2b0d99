// Relative motion in Appell's and Nielsen's forms (seed 003 eqs. 55 and 57): with the relative
// acceleration energy S_r, ∂S_r/∂q̈_s, and with T_r, ∂Ṫ_r/∂q̇_s − 2 ∂T_r/∂q_s, each equal to
// Q_s − ∂(Π_o + Π_ω)/∂q_s + Q^ω̇_s + Γ_s, give the world-frame equations for any q̈.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/relative_motion.hpp"
#include "appell/sym/differentiator.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

enum class Form { Appell, Nielsen };

// Residual (relative form − world form) of every coordinate at random values of every symbol,
// q̈ included: the two must be the same function, not only equal along the motion.
void expect_form_equals_world_frame(std::shared_ptr<const model::Model> model, Form form) {
  const model::Model& m = *model;
  ASSERT_TRUE(m.relative_to.has_value());
  const auto eq = principles::derive(model, principles::Method::Lagrange);
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  const auto forces = principles::inertial_forces(kin);
  const GiNaC::ex s_r = principles::relative_acceleration_energy(kin);
  const GiNaC::ex t_r = forces.relative_kinetic_energy;
  const GiNaC::ex t_r_rate = d.time_derivative(t_r);
  const GiNaC::matrix q = principles::generalized_forces(kin);
  const GiNaC::ex potentials = forces.transport_potential + forces.centrifugal_potential;

  GiNaC::exvector residuals;
  for (std::size_t s = 0; s < m.dof(); ++s) {
    const GiNaC::symbol qs = m.coordinate_symbol(s), vs = m.coordinate_symbol(s, 1),
                        as = m.coordinate_symbol(s, 2);
    const GiNaC::ex left = form == Form::Appell ? d.partial(s_r, as)
                                                : d.partial(t_r_rate, vs) - 2 * d.partial(t_r, qs);
    const GiNaC::ex right =
        q(s, 0) - d.partial(potentials, qs) + forces.rotational(s, 0) + forces.gyroscopic(s, 0);
    GiNaC::ex world = -eq.forcing(s, 0);
    for (std::size_t k = 0; k < m.dof(); ++k)
      world += eq.mass_matrix(s, k) * m.coordinate_symbol(k, 2);
    residuals.push_back(left - right - world);
  }

  std::vector<GiNaC::symbol> symbols{m.time_functions->time()};
  for (int order = 0; order <= 2; ++order)
    for (std::size_t j = 0; j < m.dof(); ++j) symbols.push_back(m.coordinate_symbol(j, order));
  const std::size_t first_parameter = symbols.size();
  for (const auto& p : m.parameters) symbols.push_back(p.symbol);
  for (const auto& p : m.prescribed)
    for (int order = 0; order <= 3; ++order)
      if (auto derivative = m.time_functions->find_derivative(p.name, order))
        symbols.push_back(*derivative);
  const num::Tape tape(residuals, symbols);
  const auto defaults = m.parameter_values();
  std::mt19937 rng(57);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<double> values(symbols.size()), out(residuals.size()), work;
  for (int i = 0; i < 20; ++i) {
    for (double& v : values) v = u(rng);
    for (std::size_t p = 0; p < m.parameters.size(); ++p)
      values[first_parameter + p] = defaults.at(m.parameters[p].name);
    tape.evaluate(values.data(), out.data(), work);
    for (double r : out) EXPECT_NEAR(r, 0.0, 1e-10);
  }
}

// A 3-D body with three rotations on a carrier that translates and turns about a tilted axis.
const char* top_on_table = R"(name: top-on-table
parameters: {m: 1.2, A: 0.02, B: 0.03, C: 0.05, h: 0.1, g: 9.81, w: 2.0, a: 0.3}
coordinates: [psi, theta, phi]
prescribed: {alpha: w*t, s: a*sin(t)}
frames:
  table: {translation: [s, 0, a*cos(2*t)], rotation: rot_x(0.3)*rot_z(alpha)}
  top: {parent: table, translation: [0.2, 0, 0], rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
bodies:
  spinner: {frame: top, mass: m, com: [0.01, 0, h], inertia: [A, B, C, 0.001, 0, 0]}
particles:
  bead: {frame: top, mass: 0.1, position: [0.05, 0.02, 0]}
gravity: [0, 0, -g]
relative_to: table
)";

TEST(RelativeMotionForms, AppellAndNielsenEqualTheWorldFrame) {
  for (const Form form : {Form::Appell, Form::Nielsen}) {
    SCOPED_TRACE(form == Form::Appell ? "appell" : "nielsen");
    for (const std::string file :
         {"/pendulum_on_translating_block.yaml", "/rod_on_rotating_axes.yaml"}) {
      SCOPED_TRACE(file);
      expect_form_equals_world_frame(io::read_model_file(examples + file), form);
    }
    expect_form_equals_world_frame(io::parse_model(top_on_table, "top.yaml"), form);
  }
}

TEST(RelativeMotionForms, DeriveShowsTheFormOfTheMethod) {
  const std::string rod = examples + "/rod_on_rotating_axes.yaml";
  const struct {
    const char* method;
    const char* form;
    const char* key;
  } cases[] = {{"gibbs-appell", "appell", "S_r"},
               {"lagrange", "lagrange", "T_r"},
               {"nielsen", "nielsen", "Tdot_r"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.method);
    const auto r = test_support::run_cli("derive " + rod + " --show inertial-forces --method " +
                                         c.method + " --format json");
    ASSERT_EQ(r.code, 0) << r.out;
    const auto forces = nlohmann::json::parse(r.out).at("inertial_forces");
    EXPECT_EQ(forces.at("form"), c.form);
    EXPECT_TRUE(forces.contains(c.key)) << forces.dump();
    for (const char* key : {"T_r", "Pi_o", "Pi_omega", "Q_omegadot_theta", "Gamma_theta"})
      EXPECT_TRUE(forces.contains(key)) << key;
    const auto text =
        test_support::run_cli("derive " + rod + " --show inertial-forces --method " + c.method);
    ASSERT_EQ(text.code, 0) << text.out;
    EXPECT_NE(text.out.find(std::string(c.form) + " form"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(std::string("  ") + c.key + " = "), std::string::npos) << text.out;
    const auto latex = test_support::run_cli("derive " + rod + " --show inertial-forces --method " +
                                             c.method + " --format latex");
    ASSERT_EQ(latex.code, 0) << latex.out;
    EXPECT_NE(latex.out.find("\\Gamma_s"), std::string::npos) << latex.out;
  }
  // S_r of a particle-free rod: ddot(theta) appears squared, with the rod's inertia.
  const auto appell =
      test_support::run_cli("derive " + rod + " --show inertial-forces --format json");
  const std::string s_r = nlohmann::json::parse(appell.out).at("inertial_forces").at("S_r");
  EXPECT_NE(s_r.find("ddot(theta)^2"), std::string::npos) << s_r;
  // D'Alembert's and Gauss's methods have no form of the relative-motion equations here.
  EXPECT_EQ(
      test_support::run_cli("derive " + rod + " --show inertial-forces --method dalembert").code,
      2);
}

}  // namespace
