// Standalone C++ or C for the equations of motion (`appell codegen`).
//
// The generated header needs nothing but the C++17 standard library (or, as C99, <math.h>):
// users embed it in a controller or a simulator without appell, GiNaC or Eigen. Its functions
// are straight-line code, one `const double` per operation, built by the recursions of
// principles/recursive_dynamics.hpp (Newton–Euler, composite rigid bodies, M = Lᵀ D L along the
// tree) with the model's constants folded; models those recursions do not cover are written from
// the tape of M and f (sym::Tape) after its common-subexpression elimination.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::codegen {

/// The language of the generated code.
enum class Language { Cpp, C };

/// What generate_cpp_header() writes besides the equations.
struct CodegenOptions {
  /// Namespace of the generated code, possibly nested ("robots::arm"); empty: from the model's
  /// name (default_namespace).
  std::string namespace_name;
  /// New defaults of the generated structs (model::bind): parameters ("M"), inputs and
  /// unspecified prescribed functions with their derivatives ("u", "dot(alpha)"). A function
  /// driven by an expression of t (Values::drive) is generated as that expression and has no
  /// member in `Inputs`.
  model::Values values;
  /// generate_code()'s language (generate_cpp_header and generate_c_header ignore it).
  Language language = Language::Cpp;
  /// Also coriolis_matrix(t, q, qd, p, in, C): C(q, qd) of M qdd + C qd + g = Q, n x n
  /// row-major, from the Christoffel symbols of M (principles/coriolis_split.hpp). Needs the
  /// equations (generate_code of a Model throws std::invalid_argument with it).
  bool coriolis_matrix = false;
  /// Also the first derivatives of the dynamics, by forward-mode differentiation of the
  /// recursions' program (principles/dynamics_derivatives.hpp; never finite differences):
  ///   inverse_dynamics_derivatives(t, q, qd, qdd, p, in, dtau_dq, dtau_dqd): ∂τ/∂q, ∂τ/∂q̇ of
  ///     τ = M qdd − f at qdd fixed;
  ///   forward_dynamics_derivatives(t, q, qd, p, in, qdd, dqdd_dq, dqdd_dqd, minv, Q): q̈ of
  ///     M q̈ = f + Q, ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂Q = M⁻¹ (false when M is not positive definite).
  /// Matrices row-major dof × dof, entry (i, j) = ∂y_i/∂x_j. Needs the recursions
  /// (std::invalid_argument naming why when they do not cover the model).
  bool derivatives = false;
  /// Also regressor(t, q, qd, qdd, p, in, Y): the inertial-parameter regressor
  /// (principles/regressor.hpp), dof x 10 per body then per particle, row-major, with
  /// Y pi = Q + Q_loads (gravity in Y). Needs a model the recursions cover
  /// (std::invalid_argument otherwise).
  bool regressor = false;
};

/// One member of the generated `Parameters` or `Inputs` struct.
struct GeneratedField {
  std::string name;      // the model's spelling: "M", "dot(alpha)"
  std::string cpp_name;  // a valid C++ identifier: "M", "dot_alpha"
  double default_value = 0.0;
};

/// The members of the generated `Parameters` and `Inputs` structs, in declaration order.
struct GeneratedLayout {
  std::vector<GeneratedField> parameters;  // every parameter, in the model's order
  /// Inputs, then unspecified prescribed functions (those not driven by an expression), each
  /// followed by the derivatives of it that the equations use.
  std::vector<GeneratedField> inputs;
};

/// The members the generated structs will have, with `values` as their defaults (a parameter's
/// default evaluated from the others' is not recomputed in the generated code). Throws
/// model::ModelError for bad values (what model::bind throws: an unknown name, a non-finite
/// number, ...) and std::invalid_argument when the equations hold a symbol that is neither
/// t, q, q̇, a parameter nor an input (e.g. q̈ in Gibbs–Appell equations of order m > 1).
GeneratedLayout generated_layout(const principles::Equations& equations,
                                 const model::Values& values = {});

/// "a" or "a::b::c" with every part a C++ identifier the generated code may declare (no keyword,
/// `std` or predefined macro such as `linux`), the first not a name the C library declares at
/// global scope (`sin`, `random`, `size_t`).
bool is_valid_namespace(const std::string& name);
/// The model's name made a namespace: "planar-2r" -> "planar_2r".
std::string default_namespace(const std::string& model_name);

/// The whole header: `dof`, the structs `Parameters` and `Inputs`, and inline functions of
/// (t, q, qd, Parameters, Inputs) with q, qd arrays of dof doubles in coordinate order:
/// mass_matrix (M row-major dof×dof), forcing (f), mass_matrix_and_forcing, nonlinear_effects
/// (h = −f), gravity (g(q), of t, q, p, in), forward_dynamics (solves M qdd = f + Q by
/// M = Lᵀ D L, false when M is not positive definite) and inverse_dynamics (Q = M qdd − f, by
/// Newton–Euler). With constraints (m of them, h holonomic; principles/constraint_rows.hpp) also
/// `constraint_count` = m, `holonomic_count` = h and
///   constraints(t, q, qd, p, in, A, b): A qdd = b, A row-major m×dof, b m (the rows of the formed
///     equations: M qdd = f + Aᵀλ; forward_dynamics solves the tree without them);
///   constraint_manifold(t, q, qd, p, in, phi, phi_q, g, g_qd): the holonomic φ(q, t) (h), Φ_q
///     (h×dof), every constraint's velocity-level residual (φ̇ or g; m) and its coefficients of
///     qd (m×dof): what a projection onto the constraints needs.
/// Throws std::invalid_argument for an invalid namespace or a symbol the generated code has no
/// value for (as generated_layout), model::ModelError for bad options.values (model::bind).
/// Deterministic: the same equations give the same text.
std::string generate_cpp_header(const principles::Equations& equations,
                                const CodegenOptions& options = {});

/// The same functions as C99 in one header: `enum { NS_dof = n }`, `typedef struct
/// NS_parameters`, `NS_inputs`, `NS_default_parameters()`, `NS_default_inputs()` and
/// `static inline` functions `NS_mass_matrix(t, q, qd, &p, &in, M)` ... where NS is the
/// namespace with `::` written `_`; forward_dynamics returns int (1: solved) and takes Q (may
/// be NULL). Throws as generate_cpp_header().
std::string generate_c_header(const principles::Equations& equations,
                              const CodegenOptions& options = {});

/// generate_cpp_header() or generate_c_header() by options.language. `method`, when not null,
/// receives which method wrote which functions, on one line, as the header's "Method:" comment
/// says it (what `appell codegen` reports): where the recursions cover the model they write every
/// function and the equations only check them at two states, "the recursions, checked against
/// the gibbs-appell equations", with options.coriolis_matrix "...; coriolis_matrix from those
/// equations"; elsewhere every function comes from the equations, "gibbs-appell".
std::string generate_code(const principles::Equations& equations, const CodegenOptions& options,
                          std::string* method = nullptr);

/// Why the recursions cannot write `model`'s code: what principles::recursions_do_not_cover()
/// says, or "constraints in generalized speeds" (the constraints' rows are written in q̈ only);
/// empty when they can, constraints included (their rows are written beside M and f), and
/// generalized speeds too (the code is then written in the speeds: generate_code(model, ...)).
std::string recursions_do_not_write(const model::Model& model);

/// The same functions straight from a model the recursions write (recursions_do_not_write()
/// empty), without forming its equations: time and
/// memory about linear in the bodies (the mass matrix's composite inertias aside). The header
/// says "Method: the recursions (no equations formed)". Throws std::invalid_argument for a model
/// the recursions do not cover, and as generate_code() otherwise.
///
/// A model with generalized speeds u (q̇ = W(q, t) u: declared speeds, quaternion frames, a URDF
/// floating base; MODEL_FORMAT.md "Speeds") is written in them, as num::Dynamics computes it: the
/// rate arguments are the p speeds (named u, their accelerations udot), M is p×p (M̃ of
/// M̃ u̇ = f̃), f, nonlinear_effects, gravity and the Q of inverse_dynamics and forward_dynamics
/// have p entries, forward_dynamics gives u̇; `dof` stays n (q's entries) and `speed_count` = p
/// (C: NS_speed_count) is declared beside it, with two more functions:
///   coordinate_velocities(t, q, u, p, in, qd): the kinematic equations q̇ = W(q, t) u (n);
///   coordinate_accelerations(t, q, u, udot, p, in, qdd): q̈ = W u̇ + γ(q, u, t) (n).
/// The header's comment says so and lists the speeds. Derivatives and the regressor are written
/// in q̇ and q̈ only: with speeds, options.derivatives or options.regressor throws
/// std::invalid_argument naming generalized speeds.
std::string generate_code(const model::Model& model, const CodegenOptions& options);

}  // namespace appell::codegen
