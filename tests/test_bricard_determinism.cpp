// Bricard's redundant-constraint simulation gives the same bytes in every process, in every build
// (issue 39, item 8). Under AddressSanitizer it used to differ in its last bits from the 9th row
// between two runs, so cli.determinism skipped it there. The cause: GiNaC holds Bricard's closures
// with the sign of a sum factor inside or outside it, by address-seeded hashes, so the JIT's key
// and the C it wrote (the order of its operations, so its rounding) changed with the process's
// address-space layout — a second run missed the cache and compiled other code. The key and the
// code are now written by sym::canonical_text whatever GiNaC's tree (JitKeyCli in
// test_jit_key.cpp); this test holds the simulation's bytes to it where the sanitizer suite runs
// too: a fresh cache (compiled now), the same cache (loaded), another fresh cache (compiled again
// in another process), and the report whose plots and 3-D motion are the same run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/c_compiler.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"
#include "support/spawn_cli.hpp"

namespace {

namespace fs = std::filesystem;
using appell::test_support::run_cli;

class BricardDeterminism : public appell::test_support::ScratchDirTest {
 protected:
  // What `args` (with OUT for the output file) printed and wrote, with `cache` as the JIT cache.
  std::string run(const std::string& args, const std::string& cache, const std::string& output) {
    ::setenv("APPELL_CACHE_DIR", (dir_ / cache).c_str(), 1);
    const std::string out = (dir_ / output).string();
    std::string line = args;
    line.replace(line.find("OUT"), 3, out);
    const auto r = run_cli(line);
    ::unsetenv("APPELL_CACHE_DIR");
    EXPECT_EQ(r.code, 0) << line << "\n" << r.out;
    // The speed line is a time: not compared (as cli.determinism leaves it out).
    std::string printed;
    std::size_t start = 0;
    while (start < r.out.size()) {
      const std::size_t end = r.out.find('\n', start);
      const std::string text = r.out.substr(start, end == std::string::npos ? end : end - start);
      if (text.rfind("appell simulate: ", 0) != 0 && text.rfind("appell report: ", 0) != 0)
        printed += text + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return printed + appell::test_support::file_text(out);
  }
};

TEST_F(BricardDeterminism, SimulationAndReportAreTheSameBytesInEveryProcess) {
  if (!appell::test_support::have_compiler()) GTEST_SKIP() << "no C compiler";
  const std::string model = std::string(APPELL_EXAMPLES_DIR) + "/bricard.yaml";
  const std::string simulate = "simulate " + model + " --t-end 0.2 --out OUT";
  const std::string first = run(simulate, "cache1", "run.csv");
  ASSERT_NE(first.find("redundant constraints"), std::string::npos) << first;
  EXPECT_EQ(run(simulate, "cache1", "run.csv"), first) << "loaded from the cache";
  EXPECT_EQ(run(simulate, "cache2", "run.csv"), first) << "compiled again";
  const std::string report = "report " + model + " --t-end 0.2 --out OUT";
  const std::string page = run(report, "cache3", "report.html");
  EXPECT_EQ(run(report, "cache3", "report.html"), page);
  EXPECT_EQ(run(report, "cache4", "report.html"), page);
}

}  // namespace
