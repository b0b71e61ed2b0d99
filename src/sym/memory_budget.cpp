#include "appell/sym/memory_budget.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

namespace appell::sym {

namespace {

constexpr double kKiB = 1024.0;

std::string budget_message(std::size_t budget, std::size_t in_use, const std::string& source) {
  std::string text = "the memory budget of " + memory_size_text(budget);
  if (!source.empty()) text += " (" + source + ")";
  return text + " is exceeded: " + memory_size_text(in_use) +
         " in use; set APPELL_MEMORY_BUDGET to a larger size (e.g. 16G) or 0 for none";
}

}  // namespace

MemoryBudgetExceeded::MemoryBudgetExceeded(std::size_t budget, std::size_t in_use,
                                           const std::string& source)
    : std::runtime_error(budget_message(budget, in_use, source)),
      budget_(budget),
      in_use_(in_use) {}

std::size_t resident_memory_bytes() {
  // statm: size, resident, shared, ... in pages.
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  return page > 0 ? resident * static_cast<std::size_t>(page) : 0;
}

std::size_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

std::size_t default_memory_budget() { return physical_memory_bytes() / 2; }

std::size_t parse_memory_size(std::string_view text) {
  const auto refuse = [&]() -> std::size_t {
    throw std::invalid_argument("'" + std::string(text) +
                                "' is not a memory size: give bytes or a number with K, M, G or T "
                                "(powers of 1024, e.g. 512M, 4G, 1.5GiB), or 0 or none for no "
                                "budget");
  };
  // Spaces around the text and between the number and its unit only ("4 GiB").
  std::string s;
  for (const char c : text)
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.back())) s.pop_back();
  std::size_t first = 0;
  while (first < s.size() && space(s[first])) ++first;
  s.erase(0, first);
  if (s == "none") return 0;
  std::size_t digits = 0;
  bool point = false;
  while (digits < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[digits])) || (s[digits] == '.' && !point))) {
    point = point || s[digits] == '.';
    ++digits;
  }
  if (digits == 0 || (digits == 1 && point)) return refuse();
  const double number = std::strtod(s.substr(0, digits).c_str(), nullptr);
  std::size_t unit_start = digits;
  while (unit_start < s.size() && space(s[unit_start])) ++unit_start;
  std::string unit = s.substr(unit_start);
  if (unit.size() > 1 && unit.back() == 'b') unit.pop_back();
  if (unit.size() == 2 && unit.back() == 'i') unit.pop_back();
  double scale = 1.0;
  if (unit.empty() || unit == "b") {
    scale = 1.0;
  } else if (unit == "k") {
    scale = kKiB;
  } else if (unit == "m") {
    scale = kKiB * kKiB;
  } else if (unit == "g") {
    scale = kKiB * kKiB * kKiB;
  } else if (unit == "t") {
    scale = kKiB * kKiB * kKiB * kKiB;
  } else {
    return refuse();
  }
  const double bytes = number * scale;
  // Beyond 2^62 bytes is no budget anyone means; it would not fit the type either.
  if (!std::isfinite(bytes) || bytes > 4.6e18) return refuse();
  return static_cast<std::size_t>(std::llround(bytes));
}

std::string memory_size_text(std::size_t bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0 || value == std::floor(value))
    std::snprintf(text, sizeof text, "%.0f %s", value, units[unit]);
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

MemoryBudget::MemoryBudget(std::size_t bytes, std::string source,
                           std::chrono::milliseconds interval)
    : bytes_(bytes), source_(std::move(source)), interval_(interval) {}

void MemoryBudget::check() {
  if (bytes_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_) return;
  next_ = now + interval_;
  last_ = resident_memory_bytes();
  if (last_ > bytes_) throw MemoryBudgetExceeded(bytes_, last_, source_);
}

}  // namespace appell::sym
