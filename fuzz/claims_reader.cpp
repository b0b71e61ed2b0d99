// Fuzzes the claims reader (`appell check MODEL CLAIMS`): YAML text -> claims about one fixed
// model, through io::parse_claims (the entry read_claims_file uses). The model has what every kind
// of claim may name: parameters, two coordinates, gravity, a named load and a constraint (for a
// multiplier). Every rejection must be a model::ModelError located at FILE:LINE:COLUMN
// (fuzz_support.hpp). Seeds: the claims files of examples/ (scripts/fuzz.sh).
#include "appell/io/claims_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

#include "appell/io/model_reader.hpp"
#include "fuzz_support.hpp"

namespace {

const appell::model::Model& model() {
  static const std::shared_ptr<const appell::model::Model> m = appell::io::parse_model(
      "name: planar-2r\n"
      "parameters: {M: 1.0, l: 0.5, M_S: 0.2, g: 9.81}\n"
      "coordinates: [q1, q2]\n"
      "frames:\n"
      "  link1: {parent: world, rotation: rot_z(q1)}\n"
      "  link2: {parent: link1, translation: [l, 0, 0], rotation: rot_z(q2)}\n"
      "bodies:\n"
      "  rod1: {frame: link1, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n"
      "  rod2: {frame: link2, mass: M, com: [l/2, 0, 0], inertia: {rod: {length: l, axis: x}}}\n"
      "gravity: [0, -g, 0]\n"
      "loads:\n"
      "  - {name: payload, force: [0, -M_S*g, 0], on: link2, at: [l, 0, 0]}\n"
      "constraints:\n"
      "  - {name: tip, holonomic: \"q1 + q2\"}\n",
      "model.yaml");
  return *m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = appell::fuzz::text_of(data, size);
  appell::fuzz::expect_located_errors(
      [&] { appell::io::parse_claims(text, "fuzz_claims.yaml", model()); });
  return 0;
}
