// The state-space model ẋ = A x + B u of a model's equations about an operating point, with its
// eigenvalues, natural frequencies and damping ratios.
//
// Without constraints x = (q, q̇) and ẋ = (q̇, G(q, q̇, u)) with G = M⁻¹ f, so
//   A = [0  I; ∂G/∂q  ∂G/∂q̇],   B = [0; ∂G/∂u],
//   ∂G/∂x_k = M⁻¹ (∂f/∂x_k − ∂M/∂x_k q̈)
// at the operating point. Where the recursions cover the model and it has no constraints,
// ∂G/∂q, ∂G/∂q̇ and ∂G/∂u come from the recursions differentiated in forward mode
// (num::DynamicsDerivativesEvaluator: −M⁻¹ ∂τ/∂x, exact, without symbolic partials of M and f);
// otherwise from the symbolic partials of M and f (sym::Differentiator, exact) compiled to a
// tape. With constraints M q̈ = f + Aᵀλ, A q̈ = b is differentiated the same way:
// δq̈ and δλ solve the same system with right-hand sides δf − δM q̈ + δAᵀλ and δb − δA q̈.
//
// The constraints leave fewer states (as SymPy's Linearizer does): the holonomic ones φ(q, t) = 0
// make some coordinates q_D dependent on the others q_I (∂q_D/∂q_I = −Φ_D⁻¹ Φ_I), and all of them
// at velocity level, g(q, q̇, t) = 0 (φ̇ for the holonomic ones), make some speeds q̇_W dependent on
// the others u = q̇_U. The reduced state is x_r = (q_I, q̇_U); with T = ∂x/∂x_r along the
// constraints and S the rows of x that are x_r, the reduced model is A_r = S J T, B_r = S B, J the
// unconstrained-form Jacobian of ẋ above.
#pragma once

#include <Eigen/Dense>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::num {

/// Where and in what a model is linearized.
struct LinearizationOptions {
  /// Parameters, inputs (their operating values) and unspecified prescribed functions, as for
  /// CompiledEquations (model::bind).
  model::Values values;
  double t = 0.0;  // the time of the operating point, s
  /// The inputs u (names of the model's inputs, each at most once), the columns of B in this
  /// order; an unknown or repeated name throws model::ModelError located at "inputs".
  std::vector<std::string> inputs;
  /// Whether ∂q̈/∂x may come from the recursions differentiated (where they cover the model and
  /// it has no constraints); false: always from the symbolic partials of M and f (the two agree
  /// to rounding; the recursions need no symbolic differentiation).
  bool use_recursions = true;
};

/// ẋ = A x + B u about an operating point, x the deviations of the states from it.
struct LinearModel {
  /// The states' names: the independent coordinates (coordinate order), then the independent
  /// speeds as "dot(NAME)" (coordinate order).
  std::vector<std::string> states;
  std::vector<std::string> inputs;  // the inputs' names, columns of B
  Eigen::MatrixXd A;                // states × states
  Eigen::MatrixXd B;                // states × inputs
  /// Indices into Model::coordinates, ascending: the coordinates kept as states and those the
  /// holonomic constraints make dependent; the speeds kept and those all constraints make
  /// dependent. Without constraints every coordinate and speed is independent.
  std::vector<std::size_t> independent_coordinates, dependent_coordinates;
  std::vector<std::size_t> independent_speeds, dependent_speeds;
  /// The operating point (n values each, coordinate order): the one given, with the dependent
  /// coordinates and speeds solved from the constraints when it did not satisfy them.
  Eigen::VectorXd q, qd;
  /// Whether the dependent coordinates or speeds were changed to satisfy the constraints.
  bool completed = false;
  /// The eigenvalues of A, ordered by modulus, then real part, then imaginary part (moduli within
  /// 1e-9 of each other relative count as equal: a real pair ±a comes −a first). Zero
  /// eigenvalues (free coordinates, a defective stiffness) are found by deflation on the ranks
  /// of A (singular values below 1e-10 max |A_ij| are zero) and are exactly 0.
  Eigen::VectorXcd eigenvalues;
};

