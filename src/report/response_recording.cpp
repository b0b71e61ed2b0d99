#include "appell/report/response_recording.hpp"

#include <algorithm>
#include <cmath>

namespace appell::report {

template <class T>
void ResponseRecording::keep(Thinned<T>& thinned, std::size_t index, T value) {
  if (index % thinned.stride == 0) {
    thinned.kept.emplace_back(index, value);
    if (thinned.kept.size() >= thinned.capacity) {
      thinned.stride *= 2;
      std::erase_if(thinned.kept,
                    [&](const auto& entry) { return entry.first % thinned.stride != 0; });
    }
  }
  thinned.last.emplace(index, std::move(value));
}

template <class T>
std::vector<T> ResponseRecording::kept(const Thinned<T>& thinned) {
  std::vector<T> out;
  for (const auto& entry : thinned.kept) out.push_back(entry.second);
  if (thinned.last && (thinned.kept.empty() || thinned.kept.back().first != thinned.last->first))
    out.push_back(thinned.last->second);
  return out;
}

ResponseRecording::ResponseRecording(const fem::FlexibleBodyInstance& body, std::vector<int> nodes,
                                     fem::ResponseOptions options, std::size_t max_rows,
                                     std::size_t max_values, std::size_t max_frames)
    : options_(options),
      mesh_(&body.mesh),
      surface_(mesh_surface(body.mesh)),
      nodes_(std::move(nodes)) {
  // One place is kept for the last step, which is always shown.
  rows_.capacity = std::max<std::size_t>(2, max_rows) - 1;
  const std::size_t per_frame = std::max<std::size_t>(1, 3 * surface_.nodes.size());
  frame_capacity_ =
      std::clamp<std::size_t>(max_values / per_frame, 2, std::max<std::size_t>(2, max_frames));
  frames_.capacity = frame_capacity_ - 1;
}

void ResponseRecording::add(const fem::ResponseStep& step) {
  const fem::Mesh& mesh = *mesh_;
  ResponseRow row;
  row.t = step.t;
  for (int n : nodes_)
    for (double x : node_translation(mesh, step.u, n)) row.u.push_back(x);
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n) {
    const auto u = node_translation(mesh, step.u, int(n));
    row.max_displacement = std::max(row.max_displacement, std::hypot(u[0], u[1], u[2]));
  }
  keep(rows_, delivered_, std::move(row));
  ResponseFrame frame;
  frame.t = step.t;
  frame.u.reserve(3 * surface_.nodes.size());
  for (int n : surface_.nodes)
    for (double x : node_translation(mesh, step.u, n)) frame.u.push_back(x);
  keep(frames_, delivered_, std::move(frame));
  ++delivered_;
}

void ResponseRecording::finish(const fem::ResponseResult& result) {
  result_ = result;
  complete_ = true;
  failure_.clear();
}

void ResponseRecording::fail(const std::string& reason) {
  complete_ = false;
  failure_ = reason;
}

std::vector<ResponseRow> ResponseRecording::rows() const { return kept(rows_); }
std::vector<ResponseFrame> ResponseRecording::frames() const { return kept(frames_); }

}  // namespace appell::report
