#include "appell/sym/operation_count.hpp"

#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "appell/sym/dag.hpp"

namespace appell::sym {

namespace {

using GiNaC::ex;
using GiNaC::numeric;

constexpr std::size_t kSaturated = std::numeric_limits<std::size_t>::max();

std::size_t plus(std::size_t a, std::size_t b) { return a > kSaturated - b ? kSaturated : a + b; }

/// What a number adds where it stands: a fraction bar. Signs are not counted: GiNaC puts the
/// sign of -l*(a - b) = l*(b - a) where its address-seeded term order says, and a count that saw
/// it would differ from run to run (and so would the form readable() chooses by it).
std::size_t number_count(const numeric& n) {
  if (!n.is_real()) return 2;  // a + b·i
  return n.is_rational() && !n.is_integer() ? 1 : 0;
}

class Counter {
 public:
  std::size_t count(const ex& root) {
    // Post-order without recursion: a deep expression must not overflow the stack.
    std::vector<std::pair<ex, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      const void* key = node_key(e);
      if (counts_.count(key) != 0) continue;
      if (!expanded && e.nops() > 0) {
        stack.emplace_back(e, true);
        for (std::size_t i = 0; i < e.nops(); ++i) stack.emplace_back(e.op(i), false);
        continue;
      }
      counts_.emplace(key, std::make_pair(e, own(e)));
    }
    return counts_.at(node_key(root)).second;
  }

 private:
  std::size_t of(const ex& e) {
    if (GiNaC::is_a<numeric>(e)) return number_count(GiNaC::ex_to<numeric>(e));
    if (e.nops() == 0) return 0;
    // op() of a product may build its powers afresh, at an address not counted yet.
    if (auto it = counts_.find(node_key(e)); it != counts_.end()) return it->second.second;
    return count(e);
  }

  std::size_t own(const ex& e) {
    if (GiNaC::is_a<numeric>(e)) return number_count(GiNaC::ex_to<numeric>(e));
    if (e.nops() == 0) return 0;  // a symbol or a constant
    if (GiNaC::is_a<GiNaC::add>(e)) {
      std::size_t total = e.nops() - 1;
      for (const ex& term : e) total = plus(total, of(term));
      return total;
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      // 2*x is one product, x/y one division: the numeric coefficient is one more factor unless
      // it is ±1.
      std::size_t factors = 0, total = 0, denominators = 0;
      for (const ex& factor : e) {
        if (GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<numeric>(factor.op(1)) &&
            GiNaC::ex_to<numeric>(factor.op(1)).is_real() &&
            GiNaC::ex_to<numeric>(factor.op(1)).is_negative()) {
          // x/y: the factor's own division is the product's one division bar.
          ++denominators;
          total = plus(total, of(factor) - 1);
          continue;
        }
        if (GiNaC::is_a<numeric>(factor)) {
          const numeric& c = GiNaC::ex_to<numeric>(factor);
          if (GiNaC::abs(c) != 1) {
            ++factors;
            if (c.is_rational() && !c.is_integer()) total = plus(total, 1);
          }
          continue;
        }
        ++factors;
        total = plus(total, of(factor));
      }
      total = plus(total, factors > 0 ? factors - 1 : 0);
      if (denominators > 0) total = plus(total, denominators);  // the bar and the products below it
      return total;
    }
    if (GiNaC::is_a<GiNaC::power>(e)) {
      // x^-1 is a division, x^-2 a division and a power.
      const ex& exponent = e.op(1);
      std::size_t total = of(e.op(0));
      if (exponent.is_equal(-1)) return plus(total, 1);
      if (GiNaC::is_a<numeric>(exponent) && GiNaC::ex_to<numeric>(exponent).is_real() &&
          GiNaC::ex_to<numeric>(exponent).is_negative())
        return plus(total, 1 + number_count(-GiNaC::ex_to<numeric>(exponent)));
      return plus(plus(total, 1), of(exponent));
    }
    std::size_t total = 1;  // a function call, or anything else with operands
    for (std::size_t i = 0; i < e.nops(); ++i) total = plus(total, of(e.op(i)));
    return total;
  }

  std::unordered_map<const void*, std::pair<ex, std::size_t>> counts_;  // ex keeps key alive
};

}  // namespace

std::size_t operation_count(const GiNaC::ex& e) {
  if (GiNaC::is_a<numeric>(e)) return number_count(GiNaC::ex_to<numeric>(e));
  if (e.nops() == 0) return 0;
  return Counter().count(e);
}

}  // namespace appell::sym
