// The models shipped in examples/, for the tests that run over every one of them.
#pragma once

#include <algorithm>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "appell/io/model_reader.hpp"

namespace appell::test_support {

/// Examples whose equations by two principles the symbolic test cannot prove equal within its
/// budget (num::SymbolicTest::Inconclusive, which proves nothing either way): Bricard's
/// mechanism, whose forcing runs through products of five rotations that the trigonometric
/// simplification does not reduce to zero, and the Whipple bicycle, whose differences are
/// beyond the readable budget (its constraints' acceleration terms carry sqrt(1 - kn^2) of the
/// front contact and its M and f four bodies' rotations through five angles). They must still
/// agree numerically.
inline bool symbolic_test_inconclusive(const std::filesystem::path& example) {
  return example.filename() == "bricard.yaml" || example.filename() == "whipple_bicycle.yaml";
}

/// Every model file the tests ship (examples/ with its folders, and tests/data/) that reads as a
/// model and that `keep` accepts, sorted: files that are no model (a cases file, a model that is
/// bad on purpose) are not among them.
inline std::vector<std::string> shipped_models(
    const std::function<bool(const model::Model&)>& keep) {
  std::vector<std::string> paths;
  for (const char* root : {APPELL_EXAMPLES_DIR, APPELL_TEST_DATA_DIR})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".yaml") continue;
      try {
        if (keep(*io::read_model_file(entry.path().string())))
          paths.push_back(entry.path().string());
      } catch (const std::exception&) {
        // Not a model: not one of these.
      }
    }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace appell::test_support
