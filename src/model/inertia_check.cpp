#include "inertia_check.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <vector>

#include "appell/sym/differentiator.hpp"

namespace appell::model::detail {

namespace {

Eigen::Vector3d moments_of(const Eigen::Matrix3d& inertia) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly)
      .eigenvalues();  // ascending
}

// Relative to the largest moment: a tolerance in absolute terms would refuse the rounding of a
// 1e-6 inertia's entries (-1.3e-22) or accept anything for a 1e-12 one.
double tolerance_of(const Eigen::Matrix3d& inertia, const Eigen::Vector3d& moments) {
  const double scale =
      std::max({moments.cwiseAbs().maxCoeff(), inertia.diagonal().cwiseAbs().maxCoeff(), 1e-300});
  return 1e-9 * scale;
}

}  // namespace

InertiaFault inertia_fault(const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments = moments_of(inertia);
  const double tolerance = tolerance_of(inertia, moments);
  if (moments[0] < -tolerance) return InertiaFault::NotSemidefinite;
  if (moments[2] > moments[0] + moments[1] + tolerance) return InertiaFault::Triangle;
  return InertiaFault::None;
}

bool decoupled_axis(const Eigen::Matrix3d& inertia, int k) {
  const double tolerance = tolerance_of(inertia, moments_of(inertia));
  for (int j = 0; j < 3; ++j)
    if (j != k && (std::abs(inertia(k, j)) > tolerance || std::abs(inertia(j, k)) > tolerance))
      return false;
  return true;
}

std::string principal_moments(const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments = moments_of(inertia);
  std::ostringstream text;
  text << moments[0] << ", " << moments[1] << ", " << moments[2];
  return text.str();
}

std::optional<std::string> inertia_defect(const Eigen::Matrix3d& inertia) {
  switch (inertia_fault(inertia)) {
    case InertiaFault::None:
      return std::nullopt;
    case InertiaFault::NotSemidefinite:
      return "inertia is not positive semi-definite (principal moments " +
             principal_moments(inertia) +
             "): a moment of inertia is never negative; check the signs of the products of "
             "inertia (ixy, iyz, ixz are the tensor's entries, minus the products of the mass's "
             "coordinates) and that the inertia is about the centre of mass";
    case InertiaFault::Triangle:
      return "inertia breaks the triangle inequality: the largest principal moment exceeds the "
             "sum of the other two (principal moments " +
             principal_moments(inertia) +
             "); a body moving in 3-D needs a physical inertia (a thin plate in the x-y plane: "
             "[Izz/2, Izz/2, Izz]); a planar inertia ([0, 0, Izz]) is accepted only for a body "
             "whose angular velocity stays along that axis";
  }
  return std::nullopt;
}

namespace {

// Whether e is 0 for every state: expanded, then with sin² = 1 − cos², then normalised. A zero
// this cannot show is taken as not zero (the body is then refused with the expression printed).
bool vanishes(const GiNaC::ex& e) {
  const GiNaC::ex expanded = e.expand();
  if (expanded.is_zero()) return true;
  const GiNaC::ex x = GiNaC::wild(0);
  const GiNaC::ex trig = expanded
                             .subs(GiNaC::pow(GiNaC::sin(x), 2) == 1 - GiNaC::pow(GiNaC::cos(x), 2),
                                   GiNaC::subs_options::algebraic)
                             .expand();
  return trig.is_zero() || GiNaC::normal(trig).is_zero();
}

// ω of `frame` in its own axes, from the world down: through each factor R of a frame's rotation,
// ω ← Rᵀ ω + ω_factor (u·θ̇ for an axis u, vee(Rᵀ Ṙ) for a matrix).
Vector3 angular_velocity(const Model& model, const std::string& frame) {
  std::vector<const Frame*> chain;
  for (std::string name = frame; name != "world";) {
    const auto index = model.frame_index(name);
    if (!index || *index < 0) break;
    const Frame& f = model.frames[static_cast<std::size_t>(*index)];
    chain.push_back(&f);
    name = f.parent;
  }
  sym::Differentiator d(model.time_functions);
  Vector3 w{0, 0, 0};
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    for (const RotationFactor& factor : (*it)->rotation) {
      GiNaC::matrix r(3, 3);
      Vector3 own;
      if (factor.kind == RotationFactor::Kind::Axis) {
        // R = cos a·E + sin a·[u]× + (1 − cos a)·u uᵀ
        const GiNaC::ex c = GiNaC::cos(factor.angle), s = GiNaC::sin(factor.angle);
        const auto& u = factor.axis;
        const GiNaC::matrix cross(3, 3, GiNaC::lst{0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0});
        for (unsigned i = 0; i < 3; ++i)
          for (unsigned j = 0; j < 3; ++j)
            r(i, j) = (i == j ? c : GiNaC::ex(0)) + s * cross(i, j) + (1 - c) * u[i] * u[j];
        const GiNaC::ex rate = d.time_derivative(factor.angle);
        for (unsigned i = 0; i < 3; ++i) own[i] = u[i] * rate;
      } else {
        r = factor.matrix;
        const GiNaC::matrix spin = r.transpose().mul(d.time_derivative(r));
        own = {spin(2, 1), spin(0, 2), spin(1, 0)};
      }
      Vector3 next;
      for (unsigned i = 0; i < 3; ++i)
        next[i] = r(0, i) * w[0] + r(1, i) * w[1] + r(2, i) * w[2] + own[i];
      w = next;
    }
  return w;
}

}  // namespace

std::optional<std::string> planar_defect(const Model& model, const std::string& frame,
                                         const Eigen::Matrix3d& inertia) {
  static const char* const kAxis[] = {"x", "y", "z"};
  const Vector3 w = angular_velocity(model, frame);
  std::array<bool, 3> zero{};
  for (std::size_t i = 0; i < 3; ++i) zero[i] = vanishes(w[i]);
  if (zero[0] && zero[1] && zero[2]) return std::nullopt;  // never turns: no moment enters
  // The planar axis is the one of the largest moment (the moment the triangle inequality cannot
  // hold): turning about another, the body would move on its idealised, missing moments.
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (inertia(i, i) > inertia(k, k)) k = i;
  std::string why;
  for (int j = 0; j < 3 && why.empty(); ++j)
    if (j != k && !zero[static_cast<std::size_t>(j)]) {
      std::ostringstream component;
      component << w[static_cast<std::size_t>(j)];
      why = "frame " + frame + "'s angular velocity has the " + kAxis[j] + " component " +
            component.str() + ", not zero";
    }
  if (why.empty()) {
    if (decoupled_axis(inertia, k)) return std::nullopt;
    why = std::string("its products of inertia couple ") + kAxis[k] + " to the other axes";
  }
  return "inertia breaks the triangle inequality (principal moments " + principal_moments(inertia) +
         "): a planar inertia is accepted only while the body turns about its " + kAxis[k] +
         " axis alone, but " + why +
         "; a body moving in 3-D needs a physical inertia (each principal moment at most the sum "
         "of the other two: a thin plate in the x-y plane has [Izz/2, Izz/2, Izz])";
}

}  // namespace appell::model::detail
