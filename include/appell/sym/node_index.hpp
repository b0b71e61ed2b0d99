// The nodes a walk over a large expression DAG has met, numbered.
//
// The formed equations of a 30-link chain are 6·10⁵ distinct GiNaC nodes (2·10⁶ edges) for only
// 2.5·10⁴ distinct structures: every memo keyed by node (the structural order's, the DAG size's,
// the evaluator's) holds that many entries, and with std::unordered_map an allocation and two
// cache misses for each cost more than the work the memo saves. NodeIndex is one array, open
// addressing with linear probing, and numbers the nodes so that what a memo keeps of each goes in
// a plain vector indexed by that number.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace appell::sym {

/// Distinct nodes (by identity, as sym::node_key) numbered 0, 1, 2, ... in the order they were
/// first inserted; each is kept alive while the index lives, so that no new node (op() of a sum
/// builds one each call) takes the address of one it holds. Nothing is allocated before the first
/// insert.
class NodeIndex {
 public:
  static constexpr std::uint32_t none = 0xffffffffu;

  /// The number of `e`'s node, or `none`.
  std::uint32_t find(const GiNaC::ex& e) const {
    if (slots_.empty()) return none;
    const void* key = &GiNaC::ex_to<GiNaC::basic>(e);
    for (std::size_t i = position(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].key == key) return slots_[i].number;
      if (slots_[i].key == nullptr) return none;
    }
  }

  /// The number of `e`'s node, given the next one (size() before the call) if it had none;
  /// `second` is true when it was new.
  std::pair<std::uint32_t, bool> insert(const GiNaC::ex& e) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const void* key = &GiNaC::ex_to<GiNaC::basic>(e);
    std::size_t i = position(key);
    for (; slots_[i].key != nullptr; i = (i + 1) & (slots_.size() - 1))
      if (slots_[i].key == key) return {slots_[i].number, false};
    const auto number = static_cast<std::uint32_t>(size_++);
    slots_[i] = {key, number};
    if (alive_.empty() || alive_.back().size() == kChunk) {
      alive_.emplace_back();
      alive_.back().reserve(kChunk);
    }
    alive_.back().push_back(e);
    return {number, true};
  }

  /// Number of nodes inserted.
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    const void* key = nullptr;
    std::uint32_t number = 0;
  };
  // Nodes kept alive in chunks that never move: growing one vector would copy every GiNaC::ex
  // (a reference count up and down, a cache miss each).
  static constexpr std::size_t kChunk = 4096;

  std::size_t position(const void* key) const {
    // Fibonacci hashing: node addresses are aligned, their low bits carry nothing.
    return static_cast<std::size_t>(
        (reinterpret_cast<std::uintptr_t>(key) * 0x9e3779b97f4a7c15ull) >> shift_);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 64 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.key == nullptr) continue;
      std::size_t i = position(s.key);
      while (slots_[i].key != nullptr) i = (i + 1) & (capacity - 1);
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;  // a power of two of them, at most half full
  unsigned shift_ = 64;
  std::size_t size_ = 0;
  std::vector<std::vector<GiNaC::ex>> alive_;
};

}  // namespace appell::sym
