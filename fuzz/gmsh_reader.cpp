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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = appell::fuzz::write_scratch_file(data, size, "gmsh", ".msh");
  const appell::model::SourceLocation referenced_from{"fuzz.yaml", 4, 12};
  appell::fuzz::expect_located_errors([&] { appell::fem::read_gmsh(path, referenced_from); });
  return 0;
}
