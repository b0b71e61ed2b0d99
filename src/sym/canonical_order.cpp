#include "appell/sym/canonical_order.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "appell/sym/dag.hpp"
#include "pairs.hpp"

namespace appell::sym {

using GiNaC::ex;
using GiNaC::numeric;

namespace {

// FNV-1a over bytes; mix() is splitmix64's finaliser over a combination: fixed constants, no
// seed, so the same text and structure give the same hash in every run.
std::uint64_t text_hash(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string text_of(const ex& e) {
  std::ostringstream out;
  out << e;
  return out.str();
}

// Kinds in a fixed order: numbers, constants, symbols, then compound expressions.
enum Kind : int { Number, Constant, Symbol, Power, Product, Sum, Function, Other };

// The exact class by its registry entry first (a pointer comparison): GiNaC::is_a is a
// dynamic_cast, which compares type names across the library boundary, once for each kind tried.
template <class T>
bool is_exactly(const GiNaC::basic& b) {
  return &b.get_class_info() == &T::get_class_info_static();
}

Kind kind_of(const ex& e) {
  const GiNaC::basic& b = GiNaC::ex_to<GiNaC::basic>(e);
  if (is_exactly<GiNaC::mul>(b)) return Product;
  if (is_exactly<GiNaC::add>(b)) return Sum;
  if (is_exactly<GiNaC::symbol>(b)) return Symbol;
  if (is_exactly<GiNaC::numeric>(b)) return Number;
  if (is_exactly<GiNaC::power>(b)) return Power;
  if (is_exactly<GiNaC::function>(b)) return Function;
  // Subclasses (realsymbol, fderivative, ...) as GiNaC::is_a sees them.
  if (GiNaC::is_a<numeric>(e)) return Number;
  if (GiNaC::is_a<GiNaC::constant>(e)) return Constant;
  if (GiNaC::is_a<GiNaC::symbol>(e)) return Symbol;
  if (GiNaC::is_a<GiNaC::power>(e)) return Power;
  if (GiNaC::is_a<GiNaC::mul>(e)) return Product;
  if (GiNaC::is_a<GiNaC::add>(e)) return Sum;
  if (GiNaC::is_a<GiNaC::function>(e)) return Function;
  return Other;
}

bool is_negative_real(const ex& e) {
  return GiNaC::is_a<numeric>(e) && GiNaC::ex_to<numeric>(e).is_real() &&
         GiNaC::ex_to<numeric>(e).is_negative();
}

using detail::Pairs;

const numeric& one() {
  static const numeric value(1);
  return value;
}

bool is_one(const ex& e) {
  return GiNaC::is_a<numeric>(e) && GiNaC::ex_to<numeric>(e).is_equal(one());
}

}  // namespace

std::uint64_t CanonicalOrder::number_hash(const numeric& n) {
  // The hash of the number's text (the same in every run), computed once per value: printing a
  // number through a stream costs more than everything else a node's hash needs.
  static const std::uint64_t text_of_one = text_hash("1");
  if (n.is_equal(one())) return text_of_one;
  // An integer prints as its decimal digits: no node to make for the lookup below.
  if (n.is_integer() && n.int_length() < 63) return text_hash(std::to_string(n.to_long()));
  const ex key = n;
  if (auto it = numbers_.find(key); it != numbers_.end()) return it->second;
  return numbers_.emplace(key, text_hash(text_of(key))).first->second;
}

CanonicalOrder::Summary CanonicalOrder::entry(const ex& e) { return summaries_[number(e)]; }

std::uint32_t CanonicalOrder::number(const ex& e) {
  if (const std::uint32_t known = seen_.find(e); known != NodeIndex::none) return known;
  const Kind kind = kind_of(e);
  std::uint64_t h = mix(0x243f6a8885a308d3ull, static_cast<std::uint64_t>(kind));
  int sign = 1;
  bool leaf = e.nops() == 0;
  switch (kind) {
    case Number:
      sign = is_negative_real(e) ? -1 : 1;
      h = mix(
          h, number_hash(sign < 0 ? numeric(-GiNaC::ex_to<numeric>(e)) : GiNaC::ex_to<numeric>(e)));
      break;
    case Constant:
      h = mix(h, text_hash(text_of(e)));
      break;
    case Symbol:
      h = mix(h, text_hash(GiNaC::ex_to<GiNaC::symbol>(e).get_name()));
      break;
    case Product:
    case Power: {
      if (kind == Power && !GiNaC::is_a<numeric>(e.op(1))) {
        const Summary base = entry(e.op(0));
        const Summary exponent = entry(e.op(1));
        h = mix(mix(mix(h, base.hash), exponent.hash),
                static_cast<std::uint64_t>(exponent.sign + 1));
        if (base.sign < 0) h = mix(h, 3);
        break;
      }
      const Summary p = product_summary(factors(e));
      h = p.hash;
      sign = p.sign;
      leaf = p.leaf;
      break;
    }
    case Sum: {
      // The terms' hashes with their signs relative to the first term's (the smallest hash):
      // a - b and b - a hash alike, with opposite signs.
      std::vector<std::pair<std::uint64_t, int>> terms;
      terms.reserve(e.nops());
      for (const GiNaC::expair& pair : Pairs::of(e)) {
        const Summary t = term_summary(pair);
        terms.emplace_back(t.hash, t.sign);
      }
      if (const ex& c = Pairs::coefficient(e); !c.is_zero()) {
        const Summary t = entry(c);
        terms.emplace_back(t.hash, t.sign);
      }
      std::sort(terms.begin(), terms.end());
      sign = terms.front().second;
      for (const auto& [term, term_sign] : terms) h = mix(mix(h, term), term_sign == sign ? 1 : 2);
      break;
    }
    case Function:
    case Other: {
      h = mix(h, text_hash(kind == Function ? GiNaC::ex_to<GiNaC::function>(e).get_name()
                                            : GiNaC::ex_to<GiNaC::basic>(e).class_name()));
      for (std::size_t i = 0; i < e.nops(); ++i) {
        const Summary a = entry(e.op(i));
        h = mix(mix(h, a.hash), static_cast<std::uint64_t>(a.sign + 1));
      }
      break;
    }
  }
  summaries_.push_back({h, sign, leaf});
  return seen_.insert(e).first;  // summaries_.size() - 1: the operands above were numbered first
}

CanonicalOrder::Summary CanonicalOrder::product_summary(const Factors& f) {
  // |coefficient| and the (base, exponent) multiset of factors(); -x hashes as x.
  if (f.coefficient == 1 && f.powers.size() == 1 && f.powers.begin()->second.exponent == 1) {
    const auto& [key, power] = *f.powers.begin();
    return {key, f.sign, entry(power.base).leaf};
  }
  std::uint64_t h = mix(mix(0x243f6a8885a308d3ull, static_cast<std::uint64_t>(Product)),
                        number_hash(f.coefficient));
  for (const auto& [base, power] : f.powers)
    if (!power.exponent.is_zero()) h = mix(mix(h, base), number_hash(power.exponent));
  return {h, f.sign, false};
}

CanonicalOrder::Summary CanonicalOrder::term_summary(const GiNaC::expair& term) {
  if (is_one_coefficient(term)) {
    const Summary t = entry(term.rest);
    return {t.hash, t.sign, t.leaf};
  }
  // rest·coeff as op(i) would build it: the product of rest's factors and coeff.
  return product_summary(term_factors(term));
}

CanonicalOrder::Summary CanonicalOrder::power_summary(const GiNaC::expair& factor) {
  if (is_one_coefficient(factor)) {
    const Summary t = entry(factor.rest);
    return {t.hash, t.sign, t.leaf};
  }
  Factors f;
  add_power(f, factor.rest, GiNaC::ex_to<numeric>(factor.coeff));
  return product_summary(f);
}

bool CanonicalOrder::is_one_coefficient(const GiNaC::expair& term) {
  return GiNaC::ex_to<numeric>(term.coeff).is_equal(one());
}

void CanonicalOrder::add_factor(Factors& f, const ex& factor) {
  const Kind kind = kind_of(factor);
  if (kind == Number) {
    const auto& n = GiNaC::ex_to<numeric>(factor);
    f.real = f.real && n.is_real();
    if (is_negative_real(factor)) f.sign = -f.sign;
    if (const numeric magnitude = GiNaC::abs(n); !magnitude.is_equal(one()))
      f.coefficient *= magnitude;
    return;
  }
  if (kind == Power && kind_of(factor.op(1)) == Number) {
    add_power(f, factor.op(0), GiNaC::ex_to<numeric>(factor.op(1)));
  } else {
    add_power(f, factor, one());
  }
}

void CanonicalOrder::add_power(Factors& f, const ex& base, const numeric& exponent) {
  const Summary b = entry(base);
  std::uint64_t key = b.hash;
  if (b.sign < 0) {
    if (!exponent.is_integer()) {
      key = mix(key, 3);  // (-x)^(1/2) is not ±x^(1/2): another base
    } else if (exponent.is_odd()) {
      f.sign = -f.sign;
    }
  }
  // A handful of factors: a sorted vector, no allocation per factor.
  auto it = std::lower_bound(f.powers.begin(), f.powers.end(), key,
                             [](const auto& power, std::uint64_t k) { return power.first < k; });
  if (it != f.powers.end() && it->first == key) {
    it->second.exponent += exponent;
  } else {
    f.powers.insert(it, {key, Factors::Power{base, exponent}});
  }
}

CanonicalOrder::Factors CanonicalOrder::factors(const ex& e) {
  Factors f;
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    // A pair is the power rest^coeff, op(i) would build it (rest itself when coeff is 1).
    for (const GiNaC::expair& pair : Pairs::of(e)) {
      if (is_one_coefficient(pair)) {
        add_factor(f, pair.rest);
      } else {
        add_power(f, pair.rest, GiNaC::ex_to<numeric>(pair.coeff));
      }
    }
    if (const ex& c = Pairs::coefficient(e); !is_one(c)) add_factor(f, c);
  } else {
    add_factor(f, e);
  }
  return f;
}

std::uint64_t CanonicalOrder::hash(const ex& e) { return entry(e).hash; }

int CanonicalOrder::sign(const ex& e) { return entry(e).sign; }

bool CanonicalOrder::is_leaf(const ex& e) { return entry(e).leaf; }

std::vector<std::size_t> CanonicalOrder::operand_order(const ex& e) {
  const std::size_t n = e.nops();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  const Kind kind = kind_of(e);
  if (kind != Sum && kind != Product) return order;
  // Each operand's (hash, sign) once, read from the pairs (the operands op() builds are new
  // nodes this memo has never seen); the operands themselves only to compare equal keys.
  const GiNaC::epvector& pairs = Pairs::of(e);
  std::vector<std::pair<std::uint64_t, int>> keys;
  keys.reserve(n);
  for (const GiNaC::expair& pair : pairs) {
    const Summary s = kind == Sum ? term_summary(pair) : power_summary(pair);
    keys.emplace_back(s.hash, s.sign);
  }
  for (std::size_t i = keys.size(); i < n; ++i) {
    const Summary c = entry(Pairs::coefficient(e));
    keys.emplace_back(c.hash, c.sign);
  }
  std::vector<ex> built(n);
  std::vector<bool> is_built(n, false);
  const auto operand = [&](std::size_t i) -> const ex& {
    if (!is_built[i]) {
      built[i] = e.op(i);
      is_built[i] = true;
    }
    return built[i];
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    if (keys[i] != keys[j]) return keys[i] < keys[j];
    return !operand(i).is_equal(operand(j)) && compare_structure(operand(i), operand(j)) < 0;
  });
  return order;
}

