#include "appell/report/simulation_recording.hpp"

#include <algorithm>
#include <utility>

namespace appell::report {

SimulationRecording::SimulationRecording(num::SimulationOptions options, std::size_t capacity)
    : options_(std::move(options)), capacity_(std::max<std::size_t>(capacity, 2)) {}

void SimulationRecording::add(const num::SimulationRow& row) { add(row, Eigen::VectorXd()); }

void SimulationRecording::add(const num::SimulationRow& row, const Eigen::VectorXd& u) {
  const std::size_t index = delivered_++;
  RecordedRow kept;
  kept.t = row.t;
  kept.q.assign(row.q.data(), row.q.data() + row.q.size());
  kept.qd.assign(row.qd.data(), row.qd.data() + row.qd.size());
  kept.kinetic = row.kinetic;
  kept.potential = row.potential;
  kept.total = row.total;
  kept.lambda.assign(row.lambda.data(), row.lambda.data() + row.lambda.size());
  kept.u.assign(u.data(), u.data() + u.size());
  if (index % stride_ == 0) {
    if (kept_.size() == capacity_) {
      // Keep the rows whose index is a multiple of the doubled stride: evenly spaced again.
      stride_ *= 2;
      std::erase_if(kept_, [&](const auto& entry) { return entry.first % stride_ != 0; });
    }
    if (index % stride_ == 0) kept_.emplace_back(index, kept);
  }
  last_.emplace(index, std::move(kept));
}

void SimulationRecording::finish(const num::SimulationResult& result) {
  result_ = result;
  complete_ = true;
  failure_.clear();
}

void SimulationRecording::fail(const num::SimulationError& error) {
  result_ = error.partial();
  complete_ = false;
  failure_ = error.what();
}

void SimulationRecording::fail(const std::string& reason) {
  complete_ = false;
  failure_ = reason;
}

std::vector<RecordedRow> SimulationRecording::rows() const {
  std::vector<RecordedRow> rows;
  rows.reserve(kept_.size() + 1);
  for (const auto& entry : kept_) rows.push_back(entry.second);
  if (last_ && (kept_.empty() || kept_.back().first != last_->first)) rows.push_back(last_->second);
  return rows;
}

}  // namespace appell::report
