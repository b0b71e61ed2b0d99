#include "status_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "appell/io/terminal_text.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/progress.hpp"
#include "standard_streams.hpp"

namespace appell::cli {

namespace {

constexpr auto kRedraw = std::chrono::milliseconds(250);  // at most four redraws a second

}  // namespace

std::chrono::milliseconds progress_delay_from_environment() {
  const char* text = std::getenv("APPELL_PROGRESS_AFTER");
  if (text == nullptr || *text == '\0') return std::chrono::seconds(1);
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0.0 && seconds <= 1e6))
    throw model::ModelError({"APPELL_PROGRESS_AFTER"},
                            "not a number of seconds from 0 to 1e6 (how long a step runs before "
                            "its status line appears)",
                            text);
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

sym::MemoryBudget memory_budget_from_environment() {
  const char* text = std::getenv("APPELL_MEMORY_BUDGET");
  if (text == nullptr || *text == '\0')
    return sym::MemoryBudget(sym::default_memory_budget(), "the default: half the physical memory");
  try {
    return sym::MemoryBudget(sym::parse_memory_size(text), "APPELL_MEMORY_BUDGET");
  } catch (const std::invalid_argument& e) {
    throw model::ModelError({"APPELL_MEMORY_BUDGET"}, e.what(), text);
  }
}

StatusLine::StatusLine(const sym::MemoryBudget& budget, std::chrono::milliseconds quiet)
    : budget_(budget), enabled_(isatty(fileno(stderr)) != 0), quiet_(quiet) {}

void StatusLine::tick() {
  if (!enabled_) return;
  const std::string now_doing = sym::current_progress();
  if (now_doing.empty()) {
    erase();
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!busy_since_) busy_since_ = now;
  if (now - *busy_since_ < quiet_ || now < next_draw_) return;
  next_draw_ = now + kRedraw;
  const double seconds = std::chrono::duration<double>(now - *busy_since_).count();
  // Time and memory first, so that a narrow terminal cuts the step's detail, not them.
  std::ostringstream line;
  line << "appell [" << std::fixed << std::setprecision(0) << seconds << " s, "
       << sym::memory_size_text(sym::resident_memory_bytes());
  if (budget_.bytes() > 0) line << " of " << sym::memory_size_text(budget_.bytes());
  line << "] " << now_doing;
  // The step's text (a model's names) shown, not obeyed, before it is measured. One terminal
  // line: what does not fit is cut rather than wrapped (a wrapped line cannot be erased with one
  // carriage return). The text is ASCII but for names from the model, which a cut may split;
  // the terminal shows at most one replacement character for that.
  std::string text = io::terminal_text(line.str(), io::LineBreaks::Escape);
  winsize size{};
  const std::size_t width =
      ::ioctl(fileno(stderr), TIOCGWINSZ, &size) == 0 && size.ws_col > 10 ? size.ws_col - 1 : 99;
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  // The line's own controls as they are, past std::cerr's escaping.
  unescaped_stderr() << "\r\033[K" << text << std::flush;
  drawn_ = true;
}

void StatusLine::erase() {
  busy_since_.reset();
  if (!drawn_) return;
  unescaped_stderr() << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace appell::cli
