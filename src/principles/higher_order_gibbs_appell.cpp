#include "appell/principles/higher_order_gibbs_appell.hpp"

#include "appell/kinematics/vector_algebra.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "residual_form.hpp"

namespace appell::principles {

using GiNaC::ex;
using GiNaC::matrix;

namespace {

// x, ẋ, ẍ, ... up to the `count`-th derivative, each from the one before (memoised d/dt).
std::vector<matrix> derivatives(sym::Differentiator& d, const matrix& x, int count) {
  std::vector<matrix> all{x};
  for (int k = 1; k <= count; ++k) all.push_back(d.time_derivative(all.back()));
  return all;
}

long binomial(int n, int k) {
  long c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

}  // namespace

ex acceleration_energy_of_order(kin::Kinematics& kin, int order) {
  const model::Model& m = kin.model();
  auto& d = kin.differentiator();
  GiNaC::exvector terms;
  for (const auto& p : m.mass_points()) {
    matrix r = kin.acceleration(p.point);
    for (int k = 2; k <= order; ++k) r = d.time_derivative(r);
    terms.push_back(p.mass * kin::dot(r, r) / 2);
  }
  for (const auto& b : m.bodies) {
    const int index = *m.frame_index(b.frame);
    const matrix& w = kin.frame(index).omega;
    matrix e = kin.epsilon(index), g = kin::cross(w, b.inertia.mul(w));
    for (int k = 2; k <= order; ++k) {
      e = d.time_derivative(e);
      g = d.time_derivative(g);
    }
    terms.push_back(kin::dot(e, b.inertia.mul(e)) / 2 + kin::dot(e, g));
  }
  return GiNaC::add(terms);
}

Equations gibbs_appell_of_order(std::shared_ptr<const model::Model> model, int order) {
  // Each order differentiates every position once more in time: the expressions grow
  // geometrically, and past a handful of orders no one reads or evaluates them.
  constexpr int kHighestOrder = 12;
  if (order < 1 || order > kHighestOrder)
    throw model::ModelError(model::SourceLocation{"order"},
                            "the order of Gibbs–Appell equations is a whole number from 1 to " +
                                std::to_string(kHighestOrder),
                            std::to_string(order));
  if (order > 1 && !model->constraints.empty())
    throw model::ModelError(model->constraints.front().where,
                            "constraints with Gibbs-Appell equations of order > 1 are not "
                            "supported yet",
                            model->constraints.front().name);
  return detail::form_equations(
      model, Method::GibbsAppell,
      [order](kin::Kinematics& kin) {
        const model::Model& m = kin.model();
        auto& d = kin.differentiator();
        const std::size_t n = m.dof();
        const ex energy = acceleration_energy_of_order(kin, order);
        const matrix q = generalized_forces(kin);

        GiNaC::exvector residuals(n);
        for (std::size_t j = 0; j < n; ++j) {
          ex force = q(j, 0);
          for (int k = 1; k < order; ++k) force = d.time_derivative(force);
          residuals[j] = d.partial(energy, m.coordinate_symbol(j, order + 1)) - force;
        }
        if (order == 1) return residuals;

        // The Leibniz terms that make the order-m equations the derivatives of the ordinary ones.
        const auto points = m.mass_points();
        for (const auto& p : points) {
          const auto r = derivatives(d, kin.position(p.point), order + 1);
          for (std::size_t j = 0; j < n; ++j) {
            const auto partial = derivatives(d, kin.partial_velocity(p.point, j), order - 1);
            for (int k = 1; k < order; ++k)
              residuals[j] += binomial(order - 1, k) * p.mass *
                              kin::dot(r[static_cast<std::size_t>(order + 1 - k)],
                                       partial[static_cast<std::size_t>(k)]);
          }
        }
        for (const auto& b : m.bodies) {
          const int index = *m.frame_index(b.frame);
          const matrix& w = kin.frame(index).omega;
          const matrix inertia_torque =
              b.inertia.mul(kin.epsilon(index)).add(kin::cross(w, b.inertia.mul(w)));
          const auto torque = derivatives(d, inertia_torque, order - 2);
          for (std::size_t j = 0; j < n; ++j) {
            const auto partial = derivatives(d, kin.partial_angular_velocity(index, j), order - 1);
            for (int k = 1; k < order; ++k)
              residuals[j] +=
                  binomial(order - 1, k) * kin::dot(torque[static_cast<std::size_t>(order - 1 - k)],
                                                    partial[static_cast<std::size_t>(k)]);
          }
        }
        return residuals;
      },
      order);
}

}  // namespace appell::principles
