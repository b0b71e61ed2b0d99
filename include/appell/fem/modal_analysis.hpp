// Natural frequencies and mode shapes of a flexible body about the rigid state of its floating
// frame at one instant: the generalized symmetric eigenproblem (k + k(ω) + k_G) φ = λ m φ on the
// free dofs, with the sparse matrices (Spectra's shift-invert Lanczos over a CHOLMOD
// factorization; dense for tiny problems).
//
// What is left out, and why: the gyroscopic c and k(ε) are skew-symmetric, so they have no place
// in a symmetric eigenproblem; for a steadily spinning frame ε = 0 and c only couples modes
// (it splits forward and backward whirl), which the frequencies reported here do not include.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"

namespace appell::fem {

struct ModalOptions {
  int modes = 6;           // how many of the lowest modes (at least 1, at most the free dofs)
  bool stiffening = true;  // geometric stiffening from the centrifugal pre-stress
};

struct ModalResult {
  /// Ascending; a negative value is an unstable mode (λ < 0), reported as −√|λ|/(2π).
  std::vector<double> frequencies_hz;
  Eigen::MatrixXd shapes;  // all dofs × modes, mass-normalised, 0 on fixed dofs
  bool stiffened = false;  // k_G was included (asked for, the frame loaded, the body supported)
  std::string note;        // why stiffening was not applied, when it was asked for
  double seconds = 0.0;
};

/// The lowest options.modes natural frequencies and mode shapes of `body` about `frame` (the file
/// comment's eigenproblem on the free dofs; dense up to 600 free dofs). Stiffening applies only
/// when the frame turns or accelerates and the body has supports. Throws
/// model::ComputationError when the eigensolver does not converge or fails (the mass matrix not
/// positive definite on the free dofs, k + k(ω) indefinite far below zero) or the pre-stress
/// cannot be formed (CentrifugalPrestress).
ModalResult modal_analysis(const FlexibleBodyInstance& body, const FrameState& frame,
                           const ModalOptions& options);

}  // namespace appell::fem
