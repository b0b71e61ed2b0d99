// An expression as text in the same characters in every run, for the places that print an
// expression without the readable printers of io/ (a comment in generated code).
#pragma once

#include <ginac/ginac.h>

#include <string>

namespace appell::sym {

/// `e` in GiNaC's syntax (a + b, a*b, a^b, f(x), numbers as GiNaC prints them), the same text in
/// every run whatever order and signs GiNaC keeps the operands in (they depend on the order
/// symbols were created in): a product's factors are flattened and written numbers first, then
/// names and functions, then groups, each group in the order of the texts; a sum's terms in the
/// order of their texts without the sign. A sum factor of a product (or an integer power of one)
/// whose first term is negative is written negated with the product's sign flipped, since GiNaC
/// keeps such a factor with either sign. A sum's negative terms are written "a - b"; a sum or
/// product inside a product or a power is parenthesised.
std::string canonical_text(const GiNaC::ex& e);

}  // namespace appell::sym
