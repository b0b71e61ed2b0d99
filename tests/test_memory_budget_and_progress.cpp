// The memory budget (sym/memory_budget.hpp) and the progress steps (sym/progress.hpp): what they
// read and parse, that the library's long loops reach them through the cancellation check, and
// what the command line makes of them (APPELL_MEMORY_BUDGET, exit codes, the status line).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/verification.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/memory_budget.hpp"
#include "appell/sym/progress.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_models.hpp"

namespace {

using namespace appell;
using test_support::run_cli;

constexpr std::size_t kMiB = 1024 * 1024;

TEST(MemoryBudget, SizesParseInBinaryUnitsAndBadOnesAreRefused) {
  EXPECT_EQ(sym::parse_memory_size("65536"), 65536u);
  EXPECT_EQ(sym::parse_memory_size("512M"), 512 * kMiB);
  EXPECT_EQ(sym::parse_memory_size("512mb"), 512 * kMiB);
  EXPECT_EQ(sym::parse_memory_size("4G"), 4096 * kMiB);
  EXPECT_EQ(sym::parse_memory_size(" 4 GiB "), 4096 * kMiB);
  EXPECT_EQ(sym::parse_memory_size("1.5G"), 1536 * kMiB);
  EXPECT_EQ(sym::parse_memory_size("2K"), 2048u);
  EXPECT_EQ(sym::parse_memory_size("1T"), 1024 * 1024 * kMiB);
  EXPECT_EQ(sym::parse_memory_size("0"), 0u);
  EXPECT_EQ(sym::parse_memory_size("none"), 0u);
  for (const char* bad : {"", "abc", "4X", "4GG", "-1", ".", "G", "1e9", "4 G B", "99999999T"}) {
    try {
      sym::parse_memory_size(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("is not a memory size"), std::string::npos) << bad;
    }
  }
  EXPECT_EQ(sym::memory_size_text(4096 * kMiB), "4 GiB");
  EXPECT_EQ(sym::memory_size_text(1536 * kMiB), "1.5 GiB");
  EXPECT_EQ(sym::memory_size_text(512 * kMiB), "512 MiB");
  EXPECT_EQ(sym::memory_size_text(100), "100 bytes");
}

TEST(MemoryBudget, ResidentMemoryGrowsWithWhatIsTouchedAndTheBudgetSaysSo) {
  const std::size_t before = sym::resident_memory_bytes();
  ASSERT_GT(before, 0u);
  EXPECT_GT(sym::physical_memory_bytes(), before);
  EXPECT_EQ(sym::default_memory_budget(), sym::physical_memory_bytes() / 2);
  // 64 MiB written byte by byte is resident, whatever the allocator does.
  std::vector<char> block(64 * kMiB);
  for (std::size_t k = 0; k < block.size(); k += 4096) block[k] = static_cast<char>(k);
  const std::size_t after = sym::resident_memory_bytes();
  EXPECT_GE(after, before + 60 * kMiB);

  sym::MemoryBudget roomy(after + 1024 * kMiB, "a test");
  EXPECT_NO_THROW(roomy.check());
  sym::MemoryBudget tight(after - 32 * kMiB, "a test", std::chrono::milliseconds(0));
  try {
    tight.check();
    ADD_FAILURE() << "a budget below the resident memory did not throw";
  } catch (const sym::MemoryBudgetExceeded& e) {
    EXPECT_EQ(e.budget(), after - 32 * kMiB);
    EXPECT_GE(e.in_use(), after - 32 * kMiB);
    const std::string what = e.what();
    EXPECT_NE(what.find("the memory budget of"), std::string::npos) << what;
    EXPECT_NE(what.find("(a test) is exceeded"), std::string::npos) << what;
  }
  sym::MemoryBudget none(0, "no budget", std::chrono::milliseconds(0));
  EXPECT_NO_THROW(none.check());
  EXPECT_GT(block[4096], -128);  // the block lives to here
}

TEST(MemoryBudget, ADerivationOverItsBudgetStopsWithTheBudgetsName) {
  auto model = io::parse_model(test_support::spatial_chain_yaml(4), "chain.yaml");
  // Below what the process already uses: the first check inside the derivation throws.
  sym::MemoryBudget budget(1024, "the test's budget", std::chrono::milliseconds(0));
  sym::CancellationScope scope(
      [&] {
        budget.check();
        return false;
      },
      1);
  EXPECT_THROW(principles::derive(model, principles::Method::Lagrange), sym::MemoryBudgetExceeded);
}

TEST(Progress, StepsNestCountAndEndAndTheListenerHearsTheLastOneEnd) {
  int idle = 0;
  const sym::ProgressListener listener([&] { ++idle; });
  EXPECT_EQ(sym::current_progress(), "");
  {
    sym::ProgressStep outer("verifying", 5);
    outer.advance();
    EXPECT_EQ(sym::current_progress(), "verifying (1/5)");
    {
      const sym::ProgressStep inner("forming the equations by lagrange");
      EXPECT_EQ(sym::current_progress(), "verifying (1/5): forming the equations by lagrange");
    }
    EXPECT_EQ(idle, 0);  // still in a step
    outer.advance(9);    // never shown past the total
    EXPECT_EQ(sym::current_progress(), "verifying (5/5)");
  }
  EXPECT_EQ(idle, 1);
  EXPECT_EQ(sym::current_progress(), "");
}

TEST(Progress, TheLibrarysLongStepsNameThemselvesToTheCheck) {
  auto model = io::parse_model(test_support::spatial_chain_yaml(3), "chain.yaml");
  std::set<std::string> seen;
  sym::CancellationScope scope(
      [&] {
        seen.insert(sym::current_progress());
        return false;
      },
      1);
  num::VerifyOptions options;
  options.states = 2;
  const auto report = num::verify(model, options);
  EXPECT_TRUE(report.all_agree);
  const auto saw = [&](const std::string& text) {
    for (const auto& s : seen)
      if (s.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(saw("verifying (1/5): forming the equations by lagrange"));
  EXPECT_TRUE(saw("verifying (5/5): forming the equations by nielsen"));
  EXPECT_TRUE(saw("making the equations readable"));
}

class MemoryBudgetCli : public test_support::ScratchDirTest {};

TEST_F(MemoryBudgetCli, TheEnvironmentSetsTheBudgetAndABadOneIsRefused) {
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/three_link_arm.yaml";
  ::setenv("APPELL_MEMORY_BUDGET", "1K", 1);
  const auto over = run_cli("derive " + model);
  ::setenv("APPELL_MEMORY_BUDGET", "lots", 1);
  const auto bad = run_cli("derive " + model);
  ::setenv("APPELL_MEMORY_BUDGET", "0", 1);
  ::setenv("APPELL_PROGRESS_AFTER", "0", 1);
  const auto none = run_cli("derive " + model);
  ::setenv("APPELL_PROGRESS_AFTER", "soon", 1);
  const auto bad_delay = run_cli("derive " + model);
  ::unsetenv("APPELL_PROGRESS_AFTER");
  ::unsetenv("APPELL_MEMORY_BUDGET");
  EXPECT_EQ(bad_delay.code, 2) << bad_delay.out;
  EXPECT_NE(bad_delay.out.find("APPELL_PROGRESS_AFTER: not a number of seconds"), std::string::npos)
      << bad_delay.out;
  EXPECT_EQ(over.code, 1) << over.out;
  EXPECT_NE(over.out.find("appell: computation failed: the memory budget of 1 KiB "
                          "(APPELL_MEMORY_BUDGET) is exceeded"),
            std::string::npos)
      << over.out;
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("APPELL_MEMORY_BUDGET: 'lots' is not a memory size"), std::string::npos)
      << bad.out;
  EXPECT_EQ(none.code, 0) << none.out;
  // Not a terminal: no status line, no carriage return, even with no delay.
  EXPECT_EQ(none.out.find('\r'), std::string::npos);
}

TEST_F(MemoryBudgetCli, OnATerminalALongStepShowsAStatusLineThatIsErasedBeforeTheOutput) {
  // script(1) gives the command a terminal; APPELL_PROGRESS_AFTER=0 draws the line at once
  // (a test cannot count on a step lasting a second).
  const std::string path = write("chain.yaml", test_support::spatial_chain_yaml(3));
  const std::string command = "APPELL_PROGRESS_AFTER=0 script -qec \"" + std::string(APPELL_CLI) +
                              " verify " + path + " --states 1\" /dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  // "appell [0 s, 51.0 MiB of 12 GiB] verifying (1/5): forming the equations by lagrange"
  const auto line = out.find("appell [");
  ASSERT_NE(line, std::string::npos) << out;
  EXPECT_NE(out.find(" s, ", line), std::string::npos) << out;    // the time taken
  EXPECT_NE(out.find("iB of ", line), std::string::npos) << out;  // memory against the budget
  EXPECT_NE(out.find("] verifying (1/5): forming the equations by lagrange"), std::string::npos)
      << out;
  // The last status line is erased before the table.
  const auto last = out.rfind("appell [");
  const auto table = out.find("each method against lagrange", last);
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_NE(out.rfind("\r\033[K", table), std::string::npos) << out;
  EXPECT_LT(last, out.rfind("\r\033[K", table)) << out;
}

}  // namespace
