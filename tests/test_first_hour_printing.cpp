// Equations that read like a textbook's (issue 30, item 2): decimals from URDF and model files
// printed as decimals, URDF angles within 1e-9 of a multiple of pi/12 read as that multiple
// (--exact-angles keeps them as written), names with underscores typeset as whole words.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <regex>
#include <string>

#include "appell/io/equation_writer.hpp"
#include "appell/io/model_file.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/model/expression_parser.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/time_functions.hpp"
#include "support/run_cli.hpp"

namespace appell {
namespace {

using GiNaC::ex;
using GiNaC::numeric;

const std::string kUr5 = std::string(APPELL_EXAMPLES_DIR) + "/urdf/ur5_robot.urdf";

/// The exact rational the model language reads `text` as.
ex read_back(const std::string& text) {
  model::ExpressionScope scope{std::make_shared<sym::TimeFunctions>()};
  return model::parse_expression(text, scope, model::locate_on_one_line({"e.yaml", 1, 1}));
}

// -- decimals -----------------------------------------------------------------------------------

// A rational whose denominator is 2^a 5^b (at least 10, with a 5) is the decimal it equals, and
// reads back as the same rational; 1/2, 2/5 and 1/12 of the formulas stay fractions.
TEST(FirstHourPrinting, DecimalsPrintAsDecimalsAndReadBackExactly) {
  const sym::ReadableContext context;
  const std::vector<std::pair<numeric, std::string>> cases = {
      {numeric(981, 100), "9.81"},
      {numeric(110833289, 25000000000LL), "0.00443333156"},
      {numeric(1197, 10000), "0.1197"},
      {numeric(17, 40), "0.425"},
      {numeric(-1569, 4000), "-0.39225"},
      {numeric(123456789, 100), "1234567.89"},
      {numeric(1, 10000), "0.0001"},
      {numeric(3, 100000), "3e-5"},
      {numeric(4896619, 1000000) / numeric(10).power(12), "4.896619e-12"},
      {numeric(1, 2), "1/2"},
      {numeric(2, 5), "2/5"},
      {numeric(1, 12), "1/12"},
      {numeric(3, 16), "3/16"},
      {numeric(7, 30), "7/30"},
  };
  for (const auto& [value, text] : cases) {
    EXPECT_EQ(io::expression_text(value, context), text);
    EXPECT_TRUE(read_back(io::expression_text(value, context)).is_equal(value)) << text;
  }
  EXPECT_EQ(io::expression_latex(numeric(981, 100), context), "9.81");
  EXPECT_EQ(io::expression_latex(numeric(3, 100000), context), "3 \\cdot 10^{-5}");
  EXPECT_EQ(io::expression_latex(numeric(1, 2), context), "\\frac{1}{2}");
}

// The UR5's derived equations: its inertias (0.00443333156), lengths and g as written, no
// 12-digit fractions, and no 4.9e-12 terms from pi/2 written as 1.57079632679.
TEST(FirstHourPrinting, Ur5DeriveHasNoLongFractionsAndNoRoundingTerms) {
  const std::regex long_fraction("[0-9]{9,}/[0-9]|\\\\frac\\{[0-9]{9,}\\}");
  const std::regex rounding("e-1[0-9]|10\\^\\{-1[0-9]\\}");
  for (const std::string format : {"text", "latex"}) {
    SCOPED_TRACE(format);
    const auto run = test_support::run_cli("derive " + kUr5 + " --format " + format);
    ASSERT_EQ(run.code, 0) << run.out;
    EXPECT_FALSE(std::regex_search(run.out, long_fraction)) << run.out;
    EXPECT_FALSE(std::regex_search(run.out, rounding)) << run.out;
    EXPECT_NE(run.out.find("9.81"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("0.1197"), std::string::npos) << run.out;
  }
  // As written, pi/2 to eleven digits leaves its cosine, 4.9e-12, in the rotations.
  const auto exact = test_support::run_cli("derive " + kUr5 + " --exact-angles");
  ASSERT_EQ(exact.code, 0) << exact.out;
  EXPECT_NE(exact.out.find("e-12"), std::string::npos) << exact.out;
}

// -- angles -------------------------------------------------------------------------------------

std::string two_link(const std::string& rpy) {
  return R"(<robot name="two_link">
  <link name="base"/>
  <link name="upper_arm">
    <inertial><origin xyz="0 0 -0.25"/><mass value="1"/>
      <inertia ixx="0.0052" ixy="0" ixz="0" iyy="0.0052" iyz="0" izz="0.0001"/></inertial>
  </link>
  <link name="fore_arm">
    <inertial><origin xyz="0 0 -0.25"/><mass value="0.5"/>
      <inertia ixx="0.0026" ixy="0" ixz="0" iyy="0.0026" iyz="0" izz="0.00005"/></inertial>
  </link>
  <joint name="shoulder_lift_joint" type="continuous">
    <parent link="base"/><child link="upper_arm"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="elbow_joint" type="continuous">
    <parent link="upper_arm"/><child link="fore_arm"/>
    <origin xyz="0 0 -0.5" rpy=")" +
         rpy + R"("/><axis xyz="0 1 0"/>
  </joint>
</robot>)";
}

std::string rotation_of(const io::UrdfModel& urdf, const std::string& frame) {
  for (const auto& f : urdf.frames)
    if (f.name == frame) return f.rotation;
  return "(no frame " + frame + ")";
}

// Within 1e-9 of a multiple of pi/12 is that multiple; further away, or with exact_angles, the
// number as written (the double nearest to the multiple, xacro's ${pi/2}, is the multiple both
// ways).
TEST(FirstHourPrinting, AnglesNearMultiplesOfPiOver12Snap) {
  io::UrdfOptions exact;
  exact.exact_angles = true;
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"0 1.57079632679 0", "rot_y(pi/2)", "rot_y(1.57079632679)"},
      {"0 0 -3.14159265359", "rot_z(-pi)", "rot_z(-3.14159265359)"},
      {"0.523598775598 0 0", "rot_x(pi/6)", "rot_x(0.523598775598)"},
      {"0 0 1.5707963267948966", "rot_z(pi/2)", "rot_z(pi/2)"},
      {"0 1.5708 0", "rot_y(1.5708)", "rot_y(1.5708)"},
      {"0 1.570796325 0", "rot_y(1.570796325)", "rot_y(1.570796325)"},  // 1.8e-9 away
  };
  for (const auto& [rpy, snapped, written] : cases) {
    SCOPED_TRACE(rpy);
    // A revolute joint's frame: the origin's rotation, then the joint's.
    EXPECT_EQ(rotation_of(io::translate_urdf(two_link(rpy), "two_link.urdf"), "fore_arm"),
              snapped + "*rot_y(elbow_joint)");
    EXPECT_EQ(rotation_of(io::translate_urdf(two_link(rpy), "two_link.urdf", exact), "fore_arm"),
              written + "*rot_y(elbow_joint)");
  }
}

