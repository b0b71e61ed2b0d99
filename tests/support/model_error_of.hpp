// The located error a model text is refused with, for tests of the refusals.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "appell/io/model_reader.hpp"
#include "appell/model/source_location.hpp"

namespace appell::test_support {

/// The ModelError of parsing `yaml` as the file "m.yaml"; a test failure when it is accepted (and
/// then an error at line 0 saying "(no error)", so that the caller's checks fail readably too).
inline model::ModelError model_error_of(const std::string& yaml) {
  try {
    io::parse_model(yaml, "m.yaml");
  } catch (const model::ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << yaml;
  return model::ModelError({"(no error)", 0, 0}, "(no error)");
}

}  // namespace appell::test_support
