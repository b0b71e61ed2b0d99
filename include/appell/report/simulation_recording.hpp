// What a report keeps of a simulation: a bounded number of the rows num::simulate delivers,
// evenly spaced over the run, and how the run ended.
//
// Rows are kept as they arrive: every k-th row, k doubling (and every other kept row dropped)
// whenever `capacity` rows are held, so a run of 10⁵ or 10⁷ rows keeps between capacity/2 and
// capacity of them, evenly spaced, with the first and the last row always there. The decimation
// depends only on the row count, so the same run keeps the same rows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "appell/numeric/simulate.hpp"

namespace appell::report {

/// One kept row: the state, the energies and the multipliers (coordinate and constraint order).
struct RecordedRow {
  double t = 0.0;
  std::vector<double> q, qd;
  double kinetic = 0.0, potential = 0.0, total = 0.0;
  std::vector<double> lambda;
  std::vector<double> u;  // the generalized speeds (a model with speeds), empty otherwise
};

class SimulationRecording {
 public:
  /// Keeps at most `capacity` rows (at least 2).
  explicit SimulationRecording(num::SimulationOptions options, std::size_t capacity = 2000);

  /// A row as num::simulate delivers it (a RowCallback may forward to this).
  void add(const num::SimulationRow& row);
  /// A row of equations in speeds: the same, with the speeds u (SimulationRow::v).
  void add(const num::SimulationRow& row, const Eigen::VectorXd& u);
  /// The run reached t_end: its statistics.
  void finish(const num::SimulationResult& result);
  /// The run stopped early: the reason and the statistics up to there.
  void fail(const num::SimulationError& error);
  /// The run could not start (a ComputationError before the first row, e.g. initial coordinates
  /// that cannot be brought onto the constraints).
  void fail(const std::string& reason);

  /// The kept rows in time order (the last row delivered always among them).
  std::vector<RecordedRow> rows() const;
  /// Rows delivered by the simulation in all.
  std::size_t rows_delivered() const { return delivered_; }
  const num::SimulationOptions& options() const { return options_; }
  /// The statistics, once finish() or fail(error) was called.
  const std::optional<num::SimulationResult>& result() const { return result_; }
  /// finish() was called.
  bool complete() const { return complete_; }
  /// Why the run stopped early or never started; empty when complete or still running.
  const std::string& failure() const { return failure_; }

 private:
  num::SimulationOptions options_;
  std::size_t capacity_;
  std::size_t stride_ = 1;
  std::size_t delivered_ = 0;
  std::vector<std::pair<std::size_t, RecordedRow>> kept_;  // (row index, row)
  std::optional<std::pair<std::size_t, RecordedRow>> last_;
  std::optional<num::SimulationResult> result_;
  bool complete_ = false;
  std::string failure_;
};

}  // namespace appell::report
