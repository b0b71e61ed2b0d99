// URDF import (issue 13): robots written in URDF against the same robots written by hand as
// appell models (M, f and q̈ equal at random states), the model file `import` writes against the
// URDF, the options (gravity, joint damping, symbolic inertia), names, limits, visuals, every
// error with its place, the command line, and a 40-coordinate humanoid tree.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_file.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_import.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

std::shared_ptr<const model::Model> from_urdf(const std::string& xml,
                                              const io::UrdfOptions& options = {}) {
  return io::build_model(io::translate_urdf(xml, "robot.urdf", options));
}

std::shared_ptr<const model::Model> from_yaml(const std::string& yaml) {
  return io::parse_model(yaml, "by_hand.yaml");
}

std::string temporary(const std::string& name) {
  return "/tmp/appell_urdf_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temporary(name);
  std::ofstream(path) << text;
  return path;
}

/// M, f and q̈ of two models with the same coordinates agree at `states` random states.
void expect_same_dynamics(const model::Model& a_model, std::shared_ptr<const model::Model> a,
                          std::shared_ptr<const model::Model> b, int states = 5,
                          double tolerance = 1e-10) {
  ASSERT_EQ(a->dof(), b->dof());
  for (std::size_t j = 0; j < a->dof(); ++j)
    EXPECT_EQ(a->coordinates[j].name, b->coordinates[j].name);
  const num::CompiledEquations ca(principles::derive(a, principles::Method::GibbsAppell));
  const num::CompiledEquations cb(principles::derive(b, principles::Method::Lagrange));
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(-1.5, 1.5);
  const auto n = static_cast<Eigen::Index>(a_model.dof());
  for (int s = 0; s < states; ++s) {
    Eigen::VectorXd q(n), qd(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      q[j] = value(random);
      qd[j] = value(random);
    }
    Eigen::MatrixXd Ma, Mb;
    Eigen::VectorXd fa, fb;
    ca.evaluate(0.0, q, qd, Ma, fa);
    cb.evaluate(0.0, q, qd, Mb, fb);
    const double scale = 1.0 + Ma.norm() + fa.norm();
    EXPECT_LT((Ma - Mb).norm(), tolerance * scale) << "state " << s << "\n" << Ma << "\n\n" << Mb;
    EXPECT_LT((fa - fb).norm(), tolerance * scale) << "state " << s << "\n" << fa << "\n\n" << fb;
    EXPECT_LT((ca.accelerations(Ma, fa) - cb.accelerations(Mb, fb)).norm(), tolerance * scale);
  }
}

void expect_same_dynamics(std::shared_ptr<const model::Model> urdf,
                          std::shared_ptr<const model::Model> yaml, int states = 5) {
  expect_same_dynamics(*urdf, urdf, yaml, states);
}

// ----- robots in URDF and by hand -------------------------------------------------------------

// Rods hanging from a joint 2 m up, swinging about y; the lower one's inertia is given in axes
// turned by rpy (0, pi/2, 0): about the link's axes it is diag(0.1667, 0.1667, 0.001).
const char* double_pendulum_urdf = R"(<?xml version="1.0"?>
<robot name="double_pendulum">
  <link name="base"/>
  <link name="upper">
    <inertial>
      <origin xyz="0 0 -0.5" rpy="0 0 0"/>
      <mass value="1.0"/>
      <inertia ixx="0.0833" ixy="0" ixz="0" iyy="0.0833" iyz="0" izz="0.001"/>
    </inertial>
    <visual><origin xyz="0 0 -0.5"/><geometry><cylinder radius="0.02" length="1"/></geometry></visual>
  </link>
  <link name="lower">
    <inertial>
      <origin xyz="0 0 -0.5" rpy="0 1.5707963267948966 0"/>
      <mass value="2.0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.1667" iyz="0" izz="0.1667"/>
    </inertial>
    <visual><geometry><mesh filename="package://dp/meshes/missing.stl" scale="0.001 0.001 0.001"/></geometry></visual>
  </link>
  <joint name="shoulder" type="continuous">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 2"/>
    <axis xyz="0 1 0"/>
    <dynamics damping="0.1" friction="0.3"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -1"/>
    <axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/>
  </joint>
</robot>
)";

const char* double_pendulum_yaml = R"(
name: double_pendulum
coordinates: [shoulder, elbow]
frames:
  upper: {parent: world, translation: [0, 0, 2], rotation: rot_y(shoulder)}
  lower: {parent: upper, translation: [0, 0, -1], rotation: rot_y(elbow)}
bodies:
  rod1: {frame: upper, mass: 1, com: [0, 0, -0.5], inertia: [0.0833, 0.0833, 0.001, 0, 0, 0]}
  rod2: {frame: lower, mass: 2, com: [0, 0, -0.5], inertia: [0.1667, 0.1667, 0.001, 0, 0, 0]}
gravity: [0, 0, -9.81]
)";

