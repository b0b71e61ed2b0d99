// The value every principle returns: M q̈ = f in the coordinates, or M̃ u̇ = f̃ in speeds with
// their map q̇ = B u + β, with the cost of forming it.
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

/// What the unknowns of a set of Equations are.
///   Coordinates  M(q, t) q̈ = f(q, q̇, t): the coordinates' accelerations (derive.hpp);
///   Speeds       M̃(q, t) u̇ = f̃(q, u, t) in a model's generalized speeds u, q̇ = W(q, t) u
///                (speed_form.hpp);
///   Minimal      M̃ u̇ = f̃ in the independent speeds of a constrained model, q̇ = B u + β
///                (minimal_form.hpp).
enum class Form { Coordinates, Speeds, Minimal };

/// "coordinates", "speeds", "minimal".
std::string form_name(Form form);

/// M x = f, the SymPy convention: f holds every force (gravity, the loads and the
/// velocity-dependent inertia terms) on the right. One shape for every form (Form):
///
///   M v̇ = f (+ Aᵀλ),   A v̇ = b,   q̇ = B v + β,   q̈ = B v̇ + γ,
///
/// with v the form's velocities: q̇ itself in the coordinates (B = I, β = γ = 0, left empty), the
/// speeds u in the speeds (B = W, β = 0), the independent speeds in the minimal form. p = size()
/// rows of M (the velocities), n = dof() coordinates. Expressions of the model's symbols
/// (time_functions, parameters, the speeds' symbols): parameters stay symbols until values are
/// bound (model::bind).
struct Equations {
  std::shared_ptr<const model::Model> model;
  Form form = Form::Coordinates;
  Method method = Method::GibbsAppell;
  int order = 1;  // M q⁽ᵒʳᵈᵉʳ⁺¹⁾ = f: 1 for the equations of motion, m for Gibbs–Appell of order m
  GiNaC::matrix mass_matrix;  // M, p×p
  GiNaC::matrix forcing;      // f, p×1
  // The speed map, in the speeds and the minimal form (unused in the coordinates):
  GiNaC::matrix speed_matrix;         // B, n×p: q̇ = B v + β (W in the speeds)
  GiNaC::matrix speed_offset;         // β, n×1 (the minimal form only; 0 in the speeds)
  GiNaC::matrix acceleration_offset;  // γ, n×1: q̈ = B v̇ + γ
  // The minimal form's coordinates whose speeds are v (as `independent:` lists them), and the
  // others in coordinate order; empty in the other forms.
  std::vector<std::size_t> independent, dependent;
  // With constraints (MODEL_FORMAT.md; not in the minimal form, which has none left): M v̇ = f +
  // Aᵀλ together with A v̇ = b, the constraints differentiated to acceleration level (twice when
  // holonomic, once when nonholonomic). In the speeds A = A_q W and b = b_q − A_q γ of the
  // coordinates' rows, so that λ is the same.
  std::vector<std::string> multipliers;  // lambda_NAME, one per constraint; empty without
  GiNaC::matrix constraint_matrix;       // A, m×p
  GiNaC::matrix constraint_rhs;          // b, m×1
  // In the speeds, the constraints at velocity level A u + a0 (what a simulation keeps at 0,
  // with the holonomic ones themselves): a0 = φ_t, or g's terms free of the velocities. m×1.
  GiNaC::matrix constraint_velocity_offset;
  bool simplified = false;
  DerivationCost cost;

  /// p, the rows of M: the number of velocities (n in the coordinates).
  std::size_t size() const { return mass_matrix.rows(); }
  /// n, the number of coordinates.
  std::size_t dof() const { return has_speed_map() ? speed_matrix.rows() : mass_matrix.rows(); }
  /// Whether q̇ = B v + β maps the velocities (the speeds and the minimal form).
  bool has_speed_map() const { return form != Form::Coordinates; }
  /// m, the number of constraints (0 without).
  std::size_t constraint_count() const { return multipliers.size(); }
  /// Every expression: M row by row, f, then with a speed map B row by row, (minimal form) β, γ,
  /// then with constraints A row by row, b and (speeds) a0.
  GiNaC::exvector entries() const {
    GiNaC::exvector all;
    for_each_matrix([&](const GiNaC::matrix& m) {
      for (std::size_t i = 0; i < m.nops(); ++i) all.push_back(m.op(i));
    });
    return all;
  }
  /// Replaces every expression, in the order of entries(); std::out_of_range when `all` has
  /// fewer.
  void set_entries(const GiNaC::exvector& all) {
    std::size_t k = 0;
    for_each_matrix([&](GiNaC::matrix& m) {
      for (unsigned i = 0; i < m.rows(); ++i)
        for (unsigned j = 0; j < m.cols(); ++j) m(i, j) = all.at(k++);
    });
  }

 private:
  // The matrices entries() holds, in its order (const and non-const alike).
  template <typename Self, typename Visit>
  static void for_each_matrix_of(Self& self, Visit&& visit) {
    visit(self.mass_matrix);
    visit(self.forcing);
    if (self.form != Form::Coordinates) {
      visit(self.speed_matrix);
      if (self.form == Form::Minimal) visit(self.speed_offset);
      visit(self.acceleration_offset);
    }
    if (self.constraint_count() > 0) {
      visit(self.constraint_matrix);
      visit(self.constraint_rhs);
      if (self.form == Form::Speeds) visit(self.constraint_velocity_offset);
    }
  }
  template <typename Visit>
  void for_each_matrix(Visit&& visit) const {
    for_each_matrix_of(*this, visit);
  }
  template <typename Visit>
  void for_each_matrix(Visit&& visit) {
    for_each_matrix_of(*this, visit);
  }
};

}  // namespace appell::principles
