#include "plan.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "appell/sym/canonical_text.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::codegen::detail {

using Op = sym::Tape::Op;

namespace {

// ---- identifiers --------------------------------------------------------------------------

// Words a generated name must not be: C++20 keywords and alternative tokens (users may compile
// the header as C++20), the two struct names (a member may not be named like its class), `std`,
// and macros <cmath> defines on common platforms, which would rewrite a member's name.
const std::set<std::string>& reserved_words() {
  static const std::set<std::string> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // C99 keywords that C++ lacks (the C output, --language c)
      "restrict",
      // the generated code's own names
      "Parameters", "Inputs", "std",
      // <cmath> / <math.h> macros
      "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4", "M_1_PI",
      "M_2_PI", "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL",
      "INFINITY", "NAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO",
      "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL", "FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO",
      "MATH_ERREXCEPT", "math_errhandling", "NULL", "EDOM", "ERANGE", "EILSEQ", "errno", "assert"};
  return words;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

// An identifier the generated code may declare: not reserved by the language (no "__", no
// leading underscore) and not one of reserved_words().
bool is_free_identifier(const std::string& s) {
  return is_identifier(s) && s[0] != '_' && s.find("__") == std::string::npos &&
         reserved_words().count(s) == 0;
}

// `wanted` made a free identifier not yet in `taken` (and then taken): "int" -> "int_",
// a second "dot_u" -> "dot_u_2".
std::string claim_identifier(std::string wanted, std::set<std::string>& taken) {
  std::string cleaned;
  for (char c : wanted) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    const char keep = ok ? c : '_';
    if (keep == '_' && (cleaned.empty() || cleaned.back() == '_')) continue;
    cleaned += keep;
  }
  if (cleaned.empty() || std::isdigit(static_cast<unsigned char>(cleaned[0])))
    cleaned = "x_" + cleaned;
  std::string candidate = cleaned;
  const std::string stem = cleaned.back() == '_' ? cleaned : cleaned + "_";
  for (int k = 1; !is_free_identifier(candidate) || taken.count(candidate); ++k)
    candidate = stem + (k == 1 ? "" : std::to_string(k));
  taken.insert(candidate);
  return candidate;
}

// The C++ spelling of the order-th derivative of a time function: u, dot_u, ddot_u, d3_u.
std::string derivative_identifier(const std::string& base, int order) {
  if (order == 0) return base;
  // Built by appending: GCC 12 warns (-Wstringop-overflow, a false positive) on "literal" + string.
  std::string name = order == 1 ? "dot" : order == 2 ? "ddot" : "d";
  if (order > 2) name.append(std::to_string(order));
  return name.append("_").append(base);
}

// ---- numbers ------------------------------------------------------------------------------

