// The value every principle returns: M(q, t) q̈ = f(q, q̇, t), with the cost of forming it.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/model.hpp"

namespace appell::principles {

/// The principles appell forms equations by (one file each in principles/).
enum class Method { Lagrange, GibbsAppell, Dalembert, Gauss, Nielsen };

/// Every method, in the order `appell verify` lists them.
inline constexpr Method all_methods[] = {Method::Lagrange, Method::GibbsAppell, Method::Dalembert,
                                         Method::Gauss, Method::Nielsen};

/// "lagrange", "gibbs-appell", "dalembert", "gauss", "nielsen".
std::string method_name(Method m);
/// Parses a method name; nullopt if unknown.
std::optional<Method> parse_method(const std::string& name);

/// What forming (and, on request, simplifying) the equations cost.
struct DerivationCost {
  std::size_t differentiations = 0;  // scalar d/dx and d/dt requested, kinematics included
  std::size_t derivative_nodes = 0;  // node-level derivative rules applied (shared nodes once)
  std::size_t size_before = 0;       // distinct GiNaC nodes of M and f as formed
  std::size_t size_after = 0;        // distinct nodes after simplification (0 if not simplified)
  double seconds = 0.0;              // forming
  double simplify_seconds = 0.0;     // simplifying (0 if not simplified)
  // Entries left as formed by the simplification (sym::readable_within): their readable form
  // had more operations, or would have taken more than the simplification's budget.
  std::size_t kept_smaller = 0;
  std::size_t kept_over_budget = 0;
};

/// M(q, t) q̈ = f(q, q̇, t), the SymPy convention: f holds every force (gravity, the loads and
/// the velocity-dependent inertia terms) on the right. n = dof() = model->dof(); rows and columns
/// in the model's coordinate order. Expressions of the model's symbols (time_functions and
/// parameters): parameters stay symbols until values are bound (model::bind).
struct Equations {
  std::shared_ptr<const model::Model> model;
  Method method = Method::GibbsAppell;
  int order = 1;  // M q⁽ᵒʳᵈᵉʳ⁺¹⁾ = f: 1 for the equations of motion, m for Gibbs–Appell of order m
  GiNaC::matrix mass_matrix;  // n×n
  GiNaC::matrix forcing;      // n×1
  // With constraints (MODEL_FORMAT.md): M q̈ = f + Aᵀλ together with A q̈ = b, the constraints
  // differentiated to acceleration level (twice when holonomic, once when nonholonomic).
  std::vector<std::string> multipliers;  // lambda_NAME, one per constraint; empty without
  GiNaC::matrix constraint_matrix;       // A, m×n
  GiNaC::matrix constraint_rhs;          // b, m×1
  bool simplified = false;
  DerivationCost cost;

  /// n, the rows of M.
  std::size_t dof() const { return mass_matrix.rows(); }
  /// m, the number of constraints (0 without).
  std::size_t constraint_count() const { return multipliers.size(); }
  /// M row by row, then f, then (with constraints) A row by row and b: every expression.
  GiNaC::exvector entries() const {
    GiNaC::exvector all;
    for (std::size_t i = 0; i < mass_matrix.nops(); ++i) all.push_back(mass_matrix.op(i));
    for (std::size_t i = 0; i < forcing.nops(); ++i) all.push_back(forcing.op(i));
    if (constraint_count() > 0) {
      for (std::size_t i = 0; i < constraint_matrix.nops(); ++i)
        all.push_back(constraint_matrix.op(i));
      for (std::size_t i = 0; i < constraint_rhs.nops(); ++i) all.push_back(constraint_rhs.op(i));
    }
    return all;
  }
  /// Replaces every expression, in the order of entries(); std::out_of_range when `all` has
  /// fewer.
  void set_entries(const GiNaC::exvector& all) {
    std::size_t k = 0;
    for (unsigned i = 0; i < mass_matrix.rows(); ++i)
      for (unsigned j = 0; j < mass_matrix.cols(); ++j) mass_matrix(i, j) = all.at(k++);
    for (unsigned i = 0; i < forcing.rows(); ++i) forcing(i, 0) = all.at(k++);
    if (constraint_count() == 0) return;
    for (unsigned i = 0; i < constraint_matrix.rows(); ++i)
      for (unsigned j = 0; j < constraint_matrix.cols(); ++j) constraint_matrix(i, j) = all.at(k++);
    for (unsigned i = 0; i < constraint_rhs.rows(); ++i) constraint_rhs(i, 0) = all.at(k++);
  }
};

}  // namespace appell::principles
