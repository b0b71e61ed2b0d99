#include "appell/model/expression_parser.hpp"

#include <cctype>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <utility>

#include "appell/sym/dag.hpp"
#include "appell/sym/finite_number.hpp"

namespace appell::model {

using GiNaC::ex;

// ---------------------------------------------------------------------------------------------
// Scope

ExpressionScope::ExpressionScope(std::shared_ptr<sym::TimeFunctions> functions)
    : functions_(std::move(functions)), differentiator_(functions_) {}

void ExpressionScope::add_parameter(const std::string& name, const GiNaC::symbol& symbol) {
  names_[name] = Name{Category::Parameter, symbol, false};
}

void ExpressionScope::add_coordinate(const std::string& name) {
  functions_->declare(name, sym::TimeFunctionKind::Coordinate);
  names_[name] = Name{Category::Coordinate, functions_->derivative(name, 0), false};
}

void ExpressionScope::add_prescribed(const std::string& name,
                                     const std::optional<GiNaC::ex>& expression) {
  if (expression) {
    names_[name] = Name{Category::Prescribed, *expression, true};
    return;
  }
  functions_->declare(name, sym::TimeFunctionKind::Prescribed);
  names_[name] = Name{Category::Prescribed, functions_->derivative(name, 0), false};
}

void ExpressionScope::add_input(const std::string& name) {
  functions_->declare(name, sym::TimeFunctionKind::Prescribed);
  names_[name] = Name{Category::Input, functions_->derivative(name, 0), false};
}

void ExpressionScope::add_speed(const std::string& name) {
  functions_->declare(name, sym::TimeFunctionKind::Speed);
  names_[name] = Name{Category::Speed, functions_->derivative(name, 0), false};
}

const ExpressionScope::Name* ExpressionScope::find(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : &it->second;
}

GiNaC::ex ExpressionScope::derivative(const std::string& name, int order) {
  const Name& entry = names_.at(name);
  if (!entry.has_expression) return functions_->derivative(name, order);
  ex result = entry.value;
  for (int k = 0; k < order; ++k) result = differentiator_.time_derivative(result);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Names

namespace {

// Functions of one argument, by name; atan2 is the only one with two.
const std::map<std::string, ex (*)(const ex&)>& unary_functions() {
  static const std::map<std::string, ex (*)(const ex&)> functions = {
      {"sin", [](const ex& x) -> ex { return GiNaC::sin(x); }},
      {"cos", [](const ex& x) -> ex { return GiNaC::cos(x); }},
      {"tan", [](const ex& x) -> ex { return GiNaC::tan(x); }},
      {"asin", [](const ex& x) -> ex { return GiNaC::asin(x); }},
      {"acos", [](const ex& x) -> ex { return GiNaC::acos(x); }},
      {"atan", [](const ex& x) -> ex { return GiNaC::atan(x); }},
      {"sinh", [](const ex& x) -> ex { return GiNaC::sinh(x); }},
      {"cosh", [](const ex& x) -> ex { return GiNaC::cosh(x); }},
      {"tanh", [](const ex& x) -> ex { return GiNaC::tanh(x); }},
      {"exp", [](const ex& x) -> ex { return GiNaC::exp(x); }},
      {"log", [](const ex& x) -> ex { return GiNaC::log(x); }},
      {"sqrt", [](const ex& x) -> ex { return GiNaC::sqrt(x); }},
      {"abs", [](const ex& x) -> ex { return GiNaC::abs(x); }},
  };
  return functions;
}

// YAML's spellings of NaN and infinity (.nan .NaN .NAN .inf .Inf .INF) at the start of `text`,
// not followed by more of a name.
bool yaml_non_finite(const std::string& text) {
  if (text.size() < 4) return false;
  const std::string word = text.substr(1, 3);
  if (word != "nan" && word != "NaN" && word != "NAN" && word != "inf" && word != "Inf" &&
      word != "INF")
    return false;
  return text.size() == 4 || !(std::isalnum(static_cast<unsigned char>(text[4])) || text[4] == '_');
}

const std::set<std::string>& rotation_names() {
  static const std::set<std::string> names = {"rot", "rot_x", "rot_y", "rot_z", "rot_quat"};
  return names;
}

}  // namespace

bool is_valid_name(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_reserved_name(const std::string& name) {
  static const std::set<std::string> others = {"t", "pi", "world", "atan2", "dot", "ddot"};
  return others.count(name) || unary_functions().count(name) || rotation_names().count(name);
}

// ---------------------------------------------------------------------------------------------
// Parser

TextLocator locate_on_one_line(SourceLocation start) {
  return [start](std::size_t offset) {
    SourceLocation at = start;
    at.column += static_cast<int>(offset);
    return at;
  };
}

namespace {

struct Token {
  enum class Kind { Number, Name, Symbol, End };
  Kind kind = Kind::End;
  std::string text;        // the characters as written
  std::size_t offset = 0;  // of the first character in the expression's text
};

// Numbers beyond 10^±1000 are certainly typing mistakes, and exact powers of ten of that size
// would only slow everything down.
constexpr long kLargestDecimalExponent = 1000;

// Deeper nesting than any hand-written or sensibly generated expression has (documented in
// docs/model-format.md, "Expressions").
constexpr int kMaxNesting = 500;

// Functions nested in functions cost far more than parentheses: each level multiplies what d/dt
// forms twice over (sin(sin(...(q)))'s acceleration has a term per pair of levels), and GiNaC
// compares such trees level by level. 400 nested sines took minutes to derive, 100 take 2 s and
// 64 well under one; no model of a mechanism nests a dozen.
constexpr int kMaxFunctionNesting = 64;

constexpr const char* kOutOfDoubleRange =
    "number out of range: a double holds 0 and magnitudes from 2.2e-308 to 1.8e308, and this "
    "number would become 0 or inf";

class Parser {
 public:
  Parser(const std::string& text, ExpressionScope& scope, const TextLocator& locate,
         Dependence allowed)
      : text_(text), scope_(scope), locate_(locate), allowed_(allowed) {
    tokenize();
  }

  ex whole_expression() {
    if (peek().kind == Token::Kind::End) fail(peek(), "empty expression");
    const Token& first = peek();
    ex result = sum();
    expect_end();
    // What no function or power below caught (a product of literals, 1e300*1e300*q): the parts
    // made of numbers alone, held to the range of a double, at the expression's start. A whole
    // expression of numbers is its reader's to check, at the item it gives (a parameter's value
    // names the parameter).
    if (!sym::is_constant_expression(result)) checked_constants(first, result);
    return result;
  }

  std::vector<RotationFactor> whole_rotation() {
    std::vector<RotationFactor> factors;
    factors.push_back(rotation_factor());
    while (is_symbol(peek(), "*")) {
      // The frame's speeds w are the quaternion's own angular velocity in the frame's axes, so
      // nothing may turn the frame after it.
      if (!quaternion_.empty()) fail(peek(), "rot_quat must be the last factor of a rotation");
      next();
      factors.push_back(rotation_factor());
    }
    expect_end();
    return factors;
  }

 private:
  // -- tokens ---------------------------------------------------------------------------------

  void tokenize() {
    std::size_t i = 0;
    const std::size_t n = text_.size();
    auto digit_at = [&](std::size_t k) {
      return k < n && std::isdigit(static_cast<unsigned char>(text_[k]));
    };
    while (i < n) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      const std::size_t start = i;
      if (digit_at(i) || (c == '.' && digit_at(i + 1))) {
        while (digit_at(i)) ++i;
        if (i < n && text_[i] == '.') ++i;
        while (digit_at(i)) ++i;
        // An exponent only if digits follow, so that "2e" stays a number and a name.
        if (i < n && (text_[i] == 'e' || text_[i] == 'E')) {
          std::size_t k = i + 1;
          if (k < n && (text_[k] == '+' || text_[k] == '-')) ++k;
          if (digit_at(k)) {
            i = k;
            while (digit_at(i)) ++i;
          }
        }
        tokens_.push_back({Token::Kind::Number, text_.substr(start, i - start), start});
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_'))
          ++i;
        tokens_.push_back({Token::Kind::Name, text_.substr(start, i - start), start});
      } else if (std::string("+-*/^(),").find(c) != std::string::npos) {
        tokens_.push_back({Token::Kind::Symbol, std::string(1, c), start});
        ++i;
      } else if (c == '.' && yaml_non_finite(text_.substr(i, 5))) {
        // YAML's NaN and infinities (.nan, .inf, -.inf) read as text by the reader.
        throw ModelError(locate_(start),
                         "numbers must be finite: YAML's .nan (not a number) and .inf (infinity) "
                         "are not accepted",
                         text_.substr(start, 4));
      } else {
        // Report the whole UTF-8 sequence, not a broken byte.
        std::size_t end = i + 1;
        while (end < n && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;
        throw ModelError(locate_(start), "unexpected character in expression",
                         text_.substr(start, end - start));
      }
    }
    tokens_.push_back({Token::Kind::End, "", n});
  }

  const Token& peek() const { return tokens_[position_]; }
  const Token& next() {
    const Token& t = tokens_[position_];
    if (t.kind != Token::Kind::End) ++position_;
    return t;
  }
  static bool is_symbol(const Token& t, const char* s) {
    return t.kind == Token::Kind::Symbol && t.text == s;
  }

  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw ModelError(locate_(at.offset), message, at.text);
  }
  [[noreturn]] void fail(const Token& at, const std::string& message,
                         const std::string& offending) const {
    throw ModelError(locate_(at.offset), message, offending);
  }

  void expect(const char* symbol, const std::string& context) {
    const Token& t = peek();
    if (!is_symbol(t, symbol)) {
      if (t.kind == Token::Kind::End)
        fail(t, std::string("syntax error: expected '") + symbol + "' " + context +
                    " before the end of the expression");
      fail(t, std::string("syntax error: expected '") + symbol + "' " + context);
    }
    next();
  }

  void expect_end() {
    const Token& t = peek();
    if (t.kind == Token::Kind::End) return;
    if (is_symbol(t, ")")) fail(t, "syntax error: unbalanced ')'");
    fail(t, "syntax error: expected an operator");
  }

  // -- arithmetic -----------------------------------------------------------------------------

  // Builds a GiNaC value, turning its evaluation errors (1/0, log(0), tan(pi/2)) into a located
  // model error.
  template <typename Build>
  ex evaluated(const Token& at, Build build) const {
    try {
      return checked_constants(at, build());
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      // GiNaC says where it noticed ("power::eval(): division by zero"); the user needs what.
      std::string reason = e.what();
      if (auto end = reason.find("): "); end != std::string::npos) reason.erase(0, end + 3);
      fail(at, "expression has no value: " + reason);
    }
  }

  // An operation's result, when it is made of numbers alone, must be a finite real double
  // (sym/finite_number.hpp): sqrt(-1), log(-1) or exp(exp(1000)) are refused where they are
  // written, not met later by a tape as "a complex number" or taken by CLN as 1.
  ex checked_constants(const Token& at, const ex& result) const {
    if (auto why = sym::constant_parts_defect(result))
      fail(at, "the value is not a finite real number: " + *why);
    return result;
  }

  ex sum() {
    ex result = product();
    while (is_symbol(peek(), "+") || is_symbol(peek(), "-")) {
      const bool minus = next().text == "-";
      const ex rhs = product();
      result = minus ? result - rhs : result + rhs;
    }
    return result;
  }

  ex product() {
    ex result = signed_term();
    while (is_symbol(peek(), "*") || is_symbol(peek(), "/")) {
      const Token& op = next();
      const ex rhs = signed_term();
      if (op.text == "*") {
        result = result * rhs;
      } else {
        const ex lhs = result;
        result = evaluated(op, [&] { return lhs / rhs; });
      }
    }
    return result;
  }

  // Every nesting (parentheses, a function's argument, a sign, an exponent) passes here, so that
  // one counter bounds the recursion: a hostile or generated expression gets a located error
  // instead of overflowing the stack.
  ex signed_term() {
    const Token& at = peek();
    if (++depth_ > kMaxNesting)
      fail(at, "expression nested too deeply (more than " + std::to_string(kMaxNesting) +
                   " levels of parentheses, signs, exponents or function calls)");
    ex result = unsigned_term();
    --depth_;
    return result;
  }

  ex unsigned_term() {
    if (is_symbol(peek(), "-")) {
      next();
      return -signed_term();
    }
    if (is_symbol(peek(), "+")) {
      next();
      return signed_term();
    }
    return power();
  }

  ex power() {
    const ex base = primary();
    if (!is_symbol(peek(), "^")) return base;
    const Token& op = next();
    const ex exponent = signed_term();  // right-associative: a^b^c = a^(b^c)
    if (sym::exact_power_digits(base, exponent) > sym::kLargestExactPowerDigits)
      fail(op, "number out of range: a power of exact numbers larger than 10^" +
                   std::to_string(int(sym::kLargestExactPowerDigits)));
    // A power on the stack, not GiNaC::pow: GiNaC leaks the node it allocates when its evaluation
    // throws (0^0, 0^-1).
    return evaluated(op, [&] { return ex(GiNaC::power(base, exponent)); });
  }

  ex primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Token::Kind::Number:
        next();
        return number(t);
      case Token::Kind::Name:
        next();
        if (is_symbol(peek(), "(")) return call(t);
        return name(t);
      case Token::Kind::Symbol:
        if (t.text == "(") {
          next();
          const ex inside = sum();
          expect(")", "to close '('");
          return inside;
        }
        // `**` is Python's and SymPy's power: the habit gets the model language's spelling.
        if (t.text == "*" && position_ > 0 && is_symbol(tokens_[position_ - 1], "*") &&
            tokens_[position_ - 1].offset + 1 == t.offset)
          fail(tokens_[position_ - 1],
               "syntax error: expected a number, a name or '('; write ^ for a power", "**");
        fail(t, "syntax error: expected a number, a name or '('");
      case Token::Kind::End:
        break;
    }
    fail(t, "syntax error: expression ends too early");
  }

  // The exact rational value of a decimal: "0.5" is 1/2, "2e-3" is 1/500.
  ex number(const Token& t) const {
    GiNaC::numeric mantissa = 0;
    long exponent = 0;
    bool after_point = false;
    std::size_t i = 0;
    const std::string& s = t.text;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
      if (s[i] == '.') {
        after_point = true;
        continue;
      }
      mantissa = mantissa.mul(10).add(s[i] - '0');
      if (after_point) --exponent;
    }
    if (i < s.size()) {
      ++i;  // 'e'
      const bool negative = s[i] == '-';
      if (s[i] == '+' || s[i] == '-') ++i;
      long written = 0;
      for (; i < s.size(); ++i) {
        written = written * 10 + (s[i] - '0');
        if (written > kLargestDecimalExponent) fail(t, "number out of range");
      }
      exponent += negative ? -written : written;
    }
    if (exponent > kLargestDecimalExponent || exponent < -kLargestDecimalExponent)
      fail(t, "number out of range");
    const GiNaC::numeric scale = GiNaC::numeric(10).power(GiNaC::numeric(std::abs(exponent)));
    const GiNaC::numeric value = exponent >= 0 ? mantissa.mul(scale) : mantissa.div(scale);
    // Exact here, but every evaluation is in doubles: 1e-400 would be 0 there, 1e400 inf.
    if (!fits_double(value)) fail(t, kOutOfDoubleRange);
    return value;
  }

