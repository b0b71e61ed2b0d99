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
      // C99 keywords that C++ lacks (the C output, --language c), C23's and GNU C's typeof, and
      // the keywords of the transactional memory and reflection TS (g++ -fgnu-tm, -freflection)
      "restrict", "typeof", "typeof_unqual", "atomic_cancel", "atomic_commit", "atomic_noexcept",
      "synchronized", "reflexpr",
      // the generated code's own names
      "Parameters", "Inputs", "std",
      // The system's names that gcc and clang predefine as macros in their default dialects
      // (gnu11, gnu17, gnu++17: `echo | gcc -dM -E -`), so that `double linux;` would read
      // `double 1;`: linux and unix everywhere, the processor's name on some (i386, sparc, ..).
      "linux", "unix", "i386", "sun", "sparc", "mips", "vax", "PPC", "powerpc", "MIPSEB", "MIPSEL",
      "R3000", "R4000", "mc68000", "m68k", "hppa", "i860", "ns32000", "pyr", "sequent", "u370",
      "u3b", "bsd4_2", "bsd4_3", "host_mips", "sony", "NeXT",
      // Object-like macros of <math.h>/<cmath>, <string.h>/<cstring> and what they include
      // (glibc's <cmath> includes <stdlib.h> in C++); the families M_PI.., HUGE_VAL.., SNAN..,
      // FP_.. and MATH_.. are in macro_family() below.
      "INFINITY", "NAN", "NULL", "MAXFLOAT", "math_errhandling", "EDOM", "ERANGE", "EILSEQ",
      "errno", "assert", "EXIT_FAILURE", "EXIT_SUCCESS", "RAND_MAX", "MB_CUR_MAX", "BIG_ENDIAN",
      "LITTLE_ENDIAN", "PDP_ENDIAN", "BYTE_ORDER", "FD_SETSIZE", "NFDBITS", "WCONTINUED", "WEXITED",
      "WNOHANG", "WNOWAIT", "WSTOPPED", "WUNTRACED"};
  return words;
}

// `s` with a floating type's suffix taken off ("M_PIl" -> "M_PI", "sinf128" -> "sin",
// "SNANF32X" -> "SNAN"), in lower case (f, l, fN, fNx) or upper case (F, L, FN, FNX); `s` when it
// has none.
std::string without_float_suffix(const std::string& s, bool upper) {
  const char f = upper ? 'F' : 'f', l = upper ? 'L' : 'l', x = upper ? 'X' : 'x';
  std::size_t end = s.size();
  if (end > 0 && s[end - 1] == x) --end;
  std::size_t digits = end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(s[digits - 1]))) --digits;
  if (digits < end && digits > 0 && s[digits - 1] == f) return s.substr(0, digits - 1);
  if (!s.empty() && (s.back() == f || s.back() == l)) return s.substr(0, s.size() - 1);
  return s;
}

// The macro families of <math.h>: its constants with any floating type's suffix (M_PI, M_PIf,
// M_PIl, M_PIf128, ..), HUGE_VAL.. and SNAN.. likewise, and what C reserves for future macros of
// <math.h> (FP_ or MATH_ and an uppercase letter): a C library adds to them without notice.
bool macro_family(const std::string& s) {
  static const std::set<std::string> constants = {
      "M_E",    "M_LOG2E", "M_LOG10E", "M_LN2",      "M_LN10",  "M_PI",     "M_PI_2",
      "M_PI_4", "M_1_PI",  "M_2_PI",   "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2"};
  if (constants.count(s) || constants.count(without_float_suffix(s, false))) return true;
  // HUGE_VAL, HUGE_VALF, HUGE_VAL_F128, SNAN, SNANF32X, ..
  const std::string upper = without_float_suffix(s, true);
  if (s == "HUGE_VAL" || s == "SNAN" ||
      (upper != s && (upper == "HUGE_VAL" || upper == "HUGE_VAL_" || upper == "SNAN")))
    return true;
  // A name ending in _ or _N is none of them, so that claim_identifier's suffixes always leave
  // the family ("FP_INT_UPWARD" -> "FP_INT_UPWARD_").
  const std::size_t last = s.find_last_of('_');
  if (last != std::string::npos && s.find_first_not_of("0123456789", last + 1) == std::string::npos)
    return false;
  for (const std::string prefix : {"FP_", "MATH_"})
    if (s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0 &&
        std::isupper(static_cast<unsigned char>(s[prefix.size()])))
      return true;
  return false;
}

// The words of `text`, separated by blanks.
std::set<std::string> words(const char* text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) out.insert(word);
  return out;
}