/// One eigenvalue s of A read as a mode: natural frequency ω_n = |s| (rad/s) and damping ratio
/// ζ = −Re(s)/|s| (1 for a real negative s, 0 for an undamped oscillation, negative when
/// unstable; NaN when s = 0). A real part within rounding of zero (|Re s| ≤ 1.5e-8 ≈ √ε times
/// the largest |A_ij|, the accuracy of a double eigenvalue) counts as zero: ζ = 0 and the mode
/// is not unstable.
struct Mode {
  std::complex<double> eigenvalue;
  double natural_frequency = 0.0;
  double damping_ratio = 0.0;
  bool unstable = false;  // Re(s) above that rounding tolerance
};

/// The linear model of `equations` about (q, q̇) (n values each, coordinate order; other sizes
/// throw std::invalid_argument) at the values and time of `options`.
///
/// With constraints, the dependent coordinates are chosen as the last columns of Φ_q, in the
/// order of preference "the model's `independent:` coordinates first, then the others in
/// coordinate order", that are linearly independent (so that the first coordinates stay
/// states), and the dependent speeds likewise from the velocity-level constraints' ∂g/∂q̇, the
/// independent coordinates' speeds preferred. When (q, q̇) does not satisfy the constraints
/// (max |φ|, |g| > 1e-9), the dependent coordinates are solved by Newton's method holding the
/// independent ones, then the dependent speeds (LinearModel::completed).
///
/// Throws model::ModelError for bad values (what model::bind throws) or inputs,
/// model::ComputationError when M is singular at the point, M, f, A, b or their derivatives are
/// not finite there, or the constraints cannot be satisfied from it.
LinearModel linearize(const principles::Equations& equations, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd, const LinearizationOptions& options);

/// The same for `model` itself, without forming its equations where the recursions cover it
/// (options.use_recursions, no constraints: the differentiated recursions, O(n) per direction);
/// otherwise from its Gibbs–Appell equations, formed here. What `appell linearize` uses unless
/// the symbolic A and B are asked for.
LinearModel linearize(std::shared_ptr<const model::Model> model, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd, const LinearizationOptions& options);

/// The modes of A, one per eigenvalue, in the order of LinearModel::eigenvalues.
std::vector<Mode> modes(const LinearModel& linear);

/// Relative size below which a printed number of a linear model is rounding noise: an entry of A
/// (B) below kRoundingNoise times the largest |A_ij| (|B_ij|) is 0, and so is a real or
/// imaginary part of an eigenvalue s below kRoundingNoise |s|. A and its eigenvalues come from
/// products with M⁻¹ and an eigensolver, each good to a few ε (2.2e-16) of the largest magnitude
/// they handle, so an entry that ought to be 0 comes out at 1e-17..1e-15 of it (`-4.7e-16` in A,
/// a real part `-6e-17` of an undamped pair); 1e-12 leaves three to four orders of magnitude
/// above that noise, and is below what the 12 significant digits of the text output can show
/// beside the largest entry anyway, so nothing readable is hidden.
inline constexpr double kRoundingNoise = 1e-12;

/// `m` with its entries below kRoundingNoise times its largest |m_ij| as exactly 0.
Eigen::MatrixXd without_rounding_noise(const Eigen::MatrixXd& m);
/// `s` with a real or imaginary part below kRoundingNoise |s| as exactly 0.
std::complex<double> without_rounding_noise(std::complex<double> s);

/// The eigenvalues of a LinearModel as a person reads them: rounding noise removed
/// (without_rounding_noise), a complex-conjugate pair once (value with Im > 0, read "a ± bi"),
/// equal values (the zero eigenvalues, exactly 0) once with their count.
struct EigenvalueGroup {
  std::complex<double> value;   // Im(value) >= 0
  bool conjugate_pair = false;  // value and its conjugate
  std::size_t count = 1;        // how many times (each of a pair's two members) it occurs
  std::size_t first = 0;        // index of its first member in LinearModel::eigenvalues
};

/// The groups of LinearModel::eigenvalues, in its order (by modulus, then real part). Two
/// eigenvalues are a conjugate pair when, noise removed, one is the other's conjugate to within
/// kRoundingNoise of their modulus (the real Schur form gives exact conjugates).
std::vector<EigenvalueGroup> eigenvalue_groups(const LinearModel& linear);

}  // namespace appell::num
