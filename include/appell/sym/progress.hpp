// What a long computation is doing now, for whoever shows it.
//
// A step names itself for as long as it lives (a ProgressStep on the stack of the thread that runs
// it) and counts what it has done of a known total; steps nest. The library never prints: a caller
// that wants to show progress (the command line on a terminal, a GUI) reads current_progress()
// from the check it installed with a sym::CancellationScope, which the library's long loops poll,
// on the same thread:
//
//   sym::CancellationScope scope([&] { status_line(sym::current_progress()); return false; });
//   auto eq = principles::derive(model, principles::Method::Lagrange);
//   // "forming the equations by lagrange"
//
// Like the cancellation scope, steps belong to their thread: nothing is shared between threads.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace appell::sym {

class ProgressStep {
 public:
  /// This thread is in step `what` (lower case, no final period) until the object dies;
  /// `total` > 0 when the step counts its parts (then "what (done/total)" is shown).
  explicit ProgressStep(std::string what, std::size_t total = 0);
  ~ProgressStep();
  ProgressStep(const ProgressStep&) = delete;
  ProgressStep& operator=(const ProgressStep&) = delete;
  /// `count` more parts of the total done.
  void advance(std::size_t count = 1) { done_ += count; }

 private:
  friend std::string current_progress();
  std::string what_;
  std::size_t total_, done_ = 0;
  ProgressStep* outer_;
};

/// Told, on this thread and while it lives, when the thread leaves its last step: where a status
/// line drawn from current_progress() is erased before the command prints what it computed.
class ProgressListener {
 public:
  explicit ProgressListener(std::function<void()> when_idle);
  ~ProgressListener();
  ProgressListener(const ProgressListener&) = delete;
  ProgressListener& operator=(const ProgressListener&) = delete;

 private:
  friend class ProgressStep;
  std::function<void()> when_idle_;
  ProgressListener* previous_;
};

/// The steps this thread is in, outermost first, joined by ": ", e.g. "verifying by nielsen:
/// simplifying the equations (12/30)"; empty outside every step.
std::string current_progress();

}  // namespace appell::sym
