// Lagrange II ≡ Gibbs–Appell on every model shipped in examples/: the difference of M and of f
// simplifies to zero (except where the symbolic test is inconclusive: support/examples.hpp), and
// the two agree at 20 random states to 1e-12.
#include <gtest/gtest.h>

#include <filesystem>

#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/principles/derive.hpp"
#include "support/examples.hpp"

namespace {

using namespace appell;

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(APPELL_EXAMPLES_DIR))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Examples, ThereAreExamples) { EXPECT_GE(example_files().size(), 5u); }

TEST(Examples, LagrangeEqualsGibbsAppellOnEveryExample) {
  for (const auto& file : example_files()) {
    SCOPED_TRACE(file);
    auto model = io::read_model_file(file);
    auto a = principles::derive(model, principles::Method::Lagrange);
    auto b = principles::derive(model, principles::Method::GibbsAppell);
    const auto agreement = num::compare(a, b, 20, /*symbolic=*/true);
    if (test_support::symbolic_test_inconclusive(file))
      EXPECT_NE(agreement.symbolic_test, num::SymbolicTest::NotRun);
    else
      EXPECT_TRUE(agreement.symbolic) << agreement.first_difference;
    EXPECT_LT(agreement.max_numeric_error, 1e-12) << agreement.first_difference;
  }
}

}  // namespace
