#include "relative_statics.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "appell/model/values.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/principles/readable_form.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::num::detail {

namespace {

// The functions of time that are neither coordinates nor driven by an expression in the model:
// the unspecified prescribed functions, then the inputs, by name.
std::vector<std::string> open_functions(const model::Model& m) {
  std::vector<std::string> names;
  for (const auto& p : m.prescribed)
    if (!p.expression) names.push_back(p.name);
  for (const auto& u : m.inputs) names.push_back(u.name);
  return names;
}

// The times (offsets from options.t) at which the numeric test compares: unrelated to each other
// and to simple periods, so that no periodic drive looks constant at all of them.
constexpr double time_offsets[] = {0.0, 0.7391, 1.9137, 4.3517, 12.161};

}  // namespace

std::optional<RelativeStatics> prescribed_motion(kin::Kinematics& kinematics) {
  const model::Model& m = kinematics.model();
  GiNaC::exvector watched;
  for (int i = 0; i < static_cast<int>(m.frames.size()); ++i) {
    const kin::FrameState& frame = kinematics.frame(i);
    for (std::size_t k = 0; k < frame.rotation.nops(); ++k) watched.push_back(frame.rotation.op(k));
    for (std::size_t k = 0; k < frame.origin.nops(); ++k) watched.push_back(frame.origin.op(k));
  }
  for (const auto& point : m.mass_points()) {
    const GiNaC::matrix r = kinematics.position(point.point);
    for (std::size_t k = 0; k < r.nops(); ++k) watched.push_back(r.op(k));
  }
  const sym::SymbolSet symbols = sym::symbols_in(watched);
  RelativeStatics motion;
  const bool timed = symbols.count(m.time_functions->time()) != 0;
  bool moving = timed;
  for (const auto& p : m.prescribed) {
    if (p.expression) {
      if (timed && p.expression->has(m.time_functions->time())) motion.prescribed.push_back(p.name);
      continue;
    }
    for (int order = 0; order <= 2; ++order) {
      const auto s = m.time_functions->find_derivative(p.name, order);
      if (s && symbols.count(*s) != 0) {
        motion.prescribed.push_back(p.name);
        moving = true;
        break;
      }
    }
  }
  if (!moving) return std::nullopt;
  motion.explicit_time = timed && motion.prescribed.empty();
  if (m.relative_to) motion.carrier = *m.relative_to;
  return motion;
}

