// The command line's habits (issue 30, item 4): a usage error shows the command's usage, an
// unknown option, model key or --set name gets "did you mean", a list written with spaces gets
// the comma hint, a name set twice is an error, and the messages of the first hour name what the
// user did (--t-end, a particle as a load's target, a YAML file given to import, a coordinate
// that moves no mass). Each checks the exact message and the exit code.
#include <gtest/gtest.h>

#include <string>

#include "appell/io/model_file.hpp"
#include "appell/model/massless_coordinates.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string robot = examples + "/planar_2r.yaml";
const std::string arm = examples + "/three_link_arm.yaml";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class CliHabits : public test_support::ScratchDirTest {};

TEST_F(CliHabits, AnUnknownOptionShowsTheCommandsUsageAndTheNearestOption) {
  const auto run = run_cli("linearize " + robot + " --mode");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(has(run.out, "appell linearize: unknown option '--mode'; did you mean '--modes'?\n"))
      << run.out;
  EXPECT_TRUE(has(run.out, "Usage: appell linearize [OPTIONS] MODEL")) << run.out;
  EXPECT_TRUE(has(run.out, "natural frequencies and damping ratios of the eigenvalues"))
      << run.out;  // the help line of --modes
  EXPECT_TRUE(has(run.out, "Run 'appell linearize --help' for all its options.")) << run.out;
  EXPECT_FALSE(has(run.out, "Run 'appell --help'")) << run.out;
  // Nothing near: no suggestion, still the usage.
  const auto far = run_cli("eval " + robot + " --zzzzzz");
  EXPECT_EQ(far.code, 2) << far.out;
  EXPECT_TRUE(has(far.out, "appell eval: unknown option '--zzzzzz'\nUsage: appell eval"))
      << far.out;
}

TEST_F(CliHabits, OtherUsageErrorsShowTheUsageToo) {
  const auto missing = run_cli("eval");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_TRUE(has(missing.out, "appell eval: MODEL is required\nUsage: appell eval"))
      << missing.out;
  const auto bad = run_cli("linearize " + robot + " --t abc");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_TRUE(has(bad.out, "Usage: appell linearize")) << bad.out;
}

TEST_F(CliHabits, AListWrittenWithSpacesGetsTheCommaHint) {
  const auto run = run_cli("eval " + arm + " --q 0.1 0.2 0.3");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(has(run.out,
                  "appell eval: --q takes one value: a list is written with commas and no "
                  "spaces, --q 0.1,0.2,0.3\n"))
      << run.out;
  EXPECT_FALSE(has(run.out, "not expected")) << run.out;
  // The hint is right: written so, the same command runs.
  EXPECT_EQ(run_cli("eval " + arm + " --q 0.1,0.2,0.3").code, 0);
}

TEST_F(CliHabits, AnUnknownSetNameGetsTheNearestParameter) {
  const auto run = run_cli("eval " + robot + " --set M_s=0.1");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_EQ(run.out,
            "--set: unknown name: not a parameter, input or unspecified prescribed function; did "
            "you mean 'M_S'? (M_s)\n");
  const auto input = run_cli("simulate " + arm + " --input 'tau=sin(t)' --t-end 0.01 --out " +
                             (dir_ / "out.csv").string());
  EXPECT_EQ(input.code, 2) << input.out;
  EXPECT_TRUE(has(input.out, "did you mean 'tau1'?")) << input.out;
}

TEST_F(CliHabits, ANameSetTwiceIsAnError) {
  const auto run = run_cli("eval " + robot + " --set M=2 --set M=3");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_EQ(run.out,
            "--set: given twice, as --set M=2 and as --set M=3; give each name once (M)\n");
  EXPECT_EQ(run_cli("eval " + robot + " --set M=2 --set l=3").code, 0);
}

TEST_F(CliHabits, AMisspeltModelKeyGetsTheNearestKey) {
  const std::string model = write("particle.yaml",
                                  "name: p\n"
                                  "coordinates: [x]\n"
                                  "frames:\n"
                                  "  slider: {parent: world, translation: [x, 0, 0]}\n"
                                  "particle:\n"
                                  "  p: {frame: slider, mass: 1, position: [0, 0, 0]}\n");
  const auto run = run_cli("derive " + model);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(has(run.out, model + ":5:1: unknown key in ")) << run.out;
  EXPECT_TRUE(has(run.out, "; did you mean 'particles'? (particle)\n")) << run.out;
}

TEST_F(CliHabits, TooManyRowsBlameTheSpanWithTheDefaultStep) {
  const std::string out = (dir_ / "out.csv").string();
  const auto run = run_cli("simulate " + robot + " --t-end 1e5 --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_EQ(run.out,
            "--t-end: t_end = 100000 with a row every 0.01 (the default output step) asks for "
            "10000001 output rows, more than the limit of 10000000; take a shorter span or a "
            "larger output step, or raise the limit (100000)\n");
  // A step the user chose is what they are told about.
  const auto step = run_cli("simulate " + robot + " --t-end 1 --output-step 1e-10 --out " + out);
  EXPECT_EQ(step.code, 2) << step.out;
  EXPECT_EQ(step.out,
            "--output-step: t_end = 1 with a row every 1e-10 asks for 10000000001 output rows, "
            "more than the limit of 10000000; take a shorter span or a larger output step, or "
            "raise the limit (1e-10)\n");
}

