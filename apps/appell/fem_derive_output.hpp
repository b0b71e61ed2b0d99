// appell fem MODEL --derive-element: the symbolic equations of a finite element in a moving frame
// by Lagrange and by Gibbs–Appell, their costs, and seed 002's Table 1 measured.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "appell/fem/element_derivation.hpp"

namespace appell::cli {

struct DeriveElementRequest {
  fem::ElementKind kind = fem::ElementKind::Bar;
  /// One chain length, or several (a sweep: the Table-1 style table, both routes).
  std::vector<int> elements = {1};
  /// One route: its element equations (the matrices m, c, k, k(ε), k(ω), q_i, m_Oi, entry by
  /// entry). None: both routes, whether they are identical, and what each cost.
  std::optional<fem::Route> method;
  bool json = false;
};

/// The largest chain --elements may ask for, and the most counts in one sweep.
constexpr int max_derived_elements = 50;
constexpr std::size_t max_element_counts = 10;

/// --elements "N" or "N1,N2,...": at most max_element_counts whole numbers from 1 to
/// max_derived_elements, else usage_error (exit 2).
std::vector<int> parse_element_counts(const std::string& text);
/// --method lagrange|gibbs-appell, else usage_error.
fem::Route route_option(const std::string& name);

/// Prints what `request` asks for (text, or one JSON document). Returns the exit code: 0, or 1
/// when the two routes' residuals differ (never expected: it would be a bug). Throws usage_error
/// for a sweep together with a method, or an empty element list.
int print_element_derivation(const DeriveElementRequest& request, std::ostream& out);

}  // namespace appell::cli