std::string steady_relative_problem(const model::Model& m, sym::Differentiator& d,
                                    const GiNaC::exvector& forces,
                                    const GiNaC::exvector& constraints,
                                    const std::vector<std::string>& constraint_names,
                                    const StaticsOptions& options,
                                    const std::vector<Eigen::VectorXd>& points) {
  const std::size_t n = m.dof();
  GiNaC::exvector residuals = forces;
  residuals.insert(residuals.end(), constraints.begin(), constraints.end());
  auto name_of = [&](std::size_t i) {
    return i < n ? "f_" + m.coordinates[i].name + " at rest"
                 : "the constraint " + constraint_names[i - n];
  };

  // Symbolically: the residuals held at a point q (q̇ = 0) do not change when d/dt of each is 0,
  // whatever the parameters. The constant rate of a turntable, ω t inside sin and cos, cancels
  // only by sin² + cos² = 1: the readable form is what sees it.
  GiNaC::exmap rest;
  for (std::size_t j = 0; j < n; ++j) rest[m.coordinate_symbol(j, 1)] = 0;
  GiNaC::exvector rates;
  for (const auto& r : residuals) rates.push_back(sym::substitute(d.time_derivative(r), rest));
  const sym::BoundedReadable readable = principles::readable_entries_within(m, rates);
  bool zero = true;
  for (std::size_t i = 0; i < rates.size() && zero; ++i)
    zero = readable.forms[i] == sym::EntryForm::Readable && readable.entries[i].is_zero();
  if (zero) return "symbolically";

  // Numerically, with the values bound: an input or unspecified prescribed function given
  // numbers (or none: 0) moves on as p + ṗ τ + ½ p̈ τ², which is what those numbers say of its
  // motion; a driven one follows its expression.
  const model::BoundValues bound = model::bind(m, options.values);
  const GiNaC::symbol& t = m.time_functions->time();
  const GiNaC::ex tau = t - options.t;
  GiNaC::exmap values;
  for (const auto& name : open_functions(m)) {
    const auto base = m.time_functions->find_derivative(name, 0);
    if (!base || bound.driven.count(*base) != 0) continue;
    double given[3] = {0.0, 0.0, 0.0};
    for (int order = 0; order <= 2; ++order) {
      const auto s = m.time_functions->find_derivative(name, order);
      if (!s) continue;
      if (const auto it = bound.numbers.find(*s); it != bound.numbers.end())
        given[order] = GiNaC::ex_to<GiNaC::numeric>(it->second).to_double();
    }
    for (int order = 0; order <= 2; ++order) {
      const auto s = m.time_functions->find_derivative(name, order);
      if (!s) continue;
      GiNaC::ex course = 0;
      for (int k = order; k <= 2; ++k)
        course += given[k] * GiNaC::pow(tau, k - order) / GiNaC::factorial(k - order);
      values[*s] = course;
    }
  }
  for (const auto& [symbol, value] : bound.substitution()) values.insert({symbol, value});
  GiNaC::exvector outputs;
  for (const auto& r : residuals)
    outputs.push_back(sym::substitute(sym::substitute(r, rest), values));
  std::vector<GiNaC::symbol> variables;
  for (std::size_t j = 0; j < n; ++j) variables.push_back(m.coordinate_symbol(j));
  variables.push_back(t);
  const Tape tape(outputs, variables);

  const std::size_t count = std::size(time_offsets);
  const std::size_t rows = outputs.size();
  // value[p][k][i]: residual i at point p and time k.
  std::vector<std::vector<std::vector<double>>> value(
      points.size(), std::vector<std::vector<double>>(count, std::vector<double>(rows)));
  std::vector<double> in(n + 1), workspace;
  std::vector<double> scale(rows, 0.0);
  for (std::size_t p = 0; p < points.size(); ++p)
    for (std::size_t k = 0; k < count; ++k) {
      for (std::size_t j = 0; j < n; ++j) in[j] = points[p][static_cast<Eigen::Index>(j)];
      in[n] = options.t + time_offsets[k];
      tape.evaluate(in.data(), value[p][k].data(), workspace);
      for (std::size_t i = 0; i < rows; ++i)
        if (std::isfinite(value[p][k][i])) scale[i] = std::max(scale[i], std::abs(value[p][k][i]));
    }
  const double largest = *std::max_element(scale.begin(), scale.end());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t p = 0; p < points.size(); ++p)
      for (std::size_t k = 1; k < count; ++k) {
        const double a = value[p][0][i], b = value[p][k][i];
        if (!std::isfinite(a) || !std::isfinite(b)) continue;
        // Relative to the residual's size over every sample (and a little of the largest
        // residual's, so that rounding in a residual that is nearly 0 everywhere is not motion).
        if (std::abs(b - a) <= 1e-8 * std::max(scale[i], 1e-6 * largest)) continue;
        std::ostringstream s;
        s.precision(6);
        s << "no steady relative problem: " << name_of(i)
          << " changes with t, so no position stays at rest relative to the moving frames (at ";
        for (std::size_t j = 0; j < n; ++j)
          s << (j ? ", " : "") << m.coordinates[j].name << " = "
            << points[p][static_cast<Eigen::Index>(j)];
        s << ": " << a << " at t = " << options.t << ", " << b
          << " at t = " << options.t + time_offsets[k]
          << "); relative equilibria need a motion whose inertial forces do not depend on t, "
             "such as a constant rate of turn";
        throw model::ComputationError(s.str());
      }
  return "numerically at " + std::to_string(count) + " times";
}

}  // namespace appell::num::detail
