#include "appell/sym/finite_number.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "appell/sym/canonical_text.hpp"
#include "appell/sym/dag.hpp"

namespace appell::sym {

namespace {

using GiNaC::ex;

// A part of an expression as a message shows it: canonical (the same text whatever the order
// GiNaC keeps the terms in), and short — a number of hundreds of digits is cut.
std::string shown(const ex& e) {
  std::string text = canonical_text(e);
  constexpr std::size_t kLongest = 60;
  if (text.size() > kLongest) text = text.substr(0, kLongest - 3) + "...";
  return text;
}

// The smallest normal double, 2^-1022, and the first magnitude that rounds to inf,
// 2^1024 - 2^970 (the largest double plus half its last place), both exact: the range a number
// written exactly must lie in (the expression parser holds literals to the same range).
bool exact_number_fits(const GiNaC::numeric& value) {
  if (value.is_zero()) return true;
  static const GiNaC::numeric smallest = GiNaC::numeric(2).power(-1022);
  static const GiNaC::numeric overflow =
      GiNaC::numeric(2).power(1024) - GiNaC::numeric(2).power(970);
  const GiNaC::numeric magnitude = GiNaC::abs(value);
  return magnitude >= smallest && magnitude < overflow;
}

constexpr const char* kUnderflow = " underflows: its magnitude is below the smallest normal double";

// An exact number outside the doubles' range, in the words the parser uses for a literal.
std::string out_of_range(const ex& e, const GiNaC::numeric& n) {
  return "number out of range: " + shown(e) +
         (GiNaC::abs(n) < 1 ? kUnderflow : " is beyond the range of a double");
}

// The walk: each node's value computed in doubles from its children's, so that a step out of
// the doubles' range or out of the real numbers is caught at the step that leaves it, before
// CLN (whose exponent range is wider, and whose exp() is wrong near its end) sees it.
class Walk {
 public:
  explicit Walk(const GiNaC::exmap& numbers) : numbers_(numbers) {}

  std::optional<std::string> defect;

  // The node's double value; nothing once a defect is found.
  std::optional<double> value(const ex& e) {
    if (defect) return std::nullopt;
    if (GiNaC::is_a<GiNaC::numeric>(e)) {
      const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
      if (!n.is_real()) return fail("it is complex (" + shown(e) + ")");
      if (!exact_number_fits(n)) return fail(out_of_range(e, n));
      return n.to_double();
    }
    if (GiNaC::is_a<GiNaC::constant>(e))
      return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e)).to_double();
    if (GiNaC::is_a<GiNaC::symbol>(e)) {
      const auto given = numbers_.find(e);
      if (given == numbers_.end() || !is_constant_expression(given->second))
        return fail("it depends on " + GiNaC::ex_to<GiNaC::symbol>(e).get_name());
      return value(given->second);
    }
    std::vector<double> args;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      const auto v = value(e.op(i));
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
    const auto result = combine(e, args);
    if (!result) return std::nullopt;
    return checked(e, *result, args);
  }

 private:
  const GiNaC::exmap& numbers_;

  // The first defect, with the numbers its node was given ("exp(a) ... (at a = 1000)").
  std::optional<double> fail(std::string why, const ex& at = ex()) {
    if (defect) return std::nullopt;
    std::map<std::string, double> given;
    if (!at.is_zero())
      for (const auto& [symbol, number] : numbers_)
        if (GiNaC::is_a<GiNaC::symbol>(symbol) && at.has(symbol))
          if (const auto v = Walk(numbers_).value(number))
            given[GiNaC::ex_to<GiNaC::symbol>(symbol).get_name()] = *v;
    std::ostringstream text;
    text << why;
    const char* separator = " (at ";
    for (const auto& [name, v] : given) {
      text << separator << name << " = " << v;
      separator = ", ";
    }
    if (!given.empty()) text << ")";
    defect = text.str();
    return std::nullopt;
  }

