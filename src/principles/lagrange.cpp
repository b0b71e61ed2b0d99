#include "appell/principles/lagrange.hpp"

#include <chrono>

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "linear_in_accelerations.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::dot;

ex kinetic_energy(kin::Kinematics& kin) {
  const model::Model& model = kin.model();
  GiNaC::exvector terms;
  for (const auto& b : model.bodies) {
    const matrix& v = kin.velocity(model::PointRef{b.frame, b.com});
    terms.push_back(b.mass * dot(v, v) / 2);
    const matrix& w = kin.frame(b.frame).omega;
    terms.push_back(dot(w, b.inertia.mul(w)) / 2);
  }
  for (const auto& p : model.particles) {
    const matrix& v = kin.velocity(model::PointRef{p.frame, p.position});
    terms.push_back(p.mass * dot(v, v) / 2);
  }
  return GiNaC::add(terms);
}

Equations lagrange(std::shared_ptr<const model::Model> model) {
  const auto start = std::chrono::steady_clock::now();
  sym::Differentiator d(model->time_functions);
  kin::Kinematics kin(model, d);

  const ex energy = kinetic_energy(kin);
  const matrix q = generalized_forces(kin);
  GiNaC::exvector residuals;
  for (std::size_t j = 0; j < model->dof(); ++j) {
    const ex momentum = d.partial(energy, model->coordinate_symbol(j, 1));
    residuals.push_back(d.time_derivative(momentum) -
                        d.partial(energy, model->coordinate_symbol(j, 0)) - q(j, 0));
  }

  Equations eq;
  eq.model = model;
  eq.method = Method::Lagrange;
  detail::split_linear_in_accelerations(residuals, *model, d, eq.mass_matrix, eq.forcing);
  detail::finish(eq, d, start);
  return eq;
}

}  // namespace appell::principles
