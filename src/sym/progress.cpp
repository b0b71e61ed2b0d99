#include "appell/sym/progress.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace appell::sym {

namespace {

// The innermost step of this thread; null outside every step.
thread_local ProgressStep* innermost = nullptr;
// The innermost listener of this thread; null without one.
thread_local ProgressListener* listener = nullptr;

}  // namespace

ProgressStep::ProgressStep(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), outer_(innermost) {
  innermost = this;
}

ProgressStep::~ProgressStep() {
  innermost = outer_;
  if (innermost != nullptr || listener == nullptr || !listener->when_idle_) return;
  try {
    listener->when_idle_();
  } catch (...) {
    // A status line that could not be erased is no reason to end the program.
  }
}

ProgressListener::ProgressListener(std::function<void()> when_idle)
    : when_idle_(std::move(when_idle)), previous_(listener) {
  listener = this;
}

ProgressListener::~ProgressListener() { listener = previous_; }

std::string current_progress() {
  std::vector<const ProgressStep*> steps;
  for (const ProgressStep* s = innermost; s != nullptr; s = s->outer_) steps.push_back(s);
  std::string text;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const ProgressStep& s = **it;
    if (!text.empty()) text += ": ";
    text += s.what_;
    if (s.total_ > 0)
      text +=
          " (" + std::to_string(std::min(s.done_, s.total_)) + "/" + std::to_string(s.total_) + ")";
  }
  return text;
}

}  // namespace appell::sym
