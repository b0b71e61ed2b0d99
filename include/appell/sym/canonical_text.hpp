// An expression as text in the same characters in every run: for the places that print an
// expression without the readable printers of io/ (a comment in generated code), and, marked, for
// the places that key on it (jit::dynamics_content, the JIT cache's key of a model's code).
#pragma once

#include <ginac/ginac.h>

#include <string>

namespace appell::sym {

/// How canonical_text writes names and numbers.
enum class TextStyle {
  /// As GiNaC prints them: the text is GiNaC's syntax and reads back as the expression.
  Readable,
  /// Each marked with its kind and length, `s3:phi` (a symbol), `k2:Pi` (a constant), `n4:1/12`
  /// (a number), `f3:sin(...)` (a function), and any other kind of node by its class name
  /// (`o11:matrix[2,2](...)`) and its operands: whatever characters a name holds, none reads as
  /// syntax, so one text is one expression (up to what the text leaves out by design: the order
  /// of operands, how products nest, where GiNaC keeps a sign). For a key (jit::dynamics_content).
  Marked,
};

/// `e` in GiNaC's syntax (a + b, a*b, a^b, f(x), D[0](f)(x), numbers as GiNaC prints them:
/// exactly, a rational as p/q, a float with the digits that read back as the same float), the
/// same text in every run whatever order and signs GiNaC keeps the operands in (they depend on
/// the order symbols were created in): a product's factors are flattened and written numbers
/// first, then names and functions, then groups, each group in the order of the texts; a sum's
/// terms in the order of their texts without the sign. Signs are moved out to the product: a
/// negative number's, and that of a sum factor of a product (or an integer power of one) whose
/// first term is negative, which is written negated, since GiNaC keeps such a factor with either
/// sign (and −1/3·c·(a − b) or 1/3·c·(b − a)). A sum's negative terms are written "a - b"; a sum,
/// product, power or fraction inside a product or a power is parenthesised.
std::string canonical_text(const GiNaC::ex& e, TextStyle style = TextStyle::Readable);

}  // namespace appell::sym