  // What a name (or dot/ddot of one) stands for, as model::allows judges it.
  static SymbolKind kind_of(ExpressionScope::Category category, int order) {
    switch (category) {
      case ExpressionScope::Category::Parameter:
        return SymbolKind::Parameter;
      case ExpressionScope::Category::Coordinate:
        return order == 0   ? SymbolKind::Coordinate
               : order == 1 ? SymbolKind::Velocity
                            : SymbolKind::Acceleration;
      case ExpressionScope::Category::Prescribed:
        return SymbolKind::Prescribed;
      case ExpressionScope::Category::Input:
        return SymbolKind::Input;
      case ExpressionScope::Category::Speed:
        return order == 0 ? SymbolKind::Speed : SymbolKind::Acceleration;
    }
    return SymbolKind::Unknown;
  }

  // `written` is the name as the message shows it: q, dot(q), t.
  void check_allowed(const Token& at, SymbolKind kind, const std::string& written) const {
    if (!allows(allowed_, kind)) fail(at, not_allowed_message(allowed_, kind, written), written);
  }

  ex name(const Token& t) const {
    if (t.text == "pi") return GiNaC::Pi;
    if (t.text == "t") {
      check_allowed(t, SymbolKind::Time, t.text);
      return scope_.time();
    }
    if (const auto* entry = scope_.find(t.text)) {
      check_allowed(t, kind_of(entry->category, 0), t.text);
      return entry->value;
    }
    if (unary_functions().count(t.text) || t.text == "atan2" || t.text == "dot" || t.text == "ddot")
      fail(t, "function without its arguments in parentheses");
    if (rotation_names().count(t.text)) fail(t, "a rotation is only allowed as a frame's rotation");
    fail(t, "unknown name in expression");
  }

