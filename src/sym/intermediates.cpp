#include "appell/sym/intermediates.hpp"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

#include "appell/sym/cancellation.hpp"
#include "appell/sym/canonical_order.hpp"

namespace appell::sym {

namespace {

using GiNaC::ex;
using GiNaC::exvector;

/// Too small to deserve a name: a leaf, or a number times a leaf (-x, 2*l), or a leaf's power.
bool is_trivial(const ex& e) {
  if (e.nops() == 0) return true;
  if (GiNaC::is_a<GiNaC::mul>(e) && e.nops() == 2) {
    const bool numeric_first = GiNaC::is_a<GiNaC::numeric>(e.op(0));
    const bool numeric_second = GiNaC::is_a<GiNaC::numeric>(e.op(1));
    if (numeric_first && e.op(1).nops() == 0) return true;
    if (numeric_second && e.op(0).nops() == 0) return true;
  }
  if (GiNaC::is_a<GiNaC::power>(e) && e.op(0).nops() == 0 && e.op(1).nops() == 0) return true;
  return false;
}

// Nodes are told apart by structure (CanonicalOrder's hash and sign), never by address, and
// visited in CanonicalOrder's operand order: GiNaC's own sharing and term order change from run
// to run, and the names must not.
class Namer {
 public:
  explicit Namer(const IntermediateOptions& options) : options_(options) {}

  NamedIntermediates name(const exvector& roots) {
    for (const ex& root : roots) count_uses(root);
    NamedIntermediates result;
    for (const ex& root : roots) result.roots.push_back(rewritten(root, result, true).value);
    return result;
  }

 private:
  using Key = std::pair<std::uint64_t, int>;

  Key key(const ex& e) { return {order_.hash(e), order_.sign(e)}; }

  void count_uses(const ex& root) {
    std::vector<ex> stack{root};
    while (!stack.empty()) {
      ex e = stack.back();
      stack.pop_back();
      if (e.nops() == 0) continue;
      if (uses_[key(e)]++ > 0) continue;
      poll_cancellation();
      for (const ex& operand : order_.operands(e)) stack.push_back(operand);
    }
  }

  /// `e` in terms of names, and its size written that way (operations).
  struct Rewritten {
    ex value;
    std::size_t operations = 0;
  };

  /// A root is named only when it is also used inside another root, never for its size: its
  /// value is what the caller prints.
  Rewritten rewritten(const ex& e, NamedIntermediates& out, bool root = false) {
    if (e.nops() == 0) return {e, 0};
    const Key k = key(e);
    if (auto it = done_.find(k); it != done_.end()) return it->second;
    poll_cancellation();
    // Children first (recursion depth is the DAG's depth, which the kinematics' recursion keeps
    // to a few levels per body).
    const exvector operands = order_.operands(e);
    std::size_t operations = operands.size() > 1 ? operands.size() - 1 : 1;
    exvector children;
    for (const ex& operand : operands) {
      Rewritten child = rewritten(operand, out);
      operations += child.operations;
      children.push_back(child.value);
    }
    const ex value = rebuilt(e, children);
    Rewritten result{value, operations};
    const std::size_t uses = uses_.count(k) != 0 ? uses_.at(k) : 1;
    if (!is_trivial(value) && !GiNaC::is_a<GiNaC::numeric>(value) &&
        (uses > 1 || (!root && operations > options_.max_operations))) {
      GiNaC::symbol name(options_.prefix + std::to_string(out.intermediates.size() + 1));
      out.intermediates.push_back({name, value});
      result = {name, 0};
    }
    done_.emplace(k, result);
    return result;
  }

  static ex rebuilt(const ex& e, const exvector& children) {
    if (GiNaC::is_a<GiNaC::add>(e)) return GiNaC::add(children);
    if (GiNaC::is_a<GiNaC::mul>(e)) return GiNaC::mul(children);
    if (GiNaC::is_a<GiNaC::power>(e)) return GiNaC::pow(children.at(0), children.at(1));
    if (GiNaC::is_a<GiNaC::function>(e))
      return GiNaC::function(GiNaC::ex_to<GiNaC::function>(e).get_serial(), children);
    return e;
  }

  const IntermediateOptions& options_;
  CanonicalOrder order_;  // keeps every node it has seen alive
  std::map<Key, std::size_t> uses_;
  std::map<Key, Rewritten> done_;
};

}  // namespace

NamedIntermediates named_intermediates(const GiNaC::exvector& roots,
                                       const IntermediateOptions& options) {
  return Namer(options).name(roots);
}

}  // namespace appell::sym
