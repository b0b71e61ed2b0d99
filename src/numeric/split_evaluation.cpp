#include "appell/numeric/split_evaluation.hpp"

#include <stdexcept>
#include <string>

#include "tape_layout.hpp"

namespace appell::num {

Eigen::VectorXd SplitEvaluation::nonlinear_effects() const {
  Eigen::VectorXd h = coriolis * qd + gravity - loads;
  if (moving) h += (mass_rate + gyroscopic) * qd + prescribed_motion;
  return h;
}

CompiledSplit::CompiledSplit(const principles::CoriolisSplit& split, const model::Values& values)
    : n_(split.dof()), moving_(split.moving), tape_([&] {
        Layout layout = layout_of(*split.model, split.entries(), values);
        fixed_ = std::move(layout.fixed);
        return Tape(layout.entries, layout.variables);
      }()) {}

SplitEvaluation CompiledSplit::evaluate(double t, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& qd) const {
  const auto n = static_cast<Eigen::Index>(n_);
  // Eigen does not check sizes in a release build: a short vector would be read past its end.
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("CompiledSplit::evaluate: expected " + std::to_string(n_) +
                                " coordinates and speeds, got " + std::to_string(q.size()) +
                                " and " + std::to_string(qd.size()));
  std::vector<double> variables{t};
  variables.insert(variables.end(), q.data(), q.data() + n);
  variables.insert(variables.end(), qd.data(), qd.data() + n);
  variables.insert(variables.end(), fixed_.begin(), fixed_.end());
  std::vector<double> out(tape_.output_count()), workspace;
  tape_.evaluate(variables.data(), out.data(), workspace);  // M, C, g, Q, ∂M/∂t, G, p

  SplitEvaluation s;
  s.t = t;
  s.q = q;
  s.qd = qd;
  s.moving = moving_;
  std::size_t k = 0;
  const auto square = [&](Eigen::MatrixXd& m) {
    m.resize(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) m(i, j) = out[k++];
  };
  const auto column = [&](Eigen::VectorXd& v) {
    v.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) v[i] = out[k++];
  };
  square(s.mass_matrix);
  square(s.coriolis);
  column(s.gravity);
  column(s.loads);
  square(s.mass_rate);
  square(s.gyroscopic);
  column(s.prescribed_motion);
  return s;
}

}  // namespace appell::num
