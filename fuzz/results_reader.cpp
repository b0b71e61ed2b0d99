// Fuzzes the reader of a sweep's results file (sweep::check_results_file): the bytes of an HDF5
// file -> its seal, structure, identity, statuses and per-case checksums, as `appell sweep
// --resume` and `appell sweep-merge` check a file before they trust it. The reader reads a
// file, so each input is written to one temporary file first. Every rejection must be a
// model::ModelError located at that file (bad input naming it); a model::ComputationError is a
// finding too, since the system never fails to read a file in /dev/shm. Seeds: results files
// written by the command line from examples/ (scripts/fuzz.sh).
//
// Most inputs stop at the seal, before HDF5 reads a byte (a damaged byte outside the cases'
// data, or a seal that does not add up); those that change only the cases' data reach the
// per-case checksums and the statuses.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "appell/sweep/results_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = appell::fuzz::write_scratch_file(data, size, "results", ".h5");
  try {
    const auto counts = appell::sweep::check_results_file(path);
    (void)counts;
  } catch (const appell::model::ModelError& error) {
    if (error.where().file != path)
      appell::fuzz::finding("a ModelError not located at the results file", error.what());
  } catch (const std::exception& error) {
    appell::fuzz::finding("an exception other than ModelError", error.what());
  } catch (...) {
    appell::fuzz::finding("an exception other than ModelError", "not a std::exception");
  }
  return 0;
}
