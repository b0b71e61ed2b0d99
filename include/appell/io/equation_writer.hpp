// Writers of equations of motion M(q, t) q̈ = f(q, q̇, t): text, LaTeX and JSON.
//
// Expressions are printed by appell's own printer, not GiNaC's: in a product the numeric
// coefficient comes first, then parameters in model order, then other symbols, functions and
// (parenthesised) sums, then velocities and accelerations, e.g. M*l^2*(5/3 + cos(q2))*ddot(q1);
// denominators close the product (g*sin(q1)/l); in a sum, acceleration terms come first, then
// velocity terms, then the rest, a numeric constant leading it (a sum without velocities opens
// with a positive term: q1 - q2). A sum factor is printed in the sign variant with fewer negative
// terms (on a tie, the one whose first printed term is positive), its sign moved in front of the
// product, so that one value prints one way however GiNaC distributed the signs (which changes
// from run to run: sym/canonical_order.hpp). The printer visits each shared node once, so
// unsimplified DAG-shaped expressions print in time proportional to the output.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <string>

#include "appell/io/write_options.hpp"
#include "appell/model/model.hpp"
#include "appell/principles/equations.hpp"
#include "appell/sym/readable.hpp"

namespace appell::io {

/// The printing/simplification context of a model: its coordinates and unspecified prescribed
/// functions (their dot and ddot symbols), its parameters in order: principles::readable_context.
sym::ReadableContext readable_context(const model::Model& model);

/// `e` in the model-file expression language (MODEL_FORMAT.md: + - * / ^, sin, cos, sqrt, ...,
/// dot(q1), ddot(q1), pi), so that it can be parsed back.
/// Throws std::length_error when printing would make more than `max_chars` characters in all
/// (the text and the texts of shared subexpressions kept for reuse): an unsimplified expression
/// whose tree is exponentially larger than its DAG. The writers use the default budget.
std::string expression_text(const GiNaC::ex& e, const sym::ReadableContext& context,
                            std::size_t max_chars = std::size_t{1} << 28);
std::string expression_text(const GiNaC::ex& e, const model::Model& model);

/// `e` in LaTeX math mode: \dot{q}_{1}, \cos\left(q_{1}\right), \frac{1}{2}, ...
std::string expression_latex(const GiNaC::ex& e, const sym::ReadableContext& context,
                             std::size_t max_chars = std::size_t{1} << 28);

/// One line per coordinate, "eq j (qj): Σ_k M_jk ddot(qk) = f_j", then M and f entry by entry and
/// the cost of forming them (with seconds only when options.timing).
std::string write_text(const principles::Equations& equations, const WriteOptions& options = {});

/// A LaTeX align block (no preamble), one equation per coordinate.
std::string write_latex(const principles::Equations& equations);

/// A JSON object (indented by 2): model, method, coordinates, parameters (default values),
/// mass_matrix and forcing (expression strings as in expression_text), simplified, cost (seconds
/// and simplify_seconds only when options.timing).
std::string write_json(const principles::Equations& equations, const WriteOptions& options = {});

}  // namespace appell::io