GiNaC::exvector CanonicalOrder::operands(const ex& e) {
  GiNaC::exvector sorted;
  sorted.reserve(e.nops());
  for (std::size_t i : operand_order(e)) sorted.push_back(e.op(i));
  return sorted;
}

CanonicalOrder::Factors CanonicalOrder::term_factors(const GiNaC::expair& term) {
  Factors f = factors(term.rest);
  add_factor(f, term.coeff);
  return f;
}

int CanonicalOrder::compare(const ex& a, const ex& b) {
  const Summary x = entry(a);
  const Summary y = entry(b);
  if (x.hash != y.hash) return x.hash < y.hash ? -1 : 1;
  if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
  if (a.is_equal(b)) return 0;
  return compare_structure(a, b);
}

int CanonicalOrder::compare_structure(const ex& a, const ex& b) {
  const Kind ka = kind_of(a), kb = kind_of(b);
  if (ka != kb) return ka < kb ? -1 : 1;
  if (ka == Symbol) {
    const int names = GiNaC::ex_to<GiNaC::symbol>(a).get_name().compare(
        GiNaC::ex_to<GiNaC::symbol>(b).get_name());
    if (names != 0) return names < 0 ? -1 : 1;
    return a.compare(b);  // two symbols of one name: by creation order (serial numbers)
  }
  if (ka == Number || ka == Constant) {
    const int texts = text_of(a).compare(text_of(b));
    return texts < 0 ? -1 : (texts > 0 ? 1 : 0);
  }
  if (a.nops() != b.nops()) return a.nops() < b.nops() ? -1 : 1;
  const GiNaC::exvector xs = operands(a), ys = operands(b);
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (const int c = compare(xs[i], ys[i]); c != 0) return c;
  return a.compare(b);  // equal structure but not equal: GiNaC decides (no model gets here)
}

}  // namespace appell::sym
