// Inertias as real files write them (issue 27, item 4): the planar convention [0, 0, I] for a body
// that turns about z alone, a URDF's dummy link (all six entries 1e-6) fixed to a link, and the
// refusals that remain (a body turning off its planar axis, a negative moment).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/model/builder.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "support/model_error_of.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;

// A double pendulum of two rigid links in the x-y plane (both turn about z), the links' inertias
// written as `inertia`.
std::string double_pendulum(const std::string& inertia, const std::string& second_turn = "rot_z") {
  return "name: dp\n"
         "parameters: {m: 2, l: 0.7, I: 0.3, g: 9.81}\n"
         "coordinates: [a, b]\n"
         "frames:\n"
         "  one: {rotation: rot_z(a)}\n"
         "  two: {parent: one, translation: [l, 0, 0], rotation: " +
         second_turn +
         "(b)}\n"
         "bodies:\n"
         "  link1: {frame: one, mass: m, com: [l/2, 0, 0], inertia: " +
         inertia +
         "}\n"
         "  link2: {frame: two, mass: m, com: [l/2, 0, 0], inertia: " +
         inertia +
         "}\n"
         "gravity: [0, -g, 0]\n";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlanarInertias, APlanarDoublePendulumEqualsOneWithPhysicalInertias) {
  // [0, 0, I]: the principal moments alone, as the planar textbooks write them.
  for (const std::string form : {"[0, 0, I]", "[0, 0, I, 0, 0, 0]"}) {
    SCOPED_TRACE(form);
    const auto short_form = io::parse_model(double_pendulum(form), "planar.yaml");
    EXPECT_TRUE((short_form->bodies[1].inertia -
                 GiNaC::diag_matrix(GiNaC::lst{0, 0, short_form->parameters[2].symbol}))
                    .evalm()
                    .is_zero_matrix());
  }
  const auto planar = io::parse_model(double_pendulum("[0, 0, I]"), "planar.yaml");
  const auto physical = io::parse_model(double_pendulum("[I/2, I/2, I, 0, 0, 0]"), "physical.yaml");
  ASSERT_EQ(planar->bodies.size(), 2u);
  // The extra moments never enter (ω stays along z): the same M and f at random states, by two
  // principles.
  for (const auto method : {principles::Method::Lagrange, principles::Method::GibbsAppell}) {
    const num::CompiledEquations a(principles::derive(planar, method));
    const num::CompiledEquations b(principles::derive(physical, method));
    std::mt19937 random(27);
    std::uniform_real_distribution<double> value(-3, 3);
    for (int k = 0; k < 10; ++k) {
      Eigen::VectorXd q(2), qd(2);
      for (int j = 0; j < 2; ++j) {
        q[j] = value(random);
        qd[j] = value(random);
      }
      Eigen::MatrixXd Ma, Mb;
      Eigen::VectorXd fa, fb;
      a.evaluate(0.0, q, qd, Ma, fa);
      b.evaluate(0.0, q, qd, Mb, fb);
      EXPECT_LT((Ma - Mb).norm(), 1e-12 * (1 + Ma.norm()));
      EXPECT_LT((fa - fb).norm(), 1e-12 * (1 + fa.norm()));
      EXPECT_GT(Ma.determinant(), 0.0);  // Izz is in M: not singular
    }
  }
}

TEST(PlanarInertias, ValuesGivenLaterFollowTheSameRule) {
  const auto planar = io::parse_model(double_pendulum("[0, 0, I, 0, 0, 0]"), "planar.yaml");
  EXPECT_NO_THROW(model::bind(*planar, {{"I", 0.5}}));
  EXPECT_THROW(model::bind(*planar, {{"I", -0.5}}), model::ModelError);  // a negative moment
  const auto tilted = io::parse_model(double_pendulum("[I, I, 0.5, 0, 0, 0]", "rot_x"), "t.yaml");
  try {
    model::bind(*tilted, {{"I", 0.1}});  // Izz = 0.5 > 2 I, and link2 turns about x
    ADD_FAILURE() << "no error";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.offending(), "I") << e.what();
    EXPECT_TRUE(contains(e.what(), "angular velocity has the x component")) << e.what();
  }
}

TEST(PlanarInertias, ABodyTurningOffItsPlanarAxisIsRefusedWithTheComponent) {
  // The second link turns about x: its ω has an x component, and [0, 0, I] has no Ixx.
  const auto e = test_support::model_error_of(double_pendulum("[0, 0, I, 0, 0, 0]", "rot_x"));
  EXPECT_EQ(e.where().line, 9) << e.what();  // link2's inertia
  EXPECT_EQ(e.offending(), "link2") << e.what();
  const std::string message = e.what();
  EXPECT_TRUE(contains(message, "triangle inequality")) << message;
  EXPECT_TRUE(contains(message, "frame two's angular velocity has the x component")) << message;
  EXPECT_TRUE(contains(message, "a body moving in 3-D needs a physical inertia")) << message;
  // Its physical inertia is accepted.
  EXPECT_NO_THROW(io::parse_model(double_pendulum("[I/2, I/2, I, 0, 0, 0]", "rot_x"), "m.yaml"));
  // Products of inertia that couple z to x: I ω leaves z, refused too.
  const auto coupled =
      test_support::model_error_of(double_pendulum("[0.01, 0.01, I, 0, 0, 0.001]"));
  EXPECT_EQ(coupled.offending(), "link1") << coupled.what();
  EXPECT_TRUE(contains(coupled.what(), "couple z to the other axes")) << coupled.what();
}