  // NAME '(' ... ')': a function, or dot/ddot of a time function.
  ex call(const Token& function) {
    const std::string& f = function.text;
    if (f == "dot" || f == "ddot") return time_derivative(function, f == "dot" ? 1 : 2);
    if (rotation_names().count(f))
      fail(function, "a rotation is only allowed as a frame's rotation");
    auto unary = unary_functions().find(f);
    if (unary == unary_functions().end() && f != "atan2") {
      if (scope_.find(f) || f == "t" || f == "pi") fail(function, "not a function");
      fail(function, "unknown function in expression");
    }
    if (++function_depth_ > kMaxFunctionNesting)
      fail(function, "functions nested too deeply (more than " +
                         std::to_string(kMaxFunctionNesting) + " inside one another)");
    const std::vector<ex> args = arguments(function);
    --function_depth_;
    const std::size_t arity = unary != unary_functions().end() ? 1 : 2;
    if (args.size() != arity)
      fail(function, f + " takes " + std::to_string(arity) +
                         (arity == 1 ? " argument" : " arguments") + ", not " +
                         std::to_string(args.size()));
    if (arity == 1) return evaluated(function, [&] { return unary->second(args[0]); });
    return evaluated(function, [&] { return GiNaC::atan2(args[0], args[1]); });
  }

