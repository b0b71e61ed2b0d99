// Nothing appell writes is lost, nothing it reads is overwritten, and every count it reads is
// bounded (issue 25): a write that fails (a full disk: /dev/full) is exit 1 naming the file, for
// every kind of output; an output that names an input of the same command, or another output,
// is refused (exit 2, both named) before anything is written; `fem --vtu` onto a file is refused
// as usage, never an "internal error"; counts out of their documented range are exit 2 naming
// the option.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "support/run_cli.hpp"
#include "support/spawn_cli.hpp"

namespace {

using namespace appell;
using test_support::file_text;
using test_support::run_cli;
using test_support::run_cli_into;

namespace fs = std::filesystem;

const std::string examples = APPELL_EXAMPLES_DIR;
const std::string robot = examples + "/planar_2r.yaml";
const std::string blade = examples + "/fem/rotating_blade.yaml";

fs::path scratch_dir() {
  const auto dir =
      fs::temp_directory_path() / ("appell_output_safety_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string scratch(const std::string& name) { return (scratch_dir() / name).string(); }

bool mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// ----- a write that fails is an error naming the file -------------------------------------------

TEST(OutputSafety, EveryOutputToAFullDiskIsExitOneNamingTheFile) {
  const std::string out = scratch("ok.out"), err = scratch("err.txt");
  const std::vector<std::vector<std::string>> runs{
      {"simulate", robot, "--t-end", "0.05", "--out", "/dev/full"},
      {"simulate", robot, "--t-end", "5", "--out", "/dev/full"},  // fails at a row, not the end
      {"simulate", robot, "--t-end", "0.05", "--out", scratch("sim.csv"), "--report", "/dev/full"},
      {"simulate", examples + "/speeds/damped_cube.yaml", "--t-end", "0.05", "--out", "/dev/full"},
      {"inverse", robot, "--trajectory", "q1=t; q2=0", "--t-end", "0.05", "--output-step", "0.01",
       "--out", "/dev/full"},
      {"codegen", robot, "--out", "/dev/full"},
      {"report", robot, "--no-simulation", "--verify", "none", "--out", "/dev/full"},
      {"import", examples + "/urdf/two_link.urdf", "--out", "/dev/full"},
      {"fem", blade, "--response", "--t-end", "0.01", "--csv", "/dev/full"},
      {"fem", blade, "--response", "--t-end", "0.01", "--csv", scratch("blade.csv"), "--report",
       "/dev/full"},
  };
  for (const auto& args : runs) {
    const auto r = run_cli_into(args, out, err);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.code, 1) << line << "\n" << r.err;
    EXPECT_TRUE(mentions(r.err, "could not write /dev/full")) << line << "\n" << r.err;
    EXPECT_FALSE(mentions(r.err, "internal error")) << line << "\n" << r.err;
  }
}

TEST(OutputSafety, StandardOutputToAFullDiskIsExitOne) {
  const std::string err = scratch("err.txt");
  const std::vector<std::vector<std::string>> runs{
      {"derive", robot},
      {"derive", robot, "--format", "json"},
      {"eval", robot, "--json"},
      {"verify", robot, "--states", "2"},  // printf, not std::cout
      {"statics", robot},
      {"import", examples + "/urdf/two_link.urdf"},
      {"fem", blade, "--modes", "2", "--json"},
      {"fem", blade, "--response", "--t-end", "0.01"},  // the CSV on standard output
  };
  for (const auto& args : runs) {
    const auto r = run_cli_into(args, "/dev/full", err);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.code, 1) << line << "\n" << r.err;
    EXPECT_TRUE(mentions(r.err, "could not write standard output")) << line << "\n" << r.err;
  }
}

TEST(OutputSafety, TheLibrarysOutputFileReportsAFullDisk) {
  io::OutputFile file("/dev/full");
  file.stream() << "t,q\n0,1\n";
  try {
    file.close();
    FAIL() << "expected a ComputationError";
  } catch (const model::ComputationError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("could not write /dev/full", 0), 0u) << e.what();
  }
  EXPECT_THROW(io::write_file("/dev/full", std::string(100000, 'x')), model::ComputationError);
  // A path that cannot be opened is bad input, located at the path.
  const std::string missing = scratch("no/such/folder/a.csv");
  try {
    io::OutputFile never(missing);
    FAIL() << "expected a ModelError";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, missing);
  }
}

// ----- an output never replaces an input, nor another output -----------------------------------

TEST(OutputSafety, AnOutputThatIsTheModelIsRefusedAndTheModelKept) {
  const fs::path dir = scratch_dir() / "model_dir";
  fs::create_directories(dir);
  const fs::path model = dir / "robot.yaml";
  fs::copy_file(robot, model, fs::copy_options::overwrite_existing);
  const std::string bytes = file_text(model.string());
  // The same file by another spelling and through a symbolic link: identity, not text.
  const std::string alias = (dir / ".." / "model_dir" / "." / "robot.yaml").string();
  const fs::path link = dir / "link.yaml";
  fs::remove(link);
  fs::create_symlink(model, link);
  const std::string m = model.string();
  for (const std::string& args :
       {"simulate " + m + " --t-end 0.01 --out " + m,
        "simulate " + m + " --t-end 0.01 --out " + alias,
        "simulate " + link.string() + " --t-end 0.01 --out " + m,
        "simulate " + m + " --t-end 0.01 --out " + scratch("x.csv") + " --report " + m,
        "inverse " + m + " --trajectory 'q1=t; q2=0' --t-end 0.01 --output-step 0.01 --out " + m,
        "codegen " + m + " --out " + alias, "report " + m + " --no-simulation --out " + m}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_TRUE(mentions(r.out, "MODEL")) << args << "\n" << r.out;
    EXPECT_TRUE(mentions(r.out, "would replace the input")) << args << "\n" << r.out;
    EXPECT_EQ(file_text(m), bytes) << args;
  }
}

