// The cases of a sweep spread over MPI ranks (OpenMPI's mpirun, srun under Slurm): rank 0 hands
// out case indices one at a time as ranks ask for them (dynamic balancing: cases differ in cost),
// runs cases on its own threads too, and receives every result, which it alone passes on (to
// the results file). Each rank runs its cases on `jobs` threads. Results depend on the case
// alone, so the file is the same whatever the number of ranks.
//
// Built into its own library (appell_mpi), linked by the command line only: libappell and the
// Python module stay free of MPI. MPI is started only when the process was launched with
// ranks (launched_with_ranks()); a plain `appell sweep` never touches it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "appell/sweep/case_result.hpp"
#include "appell/sweep/sweep_runner.hpp"

namespace appell::sweep::mpi {

/// Whether an MPI launcher started this process among several ranks (OpenMPI's
/// OMPI_COMM_WORLD_SIZE, or PMI_SIZE / SLURM_NTASKS under srun, above 1).
bool launched_with_ranks();

/// MPI started (MPI_Init_thread, serialized threads) for the life of the object, finalized after.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank 0's `code` to every rank (0: go on), so that all stop when rank 0 cannot go on (its
  /// output file exists, ...). Collective.
  int broadcast(int code) const;
  /// Every rank's end: MPI_Abort with `code` (a failure that leaves other ranks waiting).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

/// Runs the cases `indices` over every rank, each with `jobs` threads. On rank 0, `on_result`
/// receives every result (from any rank), one call at a time; on other ranks it is never called.
/// Collective: every rank calls it with the same runner and indices. Stops handing out cases
/// once a signal was recorded (num::interruption_signal()) on rank 0; a rank that received one
/// stops asking. What on_result throws ends the distribution (the other ranks are told there is
/// nothing more) and is rethrown on rank 0.
void run_cases(const Session& session, const SweepRunner& runner,
               const std::vector<std::size_t>& indices, std::size_t jobs,
               const std::function<void(CaseResult&&)>& on_result);

/// A result as bytes and back (what a rank sends to rank 0).
std::vector<char> pack(const CaseResult& result);
CaseResult unpack(const std::vector<char>& bytes);

}  // namespace appell::sweep::mpi
