#include "appell/numeric/interruption.hpp"

#include <signal.h>

#include <charconv>
#include <csignal>

namespace appell::num {

namespace {

// Only a lock-free atomic of this kind may be written by a signal handler and read elsewhere.
volatile std::sig_atomic_t received_signal = 0;

extern "C" void record_signal(int signal) {
  if (received_signal != 0) {
    // The second signal: the user insists. The default action ends the process now.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  received_signal = signal;
}

}  // namespace

void install_interruption_handlers() {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking read or write returns EINTR, so a loop waiting on a pipe sees the
  // signal at once rather than at its next timeout.
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interruption_signal() noexcept { return static_cast<int>(received_signal); }

void request_interruption(int signal) noexcept { received_signal = signal; }

void clear_interruption() noexcept { received_signal = 0; }

void throw_if_interrupted(const std::string& what) {
  if (const int signal = interruption_signal(); signal != 0) throw Interrupted(signal, what);
}

std::string interrupted_at(double t) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, t).ptr;
  return "interrupted at t = " + std::string(buffer, end);
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace appell::num
