#include "appell/sym/dag.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "appell/sym/canonical_order.hpp"
#include "pairs.hpp"

namespace appell::sym {

void for_each_node(const GiNaC::exvector& roots,
                   const std::function<void(const GiNaC::ex&)>& visit) {
  std::unordered_set<const void*> seen;
  GiNaC::exvector alive;  // op(i) may be a temporary; keep it so that its address stays unique
  GiNaC::exvector pending(roots.rbegin(), roots.rend());
  while (!pending.empty()) {
    GiNaC::ex e = pending.back();
    pending.pop_back();
    if (!seen.insert(node_key(e)).second) continue;
    alive.push_back(e);
    visit(e);
    for (std::size_t i = 0; i < e.nops(); ++i) pending.push_back(e.op(i));
  }
}

SymbolSet symbols_in(const GiNaC::exvector& roots) {
  // The nodes GiNaC stores, its pairs read without building a node for each (sym/pairs.hpp):
  // the same symbols as every op() reaches.
  SymbolSet found;
  std::unordered_set<const void*> seen;
  GiNaC::exvector pending(roots.rbegin(), roots.rend());
  while (!pending.empty()) {
    const GiNaC::ex e = std::move(pending.back());
    pending.pop_back();
    if (e.nops() == 0) {
      if (GiNaC::is_a<GiNaC::symbol>(e)) found.insert(e);
      continue;
    }
    if (!seen.insert(node_key(e)).second) continue;
    if (GiNaC::is_a<GiNaC::expairseq>(e)) {
      for (const GiNaC::expair& p : detail::Pairs::of(e)) pending.push_back(p.rest);
    } else {
      for (std::size_t i = 0; i < e.nops(); ++i) pending.push_back(e.op(i));
    }
  }
  return found;
}

std::map<std::string, GiNaC::symbol> symbols_by_name(const GiNaC::exvector& roots) {
  std::map<std::string, GiNaC::symbol> out;
  for (const GiNaC::ex& s : symbols_in(roots)) {
    const auto& symbol = GiNaC::ex_to<GiNaC::symbol>(s);
    out.emplace(symbol.get_name(), symbol);
  }
  return out;
}

namespace {

// Distinct structural hashes (well mixed already: their low bits index the table), open addressing
// in one array: dag_size inserts one for each edge of DAGs of millions, most of them known.
class StructureSet {
 public:
  void insert(std::uint64_t h) {
    if (h == 0) {
      zero_ = true;  // the empty slot's mark, kept aside
      return;
    }
    std::size_t i = h & (slots_.size() - 1);
    for (; slots_[i] != 0; i = (i + 1) & (slots_.size() - 1))
      if (slots_[i] == h) return;
    slots_[i] = h;
    if (2 * ++size_ > slots_.size()) grow();
  }
  std::size_t size() const { return size_ + (zero_ ? 1 : 0); }