// Snapping changes the robot by no more than the digits it was written with: the UR5's mass
// matrix and forcing, snapped and as written, agree to 1e-9 at a state, and differ (the test
// would see a model that ignored the option).
TEST(FirstHourPrinting, SnappedUr5AgreesWithTheWrittenOneToItsDigits) {
  io::UrdfOptions exact;
  exact.exact_angles = true;
  const auto snapped = io::read_model(kUr5).model;
  const auto written = io::read_model(kUr5, exact).model;
  const auto a = principles::derive(snapped, principles::Method::GibbsAppell);
  const auto b = principles::derive(written, principles::Method::GibbsAppell);
  const num::CompiledEquations ca(a), cb(b);
  Eigen::VectorXd q(6), v(6);
  q << 0.3, -0.7, 1.1, 0.4, -0.2, 0.9;
  v << 0.5, 0.1, -0.3, 0.8, -0.6, 0.2;
  Eigen::MatrixXd Ma, Mb;
  Eigen::VectorXd fa, fb;
  ca.evaluate(0.0, q, v, Ma, fa);
  cb.evaluate(0.0, q, v, Mb, fb);
  const double dM = (Ma - Mb).cwiseAbs().maxCoeff(), df = (fa - fb).cwiseAbs().maxCoeff();
  EXPECT_LT(dM, 1e-9 * (1 + Ma.cwiseAbs().maxCoeff()));
  EXPECT_LT(df, 1e-9 * (1 + fa.cwiseAbs().maxCoeff()));
  EXPECT_GT(dM + df, 0.0);
}

// The command line's --exact-angles (a URDF option; refused for a model file), seen in import.
TEST(FirstHourPrinting, CommandLineExactAnglesKeepsThemAsWritten) {
  const auto snapped = test_support::run_cli("import " + kUr5);
  ASSERT_EQ(snapped.code, 0) << snapped.out;
  EXPECT_NE(snapped.out.find("rot_y(pi/2)"), std::string::npos) << snapped.out;
  EXPECT_EQ(snapped.out.find("1.57079632679"), std::string::npos) << snapped.out;
  const auto written = test_support::run_cli("import " + kUr5 + " --exact-angles");
  ASSERT_EQ(written.code, 0) << written.out;
  EXPECT_NE(written.out.find("rot_y(1.57079632679)"), std::string::npos) << written.out;

  const auto yaml = test_support::run_cli("derive " + std::string(APPELL_EXAMPLES_DIR) +
                                          "/double_pendulum.yaml --exact-angles");
  EXPECT_EQ(yaml.code, 2) << yaml.out;
  EXPECT_NE(yaml.out.find("--exact-angles"), std::string::npos) << yaml.out;
}

