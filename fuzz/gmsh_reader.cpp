// Fuzzes the Gmsh reader (fem::read_gmsh): MSH 4.1 ASCII text -> mesh. The reader reads a file,
// so each input is written to one temporary file first. Every rejection must be a
// model::ModelError located at FILE:LINE:COLUMN (fuzz_support.hpp). Seeds: the .msh files of
// examples/ and tests/data (scripts/fuzz.sh).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "appell/fem/mesh.hpp"
#include "fuzz_support.hpp"

namespace {

/// One file per process, removed at exit: in /dev/shm when there is one (a file on disk rewritten
/// for every input makes the target wait on the disk, 10 times slower), else in the temporary
/// folder.
const std::string& scratch_path() {
  static const std::string path = [] {
    std::error_code ignored;
    const std::filesystem::path folder = std::filesystem::is_directory("/dev/shm", ignored)
                                             ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
    const std::filesystem::path file =
        folder / ("appell_fuzz_gmsh_" + std::to_string(::getpid()) + ".msh");
    std::atexit([] { std::remove(scratch_path().c_str()); });
    return file.string();
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    if (!file) appell::fuzz::finding("cannot write the scratch file", path);
  }
  const appell::model::SourceLocation referenced_from{"fuzz.yaml", 4, 12};
  appell::fuzz::expect_located_errors([&] { appell::fem::read_gmsh(path, referenced_from); });
  return 0;
}