TEST(Urdf, DoublePendulumEqualsTheModelWrittenByHand) {
  const auto urdf = from_urdf(double_pendulum_urdf);
  expect_same_dynamics(urdf, from_yaml(double_pendulum_yaml));
  // The root link is world; the other links are frames named after them, bodies LINK_body.
  ASSERT_EQ(urdf->bodies.size(), 2u);
  EXPECT_EQ(urdf->bodies[0].name, "upper_body");
  EXPECT_EQ(urdf->bodies[0].frame, "upper");
  EXPECT_EQ(urdf->frames.front().parent, "world");
  EXPECT_EQ(urdf->source, "robot.urdf");
}

// A prismatic joint whose origin turns the axes (so the slide's axis is in the turned frame),
// then a revolute joint about z; the carriage's inertia has products of inertia.
const char* prismatic_revolute_urdf = R"(<robot name="slider_arm">
  <link name="rail"/>
  <link name="carriage">
    <inertial>
      <origin xyz="0.01 0.02 0"/>
      <mass value="3"/>
      <inertia ixx="0.02" ixy="0.001" ixz="-0.002" iyy="0.03" iyz="0.0005" izz="0.025"/>
    </inertial>
  </link>
  <link name="arm">
    <inertial>
      <origin xyz="0.25 0 0"/>
      <mass value="1.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.03"/>
    </inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="rail"/><child link="carriage"/>
    <origin xyz="0.1 0 0.3" rpy="0 0 1.5707963267948966"/>
    <axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.5" effort="100" velocity="1"/>
  </joint>
  <joint name="swing" type="revolute">
    <parent link="carriage"/><child link="arm"/>
    <origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="20" velocity="2"/>
  </joint>
</robot>)";

// By hand: the carriage turned by pi/2 about z slides along the turned x, that is world y.
const char* prismatic_revolute_yaml = R"(
name: slider_arm
coordinates: [slide, swing]
frames:
  carriage: {translation: [0.1, slide, 0.3], rotation: rot_z(pi/2)}
  arm: {parent: carriage, translation: [0, 0, 0.1], rotation: rot_z(swing)}
bodies:
  c: {frame: carriage, mass: 3, com: [0.01, 0.02, 0], inertia: [0.02, 0.03, 0.025, 0.001, 0.0005, -0.002]}
  a: {frame: arm, mass: 1.5, com: [0.25, 0, 0], inertia: [0.001, 0.03, 0.03, 0, 0, 0]}
gravity: [0, 0, -9.81]
)";

TEST(Urdf, PrismaticRevoluteArmEqualsTheModelWrittenByHand) {
  const auto urdf = from_urdf(prismatic_revolute_urdf);
  expect_same_dynamics(urdf, from_yaml(prismatic_revolute_yaml));
  // The joint's origin is a frame of its own when it turns the slide's axis.
  EXPECT_TRUE(urdf->frame_index("slide_origin").has_value());
}

// A branched tree: a torso turning about z carries two arms, one through a fixed mounting link
// (fixed joints between moving ones), and a link without <inertial> between the torso and the
// right arm. Arbitrary axes: the left shoulder turns about (0.6, 0, 0.8), the right one about
// (1, 1, 0), which is not a unit vector (normalised, as URDF means it).
const char* tree_urdf = R"(<robot name="torso_two_arms">
  <link name="ground"/>
  <link name="torso">
    <inertial>
      <origin xyz="0 0 0.4"/>
      <mass value="10"/>
      <inertia ixx="0.5" ixy="0" ixz="0" iyy="0.5" iyz="0" izz="0.2"/>
    </inertial>
  </link>
  <link name="left_mount">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="left_arm">
    <inertial>
      <origin xyz="0 0.2 0" rpy="0.3 -0.2 0.5"/>
      <mass value="2"/>
      <inertia ixx="0.03" ixy="0.002" ixz="0" iyy="0.004" iyz="0.001" izz="0.03"/>
    </inertial>
  </link>
  <link name="right_bracket"/>
  <link name="right_arm">
    <inertial>
      <origin xyz="0 -0.2 0"/>
      <mass value="2"/>
      <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.03"/>
    </inertial>
  </link>
  <joint name="waist" type="continuous">
    <parent link="ground"/><child link="torso"/>
    <origin xyz="0 0 1"/>
    <axis xyz="0 0 1"/>
  </joint>
  <joint name="left_mount_joint" type="fixed">
    <parent link="torso"/><child link="left_mount"/>
    <origin xyz="0 0.3 0.8" rpy="0.1 0 0"/>
  </joint>
  <joint name="left_shoulder" type="revolute">
    <parent link="left_mount"/><child link="left_arm"/>
    <origin xyz="0 0.05 0"/>
    <axis xyz="0.6 0 0.8"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
  </joint>
  <joint name="right_bracket_joint" type="revolute">
    <parent link="torso"/><child link="right_bracket"/>
    <origin xyz="0 -0.3 0.8"/>
    <axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
  </joint>
  <joint name="right_shoulder" type="revolute">
    <parent link="right_bracket"/><child link="right_arm"/>
    <origin xyz="0 -0.05 0"/>
    <axis xyz="1 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
  </joint>
</robot>)";

