#include "appell/principles/speed_form.hpp"

#include <chrono>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/constraint_rows.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/sym/dag.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;

Equations speed_form(std::shared_ptr<const model::Model> model, Method method) {
  const model::Model& m = *model;
  if (!m.has_speeds())
    throw model::ModelError(model::SourceLocation{m.source, 0, 0},
                            "the model has no generalized speeds (speeds: [..], or a frame "
                            "turned by rot_quat with its speeds)",
                            "speeds");
  if (method != Method::GibbsAppell && method != Method::Dalembert)
    throw model::ModelError(m.speeds_where,
                            "equations in generalized speeds are formed by gibbs-appell "
                            "(quasi-accelerations) or dalembert (Kane's form)",
                            method_name(method));
  const auto start = std::chrono::steady_clock::now();
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kin(model, d, kin::Rates::Speeds);
  const std::size_t n = m.dof(), p = m.speeds.size();
  const auto N = static_cast<unsigned>(n), P = static_cast<unsigned>(p);

  Equations eq;
  eq.model = model;
  eq.form = Form::Speeds;
  eq.method = method;
  eq.speed_matrix = m.speed_kinematics;
  std::vector<GiNaC::symbol> rates;
  for (std::size_t k = 0; k < p; ++k) rates.push_back(m.speed_symbol(k, 1));

  // Q*: the loads' virtual work per δu_k.
  const matrix forces = generalized_forces(kin);
  GiNaC::exvector residuals(p);
  if (method == Method::GibbsAppell) {
    const ex energy = acceleration_energy(kin);
    for (unsigned k = 0; k < P; ++k) residuals[k] = d.partial(energy, rates[k]) - forces(k, 0);
  } else {
    for (unsigned k = 0; k < P; ++k) residuals[k] = -forces(k, 0);
    for (const auto& point : m.mass_points()) {
      const matrix inertia_force = kin.acceleration(point.point).mul_scalar(point.mass);
      for (unsigned k = 0; k < P; ++k)
        residuals[k] += kin::dot(inertia_force, kin.partial_velocity(point.point, k));
    }
    for (const auto& b : m.bodies) {
      const int index = *m.frame_index(b.frame);
      const matrix& w = kin.frame(index).omega;
      const matrix inertia_torque =
          b.inertia.mul(kin.epsilon(index)).add(kin::cross(w, b.inertia.mul(w)));
      for (unsigned k = 0; k < P; ++k)
        residuals[k] += kin::dot(inertia_torque, kin.partial_angular_velocity(index, k));
    }
  }
  GiNaC::exvector remainders;
  d.split_linear(residuals, rates, eq.mass_matrix, remainders);
  eq.forcing = matrix(P, 1);
  for (unsigned k = 0; k < P; ++k) eq.forcing(k, 0) = -remainders[k];

  // q̈ = d/dt (W u) = W u̇ + γ.
  GiNaC::exvector speeds_of_coordinates(n);
  for (unsigned j = 0; j < N; ++j) {
    ex rate = 0;
    for (unsigned k = 0; k < P; ++k) rate += m.speed_kinematics(j, k) * m.speed_symbol(k);
    speeds_of_coordinates[j] = kin.in_rates(d.time_derivative(rate));
  }
  matrix coefficients;
  GiNaC::exvector offsets;
  d.split_linear(speeds_of_coordinates, rates, coefficients, offsets);
  eq.acceleration_offset = matrix(N, 1);
  for (unsigned j = 0; j < N; ++j) eq.acceleration_offset(j, 0) = offsets[j];

  // The constraints in the speeds (Ã u̇ = b̃, Ã u + ã0 = 0); the multipliers' generalized forces
  // Ãᵀλ stand on the right as in the coordinates (not in f̃).
  ConstraintRows rows = constraint_rows_in_speeds(m, d, eq.constraint_velocity_offset);
  eq.multipliers = std::move(rows.multipliers);
  eq.constraint_matrix = std::move(rows.matrix);
  eq.constraint_rhs = std::move(rows.rhs);

  eq.cost.differentiations = d.differentiations();
  eq.cost.derivative_nodes = d.derivative_nodes();
  eq.cost.size_before = sym::dag_size(eq.entries());
  eq.cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return eq;
}

}  // namespace appell::principles
