// 3-vectors as GiNaC 3×1 matrices: the few products kinematics and the principles need.
#pragma once

#include <ginac/ginac.h>

#include "appell/model/model.hpp"

namespace appell::kin {

/// The 3×1 column of three components.
inline GiNaC::matrix column(const model::Vector3& v) {
  return GiNaC::matrix(3, 1, GiNaC::lst{v[0], v[1], v[2]});
}

/// a·b of two 3×1 columns (components in the same frame).
inline GiNaC::ex dot(const GiNaC::matrix& a, const GiNaC::matrix& b) {
  return a(0, 0) * b(0, 0) + a(1, 0) * b(1, 0) + a(2, 0) * b(2, 0);
}

/// a × b of two 3×1 columns (components in the same frame), a 3×1 column.
inline GiNaC::matrix cross(const GiNaC::matrix& a, const GiNaC::matrix& b) {
  return GiNaC::matrix(
      3, 1,
      GiNaC::lst{a(1, 0) * b(2, 0) - a(2, 0) * b(1, 0), a(2, 0) * b(0, 0) - a(0, 0) * b(2, 0),
                 a(0, 0) * b(1, 0) - a(1, 0) * b(0, 0)});
}

/// [u]×, the 3×3 matrix such that skew(u)·v = u × v, of a 3×1 column u.
inline GiNaC::matrix skew(const GiNaC::matrix& u) {
  return GiNaC::matrix(
      3, 3, GiNaC::lst{0, -u(2, 0), u(1, 0), u(2, 0), 0, -u(0, 0), -u(1, 0), u(0, 0), 0});
}

}  // namespace appell::kin
