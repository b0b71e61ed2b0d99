// The elastic response of a flexible body under the rigid motion of its floating frame:
// Newmark's average-acceleration method (β = 1/4, γ = 1/2: unconditionally stable, no numerical
// damping for linear systems) on the sparse equations of moving_frame.hpp. The effective matrix
// is refactorized (UMFPACK, symbolic analysis once) only when the frame's state changes; a frame
// at rest or spinning steadily factorizes once.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <vector>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"

namespace appell::fem {

struct ResponseOptions {
  double t_end = 1.0;
  double step = 1e-3;
  bool stiffening = true;
};

/// The state after each step (and at t = 0): displacement, velocity, acceleration, all dofs.
struct ResponseStep {
  double t = 0.0;
  const Eigen::VectorXd& u;
  const Eigen::VectorXd& v;
  const Eigen::VectorXd& a;
};

struct ResponseResult {
  long steps = 0;
  long factorizations = 0;
  bool stiffened = false;
  double seconds = 0.0;  // stepping only (assembly excluded)
};

/// The node farthest from the origin of the body's frame (the tip of a cantilever along x): the
/// first of those within 1e-12 of the largest distance |x|. Throws std::invalid_argument for a
/// mesh without nodes.
int farthest_node(const Mesh& mesh);

/// The nodes whose displacements a response reports: `listed` (indices into mesh.nodes, as
/// numbers read from text), or {farthest_node(mesh)} when `listed` is empty. Throws
/// model::ModelError located at {"nodes", 0, 0} ("node index out of range: the mesh has N
/// nodes"), naming the first entry that is not a whole number in [0, N).
std::vector<int> response_nodes(const Mesh& mesh, const std::vector<double>& listed);

/// Throws model::ComputationError when the effective matrix is singular. A signal
/// (num::interruption_signal(), polled before each step) throws num::Interrupted whose what() is
/// num::interrupted_at(the last step's t), after the steps so far were delivered.
ResponseResult elastic_response(const FlexibleBodyInstance& body, const FrameMotion& motion,
                                const ResponseOptions& options,
                                const std::function<void(const ResponseStep&)>& on_step);

}  // namespace appell::fem