  // '(' sum (',' sum)* ')' after a function's name.
  std::vector<ex> arguments(const Token& function) {
    expect("(", "after " + function.text);
    std::vector<ex> args;
    if (is_symbol(peek(), ")")) {
      next();
      return args;
    }
    args.push_back(sum());
    while (is_symbol(peek(), ",")) {
      next();
      args.push_back(sum());
    }
    expect(")", "to close the arguments of " + function.text);
    return args;
  }

  ex time_derivative(const Token& function, int order) {
    expect("(", "after " + function.text);
    const Token& argument = peek();
    if (argument.kind != Token::Kind::Name)
      fail(argument,
           function.text + "() takes the name of a coordinate, prescribed function or input");
    next();
    const auto* entry = scope_.find(argument.text);
    if (!entry) fail(argument, "unknown name in expression");
    if (entry->category == ExpressionScope::Category::Parameter)
      fail(argument, function.text +
                         "() takes the name of a coordinate, prescribed function or input, not a "
                         "parameter");
    if (entry->category == ExpressionScope::Category::Speed)
      fail(argument, function.text +
                         "() takes the name of a coordinate, prescribed function or input, not a "
                         "generalized speed (a load may use the speed itself)");
    expect(")", "to close " + function.text + "(");
    check_allowed(function, kind_of(entry->category, order),
                  function.text + "(" + argument.text + ")");
    return scope_.derivative(argument.text, order);
  }