// The shortest text that reads back as exactly `v`, as a double literal ("2.0", "9.81", "1e-20").
std::string plain_literal(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string s(buffer, result.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A literal usable as an operand anywhere: negative values in parentheses.
std::string operand_literal(double v) {
  const std::string s = plain_literal(v);
  return s[0] == '-' ? "(" + s + ")" : s;
}

Plan make_plan(const model::Model& m, const model::Values& values, bool in_speeds) {
  // Throws ModelError naming a name that is neither a parameter nor an input (nor a derivative
  // of one), or a bad number.
  // Parameters are members read at run time, also where a driven function's expression uses
  // them (u = A*sin(w*t)): kept symbolic there, so that the code follows the A of each call and
  // holds no parameter's number (the JIT's cache key is the code).
  std::set<std::string> parameters;
  for (const auto& p : m.parameters) parameters.insert(p.name);
  const model::BoundValues bound = model::bind(m, values, parameters);
  Plan plan;
  plan.bound = bound;
  plan.n = m.dof();
  plan.in_speeds = in_speeds && m.has_speeds();
  plan.p = plan.in_speeds ? m.speeds.size() : plan.n;
  auto add = [&](const GiNaC::symbol& s, Argument a, std::string reference, int field = -1) {
    plan.variables.push_back(Variable{s, a, std::move(reference), field});
  };
  add(m.time_functions->time(), Argument::Time, "t");
  for (std::size_t j = 0; j < plan.n; ++j)
    add(m.coordinate_symbol(j, 0), Argument::Q, "q[" + std::to_string(j) + "]");
  // The rates: q̇, or the speeds (a coordinate's own rate dot(q) among them).
  for (std::size_t k = 0; k < plan.p; ++k)
    add(plan.in_speeds ? m.speed_symbol(k) : m.coordinate_symbol(k, 1), Argument::Qd,
        plan.rates() + "[" + std::to_string(k) + "]");

  // Inputs and unspecified prescribed functions: every derivative order that exists is a
  // candidate member; the ones the equations use (or order 0) become members. A function driven
  // by an expression of t is no member: the expression is generated instead.
  std::vector<std::string> functions;
  for (const auto& in : m.inputs) functions.push_back(in.name);
  for (const auto& p : m.prescribed)
    if (!p.expression) functions.push_back(p.name);
  std::vector<GiNaC::symbol> input_symbols;
  for (const auto& name : functions) {
    if (values.driven().count(name)) continue;
    for (int order = 0;; ++order) {
      const auto symbol = m.time_functions->find_derivative(name, order);
      if (!symbol) break;
      const std::string text = sym::TimeFunctions::text_name(name, order);
      const auto given = bound.numbers.find(*symbol);
      const double value = given == bound.numbers.end()
                               ? 0.0
                               : GiNaC::ex_to<GiNaC::numeric>(given->second).to_double();
      plan.input_candidates.push_back(
          {GeneratedField{text, derivative_identifier(name, order), value}, order});
      input_symbols.push_back(*symbol);
    }
  }

  std::set<std::string> taken;
  for (const auto& p : m.parameters) {
    const std::string cpp = claim_identifier(p.name, taken);
    plan.parameters.push_back(GeneratedField{p.name, cpp, bound.parameters.at(p.name)});
    std::ostringstream note;
    if (!GiNaC::is_a<GiNaC::numeric>(p.default_value))
      note << p.name << " = " << sym::canonical_text(p.default_value)
           << " in the model; not recomputed when those change";
    plan.parameter_notes.push_back(note.str());
    add(p.symbol, Argument::Parameters, "p." + cpp);
  }
  // After the parameters, as in CompiledEquations; the references are known once the members
  // are (claim_input_fields).
  for (std::size_t i = 0; i < input_symbols.size(); ++i)
    add(input_symbols[i], Argument::Inputs, "", static_cast<int>(i));

  return plan;
}

Plan make_plan(const principles::Equations& eq, const model::Values& values) {
  Plan plan = make_plan(*eq.model, values);
  const model::BoundValues& bound = plan.bound;
  std::vector<GiNaC::symbol> symbols;
  for (const auto& v : plan.variables) symbols.push_back(v.symbol);
  GiNaC::exvector entries = eq.entries();
  if (!bound.driven.empty())
    for (auto& e : entries) e = sym::substitute(e, bound.driven);
  plan.tape.emplace(entries, symbols);
  return plan;
}

// The input members: candidates the tape reads, and order 0 of every function (so that every
// declared input has a member even when the equations happen not to use it).
std::vector<GeneratedField> claim_input_fields(Plan& plan) {
  std::vector<bool> read(plan.variables.size(), false);
  for (const auto& instruction : plan.tape->instructions())
    if (instruction.op == Op::Variable) read[instruction.a] = true;
  return claim_input_fields(plan, read);
}

std::vector<GeneratedField> claim_input_fields(Plan& plan, const std::vector<bool>& read) {
  std::vector<bool> used(plan.input_candidates.size(), false);
  for (std::size_t i = 0; i < plan.variables.size() && i < read.size(); ++i) {
    const Variable& v = plan.variables[i];
    if (read[i] && v.argument == Argument::Inputs)
      used[static_cast<std::size_t>(v.input_field)] = true;
  }
  // The model's own names first, so that an input named dot_u keeps its name and the derivative
  // of an input u is the one renamed.
  std::vector<std::string> cpp_names(plan.input_candidates.size());
  std::set<std::string> taken;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < plan.input_candidates.size(); ++i) {
      auto& candidate = plan.input_candidates[i];
      if ((candidate.order == 0) != (pass == 0) || (!used[i] && candidate.order != 0)) continue;
      candidate.field.cpp_name = claim_identifier(candidate.field.cpp_name, taken);
      cpp_names[i] = candidate.field.cpp_name;
    }
  std::vector<GeneratedField> fields;
  for (std::size_t i = 0; i < plan.input_candidates.size(); ++i)
    if (!cpp_names[i].empty()) fields.push_back(plan.input_candidates[i].field);
  for (auto& v : plan.variables)
    if (v.argument == Argument::Inputs)
      v.reference = "in." + cpp_names[static_cast<std::size_t>(v.input_field)];
  return fields;
}

// Whether M evaluates symmetric at two fixed, unremarkable states: then only its upper triangle
// is generated and mirrored. Every principle appell implements gives a symmetric M; the check
// keeps a future non-symmetric one correct.
bool mass_matrix_is_symmetric(const Plan& plan) {
  const sym::Tape& tape = *plan.tape;
  const std::size_t n = plan.n;
  std::vector<double> variables(plan.variables.size()), outputs(tape.output_count()), work;
  for (int state = 0; state < 2; ++state) {
    for (std::size_t k = 0; k < variables.size(); ++k) {
      const Variable& v = plan.variables[k];
      variables[k] = v.argument == Argument::Parameters
                         ? plan.parameters[k - 1 - 2 * n].default_value
                         : 0.3 + 0.6 * std::sin(1.7 * static_cast<double>(k + 1) + state);
    }
    tape.evaluate(variables.data(), outputs.data(), work);
    double scale = 0.0;
    for (std::size_t i = 0; i < n * n; ++i) {
      if (!std::isfinite(outputs[i])) return false;
      scale = std::max(scale, std::abs(outputs[i]));
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = i + 1; k < n; ++k)
        if (std::abs(outputs[i * n + k] - outputs[k * n + i]) > 1e-10 * scale) return false;
  }
  return true;
}

}  // namespace appell::codegen::detail
