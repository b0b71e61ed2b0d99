// What one case of a sweep gave: its status and statistics, its motion on the sweep's common
// output grid (t_k = k·H up to t_end, and t_end), its final state and the extrema over the rows.
// The sweep runner fills it; the results file (results_file.hpp) stores what `--save` keeps.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace appell::sweep {

struct CaseResult {
  std::size_t index = 0;  // the case's row in the CaseTable
  /// "ok", or "failed: REASON" (integrator failure, singular M, a constraint that cannot be met,
  /// a bad value of this case).
  std::string status;
  long steps = 0;          // integrator steps
  double wall_time = 0.0;  // s, this case alone (set-up shared by all cases excluded)
  double t_reached = 0.0;  // time of the last row
  double energy_drift = std::numeric_limits<double>::quiet_NaN();  // max |E − E(0)|

  /// The rows reached, on the common grid: row k at the sweep's k-th output time. A failed
  /// case has fewer rows than the grid (the file keeps NaN after them).
  std::size_t rows = 0;
  std::size_t dof = 0;     // n: entries of q and q̇ per row
  std::size_t speeds = 0;  // entries of u per row (0 for a model without generalized speeds)
  /// Only with the series kept: row-major [row][n] (u: [row][speeds]), and one value per row.
  std::vector<double> q, qd, u;
  std::vector<double> kinetic, potential, total;

  /// The last row (final state), and the smallest and largest value of each quantity over the
  /// rows: always filled when rows > 0. Vectors of n (or speeds) entries.
  std::vector<double> final_q, final_qd, final_u;
  double final_kinetic = 0.0, final_potential = 0.0, final_total = 0.0;
  std::vector<double> min_q, max_q, min_qd, max_qd, min_u, max_u;
  double min_kinetic = 0.0, max_kinetic = 0.0, min_potential = 0.0, max_potential = 0.0,
         min_total = 0.0, max_total = 0.0;
};

}  // namespace appell::sweep
