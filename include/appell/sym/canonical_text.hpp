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
/// first, then names, functions and powers, then groups, each group in the order of the texts; a
/// sum's terms in the order of their texts without the sign (a term's text is the same whichever
/// sign it has). Signs GiNaC places by hash order are moved out: a negative coefficient's to its
/// product; a sum factor of a product whose first term is negative is written negated with the
/// product's sign flipped (GiNaC keeps −c·(a − b) or c·(b − a), and −1/3·c·(a − b) or
/// 1/3·c·(b − a)); an integer power of such a sum, anywhere, is written of the negated sum, with
/// a minus for an odd power ((a − b)² or (b − a)²). A sum's negative terms are written "a - b";
/// a sum or fraction inside a product, and a sum, product, power, fraction or negative inside a
/// power, is parenthesised.
std::string canonical_text(const GiNaC::ex& e, TextStyle style = TextStyle::Readable);

}  // namespace appell::sym
