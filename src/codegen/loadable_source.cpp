#include "appell/codegen/loadable_source.hpp"

#include <sstream>
#include <stdexcept>

#include "appell/codegen/cpp_generator.hpp"
#include "header_facts.hpp"
#include "plan.hpp"

namespace appell::codegen {

namespace {

// `static inline NS_parameters appell_jit_parameters(const double* v)`: the array into the
// struct, member by member (no assumption on the struct's layout).
void write_unpacker(std::ostringstream& s, const std::string& type, const std::string& name,
                    const std::vector<GeneratedField>& fields) {
  s << "static " << type << " " << name << "(const double* v) {\n  " << type << " s;\n";
  for (std::size_t i = 0; i < fields.size(); ++i)
    s << "  s." << fields[i].cpp_name << " = v[" << i << "];\n";
  if (fields.empty()) s << "  (void)v;\n  s.unused = 0.0;\n";
  s << "  return s;\n}\n\n";
}

// The names as C text that no model can make anything but data: each name's bytes in hex,
// names separated by blanks ("6d 646f74287529" for m, dot(u)).
std::string hex_names(const std::vector<GeneratedField>& fields) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ' ';
    for (unsigned char c : fields[i].name) {
      out += digits[c >> 4];
      out += digits[c & 0xf];
    }
  }
  return out;
}

void write_names(std::ostringstream& s, const char* function,
                 const std::vector<GeneratedField>& fields) {
  s << "const char* " << function << "(void);\n"
    << "const char* " << function << "(void) { return \"" << hex_names(fields) << "\"; }\n\n";
}

}  // namespace

std::vector<std::string> decode_loadable_names(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  names.emplace_back();
  const auto value = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::invalid_argument("decode_loadable_names: not a list of names in hex");
  };
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      names.emplace_back();
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) throw std::invalid_argument("decode_loadable_names: an odd digit");
    names.back() += static_cast<char>(value(text[i]) * 16 + value(text[i + 1]));
    i += 2;
  }
  return names;
}

