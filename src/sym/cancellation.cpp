#include "appell/sym/cancellation.hpp"

#include <utility>

namespace appell::sym {

namespace {

// The innermost scope of this thread; null without one.
thread_local CancellationScope* current_scope = nullptr;

}  // namespace

Cancelled::Cancelled() : std::runtime_error("cancelled") {}

CancellationScope::CancellationScope(CancelCheck check, unsigned every)
    : check_(std::move(check)), every_(every == 0 ? 1 : every), previous_(current_scope) {
  current_scope = this;
}

CancellationScope::~CancellationScope() { current_scope = previous_; }

void poll_cancellation() {
  CancellationScope* scope = current_scope;
  if (scope == nullptr || !scope->check_) return;
  if (++scope->count_ < scope->every_) return;
  scope->count_ = 0;
  if (scope->check_()) throw Cancelled();
}

}  // namespace appell::sym