  // The node's operation in doubles.
  std::optional<double> combine(const ex& e, const std::vector<double>& a) {
    if (GiNaC::is_a<GiNaC::add>(e)) {
      double s = 0;
      for (double x : a) s += x;
      return s;
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      double p = 1;
      for (double x : a) p *= x;
      return p;
    }
    if (GiNaC::is_a<GiNaC::power>(e)) return std::pow(a[0], a[1]);
    if (GiNaC::is_a<GiNaC::function>(e)) {
      const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
      if (a.size() == 1) {
        const double x = a[0];
        if (name == "exp") return std::exp(x);
        if (name == "log") return std::log(x);
        if (name == "sin") return std::sin(x);
        if (name == "cos") return std::cos(x);
        if (name == "tan") return std::tan(x);
        if (name == "asin") return std::asin(x);
        if (name == "acos") return std::acos(x);
        if (name == "atan") return std::atan(x);
        if (name == "sinh") return std::sinh(x);
        if (name == "cosh") return std::cosh(x);
        if (name == "tanh") return std::tanh(x);
        if (name == "abs") return std::abs(x);
      }
      if (a.size() == 2 && name == "atan2") return std::atan2(a[0], a[1]);
    }
    // Anything else the parser cannot write (GiNaC's other functions, from code): CLN's value,
    // held to the same rules below.
    const ex v = GiNaC::evalf(e);
    if (!GiNaC::is_a<GiNaC::numeric>(v)) return fail(shown(e) + " has no numeric value");
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(v);
    if (!n.is_real()) return fail(shown(e) + " is not a real number");
    if (!exact_number_fits(n)) return fail(out_of_range(e, n));
    return n.to_double();
  }

  std::optional<double> checked(const ex& e, double v, const std::vector<double>& args) {
    if (std::isnan(v)) return fail(shown(e) + " is not a real number", e);
    if (std::isinf(v)) {
      if (GiNaC::is_a<GiNaC::power>(e) && args[0] == 0)
        return fail(shown(e) + " divides by zero", e);
      return fail(shown(e) + " is beyond the range of a double", e);
    }
    // Zero from non-zero operands is an underflow — except a sum, whose terms may cancel, and
    // functions that are zero at a non-zero argument (sin(pi) in doubles is 1.2e-16, not 0).
    if (v != 0 && std::abs(v) >= 0x1p-1022) return v;
    if (GiNaC::is_a<GiNaC::add>(e) || v == 0) {
      bool any_zero = false;
      for (double x : args) any_zero = any_zero || x == 0;
      const bool may_be_zero = GiNaC::is_a<GiNaC::add>(e) || any_zero ||
                               (GiNaC::is_a<GiNaC::function>(e) &&
                                GiNaC::ex_to<GiNaC::function>(e).get_name() != "exp" &&
                                GiNaC::ex_to<GiNaC::function>(e).get_name() != "cosh");
      if (may_be_zero) return v;
    }
    return fail(shown(e) + kUnderflow, e);
  }
};

}  // namespace

bool is_constant_expression(const GiNaC::ex& e) {
  if (GiNaC::is_a<GiNaC::symbol>(e)) return false;
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (!is_constant_expression(e.op(i))) return false;
  return true;
}

std::optional<std::string> finite_double_defect(const GiNaC::ex& e, const GiNaC::exmap& numbers) {
  Walk walk(numbers);
  walk.value(e);
  if (walk.defect) return walk.defect;
  // Every step is a finite real double: CLN's value, correctly rounded, is the number.
  const ex v = GiNaC::evalf(numbers.empty() ? e : substitute(e, numbers));
  if (!GiNaC::is_a<GiNaC::numeric>(v)) return shown(e) + " has no numeric value";
  const auto& n = GiNaC::ex_to<GiNaC::numeric>(v);
  if (!n.is_real()) return shown(e) + " is not a real number";
  if (!exact_number_fits(n)) return out_of_range(e, n);
  return std::nullopt;
}

double finite_double(const GiNaC::ex& e, const GiNaC::exmap& numbers) {
  if (auto why = finite_double_defect(e, numbers)) throw NotAFiniteDouble(*why);
  return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(numbers.empty() ? e : substitute(e, numbers)))
      .to_double();
}

namespace {

// The maximal parts of `e` without a symbol, checked in structural order; returns whether `e`
// itself is such a part (then its caller decides: it may be part of a larger constant).
bool check_constant_parts(const ex& e, std::optional<std::string>& defect) {
  if (defect) return false;
  if (GiNaC::is_a<GiNaC::symbol>(e)) return false;
  if (e.nops() == 0) return true;
  std::vector<bool> constant(e.nops());
  bool all = true;
  for (std::size_t i = 0; i < e.nops(); ++i) {
    constant[i] = check_constant_parts(e.op(i), defect);
    all = all && constant[i];
  }
  if (all || defect) return all && !defect;
  for (std::size_t i = 0; i < e.nops() && !defect; ++i)
    if (constant[i]) defect = finite_double_defect(e.op(i));
  return false;
}

}  // namespace

std::optional<std::string> constant_parts_defect(const GiNaC::ex& e) {
  std::optional<std::string> defect;
  if (check_constant_parts(e, defect) && !defect) defect = finite_double_defect(e);
  return defect;
}

}  // namespace appell::sym
