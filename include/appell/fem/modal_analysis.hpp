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
  int modes = 6;
  bool stiffening = true;  // geometric stiffening from the centrifugal pre-stress
};

struct ModalResult {
  /// Ascending; a negative value is an unstable mode (λ < 0), reported as −√|λ|/(2π).
  std::vector<double> frequencies_hz;
  Eigen::MatrixXd shapes;  // all dofs × modes, mass-normalised
  bool stiffened = false;
  std::string note;  // why stiffening was not applied, when it was asked for
  double seconds = 0.0;
};

/// Throws model::ComputationError when the eigensolver does not converge.
ModalResult modal_analysis(const FlexibleBodyInstance& body, const FrameState& frame,
                           const ModalOptions& options);

}  // namespace appell::fem