// By hand, with the left arm's inertia rotated into the arm's axes numerically:
// R = Rz(0.5) Ry(-0.2) Rx(0.3), I_arm = R I R^T.
std::string tree_yaml() {
  const Eigen::Matrix3d R = (Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()) *
                             Eigen::AngleAxisd(-0.2, Eigen::Vector3d::UnitY()) *
                             Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitX()))
                                .toRotationMatrix();
  Eigen::Matrix3d I;
  I << 0.03, 0.002, 0, 0.002, 0.004, 0.001, 0, 0.001, 0.03;
  const Eigen::Matrix3d product = R * I * R.transpose();
  const Eigen::Matrix3d turned = 0.5 * (product + product.transpose());  // exactly symmetric
  std::ostringstream rows;
  rows.precision(17);
  rows << "[";
  for (int i = 0; i < 3; ++i)
    rows << (i ? ", " : "") << "[" << turned(i, 0) << ", " << turned(i, 1) << ", " << turned(i, 2)
         << "]";
  rows << "]";
  return R"Y(
name: torso_two_arms
coordinates: [waist, left_shoulder, right_bracket_joint, right_shoulder]
frames:
  torso: {translation: [0, 0, 1], rotation: rot_z(waist)}
  mount: {parent: torso, translation: [0, 0.3, 0.8], rotation: rot_x(0.1)}
  left: {parent: mount, translation: [0, 0.05, 0], rotation: "rot(0.6, 0, 0.8, left_shoulder)"}
  bracket: {parent: torso, translation: [0, -0.3, 0.8], rotation: rot_x(right_bracket_joint)}
  right: {parent: bracket, translation: [0, -0.05, 0], rotation: "rot(1, 1, 0, right_shoulder)"}
bodies:
  tb: {frame: torso, mass: 10, com: [0, 0, 0.4], inertia: [0.5, 0.5, 0.2, 0, 0, 0]}
  m: {frame: mount, mass: 0.5, inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
  l: {frame: left, mass: 2, com: [0, 0.2, 0], inertia: )Y" +
         rows.str() + R"Y(}
  r: {frame: right, mass: 2, com: [0, -0.2, 0], inertia: [0.03, 0.004, 0.03, 0, 0, 0]}
gravity: [0, 0, -9.81]
)Y";
}

TEST(Urdf, BranchedTreeWithFixedJointsAndArbitraryAxesEqualsTheModelWrittenByHand) {
  const auto urdf = from_urdf(tree_urdf);
  expect_same_dynamics(urdf, from_yaml(tree_yaml()));
  // Depth first from the root, children in the order their joints are written; fixed joints
  // and the link without inertial carry no coordinate and no body.
  ASSERT_EQ(urdf->dof(), 4u);
  EXPECT_EQ(urdf->bodies.size(), 4u);
  EXPECT_FALSE(urdf->frame_index("right_bracket_body").has_value());
}

// An n-link chain in URDF, generated, against the chain in YAML, generated.
std::string chain_urdf(int n) {
  std::ostringstream x;
  x << "<robot name=\"chain\">\n  <link name=\"base\"/>\n";
  for (int i = 1; i <= n; ++i) {
    x << "  <link name=\"link" << i << "\"><inertial><origin xyz=\"0.25 0 0\"/><mass value=\""
      << 1.0 + 0.1 * i << "\"/><inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" "
      << "izz=\"0.02\"/></inertial></link>\n";
    x << "  <joint name=\"q" << i << "\" type=\"continuous\"><parent link=\""
      << (i == 1 ? std::string("base") : "link" + std::to_string(i - 1)) << "\"/><child link=\"link"
      << i << "\"/><origin xyz=\"" << (i == 1 ? 0.0 : 0.5) << " 0 0\"/><axis xyz=\""
      << (i % 2 ? "0 0 1" : "0 1 0") << "\"/></joint>\n";
  }
  x << "</robot>\n";
  return x.str();
}

std::string chain_yaml(int n) {
  std::ostringstream y;
  y << "name: chain\ncoordinates: [";
  for (int i = 1; i <= n; ++i) y << (i > 1 ? ", " : "") << "q" << i;
  y << "]\nframes:\n";
  for (int i = 1; i <= n; ++i)
    y << "  f" << i
      << ": {parent: " << (i == 1 ? std::string("world") : "f" + std::to_string(i - 1))
      << ", translation: [" << (i == 1 ? 0.0 : 0.5)
      << ", 0, 0], rotation: " << (i % 2 ? "rot_z" : "rot_y") << "(q" << i << ")}\n";
  y << "bodies:\n";
  for (int i = 1; i <= n; ++i)
    y << "  b" << i << ": {frame: f" << i << ", mass: " << 1.0 + 0.1 * i
      << ", com: [0.25, 0, 0], inertia: [0.001, 0.02, 0.02, 0, 0, 0]}\n";
  y << "gravity: [0, 0, -9.81]\n";
  return y.str();
}

TEST(Urdf, GeneratedChainEqualsTheGeneratedModel) {
  expect_same_dynamics(from_urdf(chain_urdf(6)), from_yaml(chain_yaml(6)), 3);
}

// ----- import --------------------------------------------------------------------------------

