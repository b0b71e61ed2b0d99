// The value every principle returns: M(q, t) q̈ = f(q, q̇, t), with the cost of forming it.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <memory>
#include <string>

#include "appell/model/model.hpp"

namespace appell::principles {

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
};

struct Equations {
  std::shared_ptr<const model::Model> model;
  Method method = Method::GibbsAppell;
  GiNaC::matrix mass_matrix;  // n×n
  GiNaC::matrix forcing;      // n×1
  bool simplified = false;
  DerivationCost cost;

  std::size_t dof() const { return mass_matrix.rows(); }
  /// M row by row, then f: every expression of the equations.
  GiNaC::exvector entries() const {
    GiNaC::exvector all;
    for (std::size_t i = 0; i < mass_matrix.nops(); ++i) all.push_back(mass_matrix.op(i));
    for (std::size_t i = 0; i < forcing.nops(); ++i) all.push_back(forcing.op(i));
    return all;
  }
};

}  // namespace appell::principles
