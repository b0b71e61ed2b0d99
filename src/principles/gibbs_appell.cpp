#include "appell/principles/gibbs_appell.hpp"

#include "appell/principles/higher_order_gibbs_appell.hpp"

namespace appell::principles {

// The ordinary equations are the first of the higher-order family: S⁽¹⁾ = S, Q⁽¹⁾ = Q.
GiNaC::ex acceleration_energy(kin::Kinematics& kinematics) {
  return acceleration_energy_of_order(kinematics, 1);
}

Equations gibbs_appell(std::shared_ptr<const model::Model> model) {
  return gibbs_appell_of_order(std::move(model), 1);
}

}  // namespace appell::principles
