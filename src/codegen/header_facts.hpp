// What the header writer knows besides the text (internal to codegen): the loadable source
// (loadable_source.cpp) wraps the C header's functions and needs their names and structs.
#pragma once

#include <string>
#include <vector>

#include "appell/codegen/cpp_generator.hpp"

namespace appell::codegen::detail {

struct HeaderFacts {
  std::size_t dof = 0;
  bool recursive = false;
  std::string fallback_reason;
  std::string prefix;  // C: the names' prefix without its '_' ("gen" for gen_mass_matrix)
  std::vector<GeneratedField> parameters, inputs;  // the structs' members, in order
  // With constraints: m, and h of them holonomic (constraints() and constraint_manifold()).
  std::size_t constraint_count = 0, holonomic_count = 0;
  // The rates: p generalized speeds (in_speeds), or dof velocities.
  std::size_t speed_count = 0;
  bool in_speeds = false;
  // Which method wrote which functions, on one line (generate_code's `method`).
  std::string method;
};

/// What the code is generated from: the model, and its formed equations or none (then by the
/// recursions alone, for a model they cover).
struct CodegenSource {
  const model::Model& model;
  const principles::Equations* equations = nullptr;
};

/// generate_cpp_header() or generate_c_header() by `language`, filling `facts` when not null.
std::string generate_header(const CodegenSource& from, const CodegenOptions& options,
                            Language language, HeaderFacts* facts);

}  // namespace appell::codegen::detail
