#include "appell/principles/gibbs_appell.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "residual_form.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::cross;
using kin::dot;

ex acceleration_energy(kin::Kinematics& kin) {
  const model::Model& model = kin.model();
  GiNaC::exvector terms;
  for (const auto& b : model.bodies) {
    const matrix& a = kin.acceleration(model::PointRef{b.frame, b.com});
    terms.push_back(b.mass * dot(a, a) / 2);
    const int index = *model.frame_index(b.frame);
    const matrix& w = kin.frame(index).omega;
    const matrix& e = kin.epsilon(index);
    // ½ εᵀIε + εᵀ(ω × Iω): the part of the rotational acceleration energy that depends on q̈.
    terms.push_back(dot(e, b.inertia.mul(e)) / 2 + dot(e, cross(w, b.inertia.mul(w))));
  }
  for (const auto& p : model.particles) {
    const matrix& a = kin.acceleration(model::PointRef{p.frame, p.position});
    terms.push_back(p.mass * dot(a, a) / 2);
  }
  return GiNaC::add(terms);
}

Equations gibbs_appell(std::shared_ptr<const model::Model> model) {
  return detail::form_equations(model, Method::GibbsAppell, [](kin::Kinematics& kin) {
    const model::Model& m = kin.model();
    const ex energy = acceleration_energy(kin);
    const matrix q = generalized_forces(kin);
    GiNaC::exvector residuals;
    for (std::size_t j = 0; j < m.dof(); ++j)
      residuals.push_back(kin.differentiator().partial(energy, m.coordinate_symbol(j, 2)) -
                          q(j, 0));
    return residuals;
  });
}

}  // namespace appell::principles
