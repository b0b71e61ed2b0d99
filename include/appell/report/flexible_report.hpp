// The report of a flexible body (`appell fem MODEL --response --report FILE`): ONE
// self-contained HTML page, like the rigid report (html_writer.hpp) and made of the same parts,
// with the model, the body (mesh, material, supports), the equations of its elastic motion in the
// floating frame, its natural frequencies about the frame's state at t = 0, plots of the chosen
// nodes' displacements and of the largest displacement over time, and a three.js view of the mesh
// (a solid's outer surface, a beam's segments as tubes) deformed by u(t) times an amplification
// factor the reader changes, coloured by |u| with a colour bar, with play/pause, speed and a time
// slider that moves the plots' cursor.
//
// The mesh is drawn in the floating frame (the deformation is what the page shows) or, when the
// frame moves and the reader asks, placed by the frame's world pose at each frame (the body moving
// with its mechanism). The page carries the surface nodes' displacements only, at
// a bounded number of frames (ResponseRecording), quantized to 1/10000 of the largest component.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/fem/response.hpp"
#include "appell/model/model.hpp"
#include "appell/model/values.hpp"
#include "appell/report/response_recording.hpp"

namespace appell::report {

struct FlexibleReport {
  std::shared_ptr<const model::Model> model;
  model::Values values;
  std::shared_ptr<const fem::FlexibleBodyInstance> body;
  /// The natural frequencies about the frame's state at t = 0, when asked for and computed.
  std::optional<fem::ModalResult> modes;
  /// The response as recorded (complete or not); none when it never started.
  std::optional<ResponseRecording> response;
  /// The floating frame's world pose (origin x, y, z and quaternion x, y, z, w) at each of the
  /// response's animation frames, when the motion was given to add_response: the page can draw
  /// the body moving with its frame. Empty otherwise, and for a frame that does not move.
  std::vector<std::array<double, 7>> frame_poses;
  /// "PART: REASON" for every part that failed; empty when the report is complete.
  std::vector<std::string> incomplete;

  bool complete() const { return incomplete.empty(); }
};

struct FlexibleReportOptions {
  std::size_t body = 0;  // index into Model::flexible
  fem::ResponseOptions response;
  /// The nodes plotted (indices into the mesh's nodes); empty: fem::farthest_node.
  std::vector<double> nodes;
  /// Natural frequencies listed (0: none).
  int modes = 6;
  std::size_t max_elements = fem::default_max_elements;
};

/// The report of a body with its response still to come: the frequencies (`modes` of them about
/// motion->at(0), when modes > 0 and the motion is known) are computed here, a failure recorded
/// in FlexibleReport::incomplete. `motion` is null when the rigid motion could not be computed;
/// `motion_failure` then says why (recorded as incomplete).
FlexibleReport describe_flexible_body(std::shared_ptr<const model::Model> model,
                                      const model::Values& values,
                                      std::shared_ptr<const fem::FlexibleBodyInstance> body,
                                      const fem::FrameMotion* motion, int modes, bool stiffening,
                                      const std::string& motion_failure = "");

/// Adds the response recorded; a response that did not complete is recorded as incomplete.
/// With `motion`, also the frame's world pose at each animation frame (report::MotionEvaluator
/// at motion->coordinates(t)); a pose that cannot be evaluated is recorded as incomplete.
void add_response(FlexibleReport& report, ResponseRecording recorded,
                  const fem::FrameMotion* motion = nullptr);

/// Everything in one call: builds the body (bad input throws model::ModelError, as
/// fem::build_flexible_body and fem::response_nodes do), its frame's rigid motion, frequencies
/// and response. A failed computation (the rigid motion, the eigensolver, a singular or diverging
/// step) is recorded in FlexibleReport::incomplete with what was computed before it.
FlexibleReport make_flexible_report(std::shared_ptr<const model::Model> model,
                                    const model::Values& values,
                                    const FlexibleReportOptions& options);

/// The page. The same report gives the same bytes.
std::string write_flexible_html(const FlexibleReport& report);

}  // namespace appell::report