 private:
  void grow() {
    std::vector<std::uint64_t> old(2 * slots_.size(), 0);
    old.swap(slots_);
    for (std::uint64_t h : old) {
      if (h == 0) continue;
      std::size_t i = h & (slots_.size() - 1);
      while (slots_[i] != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = h;
    }
  }
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(1024, 0);
  std::size_t size_ = 0;
  bool zero_ = false;
};

}  // namespace

std::size_t dag_size(const GiNaC::exvector& roots) {
  // Nodes are walked once each by address and counted once each by structure: which of two equal
  // subexpressions GiNaC shares depends on its address-seeded term order, the structure does not.
  // What is counted is every node op() reaches, the ones it builds for GiNaC's pairs included,
  // but those are read from the pairs (sym/pairs.hpp): a term rest·coeff counts as itself and
  // then as what op() would give of it (rest's factors and coeff when rest is a product, rest
  // and coeff otherwise); a factor rest^coeff as itself, then rest and coeff.
  CanonicalOrder order;
  std::vector<bool> seen;  // by the order's number; the order keeps every node alive (a
                           // coefficient computed below too: its address stays its own)
  StructureSet structures;
  struct Item {
    GiNaC::ex node;
    const GiNaC::expair* pair = nullptr;  // a pair of a sum (term) or a product (power)
    bool term = false;
  };
  std::vector<Item> stack;
  for (const GiNaC::ex& root : roots) stack.push_back({root});
  const auto count = [&](const GiNaC::ex& e) {
    // -x hashes as x: one node. A coefficient ±1 is where GiNaC left a sign, not a node.
    const bool unit =
        GiNaC::is_a<GiNaC::numeric>(e) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(e)) == 1;
    if (!unit) structures.insert(order.hash(e));
  };
  // The operands of a product (as op() lists them), rest a product's.
  const auto push_factors = [&](const GiNaC::ex& product, const GiNaC::ex& coefficient) {
    for (const GiNaC::expair& p : detail::Pairs::of(product))
      stack.push_back(p.coeff.is_equal(1) ? Item{p.rest} : Item{GiNaC::ex(), &p, false});
    if (!coefficient.is_equal(1)) stack.push_back({coefficient});
  };
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    if (item.pair == nullptr) {
      const GiNaC::ex& e = item.node;
      const std::uint32_t number = order.number(e);
      if (number >= seen.size()) seen.resize(2 * std::size_t{number} + 64, false);
      if (seen[number]) continue;
      seen[number] = true;
      count(e);
      if (GiNaC::is_a<GiNaC::add>(e)) {
        for (const GiNaC::expair& p : detail::Pairs::of(e))
          stack.push_back(p.coeff.is_equal(1) ? Item{p.rest} : Item{GiNaC::ex(), &p, true});
        if (const GiNaC::ex& c = detail::Pairs::coefficient(e); !c.is_zero()) stack.push_back({c});
      } else if (GiNaC::is_a<GiNaC::mul>(e)) {
        push_factors(e, detail::Pairs::coefficient(e));
      } else {
        for (std::size_t i = 0; i < e.nops(); ++i) stack.push_back({e.op(i)});
      }
    } else if (item.term) {
      // rest·coeff, a new node each time op() built it.
      const GiNaC::expair& p = *item.pair;
      structures.insert(order.hash_of_term(p));
      if (GiNaC::is_a<GiNaC::mul>(p.rest)) {
        // The product of the two coefficients, a new node, only when it is not the pair's own.
        const GiNaC::ex& own = detail::Pairs::coefficient(p.rest);
        push_factors(p.rest, own.is_equal(1) ? p.coeff
                                             : GiNaC::ex_to<GiNaC::numeric>(own) *
                                                   GiNaC::ex_to<GiNaC::numeric>(p.coeff));
      } else {
        stack.push_back({p.rest});
        stack.push_back({p.coeff});
      }
    } else {
      const GiNaC::expair& p = *item.pair;
      structures.insert(order.hash_of_power(p));
      stack.push_back({p.rest});
      stack.push_back({p.coeff});
    }
  }
  return structures.size();
}

namespace {

// A numeric exponent read once for all points: integer and ½ exponents as the Tape computes them.
struct Exponent {
  enum Kind { Integer, Half, Real } kind = Real;
  int integer = 0;
  double real = 0.0;
  explicit Exponent(const GiNaC::ex& e) {
    const GiNaC::numeric& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real()) throw DagEvaluator::Unsupported("complex number in a numeric expression");
    if (n.is_integer()) {
      kind = Integer;
      integer = static_cast<int>(n.to_double());
    } else if (n == GiNaC::numeric(1, 2)) {
      kind = Half;
    } else {
      real = n.to_double();
    }
  }
  double operator()(double base) const {
    switch (kind) {
      case Integer:
        if (integer == 1) return base;
        if (integer == 2) return base * base;
        if (integer == -1) return 1.0 / base;
        return std::pow(base, integer);
      case Half:
        return std::sqrt(base);
      case Real:
        break;
    }
    return std::pow(base, real);
  }
};

using Unary = double (*)(double);

Unary unary_function(const std::string& name) {
  static const std::unordered_map<std::string, Unary> functions = {
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"abs", [](double x) { return std::abs(x); }},
      // Every quantity of a model is real, where conjugate is the identity; GiNaC, whose symbols
      // are complex, writes it into abs(x)^2 = x conjugate(x) and into d abs(x)/dx.
      {"conjugate", [](double x) { return x; }}};
  const auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second;
}

}  // namespace

DagEvaluator::DagEvaluator(std::size_t points,
                           std::function<void(const GiNaC::symbol&, double*)> symbol_values)
    : points_(points), symbol_values_(std::move(symbol_values)) {}

void DagEvaluator::operator()(const GiNaC::ex& e, double* out) {
  const std::size_t s = slot(e);
  std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(s * points_), points_, out);
}

std::size_t DagEvaluator::new_slot(const GiNaC::ex& e) {
  values_.resize(values_.size() + points_);
  return slots_.insert(e).first;  // numbered in order: the slot just made
}