// -- names --------------------------------------------------------------------------------------

TEST(FirstHourPrinting, NamesWithWordsAfterUnderscoresAreOneWord) {
  EXPECT_EQ(sym::latex_identifier("shoulder_lift_joint"), "\\mathrm{shoulder\\_lift\\_joint}");
  EXPECT_EQ(sym::latex_identifier("m_base"), "\\mathrm{m\\_base}");
  EXPECT_EQ(sym::latex_identifier("lambda_roll_x"), "\\mathrm{lambda\\_roll\\_x}");
  // A letter (or Greek name) with short subscripts keeps the subscript.
  EXPECT_EQ(sym::latex_identifier("q_1"), "q_{1}");
  EXPECT_EQ(sym::latex_identifier("theta_2"), "\\theta_{2}");
  EXPECT_EQ(sym::latex_identifier("M_S"), "M_{S}");
  EXPECT_EQ(sym::latex_identifier("R_3_11"), "R_{3,11}");
  EXPECT_EQ(sym::latex_identifier("omega_3x"), "\\omega_{3x}");
  EXPECT_EQ(sym::latex_identifier("x_alpha"), "x_{alpha}");
  EXPECT_EQ(sym::latex_identifier("q12"), "q_{12}");
  // Dots go over the whole word, over the stem of a subscripted name.
  EXPECT_EQ(sym::TimeFunctions::latex_name("shoulder_lift_joint", 1),
            "\\dot{\\mathrm{shoulder\\_lift\\_joint}}");
  EXPECT_EQ(sym::TimeFunctions::latex_name("theta_2", 2), "\\ddot{\\theta}_{2}");
}

// The UR5's LaTeX: joints as words, never "shoulder" with the subscript "lift,joint".
TEST(FirstHourPrinting, Ur5LatexTypesetsJointNamesAsWords) {
  const auto run = test_support::run_cli("derive " + kUr5 + " --format latex");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("\\mathrm{shoulder\\_lift\\_joint}"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\\ddot{\\mathrm{wrist\\_3\\_joint}}"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("}_{lift"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("_{lift,joint}"), std::string::npos) << run.out;
}

// -- the equations did not change ---------------------------------------------------------------

// verify still proves every principle equal (or in agreement at random states) on the snapped
// robots: the decimals and snapped angles are exact values the principles share.
TEST(FirstHourPrinting, VerifyStillAgrees) {
  for (const std::string& model :
       {kUr5, std::string(APPELL_EXAMPLES_DIR) + "/urdf/two_link.urdf"}) {
    SCOPED_TRACE(model);
    const auto run = test_support::run_cli("verify " + model);
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_TRUE(run.out.find("No row differs") != std::string::npos ||
                run.out.find("methods give the same equations") != std::string::npos)
        << run.out;
  }
}

// Constraint forces and rows by name, their signs taken out (issue: "(1)*lambda_roll_x",
// "\left(1\right) \lambda_{1}", "\ddot{q}_{1}"): the rolling disk's two rolling conditions.
TEST(FirstHourPrinting, ConstraintForcesAndRowsReadByName) {
  const std::string disk = std::string(APPELL_EXAMPLES_DIR) + "/rolling_disk.yaml";
  const auto text = test_support::run_cli("derive " + disk);
  const auto latex = test_support::run_cli("derive " + disk + " --format latex");
  ASSERT_EQ(text.code, 0) << text.out;
  ASSERT_EQ(latex.code, 0) << latex.out;
  for (const char* noise : {"(1)*", "+ (-", "ddot(q"})
    EXPECT_EQ(text.out.find(noise), std::string::npos) << noise << "\n" << text.out;
  EXPECT_NE(text.out.find(" - r*cos(psi)*lambda_roll_x - r*sin(psi)*lambda_roll_y\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  roll_x: ddot(x) - r*cos(psi)*ddot(phi) = "), std::string::npos)
      << text.out;
  for (const char* noise : {"\\left(1\\right)", "\\lambda_{1}", "\\ddot{q}_{", "+ \\left(-"})
    EXPECT_EQ(latex.out.find(noise), std::string::npos) << noise << "\n" << latex.out;
  EXPECT_NE(latex.out.find("- r \\cos\\left(\\psi\\right) \\lambda_{\\mathrm{roll}_{x}}"),
            std::string::npos)
      << latex.out;
  EXPECT_NE(latex.out.find("\\ddot{x} - r \\cos\\left(\\psi\\right) \\ddot{\\phi} &= "),
            std::string::npos)
      << latex.out;
}

}  // namespace
}  // namespace appell
