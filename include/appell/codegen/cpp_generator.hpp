// Standalone C++ for the equations of motion (`appell codegen`).
//
// The generated header needs nothing but the C++17 standard library: users embed it in a
// controller or a simulator without appell, GiNaC or Eigen. It is written from the numeric tape
// (sym::Tape) after its common-subexpression elimination, one `const double` per instruction a
// function needs, so the generated code does the same arithmetic as `appell eval`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::codegen {

struct CodegenOptions {
  /// Namespace of the generated code, possibly nested ("robots::arm"); empty: from the model's
  /// name (default_namespace).
  std::string namespace_name;
  /// New defaults of the generated structs (model::bind): parameters ("M"), inputs and
  /// unspecified prescribed functions with their derivatives ("u", "dot(alpha)"). A function
  /// driven by an expression of t (Values::drive) is generated as that expression and has no
  /// member in `Inputs`.
  model::Values values;
};

/// One member of the generated `Parameters` or `Inputs` struct.
struct GeneratedField {
  std::string name;      // the model's spelling: "M", "dot(alpha)"
  std::string cpp_name;  // a valid C++ identifier: "M", "dot_alpha"
  double default_value = 0.0;
};

struct GeneratedLayout {
  std::vector<GeneratedField> parameters;  // every parameter, in the model's order
  /// Inputs, then unspecified prescribed functions, each followed by the derivatives of it that
  /// the equations use.
  std::vector<GeneratedField> inputs;
};

/// The members the generated structs will have, with `values` as their defaults. Throws
/// model::ModelError for bad values (what model::bind throws: an unknown name, a non-finite
/// number, ...).
GeneratedLayout generated_layout(const principles::Equations& equations,
                                 const model::Values& values = {});

/// "a" or "a::b::c" with every part a C++ identifier that is not a keyword (nor `std`).
bool is_valid_namespace(const std::string& name);
/// The model's name made a namespace: "planar-2r" -> "planar_2r".
std::string default_namespace(const std::string& model_name);

/// The whole header. Throws std::invalid_argument for an invalid namespace or equations with
/// constraints (not implemented), model::ModelError for bad options.values (model::bind).
/// Deterministic: the same equations give the same text.
std::string generate_cpp_header(const principles::Equations& equations,
                                const CodegenOptions& options = {});

}  // namespace appell::codegen
