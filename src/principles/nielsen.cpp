#include "appell/principles/nielsen.hpp"

#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/lagrange.hpp"
#include "residual_form.hpp"

namespace appell::principles {

Equations nielsen(std::shared_ptr<const model::Model> model) {
  return detail::form_equations(model, Method::Nielsen, [](kin::Kinematics& kin) {
    const model::Model& m = kin.model();
    auto& d = kin.differentiator();
    const GiNaC::ex energy = kinetic_energy(kin);
    const GiNaC::ex energy_rate = d.time_derivative(energy);
    const GiNaC::matrix q = generalized_forces(kin);
    GiNaC::exvector residuals;
    for (std::size_t j = 0; j < m.dof(); ++j)
      residuals.push_back(d.partial(energy_rate, m.coordinate_symbol(j, 1)) -
                          2 * d.partial(energy, m.coordinate_symbol(j, 0)) - q(j, 0));
    return residuals;
  });
}

}  // namespace appell::principles
