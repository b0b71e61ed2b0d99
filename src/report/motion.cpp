#include "appell/report/motion.hpp"

#include <cmath>
#include <stdexcept>

#include "appell/kinematics/kinematics.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::report {

namespace {

// t, q1..qn, dot(q1)..dot(qn): the variables of both tapes.
std::vector<GiNaC::symbol> state_variables(const model::Model& model) {
  std::vector<GiNaC::symbol> variables{model.time_functions->time()};
  for (std::size_t j = 0; j < model.dof(); ++j) variables.push_back(model.coordinate_symbol(j));
  for (std::size_t j = 0; j < model.dof(); ++j) variables.push_back(model.coordinate_symbol(j, 1));
  return variables;
}

std::unique_ptr<num::Tape> compile(const GiNaC::exvector& outputs,
                                   const std::vector<GiNaC::symbol>& variables,
                                   const std::string& what) {
  try {
    return std::make_unique<num::Tape>(outputs, variables);
  } catch (const std::invalid_argument& e) {
    throw model::ComputationError("cannot evaluate the " + what + ": " + e.what());
  }
}

}  // namespace

MotionEvaluator::MotionEvaluator(std::shared_ptr<const model::Model> model,
                                 const model::Values& values)
    : model_(std::move(model)) {
  const model::BoundValues bound = model::bind(*model_, values);
  const GiNaC::exmap substitution = bound.substitution();
  sym::Differentiator differentiator(model_->time_functions);
  const kin::Kinematics kinematics(model_, differentiator);
  GiNaC::exvector frames;
  for (std::size_t i = 0; i < model_->frames.size(); ++i) {
    const kin::FrameState& frame = kinematics.frame(static_cast<int>(i));
    for (unsigned k = 0; k < 3; ++k) frames.push_back(frame.origin(k, 0).subs(substitution));
    for (unsigned r = 0; r < 3; ++r)
      for (unsigned c = 0; c < 3; ++c) frames.push_back(frame.rotation(r, c).subs(substitution));
  }
  GiNaC::exvector constraints;
  for (const auto& constraint : model_->constraints)
    constraints.push_back(constraint.expression.subs(substitution));
  const auto variables = state_variables(*model_);
  frames_ = compile(frames, variables, "frames' positions");
  constraints_ = compile(constraints, variables, "constraints");
}

std::vector<double> quaternion_of(const double* m) {
  // Shepperd's method: divide by the largest of the four candidates for accuracy.
  const double trace = m[0] + m[4] + m[8];
  double x, y, z, w;
  if (trace >= m[0] && trace >= m[4] && trace >= m[8]) {
    const double s = 2.0 * std::sqrt(1.0 + trace);
    w = s / 4;
    x = (m[7] - m[5]) / s;
    y = (m[2] - m[6]) / s;
    z = (m[3] - m[1]) / s;
  } else if (m[0] >= m[4] && m[0] >= m[8]) {
    const double s = 2.0 * std::sqrt(1.0 + m[0] - m[4] - m[8]);
    w = (m[7] - m[5]) / s;
    x = s / 4;
    y = (m[1] + m[3]) / s;
    z = (m[2] + m[6]) / s;
  } else if (m[4] >= m[8]) {
    const double s = 2.0 * std::sqrt(1.0 + m[4] - m[0] - m[8]);
    w = (m[2] - m[6]) / s;
    x = (m[1] + m[3]) / s;
    y = s / 4;
    z = (m[5] + m[7]) / s;
  } else {
    const double s = 2.0 * std::sqrt(1.0 + m[8] - m[0] - m[4]);
    w = (m[3] - m[1]) / s;
    x = (m[2] + m[6]) / s;
    y = (m[5] + m[7]) / s;
    z = s / 4;
  }
  const double sign = w < 0 ? -1.0 : 1.0;
  const double norm = std::sqrt(x * x + y * y + z * z + w * w);
  return {sign * x / norm, sign * y / norm, sign * z / norm, sign * w / norm};
}

std::vector<double> MotionEvaluator::poses(double t, const std::vector<double>& q) const {
  std::vector<double> variables{t};
  variables.insert(variables.end(), q.begin(), q.end());
  variables.resize(1 + 2 * model_->dof(), 0.0);
  std::vector<double> values(frames_->output_count());
  frames_->evaluate(variables.data(), values.data(), workspace_);
  std::vector<double> poses;
  poses.reserve(7 * model_->frames.size());
  for (std::size_t i = 0; i < model_->frames.size(); ++i) {
    const double* frame = values.data() + 12 * i;
    poses.insert(poses.end(), frame, frame + 3);
    const auto quaternion = quaternion_of(frame + 3);
    poses.insert(poses.end(), quaternion.begin(), quaternion.end());
  }
  return poses;
}

std::vector<double> MotionEvaluator::constraint_residuals(double t, const std::vector<double>& q,
                                                          const std::vector<double>& qd) const {
  std::vector<double> variables{t};
  variables.insert(variables.end(), q.begin(), q.end());
  variables.insert(variables.end(), qd.begin(), qd.end());
  variables.resize(1 + 2 * model_->dof(), 0.0);
  std::vector<double> values(constraints_->output_count());
  constraints_->evaluate(variables.data(), values.data(), workspace_);
  return values;
}

}  // namespace appell::report
