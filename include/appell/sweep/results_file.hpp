// The results file of a sweep: one HDF5 file (serial HDF5; with MPI rank 0 gathers and writes)
// that h5py and pandas read directly. Its layout is documented in docs/sweep.md ("The results
// file"); in short:
//
//   (user block)      appell's seal: checksums of the bytes that never change after creation
//   /                 attributes: format "appell-sweep", format_version 2, model_name, model_hash,
//                     appell_version, command_line, t_end, output_step, rtol, atol, integrator,
//                     save, coordinates, speeds, common_values
//   /cases/<column>   [case] float64, an input column [case] UTF-8 strings; attribute `columns`
//   /status           [case] "ok", "failed: REASON" or "not run" (UTF-8, at most 256 bytes)
//   /checksum         [case] uint64: FNV-1a of the case's status and data (wall_time aside)
//   /steps            [case] int64;  /wall_time, /t_reached, /energy_drift  [case] float64
//   /t                [time] float64, the common output grid
//   /series/{q,qd}/<coordinate>, /series/u/<speed>, /series/{T,V,E}     [case, time]  (series)
//   /final/...        [case]  (final and summary);  /min/..., /max/...  [case]  (summary)
//
// Every dataset is allocated and filled ("not run", NaN, 0 steps) when the file is created, and a
// case's write only replaces bytes of its own rows: the file's structure never changes after
// creation, so that a process killed at any moment leaves a file that opens, with every case
// written before it intact. Its contents depend only on the results written, never on the order
// of the writes (no time stamps; wall_time and the command_line attribute are all that differ
// between two runs of one sweep).
//
// A file is untrusted input when it is read again (--resume, sweep-merge): HDF5 1.10 reads a
// damaged file's metadata out of bounds (a crash, not an error), and a hand-edited status would
// skip a case. So the bytes that never change after creation (HDF5's metadata, the cases table,
// /t) are checksummed in the user block and checked before HDF5 reads anything, and each case's
// status and data are checksummed when written and checked when read; a mismatch is bad input
// naming the file (and the case).
//
// Not for concurrent use: one thread (rank 0) owns a ResultsFile.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "appell/sweep/case_result.hpp"
#include "appell/sweep/case_table.hpp"
#include "appell/sweep/sweep_settings.hpp"

namespace appell::sweep {

/// The status of a case that was never written.
inline constexpr const char* kNotRun = "not run";
/// The longest status kept, in bytes (UTF-8): a longer reason is cut at a whole character and
/// ends with "...". Fixed so that rewriting a status never changes the file's structure.
inline constexpr std::size_t kStatusBytes = 256;

/// What a merged file holds: how many cases are "ok", failed, and "not run" in every shard.
struct MergeSummary {
  std::size_t ok = 0, failed = 0, not_run = 0;
};

class ResultsFile {
 public:
  /// A new results file at `path` for `cases` of the sweep `settings`: metadata, the cases table,
  /// /t, and every per-case dataset, each case "not run" with NaN values. The file appears at
  /// `path` complete (written aside, then linked there), never half-made.
  /// Throws model::ModelError at "out" when `path` exists ("exists: --resume completes it, or
  /// remove it", naming the path) or cannot be created; model::ComputationError naming the path
  /// when writing fails.
  static ResultsFile create(const std::string& path, const SweepSettings& settings,
                            const CaseTable& cases);

  /// The existing results file at `path`, opened to be completed: it must hold the same sweep
  /// (format and version, model_hash, t_end, output_step, rtol, atol, integrator, save,
  /// coordinates, speeds, common_values, the cases table's columns and every cell), else
  /// model::ModelError at "resume" naming the first field that differs and both values. A
  /// missing file, one that is not HDF5, not a sweep's results, damaged or edited (its seal or a
  /// case's checksum does not match, truncated, a dataset of another type or shape) or written
  /// before checksums (format_version 1) is a model::ModelError at "resume" naming the file too.
  static ResultsFile resume(const std::string& path, const SweepSettings& settings,
                            const CaseTable& cases);

  ResultsFile(ResultsFile&&) noexcept;
  ResultsFile& operator=(ResultsFile&&) noexcept;
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;
  /// Closes the file if close() was not called, never throwing.
  ~ResultsFile();

  const std::string& path() const;
  /// The number of cases.
  std::size_t size() const;
  /// Each case's status as the file holds it: "ok", "failed: REASON" or "not run".
  const std::vector<std::string>& statuses() const;

  /// Writes one case: its row of every dataset at result.index (what --save keeps; NaN after
  /// the rows reached; NaN for the final state and extrema of a case without rows), its status
  /// last, then the file is flushed. A case written again replaces what it had (its status is
  /// reset to "not run" first, so that a kill mid-way never pairs a status with other data).
  /// Throws std::invalid_argument for a result that does not fit the sweep (index out of range,
  /// an empty status, sizes that are not the model's), model::ComputationError naming the path
  /// when the write fails.
  void write(const CaseResult& result);

  /// Closes the file (later calls do nothing); model::ComputationError naming the path when
  /// what was written cannot be flushed.
  void close();

 private:
  struct Impl;
  explicit ResultsFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend MergeSummary merge_results(const std::vector<std::string>& shards, const std::string& out);
  friend MergeSummary check_results_file(const std::string& path);
};

/// Joins the shard files of one sweep (`appell sweep --shard I/N`: each holds the whole cases
/// table, "not run" outside its slice) into a new file `out`: each case from the first shard
/// where it is not "not run"; a case run in two shards must agree in everything but its wall
/// time. Throws model::ModelError located at the offending file: `out` exists, a shard is
/// missing, not a results file, or of another sweep than the first (naming the field and both
/// values), a case's results differ between two shards (naming the case and both files);
/// model::ComputationError naming the path when reading or writing fails. A shard is checked
/// as ResultsFile::resume checks its file (a damaged or edited shard is a ModelError at it).
/// Nothing is left at `out` when it fails.
MergeSummary merge_results(const std::vector<std::string>& shards, const std::string& out);

/// Reads the results file at `path` and checks it as `--resume` and `sweep-merge` do before they
/// trust it: its seal (the checksum of every byte that never changes after creation, checked
/// before HDF5 reads the file), its structure (each attribute's and dataset's type and shape),
/// the sweep it holds, and the checksum of every case that is not "not run". Returns how many
/// cases are "ok", failed and "not run". Throws model::ModelError located at `path` when the
/// file is missing, not a results file or damaged; model::ComputationError when the system
/// cannot read it.
MergeSummary check_results_file(const std::string& path);

}  // namespace appell::sweep