std::size_t DagEvaluator::slot(const GiNaC::ex& e) {
  if (const std::uint32_t known = slots_.find(e); known != NodeIndex::none) return known;
  // Operands first (their slots may grow values_), then this node's numbers by index.
  const auto at = [this](std::size_t s, std::size_t k) -> double& {
    return values_[s * points_ + k];
  };
  if (GiNaC::is_exactly_a<GiNaC::add>(e) || GiNaC::is_exactly_a<GiNaC::mul>(e)) {
    const bool sum = GiNaC::is_exactly_a<GiNaC::add>(e);
    const GiNaC::epvector& pairs = detail::Pairs::of(e);
    std::vector<std::size_t> rests;
    rests.reserve(pairs.size());
    for (const GiNaC::expair& p : pairs) rests.push_back(slot(p.rest));
    const std::size_t c = slot(detail::Pairs::coefficient(e));
    const std::size_t s = new_slot(e);
    for (std::size_t k = 0; k < points_; ++k) at(s, k) = at(c, k);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (sum) {
        const double coeff = GiNaC::ex_to<GiNaC::numeric>(pairs[i].coeff).to_double();
        for (std::size_t k = 0; k < points_; ++k) at(s, k) += at(rests[i], k) * coeff;
      } else {
        const Exponent power(pairs[i].coeff);
        for (std::size_t k = 0; k < points_; ++k) at(s, k) *= power(at(rests[i], k));
      }
    }
    return s;
  }
  if (GiNaC::is_a<GiNaC::numeric>(e)) {
    const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (!n.is_real()) throw Unsupported("complex number in a numeric expression");
    const std::size_t s = new_slot(e);
    for (std::size_t k = 0; k < points_; ++k) at(s, k) = n.to_double();
    return s;
  }
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    std::vector<double> given(points_);
    symbol_values_(GiNaC::ex_to<GiNaC::symbol>(e), given.data());
    const std::size_t s = new_slot(e);
    for (std::size_t k = 0; k < points_; ++k) at(s, k) = given[k];
    return s;
  }
  if (GiNaC::is_a<GiNaC::constant>(e)) {
    const double v = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e)).to_double();
    const std::size_t s = new_slot(e);
    for (std::size_t k = 0; k < points_; ++k) at(s, k) = v;
    return s;
  }
  if (GiNaC::is_exactly_a<GiNaC::power>(e)) {
    const std::size_t base = slot(e.op(0));
    if (GiNaC::is_a<GiNaC::numeric>(e.op(1))) {
      const Exponent power(e.op(1));
      const std::size_t s = new_slot(e);
      for (std::size_t k = 0; k < points_; ++k) at(s, k) = power(at(base, k));
      return s;
    }
    const std::size_t exponent = slot(e.op(1));
    const std::size_t s = new_slot(e);
    for (std::size_t k = 0; k < points_; ++k) at(s, k) = std::pow(at(base, k), at(exponent, k));
    return s;
  }
  if (GiNaC::is_exactly_a<GiNaC::function>(e)) {
    const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    if (name == "atan2" && e.nops() == 2) {
      const std::size_t y = slot(e.op(0)), x = slot(e.op(1));
      const std::size_t s = new_slot(e);
      for (std::size_t k = 0; k < points_; ++k) at(s, k) = std::atan2(at(y, k), at(x, k));
      return s;
    }
    if (const Unary f = unary_function(name); f != nullptr && e.nops() == 1) {
      const std::size_t argument = slot(e.op(0));
      const std::size_t s = new_slot(e);
      for (std::size_t k = 0; k < points_; ++k) at(s, k) = f(at(argument, k));
      return s;
    }
    throw Unsupported("cannot evaluate the function " + name + " numerically");
  }
  throw Unsupported("cannot evaluate this kind of expression numerically");
}

namespace {

// Decimal digits of the larger of a rational number's numerator and denominator (of the real or
// imaginary part, whichever is larger).
double rational_digits(const GiNaC::numeric& r) {
  if (!r.is_real())
    return std::max(rational_digits(GiNaC::real(r)), rational_digits(GiNaC::imag(r)));
  if (!r.is_rational() || r.is_zero()) return 0;
  auto digits = [](const GiNaC::numeric& integer) {
    const long bits = integer.int_length();
    return bits < 1000 ? std::log10(std::abs(integer.to_double())) : double(bits) * 0.30103;
  };
  return std::max(digits(r.numer()), digits(r.denom()));
}

}  // namespace

