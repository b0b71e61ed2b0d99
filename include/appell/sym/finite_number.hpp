// A number written exactly (a parameter's default, a --set value, a constant inside an expression)
// turned into the double the numeric routes compute with — or a reason why it has none.
//
// GiNaC evaluates numbers with CLN at 17 digits but with CLN's own, far wider exponent range, and
// CLN is not reliable at the ends of that range: its exp() returns exactly 1 for an argument above
// about 10^20 (exp(exp(1000)) "is" 1), throws for others, and a value beyond the range of a double
// becomes inf or 0 only when it is finally converted. So every step of the evaluation is first
// done in doubles, node by node from the leaves: a step whose double overflows, underflows from a
// non-zero value to zero, or leaves the real numbers (sqrt(-1), log(-1), asin(2)) names itself,
// and only an expression whose every step is a finite real double is then evaluated by CLN (whose
// arguments are now all in the range where it is exact) for the value itself, so that numbers
// written exactly keep their correctly rounded value.
#pragma once

#include <ginac/ginac.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace appell::sym {

/// Thrown by finite_double(). what(): the reason, e.g. "exp(1000) is beyond the range of a double
/// (about 2.0e434)" or "log(-1) is not a real number".
class NotAFiniteDouble : public std::domain_error {
 public:
  using std::domain_error::domain_error;
};

/// Why `e`, its symbols given the numbers of `numbers`, has no value that is a finite real
/// double, or nothing when it has one. The numbers are given apart rather than substituted
/// first because GiNaC evaluates a function of a floating-point number the moment it is built:
/// substituted, exp(exp(l)) at l = 1000 would already be CLN's 1. A symbol without a number is a
/// reason too ("it depends on m").
std::optional<std::string> finite_double_defect(const GiNaC::ex& e,
                                                const GiNaC::exmap& numbers = {});

/// The value of `e` at `numbers` as a double, correctly rounded from CLN's evaluation (once every
/// step is known to be in range); throws NotAFiniteDouble with finite_double_defect()'s reason.
double finite_double(const GiNaC::ex& e, const GiNaC::exmap& numbers = {});

/// True when `e` holds no symbol: a number, a constant or a function of those alone.
bool is_constant_expression(const GiNaC::ex& e);

/// The first reason (in the expression's structural order) why a part of `e` made of numbers
/// alone has no finite real double value: what a parser asks of every expression it reads, so
/// that sqrt(-1) or exp(exp(1000)) inside an expression of the state is refused where it was
/// written rather than when a tape meets it.
std::optional<std::string> constant_parts_defect(const GiNaC::ex& e);

}  // namespace appell::sym
