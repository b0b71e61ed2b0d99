// SIGINT and SIGTERM as a request to stop, not a kill: long computations (integration loops, the
// JIT's compiler, the finite-element response) poll interruption_signal() between steps, end
// what they write with complete rows and a mark, and throw Interrupted; the command line then
// exits 128 + the signal (130, 143). A second signal of either kind ends the process at once
// (the default action), so that a stuck computation can still be stopped.
#pragma once

#include <stdexcept>
#include <string>

namespace appell::num {

/// Installs the handlers of SIGINT and SIGTERM that record the signal (async-signal-safe: they
/// only store it). Called by the command line; a library user who wants the same calls it once.
/// Programs that never call it are never interrupted by appell (interruption_signal() stays 0).
void install_interruption_handlers();

/// The signal received since the handlers were installed (SIGINT or SIGTERM), else 0.
int interruption_signal() noexcept;

/// Records `signal` as if it had been received (tests, and embedders with their own handlers).
void request_interruption(int signal) noexcept;

/// Forgets a recorded signal (tests; an embedder that handled it).
void clear_interruption() noexcept;

/// A computation stopped because of a signal; what() says where ("interrupted at t = 0.25").
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& what) : std::runtime_error(what), signal_(signal) {}
  /// SIGINT or SIGTERM: the command line exits with 128 + signal().
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

/// Throws Interrupted(signal, what) when a signal was recorded; otherwise does nothing.
void throw_if_interrupted(const std::string& what);

/// "interrupted at t = T": the mark of an output a signal cut short, T the time of its last whole
/// row in the shortest form that reads back as the same double (so a reader can match it to the
/// row's 17 digits exactly).
std::string interrupted_at(double t);

/// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

}  // namespace appell::num