TEST(OutputSafety, AnOutputThatIsAnotherInputIsRefused) {
  // inverse's --from-csv samples.
  const std::string samples = scratch("samples.csv");
  {
    std::ofstream s(samples);
    s << "t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)\n0,0,0,0,0,0,0\n";
  }
  const std::string bytes = file_text(samples);
  auto r = run_cli("inverse " + robot + " --from-csv " + samples + " --out " + samples);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(mentions(r.out, "--from-csv")) << r.out;
  EXPECT_EQ(file_text(samples), bytes);
  // import's URDF.
  const std::string urdf = scratch("two_link.urdf");
  fs::copy_file(examples + "/urdf/two_link.urdf", urdf, fs::copy_options::overwrite_existing);
  const std::string urdf_bytes = file_text(urdf);
  r = run_cli("import " + urdf + " --out " + urdf);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(file_text(urdf), urdf_bytes);
  // fem's model, by --csv and by --report.
  const std::string model = scratch("blade.yaml");
  fs::copy_file(blade, model, fs::copy_options::overwrite_existing);
  const std::string model_bytes = file_text(model);
  for (const std::string& args : {"fem " + model + " --response --t-end 0.01 --csv " + model,
                                  "fem " + model + " --response --t-end 0.01 --report " + model}) {
    r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_TRUE(mentions(r.out, "MODEL")) << args << "\n" << r.out;
    EXPECT_EQ(file_text(model), model_bytes) << args;
  }
}

TEST(OutputSafety, TwoOutputsToOnePathAreRefused) {
  const std::string both = scratch("both.out");
  {
    std::ofstream keep(both);
    keep << "kept\n";
  }
  auto r = run_cli("simulate " + robot + " --t-end 0.01 --out " + both + " --report " + both);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(mentions(r.out, "--report") && mentions(r.out, "--out")) << r.out;
  EXPECT_EQ(file_text(both), "kept\n");
  // A path that does not exist yet: compared by its canonical form.
  const std::string fresh = scratch("fresh.out");
  fs::remove(fresh);
  r = run_cli("fem " + blade + " --response --t-end 0.01 --csv " + fresh + " --report " +
              (scratch_dir() / "." / "fresh.out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_FALSE(fs::exists(fresh));
  // Streams are no files: both outputs to /dev/null is fine.
  r = run_cli("simulate " + robot + " --t-end 0.01 --out /dev/null --report /dev/null");
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST(OutputSafety, FemVtuOntoAFileIsRefusedAsUsage) {
  const std::string file = scratch("not_a_folder.vtu");
  {
    std::ofstream keep(file);
    keep << "kept\n";
  }
  for (const std::string& args :
       {"fem " + blade + " --modes 2 --vtu " + file,
        "fem " + blade + " --response --t-end 0.01 --csv " + scratch("v.csv") + " --vtu " + file,
        "fem " + blade + " --modes 2 --vtu " + file + "/below"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_TRUE(mentions(r.out, "--vtu")) << args << "\n" << r.out;
    EXPECT_FALSE(mentions(r.out, "internal error")) << args << "\n" << r.out;
  }
  EXPECT_EQ(file_text(file), "kept\n");
  // A folder that exists is written into, as before.
  const std::string folder = scratch("vtu_folder");
  fs::create_directories(folder);
  const auto r = run_cli("fem " + blade + " --modes 2 --vtu " + folder);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(fs::exists(fs::path(folder) / "blade_mode_1.vtu") || !fs::is_empty(fs::path(folder)));
}

// ----- counts are bounded where the command line reads them ------------------------------------

TEST(OutputSafety, CountsOutOfTheirRangeAreExitTwoNamingTheOption) {
  struct Case {
    std::string args, option;
  };
  for (const Case& c : std::vector<Case>{
           {"verify " + robot + " --states -1", "--states"},
           {"verify " + robot + " --states 0", "--states"},
           {"verify " + robot + " --states 18446744073709551615", "--states"},
           {"verify " + robot + " --states 100001", "--states"},
           {"fem " + blade + " --derive-element --elements 100000", "--elements"},
           {"fem " + blade + " --derive-element --elements 1,2,-3", "--elements"},
           {"fem " + blade + " --modes 0", "--modes"},
           {"fem " + blade + " --modes 100000", "--modes"},
           {"fem " + blade + " --response --vtu-every 0 --vtu " + scratch("v"), "--vtu-every"},
           {"derive " + robot + " --intermediates-above -1", "--intermediates-above"},
       }) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_TRUE(mentions(r.out, c.option)) << c.args << "\n" << r.out;
  }
  // The limits themselves are accepted.
  EXPECT_EQ(run_cli("verify " + robot + " --states 1").code, 0);
}

}  // namespace
