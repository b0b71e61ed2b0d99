// Fuzzes the URDF reader: XML text -> validated model, through io::translate_urdf and
// io::build_model (what read_urdf_file and the command line use for a URDF), once with the default
// options and once with a floating base, symbolic inertia and joint damping. Every rejection must
// be a model::ModelError located at FILE:LINE:COLUMN (fuzz_support.hpp). Seeds: the URDF files of
// examples/ (scripts/fuzz.sh).
#include "appell/io/urdf_reader.hpp"

#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = appell::fuzz::text_of(data, size);
  appell::io::UrdfOptions every;
  every.floating_base = true;
  every.symbolic_inertia = true;
  every.joint_damping = true;
  for (const appell::io::UrdfOptions& options : {appell::io::UrdfOptions{}, every})
    appell::fuzz::expect_located_errors(
        [&] { appell::io::build_model(appell::io::translate_urdf(text, "fuzz.urdf", options)); });
  return 0;
}
