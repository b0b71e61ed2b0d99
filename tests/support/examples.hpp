// The models shipped in examples/, for the tests that run over every one of them.
#pragma once

#include <filesystem>
#include <string>

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

}  // namespace appell::test_support
