#include "appell/numeric/momenta.hpp"

#include <stdexcept>

#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"
#include "appell/sym/differentiator.hpp"
#include "tape_layout.hpp"

namespace appell::num {

using GiNaC::matrix;

CompiledMomenta::CompiledMomenta(std::shared_ptr<const model::Model> model,
                                 const model::Values& values)
    : n_(model->dof()) {
  const model::Model& m = *model;
  sym::Differentiator d(m.time_functions);
  kin::Kinematics kin(model, d);
  matrix linear(3, 1), angular(3, 1);
  for (const auto& p : m.mass_points()) {
    const matrix momentum = kin.velocity(p.point).mul_scalar(p.mass);
    linear = linear.add(momentum);
    angular = angular.add(kin::cross(kin.position(p.point), momentum));
  }
  for (const auto& b : m.bodies) {
    const int frame = *m.frame_index(b.frame);
    if (frame < 0) continue;  // fixed in the world: no angular velocity
    const auto& state = kin.frame(frame);
    angular = angular.add(state.rotation.mul(b.inertia.mul(state.omega)));
  }
  GiNaC::exvector outputs;
  for (unsigned i = 0; i < 3; ++i) outputs.push_back(linear(i, 0));
  for (unsigned i = 0; i < 3; ++i) outputs.push_back(angular(i, 0));
  Layout layout = layout_of(m, outputs, values);
  tape_ = std::make_unique<Tape>(layout.entries, layout.variables);
  variables_.assign(1 + 2 * n_, 0.0);
  variables_.insert(variables_.end(), layout.fixed.begin(), layout.fixed.end());
  outputs_.assign(outputs.size(), 0.0);
}

Momenta CompiledMomenta::evaluate(double t, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& qd) const {
  const auto n = static_cast<Eigen::Index>(n_);
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("CompiledMomenta::evaluate: expected " + std::to_string(n_) +
                                " values of q and dot(q)");
  variables_[0] = t;
  for (std::size_t j = 0; j < n_; ++j) {
    variables_[1 + j] = q[static_cast<Eigen::Index>(j)];
    variables_[1 + n_ + j] = qd[static_cast<Eigen::Index>(j)];
  }
  tape_->evaluate(variables_.data(), outputs_.data(), workspace_);
  Momenta out;
  for (Eigen::Index i = 0; i < 3; ++i) {
    out.linear[i] = outputs_[static_cast<std::size_t>(i)];
    out.angular[i] = outputs_[3 + static_cast<std::size_t>(i)];
  }
  return out;
}

}  // namespace appell::num