TEST(UrdfImport, TheModelFileReadsBackAsTheSameModel) {
  for (const std::string& xml : {std::string(double_pendulum_urdf),
                                 std::string(prismatic_revolute_urdf), std::string(tree_urdf)}) {
    const io::UrdfModel translated = io::translate_urdf(xml, "robot.urdf");
    const std::string yaml = io::write_model_yaml(translated);
    const auto read_back = io::parse_model(yaml, "imported.yaml");
    const auto urdf = io::build_model(translated);
    expect_same_dynamics(*urdf, urdf, read_back, 3, 1e-12);
    ASSERT_EQ(read_back->frames.size(), urdf->frames.size());
    for (std::size_t k = 0; k < urdf->frames.size(); ++k)
      EXPECT_EQ(read_back->frames[k].name, urdf->frames[k].name);
    ASSERT_EQ(read_back->visuals.size(), urdf->visuals.size());
    for (std::size_t j = 0; j < urdf->dof(); ++j) {
      ASSERT_EQ(read_back->coordinates[j].limits.has_value(),
                urdf->coordinates[j].limits.has_value());
      if (urdf->coordinates[j].limits) {
        EXPECT_EQ(read_back->coordinates[j].limits->upper, urdf->coordinates[j].limits->upper);
      }
    }
  }
}

