// On a terminal, what a long step of the library is doing (sym::current_progress), with the
// time it has taken and the memory in use against the budget, on one line of stderr, redrawn a
// few times a second and erased when the step ends. Nothing is drawn for steps shorter than a
// second (APPELL_PROGRESS_AFTER=SECONDS sets another delay, 0 at once), nor when stderr is not a
// terminal (logs and pipes stay clean).
#pragma once

#include <chrono>
#include <optional>

#include "appell/sym/memory_budget.hpp"

namespace appell::cli {

/// The delay APPELL_PROGRESS_AFTER sets (seconds, ≥ 0), else one second. Throws
/// model::ModelError, exit 2, for a value that is not a number of seconds.
std::chrono::milliseconds progress_delay_from_environment();

/// The budget APPELL_MEMORY_BUDGET sets (sym::parse_memory_size), else the default (half the
/// physical memory). Throws model::ModelError, exit 2, for a value that is not a size.
sym::MemoryBudget memory_budget_from_environment();

class StatusLine {
 public:
  StatusLine(const sym::MemoryBudget& budget, std::chrono::milliseconds quiet);
  ~StatusLine() { erase(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;
  /// Called from the library's polls (the cancellation check): draws or redraws the line.
  void tick();
  /// Takes the line off the terminal (before anything else is printed).
  void erase();

 private:
  const sym::MemoryBudget& budget_;
  bool enabled_;
  std::chrono::milliseconds quiet_;  // how long a step runs before the line appears
  bool drawn_ = false;
  std::optional<std::chrono::steady_clock::time_point> busy_since_;
  std::chrono::steady_clock::time_point next_draw_{};
};

}  // namespace appell::cli
