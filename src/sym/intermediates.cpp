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

// Nodes are told apart by structure (CanonicalOrder's hash, which ignores signs), never by
// address, and read as sign · |node| with |node| rebuilt from the sign-normalised operands in
// CanonicalOrder's order: GiNaC's own sharing, term order and placement of signs change from run
// to run, and the names and their definitions must not.
class Namer {
 public:
  explicit Namer(const IntermediateOptions& options) : options_(options) {}

  NamedIntermediates name(const exvector& roots) {
    for (const ex& root : roots) count_uses(root);
    NamedIntermediates result;
    for (const ex& root : roots) result.roots.push_back(signed_value(root, result, true));
    return result;
  }

 private:
  /// What a node is made of: a sum's terms, a product's (or numeric power's) bases, a function's
  /// arguments.
  exvector parts(const ex& e) {
    if (GiNaC::is_a<GiNaC::mul>(e) ||
        (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::numeric>(e.op(1)))) {
      exvector bases;
      for (const auto& [hash, power] : order_.factors(e).powers) {
        (void)hash;
        bases.push_back(power.base);
      }
      return bases;
    }
    return order_.operands(e);
  }

  void count_uses(const ex& root) {
    std::vector<ex> stack{root};
    while (!stack.empty()) {
      ex e = stack.back();
      stack.pop_back();
      if (e.nops() == 0) continue;
      if (uses_[order_.hash(e)]++ > 0) continue;
      poll_cancellation();
      for (const ex& part : parts(e)) stack.push_back(part);
    }
  }

  struct Magnitude {
    ex value;  // |e| in terms of names (a name itself when |e| is named)
    std::size_t operations = 0;
  };

  ex signed_value(const ex& e, NamedIntermediates& out, bool root = false) {
    if (GiNaC::is_a<GiNaC::numeric>(e) || e.nops() == 0) return e;
    const Magnitude m = magnitude(e, out, root);
    return order_.sign(e) < 0 ? -m.value : m.value;
  }

  /// A root is named only when it is also used inside another root, never for its size: its
  /// value is what the caller prints.
  Magnitude magnitude(const ex& e, NamedIntermediates& out, bool root) {
    const std::uint64_t key = order_.hash(e);
    if (auto it = done_.find(key); it != done_.end()) return it->second;
    poll_cancellation();
    // Children first (recursion depth is the DAG's depth, which the kinematics' recursion keeps
    // to a few levels per body).
    std::size_t operations = 1;
    ex value;
    if (GiNaC::is_a<GiNaC::mul>(e) ||
        (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::numeric>(e.op(1)))) {
      const CanonicalOrder::Factors f = order_.factors(e);
      exvector factors{f.coefficient};
      for (const auto& [hash, power] : f.powers) {
        (void)hash;
        const ex base = power.base;
        const Magnitude b =
            base.nops() == 0 ? Magnitude{GiNaC::abs(base).eval(), 0} : magnitude(base, out, false);
        // A negative base keeps its sign under a fractional power: (-x)^(1/2) is not x^(1/2)
        // (CanonicalOrder::factors moved the sign out only for integer exponents).
        const bool sign_stays = !power.exponent.is_integer() && order_.sign(base) < 0;
        const ex base_value = base.nops() == 0 && !GiNaC::is_a<GiNaC::numeric>(base)
                                  ? base
                                  : (sign_stays ? -b.value : b.value);
        factors.push_back(GiNaC::pow(base_value, power.exponent));
        operations += b.operations + 1;
      }
      value = GiNaC::mul(factors);
    } else if (GiNaC::is_a<GiNaC::add>(e)) {
      const int sign = order_.sign(e);
      exvector terms;
      for (const ex& term : order_.operands(e)) {
        terms.push_back(sign * signed_value(term, out));
        operations += 1 + (term.nops() == 0 ? 0 : magnitude(term, out, false).operations);
      }
      value = GiNaC::add(terms);
    } else {
      exvector arguments;
      for (const ex& argument : order_.operands(e)) {
        arguments.push_back(signed_value(argument, out));
        operations += argument.nops() == 0 ? 0 : magnitude(argument, out, false).operations;
      }
      value = order_.sign(e) * rebuilt(e, arguments);
    }
    Magnitude result{value, operations};
    const std::size_t uses = uses_.count(key) != 0 ? uses_.at(key) : 1;
    if (!is_trivial(value) && !GiNaC::is_a<GiNaC::numeric>(value) &&
        (uses > 1 || (!root && operations > options_.max_operations))) {
      GiNaC::symbol name(options_.prefix + std::to_string(out.intermediates.size() + 1));
      out.intermediates.push_back({name, value});
      result = {name, 0};
    }
    done_.emplace(key, result);
    return result;
  }

  static ex rebuilt(const ex& e, const exvector& children) {
    if (GiNaC::is_a<GiNaC::power>(e)) return GiNaC::pow(children.at(0), children.at(1));
    if (GiNaC::is_a<GiNaC::function>(e))
      return GiNaC::function(GiNaC::ex_to<GiNaC::function>(e).get_serial(), children);
    return e;
  }

  const IntermediateOptions& options_;
  CanonicalOrder order_;  // keeps every node it has seen alive
  std::map<std::uint64_t, std::size_t> uses_;
  std::map<std::uint64_t, Magnitude> done_;
};

}  // namespace

NamedIntermediates named_intermediates(const GiNaC::exvector& roots,
                                       const IntermediateOptions& options) {
  return Namer(options).name(roots);
}

}  // namespace appell::sym
