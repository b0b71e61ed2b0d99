// Whether two sets of equations of one model are the same equations.
#pragma once

#include <cstddef>
#include <string>

#include "appell/principles/equations.hpp"

namespace appell::num {

struct Agreement {
  bool symbolic = false;           // readable(M_a − M_b) and readable(f_a − f_b) are all 0
  double max_numeric_error = 0.0;  // over the random states, relative to max(1, |value|)
  std::size_t states = 0;
  std::string first_difference;  // e.g. "M(1,2)" when they differ
};

/// Compares symbolically (the difference simplified to zero) and numerically at `states` random
/// states with q, q̇ in [−2, 2] and t in [0, 3] (fixed seed, so reruns agree).
Agreement compare(const principles::Equations& a, const principles::Equations& b,
                  std::size_t states = 20, bool symbolic = true);

}  // namespace appell::num