namespace {

LoadableSource loadable_source(const detail::CodegenSource& from, const model::Values& values) {
  // Numbers cross at run time in the p and in arrays: the code, and with it the cache key, holds
  // only what is generated as code (functions driven by expressions of t), so one compiled
  // library serves every --set of the same model.
  CodegenOptions options;
  options.namespace_name = "appell_jit_model";
  for (const auto& [name, expression] : values.driven())
    options.values.drive(name, expression, values.where(name));
  detail::HeaderFacts facts;
  LoadableSource out;
  const std::string header = detail::generate_header(from, options, Language::C, &facts);
  const std::string p = facts.prefix + "_";
  std::ostringstream s;
  s << header << "\n/* Entry points for loading (appell/codegen/loadable_source.hpp). */\n\n";
  write_unpacker(s, p + "parameters", "appell_jit_parameters", facts.parameters);
  write_unpacker(s, p + "inputs", "appell_jit_inputs", facts.inputs);
  // What a caller needs to fill p and in, in the object itself: found again in the cache by a
  // key of what determines this code, without generating it (jit::compile_dynamics).
  write_names(s, kLoadableParameterNames, facts.parameters);
  write_names(s, kLoadableInputNames, facts.inputs);
  s << "int " << kLoadableDof << "(void);\n"
    << "int " << kLoadableDof << "(void) { return " << facts.dof << "; }\n\n"
    << "int " << kLoadableSpeedCount << "(void);\n"
    << "int " << kLoadableSpeedCount << "(void) { return " << facts.speed_count << "; }\n\n"
    << "void " << kLoadableMassMatrixAndForcing
    << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
    << "    double* M, double* f);\n"
    << "void " << kLoadableMassMatrixAndForcing
    << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
    << "    double* M, double* f) {\n"
    << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
    << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
    << "  " << p << "mass_matrix_and_forcing(t, q, qd, &P, &I, M, f);\n}\n\n"
    << "int " << kLoadableForwardDynamics
    << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
    << "    double* qdd);\n"
    << "int " << kLoadableForwardDynamics
    << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
    << "    double* qdd) {\n"
    << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
    << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
    << "  return " << p << "forward_dynamics(t, q, qd, &P, &I, qdd, 0);\n}\n\n"
    << "void " << kLoadableInverseDynamics
    << "(double t, const double* q, const double* qd, const double* qdd, const double* p,\n"
    << "    const double* in, double* Q);\n"
    << "void " << kLoadableInverseDynamics
    << "(double t, const double* q, const double* qd, const double* qdd, const double* p,\n"
    << "    const double* in, double* Q) {\n"
    << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
    << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
    << "  " << p << "inverse_dynamics(t, q, qd, qdd, &P, &I, Q);\n}\n";
  if (facts.in_speeds)
    // The rates above are the speeds u (qd) and their accelerations u̇ (qdd).
    s << "\nvoid " << kLoadableCoordinateVelocities
      << "(double t, const double* q, const double* u, const double* p, const double* in,\n"
      << "    double* qd);\n"
      << "void " << kLoadableCoordinateVelocities
      << "(double t, const double* q, const double* u, const double* p, const double* in,\n"
      << "    double* qd) {\n"
      << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
      << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
      << "  " << p << "coordinate_velocities(t, q, u, &P, &I, qd);\n}\n\n"
      << "void " << kLoadableCoordinateAccelerations
      << "(double t, const double* q, const double* u, const double* udot, const double* p,\n"
      << "    const double* in, double* qdd);\n"
      << "void " << kLoadableCoordinateAccelerations
      << "(double t, const double* q, const double* u, const double* udot, const double* p,\n"
      << "    const double* in, double* qdd) {\n"
      << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
      << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
      << "  " << p << "coordinate_accelerations(t, q, u, udot, &P, &I, qdd);\n}\n";
  if (facts.constraint_count > 0) {
    const std::size_t n = facts.dof, m = facts.constraint_count, h = facts.holonomic_count;
    s << "\nint " << kLoadableConstraintCount << "(void);\n"
      << "int " << kLoadableConstraintCount << "(void) { return " << m << "; }\n\n"
      << "int " << kLoadableHolonomicCount << "(void);\n"
      << "int " << kLoadableHolonomicCount << "(void) { return " << h << "; }\n\n"
      << "void " << kLoadableConstraints
      << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
      << "    double* A, double* b);\n"
      << "void " << kLoadableConstraints
      << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
      << "    double* A, double* b) {\n"
      << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
      << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
      << "  " << p << "constraints(t, q, qd, &P, &I, A, b);\n}\n\n"
      << "void " << kLoadableConstraintManifold
      << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
      << "    double* out);\n"
      << "void " << kLoadableConstraintManifold
      << "(double t, const double* q, const double* qd, const double* p, const double* in,\n"
      << "    double* out) {\n"
      << "  const " << p << "parameters P = appell_jit_parameters(p);\n"
      << "  const " << p << "inputs I = appell_jit_inputs(in);\n"
      << "  " << p << "constraint_manifold(t, q, qd, &P, &I, out, out + " << h << ", out + "
      << h * (1 + n) << ", out + " << h * (1 + n) + m << ");\n}\n";
  }
  out.code = s.str();
  out.constraint_count = facts.constraint_count;
  out.dof = facts.dof;
  out.speed_count = facts.speed_count;
  out.in_speeds = facts.in_speeds;
  out.recursive = facts.recursive;
  out.fallback_reason = facts.fallback_reason;
  for (const auto& f : facts.parameters) out.parameter_names.push_back(f.name);
  for (const auto& f : facts.inputs) out.input_names.push_back(f.name);
  bind_loadable_values(from.model, values, out);
  return out;
}

}  // namespace

void bind_loadable_values(const model::Model& model, const model::Values& values,
                          LoadableSource& source) {
  // The values themselves (model::bind's errors for bad ones), member by member.
  const detail::Plan bound = detail::make_plan(model, values);
  source.parameters.clear();
  source.inputs.clear();
  for (const auto& name : source.parameter_names)
    for (const auto& given : bound.parameters)
      if (given.name == name) source.parameters.push_back(given.default_value);
  for (const auto& name : source.input_names)
    for (const auto& candidate : bound.input_candidates)
      if (candidate.field.name == name) {
        source.inputs.push_back(candidate.field.default_value);
        break;
      }
  if (source.parameters.size() != source.parameter_names.size() ||
      source.inputs.size() != source.input_names.size())
    throw std::invalid_argument(
        "bind_loadable_values: the values do not fill the members of this code (a function "
        "driven in one and given a number in the other)");
}

LoadableSource loadable_c_source(const principles::Equations& equations,
                                 const model::Values& values) {
  return loadable_source({*equations.model, &equations}, values);
}

LoadableSource loadable_c_source(const model::Model& model, const model::Values& values) {
  return loadable_source({model, nullptr}, values);
}

}  // namespace appell::codegen
