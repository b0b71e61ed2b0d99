// How the writers list M and f (internal): entry by entry in text, as rows in JSON, and the
// LaTeX align block of a list of equations — the same for M q̈ = f, the minimal form and the
// equations in the speeds.
#pragma once

#include <ginac/ginac.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "appell/sym/canonical_order.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::io::detail {

/// "mass matrix M:" with a line "  M[i,j] = ..." per entry, then "forcing f:" and "  f[i] = ...".
template <typename Print>
std::string mass_and_forcing_text(const GiNaC::matrix& mass, const GiNaC::matrix& forcing,
                                  Print&& print) {
  std::ostringstream out;
  out << "mass matrix M:\n";
  for (unsigned i = 0; i < mass.rows(); ++i)
    for (unsigned j = 0; j < mass.cols(); ++j)
      out << "  M[" << i + 1 << "," << j + 1 << "] = " << print(mass(i, j)) << "\n";
  out << "forcing f:\n";
  for (unsigned i = 0; i < forcing.rows(); ++i)
    out << "  f[" << i + 1 << "] = " << print(forcing(i, 0)) << "\n";
  return out.str();
}

/// json["mass_matrix"] (a list of rows) and json["forcing"], in that order.
template <typename Print>
void mass_and_forcing_json(nlohmann::ordered_json& json, const GiNaC::matrix& mass,
                           const GiNaC::matrix& forcing, Print&& print) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array(),
                         entries = nlohmann::ordered_json::array();
  for (unsigned i = 0; i < mass.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (unsigned j = 0; j < mass.cols(); ++j) row.push_back(print(mass(i, j)));
    rows.push_back(row);
  }
  for (unsigned i = 0; i < forcing.rows(); ++i) entries.push_back(print(forcing(i, 0)));
  json["mass_matrix"] = rows;
  json["forcing"] = entries;
}

/// "\begin{align}", the lines ("lhs &= rhs") separated by \\, "\end{align}".
inline std::string align_block(const std::vector<std::string>& lines) {
  std::ostringstream out;
  out << "\\begin{align}\n";
  for (std::size_t k = 0; k < lines.size(); ++k)
    out << "  " << lines[k] << (k + 1 < lines.size() ? " \\\\" : "") << "\n";
  out << "\\end{align}\n";
  return out.str();
}

/// json["multipliers"], json["constraint_matrix"] (a list of rows) and json["constraint_rhs"]
/// of the rows A ẍ = b and the forces Aᵀλ (ẍ = q̈, or u̇ in the speeds); nothing without
/// constraints.
template <typename Print>
void constraints_json(nlohmann::ordered_json& json, const std::vector<std::string>& multipliers,
                      const GiNaC::matrix& A, const GiNaC::matrix& b, Print&& print) {
  if (multipliers.empty()) return;
  json["multipliers"] = multipliers;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array(),
                         right = nlohmann::ordered_json::array();
  for (unsigned i = 0; i < A.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (unsigned k = 0; k < A.cols(); ++k) row.push_back(print(A(i, k)));
    rows.push_back(row);
    right.push_back(print(b(i, 0)));
  }
  json["constraint_matrix"] = rows;
  json["constraint_rhs"] = right;
}

/// lambda_roll_x -> \\lambda_{\\mathrm{roll}_{x}}: λ with its constraint's name as subscript.
inline std::string multiplier_latex(const std::string& name) {
  const std::string prefix = "lambda_";
  if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0)
    return "\\lambda_{" + sym::latex_identifier(name.substr(prefix.size())) + "}";
  return sym::latex_identifier(name);
}

/// " + c λ" as a sum's next term: the coefficient's sign taken out ("- r cos(psi) λ", not
/// "+ (-r cos(psi)) λ"), a unit coefficient left out, a sum in parentheses; "*" joins the
/// coefficient and the multiplier in text, a space in LaTeX.
template <typename Print>
std::string force_term(const GiNaC::ex& coefficient, const std::string& multiplier, Print&& print,
                       bool latex) {
  if (GiNaC::is_a<GiNaC::add>(coefficient))
    return (latex ? " + \\left(" : " + (") + print(coefficient) + (latex ? "\\right) " : ")*") +
           multiplier;
  sym::CanonicalOrder order;
  const bool negative = order.sign(coefficient) < 0;
  const GiNaC::ex magnitude = negative ? -coefficient : coefficient;
  std::string text = negative ? " - " : " + ";
  if (!magnitude.is_equal(1)) text += print(magnitude) + (latex ? " " : "*");
  return text + multiplier;
}

}  // namespace appell::io::detail