TEST(UrdfImport, TheFileNamesTheUrdfAndKeepsTheNumbersAsWritten) {
  const std::string yaml =
      io::write_model_yaml(io::translate_urdf(double_pendulum_urdf, "robot.urdf"));
  EXPECT_NE(yaml.find("# joint elbow, link lower (revolute)"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("inertia: [0.0833, 0.0833, 0.001, 0, 0, 0]"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("rotation: \"rot_y(pi/2)\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("limits: {lower: -2, upper: 2, velocity: 5, effort: 10}"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("mesh: {file: \"package://dp/meshes/missing.stl\""), std::string::npos)
      << yaml;
}

TEST(UrdfImport, SymbolicInertiaMakesParametersThatValuesOverride) {
  io::UrdfOptions options;
  options.symbolic_inertia = true;
  const io::UrdfModel translated = io::translate_urdf(double_pendulum_urdf, "dp.urdf", options);
  const auto model = io::build_model(translated);
  ASSERT_NE(model->find_parameter("m_upper"), nullptr);
  ASSERT_NE(model->find_parameter("Izz_lower"), nullptr);
  ASSERT_NE(model->find_parameter("cz_upper"), nullptr);
  EXPECT_EQ(model->parameters.size(), 20u);
  // At the defaults, the numeric model; the equations show the parameters.
  expect_same_dynamics(model, from_urdf(double_pendulum_urdf));
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  const std::string path = write_file("symbolic.urdf", double_pendulum_urdf);
  const auto derived = run_cli("derive " + path + " --symbolic-inertia");
  std::remove(path.c_str());
  EXPECT_EQ(derived.code, 0) << derived.out;
  EXPECT_NE(derived.out.find("m_lower"), std::string::npos) << derived.out;
  EXPECT_NE(derived.out.find("Iyy_lower"), std::string::npos) << derived.out;
  // The import writes the same parameters, and values bind to them.
  const auto read_back = io::parse_model(io::write_model_yaml(translated), "imported.yaml");
  expect_same_dynamics(model, read_back);
  model::Values heavier;
  heavier.set("m_lower", 4.0);
  const num::CompiledEquations plain(equations), changed(equations, heavier);
  Eigen::MatrixXd M1, M2;
  Eigen::VectorXd f1, f2;
  const Eigen::VectorXd q = Eigen::Vector2d(0.2, 0.4), qd = Eigen::Vector2d::Zero();
  plain.evaluate(0, q, qd, M1, f1);
  changed.evaluate(0, q, qd, M2, f2);
  EXPECT_NEAR(M2(1, 1), M1(1, 1) + 2.0 * 0.25, 1e-12);  // + Δm (0.5 m)²
}

// ----- options, names, limits, visuals, mimic ----------------------------------------------------

TEST(Urdf, GravityAndJointDampingAreOptions) {
  io::UrdfOptions options;
  options.gravity = {0, -9.81, 0};
  options.joint_damping = true;
  const auto model = from_urdf(double_pendulum_urdf, options);
  ASSERT_EQ(model->loads.size(), 1u);  // the shoulder's damping; friction is left out
  const auto& load = std::get<model::GeneralizedLoad>(model->loads[0].kind);
  EXPECT_EQ(load.coordinate, 0u);
  const num::CompiledEquations c(principles::derive(model, principles::Method::GibbsAppell));
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  c.evaluate(0, Eigen::Vector2d(0, 0), Eigen::Vector2d(2.0, 0), M, f);
  // Hanging straight down along z, gravity along y pulls at right angles: no torque about y;
  // the damping gives −0.1·2 on the shoulder.
  EXPECT_NEAR(f[0], -0.2, 1e-12);
  EXPECT_NEAR(f[1], 0.0, 1e-12);
  // Without the option, no load.
  EXPECT_TRUE(from_urdf(double_pendulum_urdf)->loads.empty());
}

TEST(Urdf, NamesAreMadeValidAndUnique) {
  const auto model = from_urdf(R"(<robot name="my-robot">
    <link name="world"/>
    <link name="t"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <link name="2nd link"/>
    <joint name="t" type="continuous"><parent link="world"/><child link="t"/><axis xyz="0 0 1"/></joint>
    <joint name="joint-2" type="prismatic"><parent link="t"/><child link="2nd link"/><axis xyz="1 0 0"/>
      <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  </robot>)");
  ASSERT_EQ(model->dof(), 2u);
  EXPECT_EQ(model->coordinates[0].name, "t_joint");  // t is reserved (time)
  EXPECT_EQ(model->coordinates[1].name, "joint_2");
  EXPECT_EQ(model->name, "my_robot");
  ASSERT_EQ(model->frames.size(), 2u);
  EXPECT_EQ(model->frames[0].name, "t_link");
  EXPECT_EQ(model->frames[1].name, "l_2nd_link");
  EXPECT_EQ(model->frames[0].parent, "world");  // the root link, here named world too
  EXPECT_EQ(model->bodies[0].name, "t_body");
}

TEST(Urdf, LimitsAreReportedAndMimicJointsWarned) {
  const io::UrdfModel translated = io::translate_urdf(R"(<robot name="gripper">
    <link name="palm"/>
    <link name="finger1"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <link name="finger2"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="f1" type="prismatic"><parent link="palm"/><child link="finger1"/><axis xyz="0 1 0"/>
      <limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>
    <joint name="f2" type="prismatic"><parent link="palm"/><child link="finger2"/><axis xyz="0 -1 0"/>
      <limit lower="0" upper="0.04" effort="20" velocity="0.2"/><mimic joint="f1"/></joint>
  </robot>)",
                                                      "gripper.urdf");
  ASSERT_EQ(translated.warnings.size(), 1u);
  EXPECT_NE(translated.warnings[0].find("f2 (mimics f1)"), std::string::npos)
      << translated.warnings[0];
  const auto model = io::build_model(translated);
  ASSERT_EQ(model->dof(), 2u);  // independent coordinates
  ASSERT_TRUE(model->coordinates[1].limits.has_value());
  EXPECT_EQ(model->coordinates[1].limits->upper, 0.04);
  EXPECT_EQ(model->coordinates[1].limits->effort, 20.0);
  EXPECT_EQ(model->coordinates[1].limits->velocity, 0.2);
}

TEST(Urdf, VisualGeometryIsKeptAndMeshesAreNeverOpened) {
  const auto model = from_urdf(double_pendulum_urdf);
  ASSERT_EQ(model->visuals.size(), 2u);
  EXPECT_EQ(model->visuals[0].shape, model::Visual::Shape::Cylinder);
  EXPECT_EQ(model->visuals[0].size[0], 0.02);
  EXPECT_EQ(model->visuals[1].shape, model::Visual::Shape::Mesh);
  EXPECT_EQ(model->visuals[1].mesh, "package://dp/meshes/missing.stl");
  EXPECT_EQ(model->visuals[1].frame, "lower");
}

TEST(ModelFile, TheFormatIsTheContentNotTheName) {
  EXPECT_EQ(io::detect_model_format("<?xml version=\"1.0\"?>\n<robot/>"), io::ModelFormat::Urdf);
  EXPECT_EQ(io::detect_model_format("\n  <robot name=\"x\"/>"), io::ModelFormat::Urdf);
  EXPECT_EQ(io::detect_model_format("name: x\ncoordinates: [q]"), io::ModelFormat::Yaml);
  // A URDF named .yaml is read as URDF, and a YAML model named .urdf as YAML.
  const std::string urdf_named_yaml = write_file("robot.yaml", double_pendulum_urdf);
  const io::ModelFile a = io::read_model(urdf_named_yaml);
  EXPECT_EQ(a.format, io::ModelFormat::Urdf);
  EXPECT_EQ(a.model->dof(), 2u);
  const std::string yaml_named_urdf = write_file("model.urdf", double_pendulum_yaml);
  EXPECT_EQ(io::read_model(yaml_named_urdf).format, io::ModelFormat::Yaml);
  std::remove(urdf_named_yaml.c_str());
  std::remove(yaml_named_urdf.c_str());
}

// ----- errors: located in the URDF, naming the joint or link ----------------------------------

struct BadUrdf {
  const char* what;
  std::string xml;
  int line;
  std::string offending;
  std::string message;  // a part of the message
};

std::string inertial(const char* mass = "1", const char* ixx = "1", const char* iyy = "1",
                     const char* izz = "1", const char* ixy = "0") {
  return std::string("<inertial><mass value=\"") + mass + "\"/><inertia ixx=\"" + ixx +
         "\" iyy=\"" + iyy + "\" izz=\"" + izz + "\" ixy=\"" + ixy +
         "\" ixz=\"0\" iyz=\"0\"/></inertial>";
}

std::vector<BadUrdf> bad_urdfs() {
  const std::string head = "<robot name=\"bad\">\n<link name=\"base\"/>\n";
  const std::string arm = "<link name=\"arm\">" + inertial() + "</link>\n";
  const std::string joint =
      "<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/><child link=\"arm\"/>"
      "<axis xyz=\"0 0 1\"/></joint>\n";
  return {
      {"malformed XML (where the parser finds it)", head + "<link name=\"arm\">\n</robot>\n", 4, "",
       "malformed XML"},
      {"not a robot", "<model name=\"x\"/>", 1, "model", "not a URDF"},
      {"a joint naming a missing link",
       head + arm +
           "<joint name=\"j\" type=\"fixed\">\n<parent link=\"base\"/>\n<child link=\"hand\"/>"
           "</joint>\n</robot>",
       6, "hand", "joint 'j' names the child link 'hand', which is not defined"},
      {"a cycle",
       head + arm + "<link name=\"b\"/>\n" + joint +
           "<joint name=\"k\" type=\"fixed\"><parent link=\"arm\"/><child link=\"b\"/></joint>\n"
           "<joint name=\"back\" type=\"fixed\"><parent link=\"b\"/><child link=\"arm\"/>"
           "</joint>\n</robot>",
       7, "arm", "child of two joints"},
      {"a closed cycle",
       "<robot name=\"c\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
       "<joint name=\"ab\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n"
       "<joint name=\"ba\" type=\"fixed\"><parent link=\"b\"/><child link=\"a\"/></joint>\n"
       "</robot>",
       5, "ba", "closes a cycle of links (a, b)"},
      {"two roots", head + arm + "<link name=\"tool\"/>\n" + joint + "</robot>", 4, "tool",
       "two root links, 'base' and 'tool'"},
      {"a non-positive mass",
       head +
           "<link name=\"arm\">\n<inertial>\n<mass value=\"0\"/><inertia ixx=\"1\" iyy=\"1\" "
           "izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\n</inertial></link>\n" +
           joint + "</robot>",
       5, "arm", "mass must be positive"},
      {"an inertia that is not positive definite",
       head + "<link name=\"arm\">" + inertial() + "\n</link>\n" + "<link name=\"b\">\n" +
           inertial("1", "1", "-1", "1") + "</link>\n" + joint +
           "<joint name=\"k\" type=\"fixed\"><parent link=\"arm\"/><child link=\"b\"/></joint>\n"
           "</robot>",
       6, "b", "inertia is not positive semi-definite"},
      // Turning about x: Izz > Ixx + Iyy is no planar body's (about z alone it would be).
      {"an inertia that breaks the triangle inequality",
       head + "<link name=\"arm\">\n" + inertial("1", "1", "1", "3") + "</link>\n" +
           "<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/><child "
           "link=\"arm\"/><axis xyz=\"1 0 0\"/></joint>\n</robot>",
       4, "arm", "triangle inequality"},
      {"a zero axis",
       head + arm +
           "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>\n"
           "<axis xyz=\"0 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
           "</joint>\n</robot>",
       5, "j", "<axis> is zero"},
      {"a floating joint",
       head + arm +
           "<joint name=\"free\" type=\"floating\"><parent link=\"base\"/><child link=\"arm\"/>"
           "</joint>\n</robot>",
       4, "free", "joint type 'floating' is not supported"},
      {"a planar joint",
       head + arm +
           "<joint name=\"flat\" type=\"planar\"><parent link=\"base\"/><child link=\"arm\"/>"
           "</joint>\n</robot>",
       4, "flat", "joint type 'planar' is not supported"},
      {"an unknown joint type",
       head + arm +
           "<joint name=\"ball\" type=\"spherical\"><parent link=\"base\"/><child link=\"arm\"/>"
           "</joint>\n</robot>",
       4, "ball", "unknown joint type 'spherical'"},
      {"what urdfdom rejects: a revolute joint without limits",
       head + arm +
           "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
           "<axis xyz=\"0 0 1\"/></joint>\n</robot>",
       4, "j", "urdfdom cannot read the robot"},
      {"a link named twice", head + "<link name=\"base\"/>\n</robot>", 3, "base",
       "link defined twice"},
      // Located at the <robot>, not the builder's unlocated "no coordinate" (a fuzz finding).
      {"no moving joint", head + "</robot>", 1, "bad", "has no joint that moves"},
      {"only fixed joints",
       head + arm +
           "<joint name=\"weld\" type=\"fixed\"><parent link=\"base\"/><child link=\"arm\"/>"
           "</joint>\n</robot>",
       1, "bad", "has no joint that moves"},
  };
}

TEST(UrdfErrors, EachIsLocatedAndNamesTheJointOrLink) {
  for (const auto& bad : bad_urdfs()) {
    try {
      from_urdf(bad.xml);
      ADD_FAILURE() << bad.what << ": no error";
    } catch (const model::ModelError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(bad.message), std::string::npos) << bad.what << ": " << what;
      if (bad.line > 0) {
        { EXPECT_EQ(e.where().file, "robot.urdf") << bad.what << ": " << what; }
        EXPECT_EQ(e.where().line, bad.line) << bad.what << ": " << what;
      }
      if (!bad.offending.empty()) {
        EXPECT_EQ(e.offending(), bad.offending) << bad.what << ": " << what;
      }
    }
  }
}

TEST(UrdfErrors, TheCommandLineExitsTwoWithTheFileAndLine) {
  for (const auto& bad : bad_urdfs()) {
    const std::string path = write_file("bad.urdf", bad.xml);
    for (const std::string& command : {std::string("eval"), std::string("import")}) {
      const auto r = run_cli(command + " " + path);
      EXPECT_EQ(r.code, 2) << bad.what << ": " << r.out;
      if (bad.line > 0) {
        EXPECT_NE(r.out.find(path + ":" + std::to_string(bad.line) + ":"), std::string::npos)
            << bad.what << ": " << r.out;
      }
      EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
    }
    std::remove(path.c_str());
  }
}

// ----- the command line --------------------------------------------------------------------

TEST(UrdfCli, EveryCommandReadsAUrdf) {
  const std::string path = write_file("dp.urdf", double_pendulum_urdf);
  const std::string out = temporary("out");
  for (const std::string& args :
       {"derive " + path, "derive " + path + " --format latex --symbolic-inertia",
        "verify " + path + " --states 2", "eval " + path + " --q 0.1,0.2 --json",
        "simulate " + path + " --t-end 0.01 --out " + out + ".csv",
        "inverse " + path +
            " --trajectory 'shoulder=t; elbow=0' --t-end 0.01 --output-step 0.01 --out " + out +
            ".csv",
        "statics " + path + " --json", "codegen " + path + " --out " + out + ".hpp"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  }
  for (const char* suffix : {".hpp", ".csv"}) std::remove((out + suffix).c_str());
  std::remove(path.c_str());
}

TEST(UrdfCli, ImportThenEvalEqualsEvalOfTheUrdf) {
  const std::string path = write_file("tree.urdf", tree_urdf);
  const std::string yaml = temporary("tree.yaml");
  for (const std::string& flags :
       {std::string(), std::string(" --symbolic-inertia --joint-damping --gravity 0,1,-9")}) {
    const auto imported = run_cli("import " + path + " --out " + yaml + flags);
    ASSERT_EQ(imported.code, 0) << imported.out;
    const std::string state = " --q 0.1,-0.2,0.3,0.4 --qd 1,0.5,-0.5,2 --json";
    const auto from_yaml = run_cli("eval " + yaml + state);
    const auto from_urdf = run_cli("eval " + path + state + flags);
    ASSERT_EQ(from_yaml.code, 0) << from_yaml.out;
    EXPECT_EQ(from_yaml.out, from_urdf.out);
    EXPECT_NE(from_yaml.out.find("\"coordinates\":[\"waist\",\"left_shoulder\","),
              std::string::npos)
        << from_yaml.out;
    EXPECT_NE(from_yaml.out.find("\"limits\":{\"left_shoulder\":"), std::string::npos)
        << from_yaml.out;
  }
  // Options that belong to a URDF are refused for a YAML model; import never replaces its input.
  const auto refused = run_cli("eval " + yaml + " --gravity 0,0,-1");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("--gravity"), std::string::npos) << refused.out;
  const auto clobber = run_cli("import " + path + " --out " + path);
  EXPECT_EQ(clobber.code, 2);
  EXPECT_NE(clobber.out.find("--out"), std::string::npos) << clobber.out;
  const auto gravity = run_cli("eval " + path + " --gravity 0,0");
  EXPECT_EQ(gravity.code, 2);
  EXPECT_NE(gravity.out.find("--gravity"), std::string::npos) << gravity.out;
  std::remove(path.c_str());
  std::remove(yaml.c_str());
}

TEST(UrdfCli, VerifyReportsTheLimits) {
  const std::string path = write_file("limits.urdf", double_pendulum_urdf);
  const auto r = run_cli("verify " + path + " --states 2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("limits (reported, not enforced):\n  elbow: -2 <= elbow <= 2, "
                       "|dot(elbow)| <= 5, |Q_elbow| <= 10\n"),
            std::string::npos)
      << r.out;
  std::remove(path.c_str());
}

