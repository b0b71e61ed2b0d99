// How the writers list M and f (internal): entry by entry in text, as rows in JSON, and the
// LaTeX align block of a list of equations — the same for M q̈ = f, the minimal form and the
// equations in the speeds.
#pragma once

#include <ginac/ginac.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace appell::io::detail