TEST(PlanarInertias, ANegativeMomentIsStillRefused) {
  const auto e = test_support::model_error_of(double_pendulum("[-1, 1, 1, 0, 0, 0]"));
  EXPECT_EQ(e.where().line, 8) << e.what();
  EXPECT_EQ(e.offending(), "link1") << e.what();
  EXPECT_TRUE(contains(e.what(), "not positive semi-definite")) << e.what();
  EXPECT_TRUE(contains(e.what(), "never negative")) << e.what();  // the fix named
  // Even on a planar body, with a negative Izz.
  EXPECT_TRUE(contains(test_support::model_error_of(double_pendulum("[0, 0, -1, 0, 0, 0]")).what(),
                       "not positive semi-definite"));
}

TEST(PlanarInertias, RoundingOfATinyInertiaIsNoFault) {
  // ANYmal's dummy: all six entries 1e-6 (principal moments 0, 0, 3e-6 with rounding below
  // zero): a body that never turns needs no moment at all; one that turns in 3-D is refused.
  const std::string dummy = "[1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6]";
  const std::string fixed =
      "name: d\ncoordinates: [q]\nframes:\n  slide: {translation: [q, 0, 0]}\nbodies:\n"
      "  dummy: {frame: slide, mass: 1e-6, inertia: " +
      dummy +
      "}\n"
      "  cart: {frame: slide, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n";
  EXPECT_NO_THROW(io::parse_model(fixed, "d.yaml"));
  const auto turning = test_support::model_error_of(double_pendulum(dummy, "rot_x"));
  EXPECT_TRUE(contains(turning.what(), "triangle inequality")) << turning.what();
}

using PlanarInertiasCli = test_support::ScratchDirTest;

TEST_F(PlanarInertiasCli, TheRefusalIsExit2Located) {
  const std::string path = write("tilted.yaml", double_pendulum("[0, 0, I, 0, 0, 0]", "rot_x"));
  const auto run = test_support::run_cli("derive " + path);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(contains(run.out, path + ":9:")) << run.out;
  EXPECT_TRUE(contains(run.out, "(link2)")) << run.out;
  const std::string planar = write("planar.yaml", double_pendulum("[0, 0, I, 0, 0, 0]"));
  EXPECT_EQ(test_support::run_cli("derive " + planar).code, 0);
}

// A link with a mass, a dummy fixed to it (ANYmal's: all six entries 1e-6), and a link on a
// revolute joint.
const char* const kDummyUrdf = R"(<robot name="dummy">
  <link name="base"><inertial><origin xyz="0 0 0.1"/><mass value="4"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="dummy_link"><inertial><origin xyz="0.2 0 0"/><mass value="1e-6"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="1e-6" ixz="1e-6" iyz="1e-6"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="fix" type="fixed"><parent link="base"/><child link="dummy_link"/><origin xyz="0 0 0.3" rpy="0.5 0 0"/></joint>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";

TEST(PlanarInertias, AUrdfDummyLinkIsLumpedIntoItsParentWithAWarning) {
  for (const bool floating : {false, true}) {
    io::UrdfOptions options;
    options.floating_base = floating;  // the dummy then turns in 3-D with the base
    const io::UrdfModel translated = io::translate_urdf(kDummyUrdf, "dummy.urdf", options);
    ASSERT_EQ(translated.warnings.size(), 1u) << floating;
    EXPECT_TRUE(contains(translated.warnings[0], "link 'dummy_link'")) << translated.warnings[0];
    EXPECT_TRUE(contains(translated.warnings[0], "fixed to link 'base'")) << translated.warnings[0];
    ASSERT_EQ(translated.bodies.size(), 2u);  // base (with the dummy) and arm
    // The base's mass and centre of mass include the dummy's (at 0.2, 0, 0.3 in the base).
    const auto model = io::build_model(translated);
    const double mass = GiNaC::ex_to<GiNaC::numeric>(model->bodies[0].mass).to_double();
    EXPECT_NEAR(mass, 4 + 1e-6, 1e-15);
    const double com_x = GiNaC::ex_to<GiNaC::numeric>(model->bodies[0].com[0]).to_double();
    EXPECT_NEAR(com_x, 0.2e-6 / (4 + 1e-6), 1e-12);
  }
  // A dummy that is clearly not positive semi-definite is still refused, naming the fix.
  std::string negative = kDummyUrdf;
  negative.replace(negative.find("ixx=\"1e-6\""), 10, "ixx=\"-1\"");
  try {
    io::translate_urdf(negative, "dummy.urdf");
    ADD_FAILURE() << "no error";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.offending(), "dummy_link") << e.what();
    EXPECT_EQ(e.where().line, 3) << e.what();
    EXPECT_TRUE(contains(e.what(), "not positive semi-definite")) << e.what();
  }
}

}  // namespace
