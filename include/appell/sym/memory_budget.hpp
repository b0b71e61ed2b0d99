// A bound on the memory a computation may take, and what it uses now.
//
// Forming the equations of a large model symbolically (a chain of a hundred links) can outgrow any
// machine: the operating system then kills the process (no message) or an allocation fails deep
// inside GiNaC. A MemoryBudget turns that into a failed computation that says what it was: the
// long loops of the library poll (sym::poll_cancellation), the caller's check asks the budget, and
// the budget throws MemoryBudgetExceeded, naming the limit and where it came from, once the
// resident memory of the process passes it.
//
//   sym::MemoryBudget budget(sym::parse_memory_size("4G"), "APPELL_MEMORY_BUDGET");
//   sym::CancellationScope scope([&] { budget.check(); return false; });
//   auto eq = principles::derive(model, principles::Method::Lagrange);  // may throw
//
// The resident set is what the budget compares (/proc/self/statm on Linux): the memory really in
// use, not the address space reserved (which thread stacks and allocators' arenas inflate, and
// which sanitizers make terabytes).
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace appell::sym {

/// Thrown by MemoryBudget::check(). what(): "the memory budget of 4 GiB (APPELL_MEMORY_BUDGET)
/// is exceeded: 4.1 GiB in use".
class MemoryBudgetExceeded : public std::runtime_error {
 public:
  MemoryBudgetExceeded(std::size_t budget, std::size_t in_use, const std::string& source);
  std::size_t budget() const { return budget_; }
  std::size_t in_use() const { return in_use_; }

 private:
  std::size_t budget_, in_use_;
};

/// The resident memory of this process in bytes; 0 where it cannot be read.
std::size_t resident_memory_bytes();
/// The machine's physical memory in bytes; 0 where it cannot be read.
std::size_t physical_memory_bytes();
/// Half of the physical memory (the default budget: room for the compiler the JIT runs, the
/// operating system and other programs), or 0 (no budget) where that cannot be read.
std::size_t default_memory_budget();

/// Bytes from "4G", "4GiB", "512M", "512MB", "1.5G", "65536" (binary units: K, M, G, T are
/// powers of 1024, with or without "B" or "iB", any case); "0" or "none" is 0, no budget. Throws
/// std::invalid_argument, saying what is accepted, for anything else.
std::size_t parse_memory_size(std::string_view text);
/// "4 GiB", "512 MiB", "1.5 GiB": what a message shows.
std::string memory_size_text(std::size_t bytes);

/// The bound itself. check() is cheap: it reads the resident memory at most every
/// `interval` (reading it costs microseconds; polls come millions of times a second).
class MemoryBudget {
 public:
  /// `bytes` 0: no budget (check() never throws). `source` names where the limit was set, for
  /// the message ("APPELL_MEMORY_BUDGET", "the default: half the physical memory").
  MemoryBudget(std::size_t bytes, std::string source,
               std::chrono::milliseconds interval = std::chrono::milliseconds(20));
  std::size_t bytes() const { return bytes_; }
  const std::string& source() const { return source_; }
  /// Throws MemoryBudgetExceeded when the resident memory is above the budget.
  void check();
  /// The resident memory at the last reading.
  std::size_t last_reading() const { return last_; }

 private:
  std::size_t bytes_;
  std::string source_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point next_{};
  std::size_t last_ = 0;
};

}  // namespace appell::sym
