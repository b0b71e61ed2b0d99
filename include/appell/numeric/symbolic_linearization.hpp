// The linear model ẋ = A x + B u with A and B as expressions of the model's parameters: what a
// control engineer writes by hand for the inverted pendulum on a cart (A₄₂ = −m g/M ...), formed
// by the same construction as num::linearize (linearization.hpp) with exact symbolic matrices.
//
// The operating point stays the one num::linearize used (its states, independent and dependent
// coordinates and speeds, completed point): only the parameters are kept as symbols. The point's
// numbers are written exactly where they are whole multiples of π/12 (0, π/2, π ...) or fractions
// with a denominator of at most 1000, so that an upright pendulum at q = π gives sin(π) = 0, not
// 1.2e-16; other numbers enter as floating-point numbers.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <string>
#include <vector>

#include "appell/numeric/linearization.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// ẋ = A x + B u with A and B in the parameters (readable form, sym::readable_within).
struct SymbolicLinearModel {
  std::vector<std::string> states;  // as LinearModel::states
  std::vector<std::string> inputs;  // as LinearModel::inputs
  GiNaC::matrix A;                  // states × states
  GiNaC::matrix B;                  // states × inputs
};

/// Largest n + m (coordinates plus constraints) for which the symbolic model is formed: the
/// inverse of the (n + m)-square matrix of M and the constraints grows quickly with its size.
constexpr std::size_t kMaxSymbolicLinearSize = 8;

/// The symbolic A and B of `linear` (what num::linearize returned for `equations` with
/// `options`). Inputs and unspecified prescribed functions take their operating values from
/// options.values (0 unless given), t is options.t; parameters given in options.values stay
/// symbols too (A and B hold for every value of them).
///
/// Throws model::ComputationError when n + m exceeds kMaxSymbolicLinearSize, when the
/// constraints are redundant (the symbolic construction needs independent ones; the numeric
/// model handles redundant constraints by minimum-norm solutions), or when M and the
/// constraints are singular at the point for general parameter values.
SymbolicLinearModel symbolic_linear_model(const principles::Equations& equations,
                                          const LinearModel& linear,
                                          const LinearizationOptions& options);

/// `value` as an exact GiNaC number where it is (to 1e-12 relative) a whole multiple of π/12 or
/// a fraction p/q with q ≤ 1000, else as a floating-point number.
GiNaC::ex exact_number(double value);

}  // namespace appell::num
