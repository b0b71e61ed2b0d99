// What the fuzz targets share: an input's bytes as text, and the check that a rejected input was
// rejected as bad input should be, by a model::ModelError that says where (FILE:LINE:COLUMN).
// Anything else is a finding: the target prints it and aborts, so that libFuzzer keeps the input.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

/// The input written to one scratch file of this process (named by `stem` and `extension`),
/// removed at exit, for the readers that take a path: in /dev/shm when there is one (a file on
/// disk rewritten for every input makes the target wait on the disk, 10 times slower), else in
/// the temporary folder. Its path.
inline const std::string& write_scratch_file(const std::uint8_t* data, std::size_t size,
                                             const char* stem, const char* extension) {
  static const std::string path = [&] {
    std::error_code ignored;
    const std::filesystem::path folder = std::filesystem::is_directory("/dev/shm", ignored)
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
    const std::filesystem::path file = folder / (std::string("appell_fuzz_") + stem + "_" +
                                                 std::to_string(::getpid()) + extension);
    std::atexit([] { std::remove(path.c_str()); });
    return file.string();
  }();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  if (!file) finding("cannot write the scratch file", path);
  return path;
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
