#include "appell/codegen/cpp_generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "appell/model/source_location.hpp"
#include "appell/model/values.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/tape.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::codegen {

namespace {

using Op = sym::Tape::Op;
using Instruction = sym::Tape::Instruction;

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

// ---- the variables of the tape ------------------------------------------------------------

// Which argument of a generated function a tape variable is read from.
enum class Argument { Time, Q, Qd, Parameters, Inputs };

struct Variable {
  GiNaC::symbol symbol;
  Argument argument;
  std::string reference;  // the C++ that reads it: "t", "q[0]", "p.M", "in.dot_alpha"
  int input_field = -1;   // Argument::Inputs: index into Plan::input_candidates
};

struct InputCandidate {
  GeneratedField field;
  int order = 0;
};

// The tape and what its variables are in the generated code.
struct Plan {
  std::size_t n = 0;
  std::vector<Variable> variables;  // t, q, qd, parameters, then inputs: the tape's order
  std::vector<GeneratedField> parameters;
  std::vector<InputCandidate> input_candidates;  // every known derivative order of every input
  std::vector<std::string> parameter_notes;      // per parameter: how the model defines it
  std::optional<sym::Tape> tape;                 // built once the variables are known
};

Plan make_plan(const principles::Equations& eq, const model::Values& values) {
  const model::Model& m = *eq.model;
  // Throws ModelError naming a name that is neither a parameter nor an input (nor a derivative
  // of one), or a bad number.
  const model::BoundValues bound = model::bind(m, values);
  Plan plan;
  plan.n = eq.dof();
  auto add = [&](const GiNaC::symbol& s, Argument a, std::string reference, int field = -1) {
    plan.variables.push_back(Variable{s, a, std::move(reference), field});
  };
  add(m.time_functions->time(), Argument::Time, "t");
  for (std::size_t j = 0; j < plan.n; ++j)
    add(m.coordinate_symbol(j, 0), Argument::Q, "q[" + std::to_string(j) + "]");
  for (std::size_t j = 0; j < plan.n; ++j)
    add(m.coordinate_symbol(j, 1), Argument::Qd, "qd[" + std::to_string(j) + "]");

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
      note << p.name << " = " << p.default_value
           << " in the model; not recomputed when those change";
    plan.parameter_notes.push_back(note.str());
    add(p.symbol, Argument::Parameters, "p." + cpp);
  }
  // After the parameters, as in CompiledEquations; the references are known once the members
  // are (claim_input_fields).
  for (std::size_t i = 0; i < input_symbols.size(); ++i)
    add(input_symbols[i], Argument::Inputs, "", static_cast<int>(i));

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
  std::vector<bool> used(plan.input_candidates.size(), false);
  for (const auto& instruction : plan.tape->instructions()) {
    if (instruction.op != Op::Variable) continue;
    const Variable& v = plan.variables[instruction.a];
    if (v.argument == Argument::Inputs) used[static_cast<std::size_t>(v.input_field)] = true;
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

// ---- function bodies ----------------------------------------------------------------------

struct OperationCounts {
  std::size_t adds = 0, multiplies = 0, divides = 0, negations = 0, calls = 0;
  std::size_t total() const { return adds + multiplies + divides + negations + calls; }
  std::string text() const {
    std::ostringstream s;
    s << total() << " operations (" << adds << " +, " << multiplies << " *, " << divides << " /, "
      << negations << " negations, " << calls << " calls)";
    return s.str();
  }
};

struct Body {
  std::string code;
  OperationCounts counts;
  std::set<Argument> arguments_read;
};

bool is_binary(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Pow ||
         op == Op::Atan2;
}

class BodyWriter {
 public:
  explicit BodyWriter(const Plan& plan) : plan_(plan), code_(plan.tape->instructions()) {}

  /// Statements computing each target ("M[3]") from its tape slot, with only the instructions
  /// those slots need.
  Body write(const std::vector<std::pair<std::string, std::uint32_t>>& targets) const {
    std::vector<bool> live(code_.size(), false);
    for (const auto& [target, slot] : targets) live[slot] = true;
    for (std::size_t i = code_.size(); i-- > 0;) {
      if (!live[i] || code_[i].op == Op::Constant || code_[i].op == Op::Variable) continue;
      live[code_[i].a] = true;
      if (is_binary(code_[i].op)) live[code_[i].b] = true;
    }
    Body body;
    std::ostringstream out;
    for (std::size_t i = 0; i < code_.size(); ++i) {
      if (!live[i]) continue;
      if (code_[i].op == Op::Variable) {
        body.arguments_read.insert(plan_.variables[code_[i].a].argument);
        continue;
      }
      if (code_[i].op == Op::Constant) continue;
      out << "  const double v" << i << " = " << expression(code_[i], body.counts) << ";\n";
    }
    for (const auto& [target, slot] : targets)
      out << "  " << target << " = " << operand(slot) << ";\n";
    body.code = out.str();
    return body;
  }

 private:
  std::string operand(std::uint32_t slot) const {
    const Instruction& c = code_[slot];
    if (c.op == Op::Constant) return operand_literal(c.value);
    if (c.op == Op::Variable) return plan_.variables[c.a].reference;
    return std::string("v").append(std::to_string(slot));
  }

  bool is_minus_one(std::uint32_t slot) const {
    return code_[slot].op == Op::Constant && code_[slot].value == -1.0;
  }

  std::string call(const char* function, std::uint32_t slot, OperationCounts& counts) const {
    ++counts.calls;
    return std::string("std::") + function + "(" + operand(slot) + ")";
  }

  std::string expression(const Instruction& c, OperationCounts& counts) const {
    const std::string a = operand(c.a);
    switch (c.op) {
      case Op::Add:
        ++counts.adds;
        return a + " + " + operand(c.b);
      case Op::Sub:
        ++counts.adds;
        return a + " - " + operand(c.b);
      case Op::Neg:
        ++counts.negations;
        return "-" + a;
      case Op::Mul:
        // GiNaC writes -x as x·(-1); a negation is exact and cheaper.
        if (is_minus_one(c.a) || is_minus_one(c.b)) {
          ++counts.negations;
          return "-" + operand(is_minus_one(c.a) ? c.b : c.a);
        }
        ++counts.multiplies;
        return a + " * " + operand(c.b);
      case Op::Div:
        ++counts.divides;
        return a + " / " + operand(c.b);
      case Op::PowInt: {
        // Small powers as products: compilers keep std::pow(x, 3.0) a call without -ffast-math.
        const int n = static_cast<int>(c.value);
        switch (n) {
          case 0:
            return "1.0";
          case 1:
            return a;
          case 2:
            ++counts.multiplies;
            return a + " * " + a;
          case 3:
            counts.multiplies += 2;
            return a + " * " + a + " * " + a;
          case -1:
            ++counts.divides;
            return "1.0 / " + a;
          case -2:
            ++counts.divides;
            ++counts.multiplies;
            return "1.0 / (" + a + " * " + a + ")";
          default:
            ++counts.calls;
            return "std::pow(" + a + ", " + plain_literal(c.value) + ")";
        }
      }
      case Op::Pow:
        ++counts.calls;
        return "std::pow(" + a + ", " + operand(c.b) + ")";
      case Op::Atan2:
        ++counts.calls;
        return "std::atan2(" + a + ", " + operand(c.b) + ")";
      case Op::Sqrt:
        return call("sqrt", c.a, counts);
      case Op::Sin:
        return call("sin", c.a, counts);
      case Op::Cos:
        return call("cos", c.a, counts);
      case Op::Tan:
        return call("tan", c.a, counts);
      case Op::Exp:
        return call("exp", c.a, counts);
      case Op::Log:
        return call("log", c.a, counts);
      case Op::Asin:
        return call("asin", c.a, counts);
      case Op::Acos:
        return call("acos", c.a, counts);
      case Op::Atan:
        return call("atan", c.a, counts);
      case Op::Sinh:
        return call("sinh", c.a, counts);
      case Op::Cosh:
        return call("cosh", c.a, counts);
      case Op::Tanh:
        return call("tanh", c.a, counts);
      case Op::Abs:
        return call("fabs", c.a, counts);
      case Op::Constant:
      case Op::Variable:
        break;
    }
    throw std::logic_error("codegen: unexpected tape instruction");
  }

  const Plan& plan_;
  const std::vector<Instruction>& code_;
};

// `static_cast<void>(x);` for every state argument a body does not read, so that the header
// compiles cleanly under -Wall -Wextra -Werror.
std::string discard_unread(const Body& body) {
  std::string out;
  const std::pair<Argument, const char*> arguments[] = {{Argument::Time, "t"},
                                                        {Argument::Q, "q"},
                                                        {Argument::Qd, "qd"},
                                                        {Argument::Parameters, "p"},
                                                        {Argument::Inputs, "in"}};
  for (const auto& [argument, name] : arguments)
    if (!body.arguments_read.count(argument))
      out += std::string("  static_cast<void>(") + name + ");\n";
  return out;
}

// "inline void name(arguments) {" wrapped at 100 columns, continuation lines aligned after "(".
std::string signature(const std::string& head, const std::vector<std::string>& arguments) {
  std::string out = head + "(";
  const std::string indent(out.size(), ' ');
  std::size_t column = out.size();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string piece = arguments[i] + (i + 1 < arguments.size() ? "," : ") {");
    if (i > 0 && column + 1 + piece.size() > 100) {
      out += "\n" + indent;
      column = indent.size();
    } else if (i > 0) {
      out += " ";
      ++column;
    }
    out += piece;
    column += piece.size();
  }
  return out + "\n";
}

// The state every generated function takes first; `extra` are its own arguments.
std::vector<std::string> state_arguments(std::vector<std::string> extra, bool with_qdd = false) {
  std::vector<std::string> all = {"double t", "const double* q", "const double* qd"};
  if (with_qdd) all.push_back("const double* qdd");
  all.push_back("const Parameters& p");
  all.push_back("const Inputs& in");
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

bool is_valid_namespace_part(const std::string& part) { return is_free_identifier(part); }

// The solver of forward_dynamics, written once into every header (it must not depend on any
// library). Its pivot threshold is the one `appell eval` uses, so both call the same matrices
// singular.
const char* const cholesky_solver = R"(namespace detail {

// Solves A x = b for a symmetric positive definite A (row-major n x n) by Cholesky: A's lower
// triangle is overwritten by the factor, b by x. False, with A and b unspecified, if A or b is
// not finite or A is not positive definite (a pivot of the factor below 1e-12 sqrt(max |A_ij|)).
inline bool cholesky_solve(double* A, double* b, int n) {
  double scale = 0.0;
  for (int i = 0; i < n * n; ++i) {
    if (!std::isfinite(A[i])) return false;
    scale = std::fabs(A[i]) > scale ? std::fabs(A[i]) : scale;
  }
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(b[i])) return false;
  const double smallest_square_pivot = 1e-24 * scale;
  for (int j = 0; j < n; ++j) {
    double d = A[j * n + j];
    for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
    if (!(d > smallest_square_pivot)) return false;
    const double pivot = std::sqrt(d);
    A[j * n + j] = pivot;
    for (int i = j + 1; i < n; ++i) {
      double s = A[i * n + j];
      for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / pivot;
    }
  }
  for (int i = 0; i < n; ++i) {  // L y = b
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= A[i * n + k] * b[k];
    b[i] = s / A[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {  // L^T x = y
    double s = b[i];
    for (int k = i + 1; k < n; ++k) s -= A[k * n + i] * b[k];
    b[i] = s / A[i * n + i];
  }
  return true;
}

}  // namespace detail
)";

}  // namespace

