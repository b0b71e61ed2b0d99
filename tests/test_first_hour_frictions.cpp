// The first hour, second round (issue 43): what got in a new user's way, each with the exact
// message or output it now gives. Did-you-mean by case as well as spelling; a misspelt option
// named before what it left missing; `**` answered with `^`; eval's numbers without rounding
// noise; codegen saying which method wrote which function; docs that show what the tool prints.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/printed_numbers.hpp"
#include "appell/model/closest_name.hpp"
#include "appell/principles/derive.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace appell {
namespace {

using test_support::run_cli;

const std::string kExamples = APPELL_EXAMPLES_DIR;
const std::string kTurntable = kExamples + "/turntable_pendulum.yaml";  // parameters m a l g omega
const std::string kCart = kExamples + "/spring_damper_cart.yaml";       // input u, parameter mc
const std::string kPendulum = kExamples + "/double_pendulum.yaml";

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string doc(const std::string& name) {
  return file_text(std::string(APPELL_SOURCE_DIR) + "/" + name);
}

class FirstHourFrictions : public test_support::ScratchDirTest {};

// -- did you mean -------------------------------------------------------------------------------

// "L" is one edit from every one-letter name; before, the first of them won ('M', 'm').
TEST(FirstHourClosestName, ANameDifferingOnlyInCaseWins) {
  EXPECT_EQ(model::closest_name("L", {"m", "a", "l", "g", "omega"}), "l");
  EXPECT_EQ(model::closest_name("L", {"M", "m", "l"}), "l");
  EXPECT_EQ(model::closest_name("m", {"g", "M"}), "M");
  // Of several, the fewest letters changed.
  EXPECT_EQ(model::closest_name("T_END", {"t_end", "T_end"}), "T_end");
  EXPECT_EQ(model::did_you_mean("L", {"m", "l"}), "; did you mean 'l'?");
}

TEST(FirstHourClosestName, SpellingIsJudgedWithCaseIgnored) {
  EXPECT_EQ(model::closest_name("Sim", {"simulate", "statics"}), "simulate");  // the one it begins
  EXPECT_EQ(model::closest_name("MCC", {"m", "mc", "k"}), "mc");
  EXPECT_EQ(model::closest_name("--T-End", {"--t-end", "--out"}), "--t-end");
  EXPECT_EQ(model::closest_name("dervie", {"derive", "eval"}), "derive");
  // Nothing kept of a name is no evidence it was meant: "x" suggests no one-letter name.
  EXPECT_EQ(model::closest_name("x", {"m", "a"}), "");
  EXPECT_EQ(model::did_you_mean("x", {"m", "a"}), "");
  EXPECT_EQ(model::closest_name("l", {"l"}), "");  // the name itself is never its own suggestion
}

TEST_F(FirstHourFrictions, SetGridInputOptionsAndKeysSuggestTheNameInAnotherCase) {
  auto run = run_cli("eval " + kTurntable + " --set L=2");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out,
            "--set: unknown name: not a parameter, input or unspecified prescribed function; did "
            "you mean 'l'? (L)\n");

  run =
      run_cli("sweep " + kTurntable + " --grid L=1,2 --t-end 1 --out " + (dir_ / "x.h5").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out,
            "--grid: unknown column: the model has no parameter 'L'; did you mean 'l'? "
            "(L=1,2)\n");

  run =
      run_cli("simulate " + kCart + " --t-end 0.1 --input U=1 --out " + (dir_ / "s.csv").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out,
            "--input: unknown name: not a parameter, input or unspecified prescribed function; "
            "did you mean 'u'? (U)\n");

  run = run_cli("eval " + kCart + " --set MC=3");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.out.find("; did you mean 'mc'? (MC)"), std::string::npos) << run.out;

  run = run_cli("simulate " + kCart + " --T-end 0.1 --out " + (dir_ / "s.csv").string());
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out.substr(0, run.out.find('\n')),
            "appell simulate: unknown option '--T-end'; did you mean '--t-end'?");

  const std::string model = write("k.yaml",
                                  "name: k\ncoordinates: [q]\nGravity: [0, -1, 0]\n"
                                  "frames:\n  f: {parent: world, rotation: rot_z(q)}\n"
                                  "particles:\n  p: {frame: f, mass: 1, position: [1, 0, 0]}\n");
  run = run_cli("eval " + model);
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.out.find(model + ":3:1: unknown key in the model;"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("; did you mean 'gravity'? (Gravity)\n"), std::string::npos) << run.out;
}

