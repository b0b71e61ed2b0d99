// Relative motion in a carrier frame (seed 003): Lagrange's form with T_r, the potentials Π_o and
// Π_ω, the rotational inertia force Q^ω̇ and the gyroscopic force Γ gives the same equations as
// the inertial frame.
#include <gtest/gtest.h>

#include <random>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/relative_motion.hpp"
#include "appell/sym/differentiator.hpp"

namespace {

using namespace appell;

// Every symbol that may appear: t, q, q̇, q̈, parameters, unspecified prescribed functions.
std::vector<GiNaC::symbol> all_symbols(const model::Model& m) {
  std::vector<GiNaC::symbol> s{m.time_functions->time()};
  for (int order = 0; order <= 2; ++order)
    for (std::size_t j = 0; j < m.dof(); ++j) s.push_back(m.coordinate_symbol(j, order));
  for (const auto& p : m.parameters) s.push_back(p.symbol);
  for (const auto& p : m.prescribed)
    for (int order = 0; order <= 3; ++order)
      if (auto d = m.time_functions->find_derivative(p.name, order)) s.push_back(*d);
  return s;
}

void expect_relative_form_equals_inertial_form(const std::string& yaml) {
  auto model = io::parse_model(yaml, "relative.yaml");
  const model::Model& m = *model;
  ASSERT_TRUE(m.relative_to.has_value());
  const auto eq = principles::derive(model, principles::Method::GibbsAppell);

  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  const auto forces = principles::inertial_forces(kin);
  const GiNaC::matrix q = principles::generalized_forces(kin);
  const GiNaC::ex potentials = forces.transport_potential + forces.centrifugal_potential;
  GiNaC::exvector residuals;  // relative form − inertial form, per coordinate
  for (std::size_t s = 0; s < m.dof(); ++s) {
    const GiNaC::symbol qs = m.coordinate_symbol(s), vs = m.coordinate_symbol(s, 1);
    GiNaC::ex relative = d.time_derivative(d.partial(forces.relative_kinetic_energy, vs)) -
                         d.partial(forces.relative_kinetic_energy, qs) - q(s, 0) +
                         d.partial(potentials, qs) - forces.rotational(s, 0) -
                         forces.gyroscopic(s, 0);
    GiNaC::ex inertial = -eq.forcing(s, 0);
    for (std::size_t k = 0; k < m.dof(); ++k)
      inertial += eq.mass_matrix(s, k) * m.coordinate_symbol(k, 2);
    residuals.push_back(relative - inertial);
  }
  const auto symbols = all_symbols(m);
  const num::Tape tape(residuals, symbols);
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<double> values(symbols.size()), out(residuals.size()), work;
  const auto defaults = m.parameter_values();
  for (int i = 0; i < 20; ++i) {
    for (std::size_t k = 0; k < symbols.size(); ++k) values[k] = u(rng);
    for (std::size_t p = 0; p < m.parameters.size(); ++p)
      values[1 + 3 * m.dof() + p] = defaults.at(m.parameters[p].name);
    tape.evaluate(values.data(), out.data(), work);
    for (double r : out) EXPECT_NEAR(r, 0.0, 1e-10);
  }
}

TEST(RelativeMotion, BeadOnASpinningHoop) {
  expect_relative_form_equals_inertial_form(R"(name: bead-on-hoop
parameters: {m: 0.1, R: 0.4, g: 9.81, omega: 6.0}
coordinates: [theta]
prescribed: {psi: omega*t}
frames:
  hoop: {rotation: rot_z(psi)}
  arm: {parent: hoop, rotation: rot_y(theta)}
particles:
  bead: {frame: arm, mass: m, position: [0, 0, -R]}
gravity: [0, 0, -g]
relative_to: hoop
)");
}

TEST(RelativeMotion, Seed003Example1PendulumOnATranslatingBlock) {
  expect_relative_form_equals_inertial_form(R"(name: pendulum-on-block
parameters: {m: 1.0, R: 0.3, rho: 0.1, l0: 0.5, g: 9.81}
coordinates: [phi]
prescribed: {theta: null}
frames:
  block: {translation: [l0*sin(theta), -l0*cos(theta), 0]}
  pendulum: {parent: block, rotation: rot_z(phi)}
bodies:
  bob: {frame: pendulum, mass: m, com: [0, -R, 0], inertia: [m*rho^2/2, m*rho^2/2, m*rho^2, 0, 0, 0]}
gravity: [0, -g, 0]
relative_to: block
)");
}

TEST(RelativeMotion, Seed003Example2RodOnRotatingAxes) {
  expect_relative_form_equals_inertial_form(R"(name: rod
parameters: {m: 1.0, l: 0.8, k: 2.0, d: 0.2, omega: 3.0, g: 9.81}
coordinates: [theta]
prescribed: {psi: omega*t}
frames:
  arm: {rotation: rot_z(psi)}
  rod: {parent: arm, translation: [0, 0, l*cos(theta)], rotation: rot_y(-theta)}
bodies:
  bar: {frame: rod, mass: m, com: [0, 0, -l/2], inertia: {rod: {length: l, axis: z}}}
gravity: [0, 0, -g]
loads:
  - {spring: {from: [arm, [-d, 0, 0]], to: [rod, [0, 0, -l]], stiffness: k, rest_length: d}}
relative_to: arm
)");
}

TEST(RelativeMotion, ASpinningTopOnATiltedTurntable) {
  // A general 3-D case: an asymmetric body with three rotations on a carrier that both
  // translates and turns about a tilted axis.
  expect_relative_form_equals_inertial_form(R"(name: top-on-table
parameters: {m: 1.2, A: 0.02, B: 0.03, C: 0.05, h: 0.1, g: 9.81, w: 2.0, a: 0.3}
coordinates: [psi, theta, phi]
prescribed: {alpha: w*t, s: a*sin(t)}
frames:
  table: {translation: [s, 0, a*cos(2*t)], rotation: rot_x(0.3)*rot_z(alpha)}
  top: {parent: table, translation: [0.2, 0, 0], rotation: rot_z(psi)*rot_x(theta)*rot_z(phi)}
bodies:
  spinner: {frame: top, mass: m, com: [0.01, 0, h], inertia: [A, B, C, 0.001, 0, 0]}
gravity: [0, 0, -g]
relative_to: table
)");
}

TEST(RelativeMotion, ACarrierThatMovesWithACoordinateIsRejected) {
  try {
    io::parse_model(R"(name: bad
coordinates: [q]
frames:
  carrier: {rotation: rot_z(q)}
relative_to: carrier
)",
                    "bad.yaml");
    FAIL() << "expected a ModelError";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.offending(), "carrier");
    EXPECT_NE(std::string(e.what()).find("moves with the coordinate q"), std::string::npos);
  }
}

}  // namespace
