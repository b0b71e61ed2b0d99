// CSV writers of the numeric results: the simulation's rows (num::simulate), the driving forces
// of inverse dynamics (num::InverseDynamics) and the elastic response of a flexible body
// (fem::elastic_response).
//
// Numbers are written with 17 significant digits (max_digits10 of double), so that reading a
// file back gives the same doubles. A file whose rows stop early ends with one comment line
// `# incomplete: REASON`, so that whatever reads it never mistakes the rows so far for the whole
// motion.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/response.hpp"
#include "appell/io/output_file.hpp"
#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/simulate.hpp"

namespace appell::io {

// ----- the simulation -------------------------------------------------------------------------

/// The header of a simulation CSV, in the order of num::SimulationRow: for coordinates q1, q2
/// and a constraint c1,
///   t,q1,q2,dot(q1),dot(q2),T,V,E,lambda_c1
/// (T kinetic, V potential, E = T + V; one lambda_<name> per constraint, in the model's order).
/// A model with generalized speeds (Model::has_speeds()) has the speeds' names in place of the
/// dot(q) columns: t,<q..>,<speeds..>,T,V,E.
std::string simulation_csv_header(const model::Model& model);

/// One row, t, q, q̇, T, V, E, λ, comma-separated, 17 significant digits, ending in '\n'.
void write_simulation_csv_row(std::ostream& out, const num::SimulationRow& row);
/// The same with `speeds` (a model with generalized speeds: SimulationRow::v) in place of q̇:
/// t, q, u, T, V, E.
void write_simulation_csv_row(std::ostream& out, const num::SimulationRow& row,
                              const Eigen::VectorXd& speeds);

/// The comment line `# incomplete: REASON` ending a file whose rows stop early; line breaks in
/// `reason` become spaces so that it stays one line.
void write_incomplete_mark(std::ostream& out, std::string reason);

/// Columns a simulation CSV adds after its own: their names, and what gives their values at a
/// row (as many as names, in their order, 17 significant digits).
struct ExtraColumns {
  std::vector<std::string> names;
  std::function<void(const num::SimulationRow&, std::vector<double>&)> values;
};

/// p_x,p_y,p_z,L_x,L_y,L_z: the linear momentum and the angular momentum about the world origin
/// (num::CompiledMomenta) at each row's t, q, q̇.
ExtraColumns momentum_columns(std::shared_ptr<const num::CompiledMomenta> momenta);
/// F_<frame>_x,F_<frame>_y,F_<frame>_z,M_<frame>_x,M_<frame>_y,M_<frame>_z for each frame in
/// the order of num::CompiledReactions::frames(): the force and moment the frame's parent exerts
/// on it and everything below it, at its origin, world axes, at each row's t, q, q̇, q̈.
ExtraColumns reaction_columns(std::shared_ptr<const num::CompiledReactions> reactions);

/// A simulation CSV file written row by row (a num::RowCallback can forward to row()).
///
/// The file is created (truncated) only when the first row or the incomplete mark arrives, so
/// that options num::simulate rejects before integrating leave no file behind. Opening fails with
/// model::ModelError located at the path ("cannot write the file"); a row or close() throws
/// model::ComputationError ("could not write PATH") once a write failed (a full disk stops the
/// run at the row the file refused, not at its end: OutputFile).
class SimulationCsvFile {
 public:
  SimulationCsvFile(std::string path, const model::Model& model);
  /// The same with `extra` columns after the simulation's own (in the order given).
  SimulationCsvFile(std::string path, const model::Model& model, std::vector<ExtraColumns> extra);

  /// The header (first time only), then the row.
  void row(const num::SimulationRow& row);
  /// The same for a model with generalized speeds: `speeds` in place of q̇ (the extra columns
  /// still see the row's q̇).
  void row(const num::SimulationRow& row, const Eigen::VectorXd& speeds);
  /// The header if no row came, then `# incomplete: REASON`, flushed (every row before it is
  /// whole: rows are written one at a time and the stream is flushed here).
  void mark_incomplete(const std::string& reason);
  /// Closes the file if it was opened.
  void close();