// -- a misspelt required option -----------------------------------------------------------------

// CLI11 checks what is required before what is left over: `--tend 5` used to read
// "--t-end is required", and the misspelling was named only once --t-end was given too.
TEST_F(FirstHourFrictions, AMisspeltRequiredOptionIsNamedBeforeWhatItLeftMissing) {
  const std::string expected =
      "appell simulate: unknown option '--tend'; did you mean '--t-end'?\n"
      "Usage: appell simulate [OPTIONS] MODEL\n"
      "  --t-end TEXT REQUIRED       end time (the simulation starts at t = 0)\n"
      "Run 'appell simulate --help' for all its options.\n";
  const std::string out = (dir_ / "a.csv").string();
  for (const std::string& args :
       std::vector<std::string>{" --tend 5", " --tend=5", " --tend 5 --out " + out,
                                " --out " + out + " --t-end 1 --tend 5"}) {
    SCOPED_TRACE(args);
    const auto run = run_cli("simulate " + kTurntable + args);
    EXPECT_EQ(run.code, 2);
    EXPECT_EQ(run.out, expected);
  }
  // With nothing misspelt, what is missing is what is reported.
  const auto missing = run_cli("simulate " + kTurntable + " --out " + out);
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.out.substr(0, missing.out.find('\n')), "appell simulate: --t-end is required");
}

// -- ** for a power -----------------------------------------------------------------------------

TEST_F(FirstHourFrictions, PythonsPowerGetsTheModelLanguagesSpelling) {
  const std::string model = write("p.yaml",
                                  "name: p\ncoordinates: [q]\nparameters: {m: 1}\n"
                                  "particles:\n  p: {frame: f, mass: m**2, position: [1, 0, 0]}\n"
                                  "frames:\n  f: {parent: world, rotation: rot_z(q)}\n");
  const auto run = run_cli("eval " + model);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.out, model +
                         ":5:24: syntax error: expected a number, a name or '('; write ^ for a "
                         "power (**)\n");
  // Two products apart are no power: the message without the hint.
  const std::string apart = write("q.yaml",
                                  "name: q\ncoordinates: [q]\nparameters: {m: 1}\n"
                                  "particles:\n  p: {frame: f, mass: m* *2, position: [1, 0, 0]}\n"
                                  "frames:\n  f: {parent: world, rotation: rot_z(q)}\n");
  const auto other = run_cli("eval " + apart);
  EXPECT_EQ(other.code, 2);
  EXPECT_EQ(other.out, apart + ":5:26: syntax error: expected a number, a name or '(' (*)\n");
}

// -- rounding noise -----------------------------------------------------------------------------