// Functions of <math.h> (C17 and glibc's), each also with every floating type's suffix (sinf,
// sinl, sinf128, ..).
const std::set<std::string>& math_functions() {
  static const std::set<std::string> names = words(
      "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp2 exp10 "
      "expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb ldexp lgamma lgamma_r llrint "
      "llround log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter nexttoward pow "
      "pow10 remainder remquo rint round roundeven scalb scalbln scalbn sin sincos sinh sqrt tan "
      "tanh tgamma trunc j0 j1 jn y0 y1 yn gamma drem finite significand isinf isnan fromfp "
      "fromfpx ufromfp ufromfpx fmaxmag fminmag fmaximum fminimum fmaximum_num fminimum_num "
      "fmaximum_mag fminimum_mag fmaximum_mag_num fminimum_mag_num canonicalize nextup nextdown "
      "getpayload setpayload setpayloadsig totalorder totalordermag llogb iscanonical iseqsig "
      "issignaling iszero fadd fsub fmul fdiv ffma fsqrt dadd dsub dmul ddiv dfma dsqrt signgam "
      "exception ");
  return names;
}

// The other names <stdlib.h> and <string.h> (with <strings.h>) declare at global scope, C's and
// POSIX's and glibc's (those ending in _t are covered by is_global_library_name's rule).
const std::set<std::string>& library_names() {
  static const std::set<std::string> names = words(
      "abort abs atexit at_quick_exit atof atoi atol atoll bsearch calloc div exit free getenv "
      "labs ldiv llabs lldiv malloc mblen mbstowcs mbtowc qsort qsort_r quick_exit rand realloc "
      "srand system wcstombs wctomb aligned_alloc a64l l64a drand48 erand48 lrand48 nrand48 "
      "mrand48 jrand48 srand48 seed48 lcong48 drand48_r erand48_r lrand48_r nrand48_r mrand48_r "
      "jrand48_r srand48_r seed48_r lcong48_r random srandom initstate setstate random_r "
      "srandom_r initstate_r setstate_r rand_r ecvt fcvt gcvt qecvt qfcvt qgcvt ecvt_r fcvt_r "
      "qecvt_r qfcvt_r mkstemp mkstemps mkostemp mkostemps mkdtemp mktemp mkstemp64 mkstemps64 "
      "mkostemp64 mkostemps64 valloc posix_memalign alloca putenv setenv unsetenv clearenv "
      "secure_getenv on_exit canonicalize_file_name realpath getsubopt posix_openpt grantpt "
      "unlockpt ptsname ptsname_r getpt getloadavg rpmatch reallocarray arc4random arc4random_buf "
      "arc4random_uniform select pselect bcmp bcopy bzero index rindex ffs ffsl ffsll "
      "explicit_bzero basename sigabbrev_np sigdescr_np memccpy memchr memcmp memcpy memfrob "
      "memmem memmove mempcpy memrchr memset rawmemchr stpcpy stpncpy strcasecmp strcasecmp_l "
      "strcasestr strcat strchr strchrnul strcmp strcoll strcoll_l strcspn strdup strerror "
      "strerror_l strerror_r strerrordesc_np strerrorname_np strfromd strfromf strfroml strfry "
      "strlcat strlcpy strlen strncasecmp strncasecmp_l strncat strncmp strncpy strndup strnlen "
      "strpbrk strrchr strsep strsignal strspn strstr strtod strtod_l strtof strtof_l strtok "
      "strtok_r strtol strtol_l strtold strtold_l strtoll strtoll_l strtoq strtoul strtoul_l "
      "strtoull strtoull_l strtouq strverscmp strxfrm strxfrm_l strdupa strndupa uint ulong "
      "ushort u_char u_int u_long u_short fd_set fd_mask timeval timespec random_data "
      "drand48_data sigset div_t ldiv_t lldiv_t ");
  return names;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

// An identifier the generated code may declare: not reserved by the language (no "__", no
// leading underscore), not one of reserved_words() and of no macro_family().
bool is_free_identifier(const std::string& s) {
  return is_identifier(s) && s[0] != '_' && s.find("__") == std::string::npos &&
         reserved_words().count(s) == 0 && !macro_family(s);
}

bool is_global_library_name(const std::string& s) {
  if (math_functions().count(s) || math_functions().count(without_float_suffix(s, false)) ||
      library_names().count(s))
    return true;
  // POSIX reserves the names ending in _t for types (size_t, int32_t, pthread_t, ..).
  return s.size() > 2 && s.compare(s.size() - 2, 2, "_t") == 0;
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
