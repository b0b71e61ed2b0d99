// What the fuzz targets share: an input's bytes as text, and the check that a rejected input was
// rejected as bad input should be, by a model::ModelError that says where (FILE:LINE:COLUMN).
// Anything else is a finding: the target prints it and aborts, so that libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "appell/model/source_location.hpp"

namespace appell::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "appell fuzz finding: %s: %s\n", what, detail.c_str());
  std::abort();
}

/// An error of bad input must name a file (or item), a line and a column.
inline void check_located(const model::ModelError& error) {
  const model::SourceLocation& where = error.where();
  if (where.file.empty() || where.line < 1 || where.column < 1)
    finding("a ModelError without FILE:LINE:COLUMN", error.what());
}

/// Runs `read` on one input: returning is fine, a located ModelError is fine, any other exception
/// (or a ModelError without a place) is a finding.
template <class Read>
void expect_located_errors(Read&& read) {
  try {
    read();
  } catch (const model::ModelError& error) {
    check_located(error);
  } catch (const std::exception& error) {
    finding("an exception other than ModelError", error.what());
  } catch (...) {
    finding("an exception other than ModelError", "not a std::exception");
  }
}

}  // namespace appell::fuzz