TEST(UrdfCli, MimicJointsAreWarnedAbout) {
  const std::string path = write_file("mimic.urdf", R"(<robot name="g">
    <link name="palm"/>
    <link name="a"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <link name="b"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="fa" type="continuous"><parent link="palm"/><child link="a"/></joint>
    <joint name="fb" type="continuous"><parent link="palm"/><child link="b"/><mimic joint="fa" multiplier="-1"/></joint>
  </robot>)");
  const auto r = run_cli("eval " + path + " --json");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fb (mimics fa)"), std::string::npos) << r.out;
  std::remove(path.c_str());
}

// ----- the real robots of examples/urdf ------------------------------------------------------

TEST(UrdfExamples, RealRobotsReadEvaluateAndImport) {
  const std::string folder = std::string(APPELL_EXAMPLES_DIR) + "/urdf/";
  const std::pair<const char*, std::size_t> robots[] = {
      {"ur5_robot.urdf", 6}, {"panda.urdf", 9}, {"simple_humanoid.urdf", 29}};
  for (const auto& [file, dof] : robots) {
    const io::ModelFile read = io::read_model(folder + file);
    ASSERT_EQ(read.format, io::ModelFormat::Urdf);
    ASSERT_EQ(read.model->dof(), dof) << file;
    // Meshes are named, never opened (simple_humanoid has <collision> geometry only).
    EXPECT_EQ(read.model->visuals.empty(), dof == 29) << file;
    // The model file `import` writes is the same model.
    const io::UrdfImport imported = io::import_urdf(folder + file);
    EXPECT_EQ(imported.warnings, read.warnings) << file;
    expect_same_dynamics(*read.model, read.model, io::parse_model(imported.yaml, "imported.yaml"),
                         2, 1e-12);
  }
  // The Panda's second finger mimics the first: warned about, read as a coordinate.
  EXPECT_EQ(io::read_model(folder + "panda.urdf").warnings.size(), 1u);
}

