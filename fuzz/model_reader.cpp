// Fuzzes the model reader: YAML text -> validated model, through io::parse_model (the entry that
// read_model_file and the command line use). Every rejection must be a model::ModelError located
// at FILE:LINE:COLUMN (fuzz_support.hpp). Seeds: the examples' model files (scripts/fuzz.sh).
#include "appell/io/model_reader.hpp"

#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = appell::fuzz::text_of(data, size);
  appell::fuzz::expect_located_errors([&] { appell::io::parse_model(text, "fuzz.yaml"); });
  return 0;
}
