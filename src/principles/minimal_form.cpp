#include "appell/principles/minimal_form.hpp"

#include <algorithm>
#include <chrono>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/readable.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;

Equations minimal_form(std::shared_ptr<const model::Model> model) {
  const model::Model& m = *model;
  const std::size_t n = m.dof(), c = m.constraints.size();
  if (m.independent.empty() || m.independent.size() + c != n)
    throw model::ModelError(model::SourceLocation{m.source, 0, 0},
                            "the minimal form needs one independent speed per degree of freedom "
                            "(independent: [..] in the model)",
                            "independent");
  const auto start = std::chrono::steady_clock::now();
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kin(model, d);

  Equations eq;
  eq.model = model;
  eq.form = Form::Minimal;
  eq.independent = m.independent;
  for (std::size_t j = 0; j < n; ++j)
    if (std::find(m.independent.begin(), m.independent.end(), j) == m.independent.end())
      eq.dependent.push_back(j);
  const std::size_t p = eq.independent.size();
  const auto P = static_cast<unsigned>(p), C = static_cast<unsigned>(c),
             N = static_cast<unsigned>(n);

  // Every constraint at velocity level, A q̇ + a0 = 0: a holonomic φ differentiated once.
  std::vector<GiNaC::symbol> speeds, quasi_accelerations;
  for (std::size_t j = 0; j < n; ++j) speeds.push_back(m.coordinate_symbol(j, 1));
  for (std::size_t j : eq.independent) quasi_accelerations.push_back(m.coordinate_symbol(j, 2));
  GiNaC::exvector rates;
  for (const auto& constraint : m.constraints)
    rates.push_back(constraint.kind == model::Constraint::Kind::Holonomic
                        ? d.time_derivative(constraint.expression)
                        : constraint.expression);
  matrix a;
  GiNaC::exvector a0;
  if (c > 0) d.split_linear(rates, speeds, a, a0);

  // q̇_d = −A_d⁻¹ (A_i u + a0): the dependent speeds as functions of q, u and t.
  eq.speed_matrix = matrix(N, P);
  eq.speed_offset = matrix(N, 1);
  for (unsigned k = 0; k < P; ++k) eq.speed_matrix(static_cast<unsigned>(eq.independent[k]), k) = 1;
  GiNaC::exmap dependent_speeds;
  if (c > 0) {
    matrix a_dependent(C, C), a_independent(C, P), offset(C, 1);
    for (unsigned i = 0; i < C; ++i) {
      for (unsigned k = 0; k < C; ++k)
        a_dependent(i, k) = a(i, static_cast<unsigned>(eq.dependent[k]));
      for (unsigned k = 0; k < P; ++k)
        a_independent(i, k) = a(i, static_cast<unsigned>(eq.independent[k]));
      offset(i, 0) = a0[i];
    }
    matrix inverse;
    try {
      inverse = a_dependent.inverse();
    } catch (const std::runtime_error&) {
      throw model::ModelError(m.independent_where,
                              "the constraints do not determine the dependent speeds from these "
                              "independent ones (their block of the constraint Jacobian is "
                              "singular everywhere)",
                              "independent");
    }
    const matrix b_dependent = inverse.mul(a_independent).mul_scalar(-1);
    const matrix beta_dependent = inverse.mul(offset).mul_scalar(-1);
    for (unsigned r = 0; r < C; ++r) {
      const auto j = static_cast<unsigned>(eq.dependent[r]);
      ex speed = beta_dependent(r, 0);
      for (unsigned k = 0; k < P; ++k) {
        eq.speed_matrix(j, k) = b_dependent(r, k);
        speed += b_dependent(r, k) * m.coordinate_symbol(eq.independent[k], 1);
      }
      eq.speed_offset(j, 0) = beta_dependent(r, 0);
      dependent_speeds[m.coordinate_symbol(j, 1)] = speed;
    }
  }

  // q̈_d = d/dt q̇_d = (B u̇ + Ḃ u + β̇)_d; d/dt brings in the dependent speeds through q_d, which
  // are replaced once more, so that q̈_d depends on q, u, u̇ and t only.
  GiNaC::exmap dependent_motion = dependent_speeds;
  GiNaC::exvector dependent_accelerations;
  for (std::size_t j : eq.dependent) {
    const ex acceleration = sym::substitute(
        d.time_derivative(dependent_speeds.at(m.coordinate_symbol(j, 1))), dependent_speeds);
    dependent_accelerations.push_back(acceleration);
    dependent_motion[m.coordinate_symbol(j, 2)] = acceleration;
  }
  eq.acceleration_offset = matrix(N, 1);
  if (c > 0) {
    matrix coefficients;
    GiNaC::exvector rest;
    d.split_linear(dependent_accelerations, quasi_accelerations, coefficients, rest);
    for (unsigned r = 0; r < C; ++r)
      eq.acceleration_offset(static_cast<unsigned>(eq.dependent[r]), 0) = rest[r];
  }

  // Gibbs–Appell in the quasi-accelerations: S*(q, u, u̇, t) = S with q̇_d, q̈_d replaced, and the
  // generalized forces of δq = B δu, Q*_k = Σ_j B_jk Q_j.
  const ex energy = sym::substitute(acceleration_energy(kin), dependent_motion);
  const matrix forces = sym::substitute(generalized_forces(kin), dependent_speeds);
  GiNaC::exvector residuals;
  for (unsigned k = 0; k < P; ++k) {
    ex force = 0;
    for (unsigned j = 0; j < N; ++j) force += eq.speed_matrix(j, k) * forces(j, 0);
    residuals.push_back(d.partial(energy, quasi_accelerations[k]) - force);
  }
  GiNaC::exvector remainders;
  d.split_linear(residuals, quasi_accelerations, eq.mass_matrix, remainders);
  eq.forcing = matrix(P, 1);
  for (unsigned k = 0; k < P; ++k) eq.forcing(k, 0) = -remainders[k];

  eq.cost.differentiations = d.differentiations();
  eq.cost.derivative_nodes = d.derivative_nodes();
  eq.cost.size_before = sym::dag_size(eq.entries());
  eq.cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return eq;
}

}  // namespace appell::principles
