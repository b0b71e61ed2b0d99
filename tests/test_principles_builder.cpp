// The principles on models built in code (no file reader involved): seed 000's robot.
#include <gtest/gtest.h>

#include "appell/numeric/agreement.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;
using GiNaC::ex;

struct Robot {
  std::shared_ptr<model::Model> model = std::make_shared<model::Model>();
  GiNaC::symbol M{"M"}, l{"l"}, M_S{"M_S"}, g{"g"};
};

// Seed 000, Fig. 4: two homogeneous rods O1O2 and O2P of mass M and length l, revolute joints
// about z, gravity −g ŷ, a point force −M_S g ŷ at P.
Robot seed000_robot() {
  Robot r;
  auto& m = *r.model;
  m.name = "planar-2r";
  m.parameters = {{"M", r.M, 1, {}},
                  {"l", r.l, ex(1) / 2, {}},
                  {"M_S", r.M_S, ex(1) / 5, {}},
                  {"g", r.g, ex(981) / 100, {}}};
  m.coordinates = {{"q1", 0.0, 0.0, {}, {}}, {"q2", 0.0, 0.0, {}, {}}};
  m.time_functions->declare("q1", sym::TimeFunctionKind::Coordinate);
  m.time_functions->declare("q2", sym::TimeFunctionKind::Coordinate);
  const model::Vector3 z{0, 0, 1};
  m.frames.push_back({"link1",
                      "world",
                      {0, 0, 0},
                      {{model::RotationFactor::Kind::Axis, z, m.coordinate_symbol(0), {}}},
                      {}});
  m.frames.push_back({"link2",
                      "link1",
                      {r.l, 0, 0},
                      {{model::RotationFactor::Kind::Axis, z, m.coordinate_symbol(1), {}}},
                      {}});
  GiNaC::matrix rod(3, 3);
  rod(1, 1) = rod(2, 2) = r.M * r.l * r.l / 12;
  m.bodies.push_back({"rod1", "link1", r.M, {r.l / 2, 0, 0}, rod, {}});
  m.bodies.push_back({"rod2", "link2", r.M, {r.l / 2, 0, 0}, rod, {}});
  m.gravity = model::Vector3{0, -r.g, 0};
  m.loads.push_back(
      {model::ForceLoad{{0, -r.M_S * r.g, 0}, model::PointRef{"link2", {r.l, 0, 0}}, "world"},
       {},
       {}});
  return r;
}

// Small expressions only: cos(q1+q2) expanded, then sin² eliminated by sin² = 1 − cos².
ex expand_trig(const ex& e, const GiNaC::symbol& q1, const GiNaC::symbol& q2) {
  const ex c1 = GiNaC::cos(q1), s1 = GiNaC::sin(q1), c2 = GiNaC::cos(q2), s2 = GiNaC::sin(q2);
  ex r = GiNaC::expand(e).subs(GiNaC::lst{GiNaC::cos(q1 + q2) == c1 * c2 - s1 * s2,
                                          GiNaC::sin(q1 + q2) == s1 * c2 + c1 * s2});
  r = GiNaC::expand(r).subs(GiNaC::lst{GiNaC::pow(s1, 2) == 1 - GiNaC::pow(c1, 2),
                                       GiNaC::pow(s2, 2) == 1 - GiNaC::pow(c2, 2)},
                            GiNaC::subs_options::algebraic);
  return GiNaC::expand(r);
}

TEST(PrinciplesBuilder, Seed000RobotInertiaTermsMatchEq117And121) {
  Robot r = seed000_robot();
  for (auto method : {principles::Method::Lagrange, principles::Method::GibbsAppell}) {
    SCOPED_TRACE(principles::method_name(method));
    auto eq = principles::derive(r.model, method);
    const auto& m = *r.model;
    const GiNaC::symbol q1 = m.coordinate_symbol(0), q2 = m.coordinate_symbol(1);
    const GiNaC::symbol qd1 = m.coordinate_symbol(0, 1), qd2 = m.coordinate_symbol(1, 1);
    const ex Ml2 = r.M * r.l * r.l;
    // Eqs. (117)/(121) = (140)/(141): the inertia terms.
    EXPECT_TRUE(
        expand_trig(eq.mass_matrix(0, 0) - Ml2 * (ex(5) / 3 + GiNaC::cos(q2)), q1, q2).is_zero());
    EXPECT_TRUE(expand_trig(eq.mass_matrix(0, 1) - Ml2 * (ex(1) / 3 + GiNaC::cos(q2) / 2), q1, q2)
                    .is_zero());
    EXPECT_TRUE(expand_trig(eq.mass_matrix(1, 0) - Ml2 * (ex(1) / 3 + GiNaC::cos(q2) / 2), q1, q2)
                    .is_zero());
    EXPECT_TRUE(expand_trig(eq.mass_matrix(1, 1) - Ml2 / 3, q1, q2).is_zero());
    // f = −(velocity terms) + Q_g + Q_S, with the gravity and point-force terms derived from the
    // kinematics: Q_g1 = −(3/2) M g l cos q1 − ½ M g l cos(q1+q2), Q_g2 = −½ M g l cos(q1+q2),
    // Q_S1 = −M_S g l (cos q1 + cos(q1+q2)), Q_S2 = −M_S g l cos(q1+q2).
    const ex c1 = GiNaC::cos(q1), c12 = GiNaC::cos(q1 + q2), s2 = GiNaC::sin(q2);
    const ex f1 = Ml2 * s2 * (qd1 * qd2 + qd2 * qd2 / 2) - ex(3) / 2 * r.M * r.g * r.l * c1 -
                  r.M * r.g * r.l * c12 / 2 - r.M_S * r.g * r.l * (c1 + c12);
    const ex f2 = -Ml2 * s2 * qd1 * qd1 / 2 - r.M * r.g * r.l * c12 / 2 - r.M_S * r.g * r.l * c12;
    auto trig_expand = [&](const ex& e) { return expand_trig(e, q1, q2); };
    EXPECT_TRUE(trig_expand(eq.forcing(0, 0) - f1).is_zero()) << trig_expand(eq.forcing(0, 0) - f1);
    EXPECT_TRUE(trig_expand(eq.forcing(1, 0) - f2).is_zero()) << trig_expand(eq.forcing(1, 0) - f2);
  }
}

TEST(PrinciplesBuilder, LagrangeEqualsGibbsAppellNumerically) {
  Robot r = seed000_robot();
  auto a = principles::derive(r.model, principles::Method::Lagrange);
  auto b = principles::derive(r.model, principles::Method::GibbsAppell);
  EXPECT_LT(num::compare(a, b, 20, /*symbolic=*/false).max_numeric_error, 1e-12);
  EXPECT_GT(a.cost.differentiations, 0u);
  EXPECT_GT(b.cost.size_before, 0u);
}

}  // namespace
