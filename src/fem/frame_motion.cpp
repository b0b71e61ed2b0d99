#include "appell/fem/frame_motion.hpp"

#include <algorithm>
#include <cmath>

#include "appell/kinematics/kinematics.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/principles/derive.hpp"
#include "appell/sym/dag.hpp"

namespace appell::fem {

namespace {

GiNaC::matrix transpose_times(const GiNaC::matrix& r, const GiNaC::matrix& v) {
  return r.transpose().mul(v);
}

}  // namespace

FrameMotion::~FrameMotion() = default;
FrameMotion::FrameMotion(FrameMotion&&) noexcept = default;

FrameMotion::FrameMotion(std::shared_ptr<const model::Model> model, const std::string& frame,
                         const model::Values& values, double t_end, double step,
                         const model::SourceLocation& where)
    : dof_(model->dof()) {
  sym::Differentiator differentiator(model->time_functions);
  kin::Kinematics kinematics(model, differentiator);
  const auto found = model->frame_index(frame);
  if (!found) throw model::ModelError(where, "unknown frame", frame);
  const int index = *found;
  const kin::FrameState& state = kinematics.frame(index);
  const GiNaC::matrix acceleration = kinematics.acceleration(model::PointRef{frame, {0, 0, 0}});
  GiNaC::matrix gravity(3, 1);
  if (model->gravity)
    for (unsigned k = 0; k < 3; ++k) gravity(k, 0) = (*model->gravity)[k];
  const GiNaC::matrix a_local = transpose_times(state.rotation, acceleration);
  const GiNaC::matrix g_local = transpose_times(state.rotation, gravity);
  const GiNaC::matrix& epsilon = kinematics.epsilon(index);

  // Parameters, given numbers and driven functions; an input left unset stays a symbol, which
  // the tape refuses below: the frame's motion must be known.
  const model::BoundValues bound = model::bind(*model, values);
  GiNaC::exmap numbers = bound.numbers;
  numbers.insert(bound.driven.begin(), bound.driven.end());
  GiNaC::exvector outputs;
  for (const GiNaC::matrix* m : {&state.omega, &epsilon, &a_local, &g_local})
    for (unsigned k = 0; k < 3; ++k) outputs.push_back(sym::substitute((*m)(k, 0), numbers));

  std::vector<GiNaC::symbol> variables{model->time_functions->time()};
  for (int order = 0; order <= 2; ++order)
    for (std::size_t j = 0; j < dof_; ++j) variables.push_back(model->coordinate_symbol(j, order));
  try {
    tape_ = std::make_unique<num::Tape>(outputs, variables);
  } catch (const std::invalid_argument& e) {
    throw model::ModelError(where,
                            std::string("the floating frame's motion must be known: ") + e.what() +
                                "; give prescribed functions an expression of t",
                            frame);
  }

  if (dof_ == 0) return;
  // The rigid motion first (kineto-elastodynamic hypothesis), sampled densely enough that
  // cubic Hermite interpolation of q with q̇ is far below the elastic response's error.
  const principles::Equations rigid = principles::derive(model, principles::Method::GibbsAppell);
  num::SimulationOptions options;
  options.t_end = std::max(t_end, step);
  options.output_step = step;
  options.values = values;
  // With constraints (a mechanism's closed loop), q̈ of every row already comes from
  // M q̈ = f + Aᵀλ, A q̈ = b, and the rows stay on the constraints.
  num::simulate(rigid, options, [&](const num::SimulationRow& row) {
    samples_.push_back({row.t, row.q, row.qd, row.qdd});
  });
}

void FrameMotion::interpolate(double t) const {
  variables_.assign(1 + 3 * dof_, 0.0);
  variables_[0] = t;
  if (!samples_.empty()) {
    // Cubic Hermite on q (with q̇), and on q̇ (with q̈); q̈ linear.
    auto upper = std::upper_bound(samples_.begin(), samples_.end(), t,
                                  [](double value, const Sample& s) { return value < s.t; });
    if (upper == samples_.begin()) upper = samples_.begin() + 1;
    if (upper == samples_.end()) upper = samples_.end() - 1;
    const Sample& a = *(upper - 1);
    const Sample& b = *upper;
    const double h = b.t - a.t;
    const double s = std::clamp((t - a.t) / h, 0.0, 1.0);
    const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
    const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
    const double d00 = (6 * s * s - 6 * s) / h, d10 = 3 * s * s - 4 * s + 1;
    const double d01 = (-6 * s * s + 6 * s) / h, d11 = 3 * s * s - 2 * s;
    for (std::size_t j = 0; j < dof_; ++j) {
      const Eigen::Index i = Eigen::Index(j);
      variables_[1 + j] = h00 * a.q(i) + h10 * h * a.qd(i) + h01 * b.q(i) + h11 * h * b.qd(i);
      variables_[1 + dof_ + j] = d00 * a.q(i) + d10 * a.qd(i) + d01 * b.q(i) + d11 * b.qd(i);
      variables_[1 + 2 * dof_ + j] = (1 - s) * a.qdd(i) + s * b.qdd(i);
    }
  }
}

std::vector<double> FrameMotion::coordinates(double t) const {
  interpolate(t);
  return {variables_.begin() + 1, variables_.begin() + 1 + std::ptrdiff_t(dof_)};
}

FrameState FrameMotion::at(double t) const {
  interpolate(t);
  outputs_.resize(12);
  tape_->evaluate(variables_.data(), outputs_.data(), workspace_);
  FrameState state;
  for (int k = 0; k < 3; ++k) {
    state.omega(k) = outputs_[std::size_t(k)];
    state.epsilon(k) = outputs_[std::size_t(3 + k)];
    state.origin_acceleration(k) = outputs_[std::size_t(6 + k)];
    state.gravity(k) = outputs_[std::size_t(9 + k)];
  }
  return state;
}

}  // namespace appell::fem