double exact_power_digits(const GiNaC::ex& base, const GiNaC::ex& exponent) {
  if (!GiNaC::is_a<GiNaC::numeric>(exponent)) return 0;
  const GiNaC::numeric& e = GiNaC::ex_to<GiNaC::numeric>(exponent);
  if (!e.is_rational()) return 0;
  if (GiNaC::is_a<GiNaC::numeric>(base)) {
    const GiNaC::numeric& b = GiNaC::ex_to<GiNaC::numeric>(base);
    if (b.is_zero() || GiNaC::abs(b).is_equal(1)) return 0;
    // |e| as a double: beyond 10^308 it is infinite, and so is the estimate.
    return std::abs(e.to_double()) * rational_digits(b);
  }
  // GiNaC multiplies the exponents of a power and distributes an integer one over a product.
  if (GiNaC::is_a<GiNaC::power>(base)) return exact_power_digits(base.op(0), base.op(1) * e);
  if (GiNaC::is_a<GiNaC::mul>(base)) {
    double digits = 0;
    for (std::size_t i = 0; i < base.nops(); ++i) digits += exact_power_digits(base.op(i), e);
    return digits;
  }
  return 0;
}

namespace {
// GiNaC's map_function protocol: ex::map calls us on each operand and rebuilds the node.
struct MapAdapter : GiNaC::map_function {
  std::function<GiNaC::ex(const GiNaC::ex&)> f;
  GiNaC::ex operator()(const GiNaC::ex& e) override { return f(e); }
};

// GiNaC evaluates a node it rebuilt on the heap (ex::map, pow, a function's constructor) before an
// ex owns it, and leaks it when that evaluation throws: 0^-1, log(0), tan(pi/2) after a
// substitution (a pole_error, which the model builder reports as a located error). A power or a
// function rebuilt here is made on the stack instead, so that an exception frees it; the sums and
// products GiNaC rebuilds never throw in their evaluation.
GiNaC::ex rebuild_power_or_function(const GiNaC::ex& e, MemoisedMap& map) {
  GiNaC::exvector children;
  children.reserve(e.nops());
  bool changed = false;
  for (std::size_t i = 0; i < e.nops(); ++i) {
    children.push_back(map(e.op(i)));
    changed = changed || !GiNaC::are_ex_trivially_equal(children.back(), e.op(i));
  }
  if (!changed) return e;
  if (GiNaC::is_a<GiNaC::power>(e)) {
    if (exact_power_digits(children[0], children[1]) > kLargestExactPowerDigits)
      throw std::range_error("a power of exact numbers larger than 10^" +
                             std::to_string(int(kLargestExactPowerDigits)));
    const GiNaC::power node(children[0], children[1]);
    return node;
  }
  const GiNaC::function node(GiNaC::ex_to<GiNaC::function>(e).get_serial(), std::move(children));
  return node;
}
}  // namespace

GiNaC::ex MemoisedMap::operator()(const GiNaC::ex& e) {
  const void* key = node_key(e);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second.result;
  GiNaC::ex result;
  if (!rule_(e, result)) {
    if (e.nops() == 0) {
      result = e;
    } else if (GiNaC::is_exactly_a<GiNaC::power>(e) || GiNaC::is_exactly_a<GiNaC::function>(e)) {
      result = rebuild_power_or_function(e, *this);
    } else {
      MapAdapter adapter;
      adapter.f = [this](const GiNaC::ex& child) { return (*this)(child); };
      result = e.map(adapter);
    }
  }
  cache_.emplace(key, Entry{e, result});
  return result;
}

GiNaC::ex substitute(const GiNaC::ex& e, const GiNaC::exmap& map) {
  MemoisedMap m([&](const GiNaC::ex& node, GiNaC::ex& out) {
    if (!GiNaC::is_a<GiNaC::symbol>(node)) return false;
    auto it = map.find(node);
    out = it == map.end() ? node : it->second;
    return true;
  });
  return m(e);
}

GiNaC::matrix substitute(const GiNaC::matrix& mat, const GiNaC::exmap& map) {
  MemoisedMap m([&](const GiNaC::ex& node, GiNaC::ex& out) {
    if (!GiNaC::is_a<GiNaC::symbol>(node)) return false;
    auto it = map.find(node);
    out = it == map.end() ? node : it->second;
    return true;
  });
  GiNaC::matrix r(mat.rows(), mat.cols());
  for (unsigned i = 0; i < mat.rows(); ++i)
    for (unsigned j = 0; j < mat.cols(); ++j) r(i, j) = m(mat(i, j));
  return r;
}

}  // namespace appell::sym
