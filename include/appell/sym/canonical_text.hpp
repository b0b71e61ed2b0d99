// An expression as text in the same characters in every run, for the places that print an
// expression without the readable printers of io/ (a comment in generated code).
#pragma once

#include <ginac/ginac.h>

#include <string>

namespace appell::sym {

/// `e` in GiNaC's syntax (a + b, a*b, a^b, f(x), numbers as GiNaC prints them) with the operands
/// of every sum and product in sym::CanonicalOrder: the same text in every run, whatever order
/// GiNaC keeps the operands in (it depends on the order symbols were created). A sum's negative
/// terms are written "a - b"; a sum or product inside a product or a power is parenthesised. A
/// sum factor of a product (or an integer power of one) whose first term is negative is written
/// negated with the product's sign flipped, since GiNaC keeps such a factor with either sign.
std::string canonical_text(const GiNaC::ex& e);

}  // namespace appell::sym
