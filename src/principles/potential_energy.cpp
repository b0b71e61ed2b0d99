#include "appell/principles/potential_energy.hpp"

#include <type_traits>
#include <variant>

#include "appell/kinematics/vector_algebra.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::column;
using kin::dot;

ex potential_energy(kin::Kinematics& kin) {
  const model::Model& model = kin.model();
  GiNaC::exvector terms;

  if (model.gravity) {
    const matrix g = column(*model.gravity);
    for (const auto& p : model.mass_points())
      terms.push_back(-p.mass * dot(g, kin.position(p.point)));
  }

  for (const auto& load : model.loads) {
    if (const auto* spring = std::get_if<model::SpringLoad>(&load.kind)) {
      const matrix delta = kin.position(spring->to).sub(kin.position(spring->from));
      const ex length2 = dot(delta, delta);
      // The same branch as the spring's generalized force: with L0 = 0 the force is −kΔ, whose
      // potential needs no square root (and stays smooth where the two points meet).
      const ex stretch2 = spring->rest_length.is_zero()
                              ? length2
                              : GiNaC::pow(GiNaC::sqrt(length2) - spring->rest_length, 2);
      terms.push_back(spring->stiffness * stretch2 / 2);
    } else if (const auto* potential = std::get_if<model::PotentialLoad>(&load.kind)) {
      terms.push_back(potential->potential);
    }
  }
  return GiNaC::add(terms);
}

}  // namespace appell::principles
