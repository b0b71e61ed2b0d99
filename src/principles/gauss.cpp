#include "appell/principles/gauss.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "residual_form.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;

ex compulsion(kin::Kinematics& kin) {
  const model::Model& m = kin.model();
  matrix g(3, 1);
  if (m.gravity) g = kin::column(*m.gravity);
  GiNaC::exvector terms;
  for (const auto& p : m.mass_points()) {
    const matrix deviation = kin.acceleration(p.point).sub(g);
    terms.push_back(p.mass * kin::dot(deviation, deviation) / 2);
  }
  for (const auto& b : m.bodies) {
    const int index = *m.frame_index(b.frame);
    const matrix& w = kin.frame(index).omega;
    const matrix& e = kin.epsilon(index);
    terms.push_back(kin::dot(e, b.inertia.mul(e)) / 2 +
                    kin::dot(e, kin::cross(w, b.inertia.mul(w))));
  }
  // Gravity is inside |a − g|²; the other loads enter through their generalized forces.
  const matrix q = generalized_forces(kin, Gravity::Excluded);
  for (std::size_t j = 0; j < m.dof(); ++j) terms.push_back(-q(j, 0) * m.coordinate_symbol(j, 2));
  return GiNaC::add(terms);
}

Equations gauss(std::shared_ptr<const model::Model> model) {
  return detail::form_equations(model, Method::Gauss, [](kin::Kinematics& kin) {
    const model::Model& m = kin.model();
    const ex z = compulsion(kin);
    GiNaC::exvector residuals;
    for (std::size_t j = 0; j < m.dof(); ++j)
      residuals.push_back(kin.differentiator().partial(z, m.coordinate_symbol(j, 2)));
    return residuals;
  });
}

}  // namespace appell::principles
