#include "appell/principles/relative_motion.hpp"

#include "appell/kinematics/vector_algebra.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;
using kin::cross;
using kin::dot;

InertialForces inertial_forces(kin::Kinematics& kin) {
  const model::Model& m = kin.model();
  if (!m.relative_to) throw std::logic_error("inertial_forces needs a carrier frame");
  auto& d = kin.differentiator();
  const std::size_t n = m.dof();
  const int carrier = *m.frame_index(*m.relative_to);
  const kin::FrameState& c = kin.frame(carrier);
  const matrix to_carrier = c.rotation.transpose();
  const matrix w = c.omega;
  const matrix w_dot = kin.epsilon(carrier);
  const matrix a_origin = to_carrier.mul(d.time_derivative(d.time_derivative(c.origin)));

  InertialForces out;
  out.rotational = matrix(static_cast<unsigned>(n), 1);
  out.gyroscopic = matrix(static_cast<unsigned>(n), 1);
  GiNaC::exvector kinetic, transport, centrifugal;

  for (const auto& mass_point : m.mass_points()) {
    const ex& mass = mass_point.mass;
    const model::PointRef& point = mass_point.point;
    const matrix rho = to_carrier.mul(kin.position(point).sub(c.origin));
    const matrix rho_dot = d.time_derivative(rho);
    kinetic.push_back(mass * dot(rho_dot, rho_dot) / 2);
    transport.push_back(mass * dot(a_origin, rho));
    const matrix wr = cross(w, rho);
    centrifugal.push_back(-mass * dot(wr, wr) / 2);
    const matrix coriolis = cross(w, rho_dot);
    const matrix euler = cross(w_dot, rho);
    for (std::size_t s = 0; s < n; ++s) {
      const matrix partial = d.partial(rho_dot, m.coordinate_symbol(s, 1));
      out.rotational(static_cast<unsigned>(s), 0) += -mass * dot(euler, partial);
      out.gyroscopic(static_cast<unsigned>(s), 0) += -2 * mass * dot(coriolis, partial);
    }
  }

  for (const auto& b : m.bodies) {
    const int index = *m.frame_index(b.frame);
    const matrix r_cb = to_carrier.mul(kin.frame(index).rotation);
    const matrix inertia = r_cb.mul(b.inertia).mul(r_cb.transpose());
    const matrix w_rel = r_cb.mul(kin.frame(index).omega).sub(w);
    const ex trace = inertia(0, 0) + inertia(1, 1) + inertia(2, 2);
    const matrix second_moment =
        GiNaC::ex_to<matrix>(GiNaC::unit_matrix(3)).mul_scalar(trace / 2).sub(inertia);
    kinetic.push_back(dot(w_rel, inertia.mul(w_rel)) / 2);
    centrifugal.push_back(-dot(w, inertia.mul(w)) / 2);
    const matrix euler_torque = inertia.mul(w_dot);
    const matrix gyro = cross(w_rel, second_moment.mul(w));
    for (std::size_t s = 0; s < n; ++s) {
      const matrix nu = d.partial(w_rel, m.coordinate_symbol(s, 1));
      out.rotational(static_cast<unsigned>(s), 0) += -dot(nu, euler_torque);
      out.gyroscopic(static_cast<unsigned>(s), 0) += 2 * dot(gyro, nu);
    }
  }

  out.relative_kinetic_energy = GiNaC::add(kinetic);
  out.transport_potential = GiNaC::add(transport);
  out.centrifugal_potential = GiNaC::add(centrifugal);
  return out;
}

ex relative_acceleration_energy(kin::Kinematics& kin) {
  const model::Model& m = kin.model();
  if (!m.relative_to) throw std::logic_error("relative_acceleration_energy needs a carrier frame");
  auto& d = kin.differentiator();
  const int carrier = *m.frame_index(*m.relative_to);
  const kin::FrameState& c = kin.frame(carrier);
  const matrix to_carrier = c.rotation.transpose();
  GiNaC::exvector terms;
  for (const auto& mass_point : m.mass_points()) {
    // Component-wise derivatives in the carrier's components are the relative derivatives.
    const matrix rho = to_carrier.mul(kin.position(mass_point.point).sub(c.origin));
    const matrix rho_ddot = d.time_derivative(d.time_derivative(rho));
    terms.push_back(mass_point.mass * dot(rho_ddot, rho_ddot) / 2);
  }
  for (const auto& b : m.bodies) {
    const int index = *m.frame_index(b.frame);
    const matrix r_cb = to_carrier.mul(kin.frame(index).rotation);
    const matrix inertia = r_cb.mul(b.inertia).mul(r_cb.transpose());
    const matrix w_rel = r_cb.mul(kin.frame(index).omega).sub(c.omega);
    const matrix e_rel = d.time_derivative(w_rel);
    terms.push_back(dot(e_rel, inertia.mul(e_rel)) / 2 +
                    dot(e_rel, cross(w_rel, inertia.mul(w_rel))));
  }
  return GiNaC::add(terms);
}

}  // namespace appell::principles
