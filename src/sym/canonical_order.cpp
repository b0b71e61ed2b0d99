#include "appell/sym/canonical_order.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "appell/sym/dag.hpp"

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

Kind kind_of(const ex& e) {
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

}  // namespace

const CanonicalOrder::Entry& CanonicalOrder::entry(const ex& e) {
  const void* key = node_key(e);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const Kind kind = kind_of(e);
  std::uint64_t h = mix(0x243f6a8885a308d3ull, static_cast<std::uint64_t>(kind));
  int sign = 1;
  bool leaf = e.nops() == 0;
  switch (kind) {
    case Number:
      sign = is_negative_real(e) ? -1 : 1;
      h = mix(h, text_hash(text_of(sign < 0 ? ex(-e) : e)));
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
        const Entry& base = entry(e.op(0));
        const Entry& exponent = entry(e.op(1));
        h = mix(mix(mix(h, base.hash), exponent.hash),
                static_cast<std::uint64_t>(exponent.sign + 1));
        if (base.sign < 0) h = mix(h, 3);
        break;
      }
      // |coefficient| and the (base, exponent) multiset of factors(); -x hashes as x.
      const Factors f = factors(e);
      sign = f.sign;
      if (f.coefficient == 1 && f.powers.size() == 1 && f.powers.begin()->second.exponent == 1) {
        h = f.powers.begin()->first;
        leaf = entry(f.powers.begin()->second.base).leaf;
        break;
      }
      h = mix(mix(0x243f6a8885a308d3ull, static_cast<std::uint64_t>(Product)),
              text_hash(text_of(f.coefficient)));
      for (const auto& [base, power] : f.powers)
        if (!power.exponent.is_zero()) h = mix(mix(h, base), text_hash(text_of(power.exponent)));
      break;
    }
    case Sum: {
      // The terms' hashes with their signs relative to the first term's (the smallest hash):
      // a - b and b - a hash alike, with opposite signs.
      std::vector<std::pair<std::uint64_t, int>> terms;
      for (std::size_t i = 0; i < e.nops(); ++i) {
        const Entry& t = entry(e.op(i));
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
        const Entry& a = entry(e.op(i));
        h = mix(mix(h, a.hash), static_cast<std::uint64_t>(a.sign + 1));
      }
      break;
    }
  }
  return memo_.emplace(key, Entry{e, h, sign, leaf}).first->second;
}

CanonicalOrder::Factors CanonicalOrder::factors(const ex& e) {
  Factors f;
  const auto add = [&](const ex& factor) {
    if (GiNaC::is_a<numeric>(factor)) {
      const auto& n = GiNaC::ex_to<numeric>(factor);
      f.real = f.real && n.is_real();
      if (is_negative_real(factor)) f.sign = -f.sign;
      f.coefficient *= GiNaC::abs(n);
      return;
    }
    const bool numeric_power =
        GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<numeric>(factor.op(1));
    const ex base = numeric_power ? factor.op(0) : factor;
    const numeric exponent = numeric_power ? GiNaC::ex_to<numeric>(factor.op(1)) : numeric(1);
    const Entry& b = entry(base);
    std::uint64_t key = b.hash;
    if (b.sign < 0) {
      if (!exponent.is_integer()) {
        key = mix(key, 3);  // (-x)^(1/2) is not ±x^(1/2): another base
      } else if (exponent.is_odd()) {
        f.sign = -f.sign;
      }
    }
    auto [it, inserted] = f.powers.try_emplace(key, Factors::Power{base, exponent});
    if (!inserted) it->second.exponent += exponent;
  };
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    for (std::size_t i = 0; i < e.nops(); ++i) add(e.op(i));
  } else {
    add(e);
  }
  return f;
}

std::uint64_t CanonicalOrder::hash(const ex& e) { return entry(e).hash; }

int CanonicalOrder::sign(const ex& e) { return entry(e).sign; }

bool CanonicalOrder::is_leaf(const ex& e) { return entry(e).leaf; }

GiNaC::exvector CanonicalOrder::operands(const ex& e) {
  GiNaC::exvector ops;
  ops.reserve(e.nops());
  for (std::size_t i = 0; i < e.nops(); ++i) ops.push_back(e.op(i));
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e))
    std::stable_sort(ops.begin(), ops.end(),
                     [this](const ex& a, const ex& b) { return compare(a, b) < 0; });
  return ops;
}

int CanonicalOrder::compare(const ex& a, const ex& b) {
  const Entry& x = entry(a);
  const Entry& y = entry(b);
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