TEST_F(CliHabits, AForceOnAParticleSaysWhereTheParticleSits) {
  const std::string model = write("force.yaml",
                                  "name: p\n"
                                  "coordinates: [x]\n"
                                  "frames:\n"
                                  "  slider: {parent: world, translation: [x, 0, 0]}\n"
                                  "particles:\n"
                                  "  p: {frame: slider, mass: 1, position: [0, 0, 0]}\n"
                                  "loads:\n"
                                  "  - {force: [1, 0, 0], on: p}\n");
  const auto run = run_cli("derive " + model);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(has(run.out,
                  "a load acts on a frame or a body, not on a particle: particle p sits in frame "
                  "slider (write on: slider and at: the particle's position) (p)\n"))
      << run.out;
  // Another unknown name gets the nearest frame or body.
  const std::string typo = write("typo.yaml",
                                 "name: p\n"
                                 "coordinates: [x]\n"
                                 "frames:\n"
                                 "  slider: {parent: world, translation: [x, 0, 0]}\n"
                                 "particles:\n"
                                 "  p: {frame: slider, mass: 1, position: [0, 0, 0]}\n"
                                 "loads:\n"
                                 "  - {force: [1, 0, 0], on: slidr}\n");
  const auto misspelt = run_cli("derive " + typo);
  EXPECT_EQ(misspelt.code, 2) << misspelt.out;
  EXPECT_TRUE(has(misspelt.out, "unknown frame or body; did you mean 'slider'? (slidr)\n"))
      << misspelt.out;
}

TEST_F(CliHabits, ImportOfAnAppellModelSaysImportReadsUrdf) {
  const auto run = run_cli("import " + robot);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_EQ(run.out,
            robot +
                ":1:1: import reads a robot's URDF (XML), and this is not XML: an appell "
                "model file (YAML) needs no import, the other commands read it as it is (" +
                robot + ")\n");
  EXPECT_FALSE(has(run.out, "malformed XML")) << run.out;
}

TEST_F(CliHabits, UrdfOptionsComeAfterTheCommandsOwnOptions) {
  for (const char* command : {"derive", "eval", "simulate", "linearize", "import"}) {
    const auto help = run_cli(std::string(command) + " --help");
    ASSERT_EQ(help.code, 0) << help.out;
    const auto group = help.out.find("URDF options:");
    ASSERT_NE(group, std::string::npos) << help.out;
    EXPECT_GT(help.out.find("--gravity"), group) << command << "\n" << help.out;
    EXPECT_GT(help.out.find("--floating-base"), group) << command << "\n" << help.out;
    // Every option of the command's own comes before the group.
    EXPECT_LT(help.out.find("--help"), group) << command;
    const auto own = help.out.rfind("\n  --", group);
    EXPECT_LT(own, group) << command;
  }
}

// A coordinate that moves no mass: derive, eval and simulate warn, naming it.
TEST_F(CliHabits, ACoordinateThatMovesNoMassIsWarnedAbout) {
  const std::string model = write("still.yaml",
                                  "name: still\n"
                                  "coordinates: [x, s]\n"
                                  "frames:\n"
                                  "  cart: {parent: world, translation: [x, 0, 0]}\n"
                                  "  ghost: {parent: world, translation: [0, s, 0]}\n"
                                  "particles:\n"
                                  "  p: {frame: cart, mass: 1, position: [0, 0, 0]}\n");
  const std::string warning =
      "warning: coordinate s moves no mass (no body or particle moves with it): its row of M is "
      "0, so its equation has no acceleration in it\n";
  for (const std::string& args :
       {"derive " + model, "eval " + model,
        "simulate " + model + " --t-end 0.1 --out " + (dir_ / "still.csv").string()}) {
    const auto run = run_cli(args);
    EXPECT_TRUE(has(run.out, warning)) << args << "\n" << run.out;
    EXPECT_FALSE(has(run.out, "coordinate x moves no mass")) << args << "\n" << run.out;
  }
  const auto derive = run_cli("derive " + model);
  EXPECT_EQ(derive.code, 0) << derive.out;
  // The library's fact, and none for a model whose coordinates all move mass.
  const auto file = io::read_model(model);
  EXPECT_EQ(model::coordinates_moving_no_mass(*file.model), (std::vector<std::size_t>{1}));
  EXPECT_FALSE(has(run_cli("derive " + robot).out, "moves no mass"));
}

// Every shipped example moves mass with every coordinate: the warning is never noise there.
TEST(CliHabitsExamples, NoExampleHasACoordinateThatMovesNoMass) {
  for (const char* name :
       {"planar_2r.yaml", "double_pendulum.yaml", "three_link_arm.yaml", "slider_crank.yaml",
        "whipple_bicycle.yaml", "heavy_top.yaml", "bead_on_hoop.yaml", "chaplygin_sleigh.yaml",
        "spring_damper_cart.yaml"}) {
    const auto file = io::read_model(examples + "/" + name);
    EXPECT_TRUE(model::coordinates_moving_no_mass(*file.model).empty()) << name;
  }
}

}  // namespace