  const std::string& path() const { return path_; }
  std::size_t rows() const { return rows_; }

 private:
  void open();
  void write(const num::SimulationRow& row, const Eigen::VectorXd* speeds);

  std::string path_, header_;
  std::vector<ExtraColumns> extra_;
  std::vector<double> extra_values_;
  std::optional<OutputFile> file_;
  std::size_t rows_ = 0;
};

// ----- inverse dynamics -----------------------------------------------------------------------

/// The header of a driving-forces CSV: t,Q_<q1>,Q_<q2>,.. (coordinate order), or with
/// `in_speeds` (num::InverseDynamics::in_speeds()) t,Q_<u1>,.. (the model's speeds, in order).
std::string driving_forces_csv_header(const model::Model& model, bool in_speeds = false);

/// A driving-forces CSV stopped at a sample where the motion or the forces are not finite: the
/// rows before it were written, then `# incomplete: REASON`. what() is the reason.
class IncompleteCsvError : public model::ComputationError {
 public:
  IncompleteCsvError(const std::string& reason, std::size_t rows_written)
      : model::ComputationError(reason), rows_written_(rows_written) {}
  std::size_t rows_written() const { return rows_written_; }

 private:
  std::size_t rows_written_;
};

/// Writes the header, then for k = 0 .. count − 1 the row t, Q = M q̈ − f at `sample(k)`
/// (17 significant digits). When a sample's q, q̇, q̈ or its forces are not all finite, writes
/// `# incomplete: the motion or the driving forces are not finite at t = T` and throws
/// IncompleteCsvError with that reason and the rows written before it. When a signal was
/// recorded (num::interruption_signal(), polled after each row but the last), writes
/// `# incomplete: interrupted at t = T` with T the last row's time and throws num::Interrupted
/// with that text. Stops writing at the first row `out` refuses (a full disk: the caller's check
/// of the stream reports it). `model` is the model of `inverse`'s equations (its coordinate
/// names head the columns). Returns the rows written (`count` unless `out` failed).
std::size_t write_driving_forces_csv(
    std::ostream& out, const model::Model& model, const num::InverseDynamics& inverse,
    std::size_t count, const std::function<num::TrajectorySample(std::size_t)>& sample);

/// The same along a Trajectory at t_k = k·step, k = 0 .. count − 1 (k·step, not accumulated, so
/// that no rounding drifts).
std::size_t write_driving_forces_csv(std::ostream& out, const model::Model& model,
                                     const num::InverseDynamics& inverse,
                                     const num::Trajectory& trajectory, std::size_t count,
                                     double step);

/// The same at given samples (e.g. from num::read_trajectory_csv), in their order.
std::size_t write_driving_forces_csv(std::ostream& out, const model::Model& model,
                                     const num::InverseDynamics& inverse,
                                     const std::vector<num::TrajectorySample>& samples);

// ----- the elastic response of a flexible body -------------------------------------------------

/// The header of an elastic-response CSV (fem::elastic_response): t, then for each node n of
/// `nodes` (indices into body.mesh.nodes, e.g. from fem::response_nodes) its translational
/// displacements n<n>_ux,n<n>_uy (planar beams) or n<n>_ux,n<n>_uy,n<n>_uz (solids, 3-D beams).
/// Throws std::out_of_range for a node not in the mesh.
std::string response_csv_header(const fem::FlexibleBodyInstance& body,
                                const std::vector<int>& nodes);

/// One row: t and the displacements of the header's columns at `step` (10 significant digits),
/// ending in '\n'. `nodes` as given to response_csv_header.
void write_response_csv_row(std::ostream& out, const fem::FlexibleBodyInstance& body,
                            const std::vector<int>& nodes, const fem::ResponseStep& step);

}  // namespace appell::io