  // -- rotations ------------------------------------------------------------------------------

  RotationFactor rotation_factor() {
    const Token& t = peek();
    if (t.kind != Token::Kind::Name || !rotation_names().count(t.text)) {
      if (t.kind == Token::Kind::End)
        fail(t,
             "syntax error: rotation ends too early, expected rot_x, rot_y, rot_z, rot or "
             "rot_quat");
      fail(t,
           "a rotation is rot_x(a), rot_y(a), rot_z(a), rot(ax, ay, az, a), rot_quat(e0, e1, e2, "
           "e3) or a product of them");
    }
    next();
    RotationFactor factor;
    factor.kind = RotationFactor::Kind::Axis;
    if (t.text == "rot_quat") {
      if (!quaternions_allowed_) fail(t, "rot_quat turns a frame only (a frame's rotation)");
      return quaternion_factor(t);
    }
    if (t.text != "rot") {
      expect("(", "after " + t.text);
      factor.angle = sum();
      if (is_symbol(peek(), ",")) fail(t, t.text + " takes 1 argument, the angle");
      expect(")", "to close the argument of " + t.text);
      const int along = t.text == "rot_x" ? 0 : t.text == "rot_y" ? 1 : 2;
      factor.axis = {0, 0, 0};
      factor.axis[static_cast<std::size_t>(along)] = 1;
      return factor;
    }

    // rot(ax, ay, az, a): a constant axis, normalised here so that any multiple may be written.
    expect("(", "after rot");
    Vector3 axis;
    {
      const Dependence outer = allowed_;
      allowed_ = Dependence::Parameters;
      for (std::size_t k = 0; k < 3; ++k) {
        axis[k] = sum();
        expect(",", "between the arguments of rot(ax, ay, az, a)");
      }
      allowed_ = outer;
    }
    factor.angle = sum();
    if (is_symbol(peek(), ",")) fail(t, "rot takes 4 arguments: rot(ax, ay, az, a)");
    expect(")", "to close the arguments of rot");

    const auto unit = normalized_axis(axis);
    if (!unit) fail(t, "rotation axis must not be zero");
    factor.axis = *unit;
    return factor;
  }

