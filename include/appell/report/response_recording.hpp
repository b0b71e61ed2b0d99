// What a report keeps of a flexible body's elastic response (fem::elastic_response): for the
// plots, the translations of a few chosen nodes and the largest displacement over the mesh at up
// to `max_rows` steps; for the animation, the translations of the surface nodes
// (report/mesh_surface.hpp) at a number of frames bounded so that the page stays small
// (`max_values` numbers in all, at most `max_frames` frames).
//
// Both are thinned as the steps arrive, as SimulationRecording thins a simulation's rows: every
// k-th step kept, k doubling whenever the capacity is reached, the first and the last step always
// among them, so the same run keeps the same steps.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/response.hpp"
#include "appell/report/mesh_surface.hpp"

namespace appell::report {

/// One kept step for the plots: the chosen nodes' (ux, uy, uz), 3 per node in the order given,
/// and max |u| over every node of the mesh (m).
struct ResponseRow {
  double t = 0.0;
  std::vector<double> u;
  double max_displacement = 0.0;
};

/// One kept step for the animation: the surface nodes' (ux, uy, uz), 3 per node of
/// MeshSurface::nodes.
struct ResponseFrame {
  double t = 0.0;
  std::vector<double> u;
};

class ResponseRecording {
 public:
  /// `nodes` are the plotted nodes (indices into body.mesh.nodes, as fem::response_nodes gives).
  ResponseRecording(const fem::FlexibleBodyInstance& body, std::vector<int> nodes,
                    fem::ResponseOptions options, std::size_t max_rows = 2000,
                    std::size_t max_values = 300000, std::size_t max_frames = 200);

  /// A step as fem::elastic_response delivers it.
  void add(const fem::ResponseStep& step);
  /// The response reached t_end.
  void finish(const fem::ResponseResult& result);
  /// The response stopped early or never started (the rigid motion failed): why.
  void fail(const std::string& reason);

  const MeshSurface& surface() const { return surface_; }
  const std::vector<int>& nodes() const { return nodes_; }
  const fem::ResponseOptions& options() const { return options_; }
  std::vector<ResponseRow> rows() const;
  std::vector<ResponseFrame> frames() const;
  /// The most animation frames kept (from max_values and the surface's node count).
  std::size_t frame_capacity() const { return frame_capacity_; }
  std::size_t steps_delivered() const { return delivered_; }
  const std::optional<fem::ResponseResult>& result() const { return result_; }
  bool complete() const { return complete_; }
  const std::string& failure() const { return failure_; }

 private:
  template <class T>
  struct Thinned {
    std::size_t capacity = 2, stride = 1;
    std::vector<std::pair<std::size_t, T>> kept;
    std::optional<std::pair<std::size_t, T>> last;
  };
  template <class T>
  static void keep(Thinned<T>& thinned, std::size_t index, T value);
  template <class T>
  static std::vector<T> kept(const Thinned<T>& thinned);

  fem::ResponseOptions options_;
  const fem::Mesh* mesh_;
  MeshSurface surface_;
  std::vector<int> nodes_;
  std::size_t frame_capacity_ = 2;
  Thinned<ResponseRow> rows_;
  Thinned<ResponseFrame> frames_;
  std::size_t delivered_ = 0;
  std::optional<fem::ResponseResult> result_;
  bool complete_ = false;
  std::string failure_;
};

}  // namespace appell::report
