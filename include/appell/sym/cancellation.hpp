// Stopping a long computation from outside: a derivation, a simplification, a verification, a
// simulation.
//
// The caller installs a check for the computations its thread runs while a CancellationScope
// lives; long loops of the library (the differentiator's and the simplifier's node visits, the
// tape's compilation, simulate's right-hand side) call poll_cancellation(), which asks the check
// every `every`-th time and throws Cancelled when it answers true. The Python bindings use it for
// Ctrl-C (the check looks at Python's pending signals); a GUI can use it for a Stop button:
//
//   std::atomic<bool> stop{false};
//   sym::CancellationScope scope([&] { return stop.load(); });
//   auto eq = principles::derive(model, principles::Method::Lagrange);  // throws sym::Cancelled
//
// The scope belongs to the thread that made it (no state is shared between threads); without one,
// poll_cancellation() costs one thread-local read and never throws. What a cancelled call was
// forming is discarded; the model and every value made before stay valid.
#pragma once

#include <functional>
#include <stdexcept>

namespace appell::sym {

/// Answers true when the computation should stop. Called from the thread that installed it.
using CancelCheck = std::function<bool()>;

/// Thrown out of a computation whose CancelCheck answered true. what() is "cancelled".
class Cancelled : public std::runtime_error {
 public:
  Cancelled();
};

/// Installs `check` for this thread until the scope ends (then the previous scope, if any, is
/// back). `every` ≥ 1: how many polls per call of the check, so that a check that costs a
/// microsecond does not slow the loops that poll it down.
class CancellationScope {
 public:
  explicit CancellationScope(CancelCheck check, unsigned every = 64);
  ~CancellationScope();
  CancellationScope(const CancellationScope&) = delete;
  CancellationScope& operator=(const CancellationScope&) = delete;

 private:
  friend void poll_cancellation();
  CancelCheck check_;
  unsigned every_;
  unsigned count_ = 0;
  CancellationScope* previous_;
};

/// Called by long loops: asks the innermost CancellationScope's check every `every`-th time and
/// throws Cancelled when it answers true; nothing without a scope. What the check throws
/// propagates.
void poll_cancellation();

}  // namespace appell::sym