bool is_valid_namespace(const std::string& name) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = name.find("::", start);
    const std::string part = name.substr(start, end == std::string::npos ? end : end - start);
    if (!is_valid_namespace_part(part)) return false;
    if (end == std::string::npos) return true;
    start = end + 2;
  }
}

std::string default_namespace(const std::string& model_name) {
  std::set<std::string> taken;
  std::string name = claim_identifier(model_name, taken);
  if (!is_valid_namespace(name)) name += "_model";
  return name;
}

GeneratedLayout generated_layout(const principles::Equations& equations,
                                 const model::Values& values) {
  Plan plan = make_plan(equations, values);
  return GeneratedLayout{plan.parameters, claim_input_fields(plan)};
}

std::string generate_cpp_header(const principles::Equations& eq, const CodegenOptions& options) {
  const model::Model& m = *eq.model;
  const std::string ns =
      options.namespace_name.empty() ? default_namespace(m.name) : options.namespace_name;
  if (!is_valid_namespace(ns)) throw std::invalid_argument("not a valid C++ namespace name: " + ns);
  // M q̈ = f alone would silently drop the constraint forces Aᵀλ.
  if (eq.constraint_count() > 0)
    throw std::invalid_argument("code generation for constrained systems is not implemented");

  Plan plan = make_plan(eq, options.values);
  const std::vector<GeneratedField> inputs = claim_input_fields(plan);
  const sym::Tape& tape = *plan.tape;
  const std::size_t n = plan.n;
  const auto& slots = tape.output_slots();

  // Targets of M and f. With a symmetric M, an entry below the diagonal copies the one above.
  const bool mirror = mass_matrix_is_symmetric(plan);
  std::vector<std::pair<std::string, std::uint32_t>> mass_targets, forcing_targets;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t source = mirror && k < i ? k * n + i : i * n + k;
      mass_targets.emplace_back("M[" + std::to_string(i * n + k) + "]", slots[source]);
    }
  for (std::size_t i = 0; i < n; ++i)
    forcing_targets.emplace_back("f[" + std::to_string(i) + "]", slots[n * n + i]);
  auto both_targets = mass_targets;
  both_targets.insert(both_targets.end(), forcing_targets.begin(), forcing_targets.end());

  const BodyWriter writer(plan);
  const Body mass = writer.write(mass_targets);
  const Body forcing = writer.write(forcing_targets);
  const Body both = writer.write(both_targets);

  std::ostringstream h;
  const std::string source =
      m.source.empty() ? "" : " (" + std::filesystem::path(m.source).filename().string() + ")";
  h << "// " << m.name << source << ": equations of motion M(q, t) qdd = f(q, qd, t).\n"
    << "// Generated by appell, do not edit: run `appell codegen` again instead.\n"
    << "//\n"
    << "// Method: " << principles::method_name(eq.method) << "\n"
    << "// Coordinates (the order of q, qd, qdd, f and of M's rows and columns):";
  for (std::size_t j = 0; j < n; ++j) h << (j ? ", " : " ") << m.coordinates[j].name;
  h << "\n"
    << "// Self-contained C++17: needs only the standard library. M is row-major dof x dof.\n"
    << "//\n"
    << "// Operations after common-subexpression elimination (the unsimplified expressions of M\n"
    << "// and f have " << eq.cost.size_before << " distinct nodes; the whole tape has "
    << tape.operations() << " instructions):\n"
    << "//   mass_matrix:             " << mass.counts.text() << "\n"
    << "//   forcing:                 " << forcing.counts.text() << "\n"
    << "//   mass_matrix_and_forcing: " << both.counts.text() << "\n"
    << "//   forward_dynamics:        mass_matrix_and_forcing and a Cholesky solve\n"
    << "//   inverse_dynamics:        mass_matrix_and_forcing and Q = M qdd - f\n";
  if (mirror && n > 1) h << "// M is symmetric: its entries below the diagonal copy those above.\n";
  h << "#pragma once\n\n#include <cmath>\n#include <limits>\n\n"
    << "namespace " << ns << " {\n\n"
    << "constexpr int dof = " << n << ";\n\n"
    << "/// The model's parameters, defaults as the model (and the values bound) gave them.\n"
    << "struct Parameters {\n";
  for (std::size_t i = 0; i < plan.parameters.size(); ++i) {
    const auto& field = plan.parameters[i];
    h << "  double " << field.cpp_name << " = " << plain_literal(field.default_value) << ";";
    if (field.cpp_name != field.name) h << "  // " << field.name;
    if (!plan.parameter_notes[i].empty()) h << "  // " << plan.parameter_notes[i];
    h << "\n";
  }
  h << "};\n\n"
    << "/// Inputs and unspecified prescribed functions of time, with the derivatives the "
       "equations\n"
    << "/// use; 0 unless set.\n"
    << "struct Inputs {" << (inputs.empty() ? "};  // none in this model\n\n" : "\n");
  for (const auto& field : inputs) {
    h << "  double " << field.cpp_name << " = " << plain_literal(field.default_value) << ";";
    if (field.cpp_name != field.name) h << "  // " << field.name;
    h << "\n";
  }
  if (!inputs.empty()) h << "};\n\n";

  h << "/// The mass matrix M(q, t), row-major dof x dof.\n"
    << signature("inline void mass_matrix", state_arguments({"double* M"})) << discard_unread(mass)
    << mass.code << "}\n\n"
    << "/// The forcing f(q, qd, t): everything but the inertia of the accelerations.\n"
    << signature("inline void forcing", state_arguments({"double* f"})) << discard_unread(forcing)
    << forcing.code << "}\n\n"
    << "/// M and f together, computing their common subexpressions once.\n"
    << signature("inline void mass_matrix_and_forcing", state_arguments({"double* M", "double* f"}))
    << discard_unread(both) << both.code << "}\n\n"
    << cholesky_solver << "\n"
    << "/// The accelerations: solves M qdd = f + Q (Q: extra generalized forces, none if null).\n"
    << "/// False if M is not positive definite (or not finite) at this state; qdd is then\n"
    << "/// unspecified.\n"
    << signature("inline bool forward_dynamics",
                 state_arguments({"double* qdd", "const double* Q = nullptr"}))
    << "  double M[dof * dof];\n"
    << "  mass_matrix_and_forcing(t, q, qd, p, in, M, qdd);\n"
    << "  if (Q != nullptr)\n"
    << "    for (int i = 0; i < dof; ++i) qdd[i] += Q[i];\n"
    << "  return detail::cholesky_solve(M, qdd, dof);\n"
    << "}\n\n"
    << "/// The generalized forces that produce the accelerations qdd: Q = M qdd - f (driving\n"
    << "/// forces of a prescribed motion). Q must not alias qdd.\n"
    << signature("inline void inverse_dynamics", state_arguments({"double* Q"}, true))
    << "  double M[dof * dof];\n"
    << "  double f[dof];\n"
    << "  mass_matrix_and_forcing(t, q, qd, p, in, M, f);\n"
    << "  for (int i = 0; i < dof; ++i) {\n"
    << "    double sum = -f[i];\n"
    << "    for (int k = 0; k < dof; ++k) sum += M[i * dof + k] * qdd[k];\n"
    << "    Q[i] = sum;\n"
    << "  }\n"
    << "}\n\n"
    << "}  // namespace " << ns << "\n";
  return h.str();
}

}  // namespace appell::codegen
