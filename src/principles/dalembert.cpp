#include "appell/principles/dalembert.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "residual_form.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;

Equations dalembert(std::shared_ptr<const model::Model> model) {
  return detail::form_equations(model, Method::Dalembert, [](kin::Kinematics& kin) {
    const model::Model& m = kin.model();
    const std::size_t n = m.dof();
    const matrix q = generalized_forces(kin);
    GiNaC::exvector residuals(n);
    for (std::size_t j = 0; j < n; ++j) residuals[j] = -q(j, 0);
    for (const auto& p : m.mass_points()) {
      const matrix inertia_force = kin.acceleration(p.point).mul_scalar(p.mass);
      for (std::size_t j = 0; j < n; ++j)
        residuals[j] += kin::dot(inertia_force, kin.partial_velocity(p.point, j));
    }
    for (const auto& b : m.bodies) {
      // The body's inertia torque (Euler's equations in body components).
      const int index = *m.frame_index(b.frame);
      const matrix& w = kin.frame(index).omega;
      const matrix inertia_torque =
          b.inertia.mul(kin.epsilon(index)).add(kin::cross(w, b.inertia.mul(w)));
      for (std::size_t j = 0; j < n; ++j)
        residuals[j] += kin::dot(inertia_torque, kin.partial_angular_velocity(index, j));
    }
    return residuals;
  });
}

}  // namespace appell::principles