// ----- scale: a 40-coordinate humanoid tree with many fixed joints -----------------------------

/// A humanoid-like tree: pelvis fixed to the world; a torso chain (3), two arms (7 each), a head
/// (2), two legs (6 each), two hands of 4 fingers (1 each): 3 + 14 + 2 + 12 + 8 = 39, plus a
/// waist: 40 coordinates; every limb starts with a fixed mounting link without inertia and ends
/// with a fixed sensor frame.
std::string humanoid_urdf() {
  std::ostringstream x;
  int joints = 0;
  x << "<robot name=\"humanoid40\">\n<link name=\"pelvis\">" << inertial("8", "0.1", "0.1", "0.1")
    << "</link>\n";
  auto link = [&](const std::string& name, bool massive) {
    x << "<link name=\"" << name << "\">"
      << (massive ? inertial("1.2", "0.01", "0.012", "0.008") : "") << "</link>\n";
  };
  auto joint = [&](const std::string& name, const char* type, const std::string& parent,
                   const std::string& child, const char* xyz, const char* rpy, const char* axis) {
    x << "<joint name=\"" << name << "\" type=\"" << type << "\"><parent link=\"" << parent
      << "\"/><child link=\"" << child << "\"/><origin xyz=\"" << xyz << "\" rpy=\"" << rpy
      << "\"/><axis xyz=\"" << axis << "\"/>"
      << (std::string(type) == "revolute"
              ? "<limit lower=\"-2\" upper=\"2\" effort=\"100\" velocity=\"5\"/>"
              : "")
      << "</joint>\n";
    if (std::string(type) != "fixed") ++joints;
  };
  const char* axes[] = {"0 0 1", "0 1 0", "1 0 0"};
  auto limb = [&](const std::string& name, const std::string& parent, int n, const char* mount_xyz,
                  const char* mount_rpy) {
    link(name + "_mount", false);
    joint(name + "_mount_joint", "fixed", parent, name + "_mount", mount_xyz, mount_rpy, "1 0 0");
    std::string previous = name + "_mount";
    for (int i = 1; i <= n; ++i) {
      const std::string child = name + "_" + std::to_string(i);
      link(child, true);
      joint(child + "_joint", "revolute", previous, child, i == 1 ? "0 0 0" : "0 0 -0.2", "0 0 0",
            axes[i % 3]);
      previous = child;
    }
    link(name + "_sensor", false);
    joint(name + "_sensor_joint", "fixed", previous, name + "_sensor", "0 0 -0.05", "0 0 0",
          "1 0 0");
    return previous;
  };
  link("waist", true);
  joint("waist_joint", "continuous", "pelvis", "waist", "0 0 0.1", "0 0 0", "0 0 1");
  const std::string chest = limb("torso", "waist", 3, "0 0 0.1", "0 0 0");
  const std::string left_hand = limb("left_arm", chest, 7, "0 0.2 0.3", "1.5707963267948966 0 0");
  const std::string right_hand =
      limb("right_arm", chest, 7, "0 -0.2 0.3", "-1.5707963267948966 0 0");
  limb("head", chest, 2, "0 0 0.4", "0 0 0");
  limb("left_leg", "pelvis", 6, "0 0.1 -0.1", "0 0 0");
  limb("right_leg", "pelvis", 6, "0 -0.1 -0.1", "0 0 0");
  for (const auto& hand : {left_hand, right_hand})
    for (int f = 1; f <= 4; ++f)
      limb(hand + "_finger" + std::to_string(f), hand, 1, "0 0 -0.1", "0 0 0.3");
  x << "</robot>\n";
  EXPECT_EQ(joints, 40);
  return x.str();
}

TEST(UrdfScale, AFortyCoordinateHumanoidDerivesEvaluatesAndGeneratesCode) {
  const auto start = std::chrono::steady_clock::now();
  const auto model = from_urdf(humanoid_urdf());
  ASSERT_EQ(model->dof(), 40u);
  const auto equations = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations compiled(equations);
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(40, 0.1), qd = Eigen::VectorXd::Zero(40);
  Eigen::MatrixXd M;
  Eigen::VectorXd f;
  compiled.evaluate(0.0, q, qd, M, f);
  EXPECT_TRUE(M.allFinite());
  EXPECT_LT((M - M.transpose()).norm(), 1e-9 * M.norm());
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M).info(), Eigen::Success);
  const std::string header = codegen::generate_cpp_header(equations);
  EXPECT_NE(header.find("inverse_dynamics"), std::string::npos);
  // Speed lives in bench/ (bench_urdf); this only shows the path is the shared-DAG one.
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace
