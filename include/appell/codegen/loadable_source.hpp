// The generated C code made loadable: the C99 header of generate_c_header() and, after it,
// entry points with fixed names and a fixed signature, so that a program can compile it into a
// shared object and call it without knowing the model's struct layouts (jit::compile_dynamics).
//
// Parameters and inputs cross as arrays of doubles in the order of the generated structs'
// members (GeneratedLayout); each entry point copies them into the structs. The entry points:
//
//   int  appell_jit_dof(void);                      (n, the coordinates: q's entries)
//   int  appell_jit_speed_count(void);              (p, the rates: the generalized speeds, or n
//                                                    without speeds)
//   const char* appell_jit_parameter_names(void);   (the members of p, then of in, in order:
//   const char* appell_jit_input_names(void);        decode_loadable_names() reads them)
//   void appell_jit_mass_matrix_and_forcing(double t, const double* q, const double* qd,
//                                           const double* p, const double* in,
//                                           double* M, double* f);
//   int  appell_jit_forward_dynamics(double t, const double* q, const double* qd,
//                                    const double* p, const double* in, double* qdd);
//        (1: solved; 0: M not positive definite or q̈ not finite)
//   void appell_jit_inverse_dynamics(double t, const double* q, const double* qd,
//                                    const double* qdd, const double* p, const double* in,
//                                    double* Q);
//
// For a model with generalized speeds (q̇ = W(q, t) u; no constraints) the rates of these are the
// speeds: qd is u (p entries), qdd is u̇ (p), M is p×p, f and Q have p entries (M̃ u̇ = f̃ of
// principles::speed_form, by the recursions in u), and the kinematic equations come besides:
//
//   void appell_jit_coordinate_velocities(double t, const double* q, const double* u,
//                                         const double* p, const double* in, double* qd);
//        (q̇ = W u, n entries)
//   void appell_jit_coordinate_accelerations(double t, const double* q, const double* u,
//                                            const double* udot, const double* p,
//                                            const double* in, double* qdd);
//        (q̈ = W u̇ + γ(q, u, t), n entries)
//
// and with constraints (m of them, h holonomic; generate_c_header's constraints() and
// constraint_manifold(); not in generalized speeds):
//
//   int  appell_jit_constraint_count(void);   (m)
//   int  appell_jit_holonomic_count(void);    (h)
//   void appell_jit_constraints(double t, const double* q, const double* qd, const double* p,
//                               const double* in, double* A, double* b);
//   void appell_jit_constraint_manifold(double t, const double* q, const double* qd,
//                                       const double* p, const double* in, double* out);
//        (out: φ, Φ_q, the velocity-level residuals and their q̇-coefficients, one after the
//        other: principles::ConstraintLevels::outputs(), what num::ConstraintEvaluation writes)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/equations.hpp"

namespace appell::codegen {

/// The names of the entry points (what loadable_c_source() defines).
inline constexpr const char* kLoadableDof = "appell_jit_dof";
inline constexpr const char* kLoadableSpeedCount = "appell_jit_speed_count";
inline constexpr const char* kLoadableCoordinateVelocities = "appell_jit_coordinate_velocities";
inline constexpr const char* kLoadableCoordinateAccelerations =
    "appell_jit_coordinate_accelerations";
inline constexpr const char* kLoadableParameterNames = "appell_jit_parameter_names";
inline constexpr const char* kLoadableInputNames = "appell_jit_input_names";
inline constexpr const char* kLoadableMassMatrixAndForcing = "appell_jit_mass_matrix_and_forcing";
inline constexpr const char* kLoadableForwardDynamics = "appell_jit_forward_dynamics";
inline constexpr const char* kLoadableInverseDynamics = "appell_jit_inverse_dynamics";
inline constexpr const char* kLoadableConstraintCount = "appell_jit_constraint_count";
inline constexpr const char* kLoadableHolonomicCount = "appell_jit_holonomic_count";
inline constexpr const char* kLoadableConstraints = "appell_jit_constraints";
inline constexpr const char* kLoadableConstraintManifold = "appell_jit_constraint_manifold";

/// A loadable C unit and what the caller passes to it.
struct LoadableSource {
  std::string code;             // C99: the header, then the entry points
  std::size_t dof = 0;          // n, the coordinates
  std::size_t speed_count = 0;  // p, the rates: the generalized speeds (in_speeds), or n
  /// In generalized speeds: the rates are u, and the kinematic equations' entry points are
  /// defined.
  bool in_speeds = false;
  std::size_t constraint_count = 0;  // with constraints: their entry points are defined
  /// True when the functions are the recursions (Newton–Euler, composite rigid bodies,
  /// articulated bodies or Lᵀ D L); false when written from the tape of M and f (relative motion
  /// in a carrier frame, Gibbs–Appell of higher order), fallback_reason says why.
  bool recursive = false;
  std::string fallback_reason;
  /// The values bound, in the order of the p and in arrays, and the members they fill (the
  /// model's spellings: "m", "u", "dot(u)"), for bind_loadable_values().
  std::vector<double> parameters, inputs;
  std::vector<std::string> parameter_names, input_names;
};

/// The generated C of `equations` with `values` bound, made loadable (deterministic: the same
/// equations and values give the same text). Throws as generate_c_header().
LoadableSource loadable_c_source(const principles::Equations& equations,
                                 const model::Values& values = {});
/// The same straight from a model the recursions cover (generate_code(model, ...)): no
/// equations formed; in a model's generalized speeds when it has them. Throws
/// std::invalid_argument for a model they do not cover (codegen::recursions_do_not_write).
LoadableSource loadable_c_source(const model::Model& model, const model::Values& values = {});

/// The names that appell_jit_parameter_names() or appell_jit_input_names() return: each name's
/// bytes in hex, names separated by blanks (so that no name is ever C text). Throws
/// std::invalid_argument for text that is not that.
std::vector<std::string> decode_loadable_names(const std::string& text);

/// The p and in arrays of `source` (made for `model`) filled anew from `values` without
/// generating code: the same compiled library with other numbers (a sweep's case). `values` must
/// drive the same functions by the same expressions as the values the source was made with (the
/// code holds those). Throws model::ModelError for bad values (model::bind).
void bind_loadable_values(const model::Model& model, const model::Values& values,
                          LoadableSource& source);

}  // namespace appell::codegen
