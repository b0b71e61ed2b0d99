#include "appell/principles/lagrange.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "residual_form.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::dot;

ex kinetic_energy(kin::Kinematics& kin) {
  const model::Model& model = kin.model();
  GiNaC::exvector terms;
  for (const auto& p : model.mass_points()) {
    const matrix& v = kin.velocity(p.point);
    terms.push_back(p.mass * dot(v, v) / 2);
  }
  for (const auto& b : model.bodies) {
    const matrix& w = kin.frame(b.frame).omega;
    terms.push_back(dot(w, b.inertia.mul(w)) / 2);
  }
  return GiNaC::add(terms);
}

Equations lagrange(std::shared_ptr<const model::Model> model) {
  return detail::form_equations(model, Method::Lagrange, [](kin::Kinematics& kin) {
    const model::Model& m = kin.model();
    auto& d = kin.differentiator();
    const ex energy = kinetic_energy(kin);
    const matrix q = generalized_forces(kin);
    GiNaC::exvector residuals;
    for (std::size_t j = 0; j < m.dof(); ++j) {
      const ex momentum = d.partial(energy, m.coordinate_symbol(j, 1));
      residuals.push_back(d.time_derivative(momentum) -
                          d.partial(energy, m.coordinate_symbol(j, 0)) - q(j, 0));
    }
    return residuals;
  });
}

}  // namespace appell::principles
