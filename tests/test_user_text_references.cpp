// What a user reads refers to the papers appell follows by author and year ("Negrean et al.
// (2024)", "Vlase et al. (2020)", "Zhang and Xia (2024)"), never by the project's numbering of its
// reference documents ("seed 000"): the command line's help and messages, `demo`, `fem
// --derive-element`'s cost table, derived equations as text and LaTeX, the report pages, and the
// user documentation and examples. Code comments may keep the numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using appell::test_support::run_cli;

const std::regex kSeedNumber(R"(seed[ _]?0\d\d)", std::regex::icase);

// The first "seed 0NN" in `text` with what surrounds it, or "" when there is none.
std::string seed_number_in(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, kSeedNumber)) return "";
  const auto at = static_cast<std::size_t>(m.position(0));
  return text.substr(at < 60 ? 0 : at - 60, 140);
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kExamples = APPELL_EXAMPLES_DIR;

TEST(UserTextReferences, HelpAndMessagesNameThePapersByAuthorAndYear) {
  std::vector<std::string> runs = {"--help"};
  for (const char* command :
       {"demo", "derive", "eval", "codegen", "simulate", "inverse", "verify", "statics", "fem",
        "import", "report", "check", "linearize", "sweep-merge", "sweep"})
    runs.push_back(std::string(command) + " --help");
  for (const auto& args : runs) {
    SCOPED_TRACE(args);
    const auto run = run_cli(args);
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_EQ(seed_number_in(run.out), "");
  }
  const auto help = run_cli("--help");
  EXPECT_NE(help.out.find("Negrean et al. (2024)"), std::string::npos) << help.out;

  const auto demo = run_cli("demo");
  ASSERT_EQ(demo.code, 0) << demo.out;
  EXPECT_EQ(seed_number_in(demo.out), "");
  EXPECT_NE(demo.out.find("Negrean et al. (2024"), std::string::npos) << demo.out;

  // The cost table of a finite element's equations: the measurement of Vlase et al.'s Table 1.
  const auto element =
      run_cli("fem " + kExamples + "/fem/rotating_blade.yaml --derive-element --elements 1,2");
  ASSERT_EQ(element.code, 0) << element.out;
  EXPECT_EQ(seed_number_in(element.out), "");
  EXPECT_NE(element.out.find("Table 1 of Vlase et al. (2020)"), std::string::npos) << element.out;
}

TEST(UserTextReferences, DerivedEquationsNameNoSeed) {
  for (const char* format : {"text", "latex", "json"}) {
    SCOPED_TRACE(format);
    const auto run =
        run_cli("derive " + kExamples + "/pendulum_on_translating_block.yaml --format " + format);
    ASSERT_EQ(run.code, 0) << run.out;
    EXPECT_EQ(seed_number_in(run.out), "");
  }
}

class UserTextReferencesPages : public appell::test_support::ScratchDirTest {};

// The example's description is the page's subtitle; the flexible body's page says whose
// equations it integrates.
TEST_F(UserTextReferencesPages, ReportPagesNameThePapersByAuthorAndYear) {
  const std::string page = (dir_ / "block.html").string();
  const auto rigid = run_cli("report " + kExamples +
                             "/pendulum_on_translating_block.yaml --t-end 0.1 --out " + page);
  ASSERT_EQ(rigid.code, 0) << rigid.out;
  const std::string html = read(page);
  EXPECT_EQ(seed_number_in(html), "");
  EXPECT_NE(html.find("Zhang and Xia (2024)"), std::string::npos);

  const std::string flexible = (dir_ / "blade.html").string();
  const auto response = run_cli("fem " + kExamples +
                                "/fem/rotating_blade.yaml --response --t-end 0.01 --step 1e-3 "
                                "--csv /dev/null --report " +
                                flexible);
  ASSERT_EQ(response.code, 0) << response.out;
  const std::string blade = read(flexible);
  EXPECT_EQ(seed_number_in(blade), "");
  EXPECT_NE(blade.find("Vlase et al., 2020"), std::string::npos);
}

// The user's documents: docs/, the README and every example (model files, claims, Python).
TEST(UserTextReferences, UserDocumentsNameThePapersByAuthorAndYear) {
  const std::filesystem::path source = APPELL_SOURCE_DIR;
  std::vector<std::filesystem::path> files = {source / "README.md"};
  for (const auto& entry : std::filesystem::directory_iterator(source / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source / "examples"))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::size_t read_files = 0;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    // The file's name too: the claims of a paper are named after it.
    EXPECT_EQ(seed_number_in(file.filename().string()), "");
    EXPECT_EQ(seed_number_in(read(file)), "");
    ++read_files;
  }
  EXPECT_GT(read_files, 20u);
  EXPECT_NE(read(source / "docs" / "theory.md").find("## References"), std::string::npos);
}

}  // namespace