  // rot_quat(e0, e1, e2, e3): four distinct coordinates, e0 the scalar part; the frame gives its
  // angular velocity as speeds (checked by the builder, which knows the frame).
  RotationFactor quaternion_factor(const Token& t) {
    expect("(", "after rot_quat");
    std::vector<ex> parts;
    for (int k = 0; k < 4; ++k) {
      if (k > 0) {
        if (is_symbol(peek(), ")")) fail(t, "rot_quat takes 4 arguments: rot_quat(e0, e1, e2, e3)");
        expect(",", "between the arguments of rot_quat(e0, e1, e2, e3)");
      }
      const Token& argument = peek();
      const auto* entry = argument.kind == Token::Kind::Name ? scope_.find(argument.text) : nullptr;
      if (!entry || entry->category != ExpressionScope::Category::Coordinate)
        fail(argument,
             "rot_quat takes four coordinates e0, e1, e2, e3 (the quaternion, e0 its scalar part)");
      for (const auto& earlier : parts)
        if (earlier.is_equal(entry->value)) fail(argument, "rot_quat uses a coordinate twice");
      parts.push_back(entry->value);
      next();
    }
    if (is_symbol(peek(), ",")) fail(t, "rot_quat takes 4 arguments: rot_quat(e0, e1, e2, e3)");
    expect(")", "to close the arguments of rot_quat");
    RotationFactor factor;
    factor.kind = RotationFactor::Kind::Matrix;
    factor.matrix = quaternion_matrix(parts[0], parts[1], parts[2], parts[3]);
    quaternion_ = parts;
    return factor;
  }

 public:
  bool quaternions_allowed_ = false;
  std::vector<ex> quaternion_;  // the coordinates of rot_quat, once parsed

 private:
  const std::string& text_;
  ExpressionScope& scope_;
  const TextLocator& locate_;
  Dependence allowed_;
  std::vector<Token> tokens_;
  std::size_t position_ = 0;
  int depth_ = 0;
  int function_depth_ = 0;  // of sin(...), atan2(...) and the like only
};

}  // namespace

bool fits_double(const GiNaC::numeric& value) {
  if (!value.is_real() || value.is_zero()) return true;
  // The smallest normal double, 2^-1022, and the first magnitude that rounds to inf,
  // 2^1024 - 2^970 (the largest double plus half its last place), both exact.
  static const GiNaC::numeric smallest = GiNaC::numeric(2).power(-1022);
  static const GiNaC::numeric overflow =
      GiNaC::numeric(2).power(1024) - GiNaC::numeric(2).power(970);
  const GiNaC::numeric magnitude = GiNaC::abs(value);
  return magnitude >= smallest && magnitude < overflow;
}

std::optional<Vector3> normalized_axis(const Vector3& axis) {
  const ex norm2 = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).expand();
  if (norm2.is_zero()) return std::nullopt;
  if (const ex value = GiNaC::evalf(norm2); GiNaC::is_a<GiNaC::numeric>(value) && value.is_zero())
    return std::nullopt;
  if (norm2.is_equal(1)) return axis;
  const ex norm = GiNaC::sqrt(norm2);
  return Vector3{axis[0] / norm, axis[1] / norm, axis[2] / norm};
}

GiNaC::ex parse_expression(const std::string& text, ExpressionScope& scope,
                           const TextLocator& locate, Dependence allowed) {
  return Parser(text, scope, locate, allowed).whole_expression();
}

std::vector<RotationFactor> parse_rotation(const std::string& text, ExpressionScope& scope,
                                           const TextLocator& locate, Dependence allowed) {
  return Parser(text, scope, locate, allowed).whole_rotation();
}

std::vector<RotationFactor> parse_rotation(const std::string& text, ExpressionScope& scope,
                                           const TextLocator& locate,
                                           std::vector<GiNaC::ex>& quaternion, Dependence allowed) {
  Parser parser(text, scope, locate, allowed);
  parser.quaternions_allowed_ = true;
  auto factors = parser.whole_rotation();
  quaternion = parser.quaternion_;
  return factors;
}

}  // namespace appell::model
