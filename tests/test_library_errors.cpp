// Library errors name the offending item, never a command-line flag: the CLI adds the flag
// (apps/appell/cli_support.hpp, at_option). The CLI's own messages are checked in test_cli.cpp,
// test_simulate.cpp and test_inverse.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

std::shared_ptr<const model::Model> robot() {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/planar_2r.yaml");
}

std::string where_rejected(const num::SimulationOptions& options) {
  const auto equations = principles::derive(robot(), principles::Method::GibbsAppell);
  try {
    num::simulate(equations, options, [](const num::SimulationRow&) {});
  } catch (const model::ModelError& e) {
    return e.where().file;
  }
  return "accepted";
}

TEST(LibraryErrors, SimulationOptionsAreLocatedAtTheirNames) {
  num::SimulationOptions o;
  o.t_end = -1.0;
  EXPECT_EQ(where_rejected(o), "t_end");
  o = {};
  o.output_step = 0.0;
  EXPECT_EQ(where_rejected(o), "output_step");
  o = {};
  o.rtol = -1.0;
  EXPECT_EQ(where_rejected(o), "rtol");
  o = {};
  o.atol = std::nan("");
  EXPECT_EQ(where_rejected(o), "atol");
  o = {};
  o.q0 = {1.0};
  EXPECT_EQ(where_rejected(o), "q0");
  o = {};
  o.qd0 = {1.0, 2.0, 3.0};
  EXPECT_EQ(where_rejected(o), "qd0");
}

TEST(LibraryErrors, TimeFunctionAndTrajectoryAreLocatedInTheirText) {
  const auto model = robot();
  try {
    num::parse_time_function(*model, "2*nosuch");
    FAIL() << "accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "input");
    EXPECT_EQ(e.offending(), "nosuch");
    EXPECT_EQ(std::string(e.what()), "input: unknown name in expression (nosuch)");
  }
  try {
    num::Trajectory("q1 = t; q5 = 0", *model);
    FAIL() << "accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "trajectory:1:9: unknown coordinate (q5)");
  }
}

// No string literal of the library starts with a flag ("--name"): where a library error is
// located, and what it says, is the library's own vocabulary.
TEST(LibraryErrors, NoLibrarySourceNamesAFlag) {
  const fs::path root = APPELL_SOURCE_DIR;
  const std::regex flag_literal(R"re("--[a-z])re");
  std::size_t files = 0;
  for (const fs::path& folder : {root / "src", root / "include" / "appell"}) {
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
      if (!entry.is_regular_file()) continue;
      const auto extension = entry.path().extension();
      if (extension != ".cpp" && extension != ".hpp") continue;
      ++files;
      std::ifstream in(entry.path());
      int number = 0;
      for (std::string line; std::getline(in, line);) {
        ++number;
        const auto code = line.find_first_not_of(' ');
        if (code != std::string::npos && line.compare(code, 2, "//") == 0) continue;  // comment
        // The arguments of an external program (the JIT's compiler: `cc --version`) are its own
        // vocabulary, not appell's flags.
        if (line.find("run_process(") != std::string::npos) continue;
        EXPECT_FALSE(std::regex_search(line, flag_literal))
            << entry.path().string() << ":" << number << ": " << line;
      }
    }
  }
  EXPECT_GT(files, 50u);
}

}  // namespace