TEST(FirstHourPrintedNumbers, NoiseIsZeroBesideTheLargestOfItsQuantity) {
  num::StateEvaluation state;
  state.q = Eigen::Vector2d(0.1, 0.2);
  state.qd = Eigen::Vector2d(-3e-17, 0.0);  // given, never cleaned
  state.mass_matrix = Eigen::Matrix2d{{2.0, 4e-16}, {4e-16, 1.0}};
  state.forcing = Eigen::Vector2d(5.0, -1e-15);
  state.qdd = Eigen::Vector2d(1e-3, -0.0);
  const num::StateEvaluation clean = io::without_rounding_noise(state);
  EXPECT_EQ(clean.mass_matrix, (Eigen::Matrix2d{{2.0, 0.0}, {0.0, 1.0}}));
  EXPECT_EQ(clean.forcing, Eigen::Vector2d(5.0, 0.0));
  EXPECT_EQ(clean.qdd[0], 1e-3);  // small, but the largest of q̈: kept
  EXPECT_FALSE(std::signbit(clean.qdd[1]));
  EXPECT_EQ(clean.qd, state.qd);

  // Reactions: forces and moments as one table, so that moments that are all noise read 0.
  std::vector<num::Reaction> reactions(2);
  reactions[0] = {"a", Eigen::Vector3d(-7.05, 6.85, 0.0), Eigen::Vector3d(0.0, 0.0, -2e-15)};
  reactions[1] = {"b", Eigen::Vector3d(-1.27, 2.99, 1e-16), Eigen::Vector3d(3.6e-5, 0.0, -2e-16)};
  const auto cleaned = io::without_rounding_noise(reactions);
  EXPECT_EQ(cleaned[0].moment, Eigen::Vector3d::Zero());
  EXPECT_EQ(cleaned[1].force, Eigen::Vector3d(-1.27, 2.99, 0.0));
  EXPECT_EQ(cleaned[1].moment, Eigen::Vector3d(3.6e-5, 0.0, 0.0));
  EXPECT_EQ(cleaned[1].frame, "b");
}

// The double pendulum's hinges carry no moment: the sums left -2.2e-16 and -2.0e-15 before.
TEST(FirstHourPrintedNumbers, EvalReactionsPrintNoNoise) {
  const auto text = run_cli("eval " + kPendulum + " --reactions");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("  rod1: force = [-7.05098846114  6.84802294248              0], "
                          "moment = [0 0 0]\n"
                          "  rod2: force = [-1.2660290234 2.99444023056             0], "
                          "moment = [0 0 0]\n"),
            std::string::npos)
      << text.out;
  const auto json = run_cli("eval " + kPendulum + " --reactions --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  for (const std::string frame : {"rod1", "rod2"})
    EXPECT_EQ(j["reactions"][frame]["moment"], nlohmann::json::parse("[0.0, 0.0, 0.0]")) << frame;

  // No e-15 anywhere in eval of the examples that had it, with reactions.
  const std::regex noise("e-(1[3-9]|[2-9][0-9]|[0-9]{3})");
  for (const std::string model : {"bead_on_hoop.yaml", "double_pendulum.yaml", "planar_2r.yaml",
                                  "heavy_top.yaml", "urdf/ur5_robot.urdf"}) {
    const auto run = run_cli("eval " + kExamples + "/" + model + " --reactions");
    ASSERT_EQ(run.code, 0) << model << run.out;
    EXPECT_FALSE(std::regex_search(run.out, noise)) << model << "\n" << run.out;
  }
}

// -- codegen: which method wrote which function -------------------------------------------------

TEST_F(FirstHourFrictions, CodegenSaysWhichRoutineComesFromWhichMethod) {
  const std::string header = (dir_ / "p.hpp").string();
  auto run = run_cli("codegen " + kPendulum + " --split --out " + header);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out, "wrote " + header +
                         " (double-pendulum, 2 DOF, the recursions, checked against the "
                         "gibbs-appell equations; coriolis_matrix from those equations)\n");
  std::string text = file_text(header);
  EXPECT_NE(text.find("//\n"
                      "// Method: the recursions below write every function but coriolis_matrix, "
                      "which\n"
                      "// the gibbs-appell equations give (the Christoffel symbols of their M);\n"
                      "// those equations, formed, check the recursions at two states.\n"
                      "// Coordinates"),
            std::string::npos)
      << text.substr(0, 1500);
  EXPECT_NE(text.find("// Recursive: inverse dynamics, nonlinear effects and gravity by "
                      "Newton-Euler"),
            std::string::npos);
  EXPECT_EQ(text.find("Method: gibbs-appell"), std::string::npos);

  run = run_cli("codegen " + kPendulum + " --method lagrange --language c --out " + header);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out, "wrote " + header +
                         " (double-pendulum, 2 DOF, the recursions, checked against the lagrange "
                         "equations)\n");
  text = file_text(header);
  EXPECT_NE(text.find(" * Method: the recursions below write every function; the lagrange "
                      "equations,\n"
                      " * formed, check them at two states.\n"),
            std::string::npos)
      << text.substr(0, 1500);

  // A carrier frame's relative motion: the recursions do not cover it, the equations write all.
  const std::string carrier = kExamples + "/rod_on_rotating_axes.yaml";
  run = run_cli("codegen " + carrier + " --split --out " + header);
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out, "wrote " + header + " (rod-on-rotating-axes, 1 DOF, gibbs-appell)\n");
  EXPECT_NE(file_text(header).find("// Method: gibbs-appell\n"), std::string::npos);

  // The library says the same to its caller.
  const auto model = io::read_model_file(kPendulum);
  codegen::CodegenOptions options;
  options.coriolis_matrix = true;
  std::string method;
  const std::string code = codegen::generate_code(
      principles::derive(model, principles::Method::GibbsAppell), options, &method);
  EXPECT_EQ(method,
            "the recursions, checked against the gibbs-appell equations; coriolis_matrix from "
            "those equations");
  EXPECT_NE(code.find("inline void coriolis_matrix("), std::string::npos);
}

// -- docs that show what the tool prints --------------------------------------------------------

// The text of the fenced block that follows the first line `after` in `markdown`.
std::string block_after(const std::string& markdown, const std::string& after) {
  const auto at = markdown.find(after);
  if (at == std::string::npos) return "(no " + after + ")";
  const auto open = markdown.find("```\n", at + after.size());
  const auto close = markdown.find("\n```", open + 4);
  return markdown.substr(open + 4, close + 1 - (open + 4));
}

TEST(FirstHourDocs, UrdfGuideShowsWhatDeriveAndEvalPrint) {
  const std::string urdf = doc("docs/urdf.md");
  const std::string two_link = kExamples + "/urdf/two_link.urdf";
  const auto derive = run_cli("derive " + two_link);
  ASSERT_EQ(derive.code, 0) << derive.out;
  const std::string shown = block_after(urdf, "appell derive examples/urdf/two_link.urdf\n```");
  EXPECT_EQ(derive.out.substr(0, shown.size()), shown);
  EXPECT_NE(shown.find("0.22655 + 1/8*cos(elbow)"), std::string::npos) << shown;
  const auto eval = run_cli("eval " + two_link + " --q 0.5,0.3 --json");
  ASSERT_EQ(eval.code, 0) << eval.out;
  EXPECT_EQ(eval.out,
            block_after(urdf, "appell eval examples/urdf/two_link.urdf --q 0.5,0.3 --json\n```"));
}

// Every top-level key the reader takes (it lists them for an unknown key) is in the table.
TEST_F(FirstHourFrictions, ModelFormatTableHasEveryTopLevelKey) {
  const auto run = run_cli("eval " + write("u.yaml", "name: u\ncoordinates: [q]\nnosuch: 1\n"));
  ASSERT_EQ(run.code, 2);
  const std::string expected = "unknown key in the model; expected ";
  const auto start = run.out.find(expected);
  ASSERT_NE(start, std::string::npos) << run.out;
  std::string list = run.out.substr(start + expected.size());
  list = list.substr(0, list.find(" (nosuch)"));
  list = std::regex_replace(list, std::regex(",| or "), " ");
  const std::string table = doc("docs/model-format.md");
  std::istringstream keys(list);
  int count = 0;
  for (std::string key; keys >> key; ++count)
    EXPECT_NE(table.find("| `" + key + "` | "), std::string::npos) << key;
  EXPECT_EQ(count, 18);  // name .. speeds, independent, visuals, positive among them
}

// --q and --qd default to the model's initial values: the README does not write them as required.
TEST(FirstHourDocs, ReadmeWritesTheOperatingPointAsOptional) {
  const std::string readme = doc("README.md");
  EXPECT_NE(readme.find("`appell linearize MODEL [--q V1,V2] [--qd V1,V2] [--inputs NAMES]"),
            std::string::npos);
  EXPECT_EQ(readme.find("linearize MODEL --q"), std::string::npos);
  const auto run = run_cli("linearize " + kPendulum);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("linearized about t = 0, q = [0.8, -0.4], dot(q) = [0, 1]"),
            std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace appell
