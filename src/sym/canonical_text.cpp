#include "appell/sym/canonical_text.hpp"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "appell/sym/canonical_order.hpp"

namespace appell::sym {

namespace {

class Writer {
 public:
  explicit Writer(TextStyle style) : style_(style) {}

  std::string text(const GiNaC::ex& e) {
    if (GiNaC::is_a<GiNaC::numeric>(e)) {
      // A negative number as its magnitude after a minus sign (GiNaC writes it so too), so that a
      // sum or a product sees its sign as it sees any other term's or factor's.
      const auto& n = GiNaC::ex_to<GiNaC::numeric>(e);
      if (n.is_real() && n.is_negative()) return "-" + leaf(-n);
      return leaf(e);
    }
    if (GiNaC::is_a<GiNaC::add>(e)) return joined(signed_terms(e));
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      // The factors flattened, each written with its sign moved to the product, then put in the
      // order of their texts (numbers, then names and functions, then groups): GiNaC may hand a
      // factor back as a product of its own (a power of a sum with the sign pulled out), so its
      // place among the operands may differ from run to run; its text does not.
      bool negative = false;
      std::vector<std::pair<int, std::string>> factors;
      collect_factors(e, negative, factors);
      std::sort(factors.begin(), factors.end());
      std::string out;
      for (const auto& [rank, f] : factors) out += (out.empty() ? "" : "*") + f;
      if (out.empty()) out = leaf(GiNaC::ex(1));
      return negative ? "-" + out : out;
    }
    if (GiNaC::is_a<GiNaC::power>(e)) {
      // An integer power of a sum whose first term is negative is written of the negated sum
      // (with a minus sign for an odd power): GiNaC keeps (a − b)² or (b − a)², as it keeps a sum
      // factor of a product with either sign.
      if (GiNaC::is_a<GiNaC::add>(e.op(0)) && GiNaC::is_a<GiNaC::numeric>(e.op(1)) &&
          GiNaC::ex_to<GiNaC::numeric>(e.op(1)).is_integer()) {
        const auto terms = signed_terms(e.op(0));
        const bool leads_negative = !terms.empty() && terms.front().minus;
        const std::string power = "(" + joined(terms, leads_negative) + ")^" + grouped(e.op(1));
        return leads_negative && GiNaC::ex_to<GiNaC::numeric>(e.op(1)).is_odd() ? "-" + power
                                                                                : power;
      }
      return grouped(e.op(0)) + "^" + grouped(e.op(1));
    }
    if (GiNaC::is_a<GiNaC::fderivative>(e)) {
      // D[0,1](f)(x, y), as GiNaC writes it: the derivative's indices keep it apart from f(x, y).
      std::string out = "D[";
      bool first = true;
      for (const unsigned i : GiNaC::ex_to<GiNaC::fderivative>(e).derivatives()) {
        out += (first ? "" : ",") + std::to_string(i);
        first = false;
      }
      return out + "](" + name('f', GiNaC::ex_to<GiNaC::function>(e).get_name()) + ")" +
             arguments(e);
    }
    if (GiNaC::is_a<GiNaC::function>(e))
      return name('f', GiNaC::ex_to<GiNaC::function>(e).get_name()) + arguments(e);
    if (style_ == TextStyle::Marked && !GiNaC::is_a<GiNaC::symbol>(e) &&
        !GiNaC::is_a<GiNaC::constant>(e)) {
      // Any other node by its kind (a matrix with its shape) and its operands in their own order.
      std::string kind = GiNaC::ex_to<GiNaC::basic>(e).class_name();
      if (GiNaC::is_a<GiNaC::matrix>(e)) {
        const auto& m = GiNaC::ex_to<GiNaC::matrix>(e);
        kind += "[" + std::to_string(m.rows()) + "," + std::to_string(m.cols()) + "]";
      }
      return name('o', kind) + arguments(e);
    }
    return leaf(e);
  }

 private:
  // A sum's term: its text without its sign, and the sign.
  struct Term {
    std::string text;
    bool minus;
    bool operator<(const Term& other) const {
      return text != other.text ? text < other.text : minus < other.minus;
    }
  };

  // The terms of a sum in the order of their texts without the sign (then the positive first):
  // for the same reason as a product's factors, a term's text does not depend on how GiNaC holds
  // it, its place among the operands may.
  std::vector<Term> signed_terms(const GiNaC::ex& sum) {
    std::vector<Term> terms;
    for (const GiNaC::ex& term : order_.operands(sum)) {
      std::string t = text(term);
      const bool minus = !t.empty() && t[0] == '-';
      terms.push_back({minus ? t.substr(1) : std::move(t), minus});
    }
    std::sort(terms.begin(), terms.end());
    return terms;
  }

  // The sum of `terms`, negated when `negate` (each sign turned, in the order that gives).
  static std::string joined(std::vector<Term> terms, bool negate = false) {
    if (negate) {
      for (Term& t : terms) t.minus = !t.minus;
      std::sort(terms.begin(), terms.end());
    }
    std::string out;
    for (const Term& t : terms) {
      if (out.empty())
        out = (t.minus ? "-" : "") + t.text;
      else
        out += (t.minus ? " - " : " + ") + t.text;
    }
    return out;
  }

  // The factors of the product `e`, nested products flattened, each with its rank (0 a number,
  // 1 a name or function, 2 a group) and its text without a sign; `negative` flips with each
  // sign taken out.
  void collect_factors(const GiNaC::ex& e, bool& negative,
                       std::vector<std::pair<int, std::string>>& out) {
    for (const GiNaC::ex& factor : order_.operands(e)) {
      if (GiNaC::is_a<GiNaC::mul>(factor)) {
        collect_factors(factor, negative, out);
        continue;
      }
      if (GiNaC::is_a<GiNaC::numeric>(factor)) {
        // The coefficient by its magnitude: GiNaC keeps −1/3·c·(a − b) or 1/3·c·(b − a).
        GiNaC::numeric n = GiNaC::ex_to<GiNaC::numeric>(factor);
        if (n.is_real() && n.is_negative()) {
          negative = !negative;
          n = -n;
        }
        if (n.is_integer() && n.is_equal(1)) continue;
        out.emplace_back(0, grouped(n));
        continue;
      }
      std::string f = sign_normalized(factor, negative);
      if (!f.empty() && f[0] == '-') {
        negative = !negative;
        f = f.substr(1);
      }
      out.emplace_back(!f.empty() && f[0] == '(' ? 2 : 1, f);
    }
  }

  // A factor of a product other than a number or a product: a sum in parentheses, anything else
  // as it is written alone (a power too: "^" binds before "*", and a term −x² must read as the
  // sign and the text of x², for its sum to order its terms by their texts without the sign).
  // GiNaC keeps a sum factor with either sign, by its hash order (−cos(λ)·(−rR + rF) in one run,
  // cos(λ)·(rR − rF) in the next): a sum whose first term is negative is written negated, the
  // sign moved to the product (`negative` flips), so that the text does not depend on it.
  std::string sign_normalized(const GiNaC::ex& factor, bool& negative) {
    if (GiNaC::is_a<GiNaC::add>(factor)) {
      const auto terms = signed_terms(factor);
      const bool leads_negative = !terms.empty() && terms.front().minus;
      if (leads_negative) negative = !negative;
      return "(" + joined(terms, leads_negative) + ")";
    }
    return text(factor);
  }

  // A sum, product, power, fraction or anything written with a leading minus in parentheses (as
  // a coefficient of a product, or the base or exponent of a power: GiNaC reads x^-1*y as
  // x^(-y)).
  std::string grouped(const GiNaC::ex& e) {
    const std::string t = text(e);
    const bool compound =
        GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e) || GiNaC::is_a<GiNaC::power>(e) ||
        (GiNaC::is_a<GiNaC::numeric>(e) && !GiNaC::ex_to<GiNaC::numeric>(e).is_integer()) ||
        (!t.empty() && t[0] == '-');
    return compound ? "(" + t + ")" : t;
  }

  // A function's (or another node's) operands in their own order, in parentheses.
  std::string arguments(const GiNaC::ex& e) {
    std::string out = "(";
    for (std::size_t i = 0; i < e.nops(); ++i) out += (i ? ", " : "") + text(e.op(i));
    return out + ")";
  }

  // A name (`kind` 's' a symbol, 'k' a constant, 'f' a function, 'o' another kind of node) or a
  // number ('n') as written: marked, it says its kind and length so that no character of it
  // (a name may hold any) reads as syntax.
  std::string name(char kind, const std::string& written) const {
    if (style_ == TextStyle::Readable) return written;
    return kind + std::to_string(written.size()) + ":" + written;
  }

  // A symbol, a constant or a number (GiNaC's (CLN's) text of a number is exact: a rational as
  // p/q, a float with the digits that read back as the same float), or in the readable style
  // whatever else as GiNaC prints it.
  std::string leaf(const GiNaC::ex& e) const {
    if (GiNaC::is_a<GiNaC::symbol>(e)) return name('s', GiNaC::ex_to<GiNaC::symbol>(e).get_name());
    std::ostringstream written;
    written << e;
    if (GiNaC::is_a<GiNaC::numeric>(e)) return name('n', written.str());
    if (GiNaC::is_a<GiNaC::constant>(e)) return name('k', written.str());
    return written.str();
  }

  TextStyle style_;
  CanonicalOrder order_;
};

}  // namespace

std::string canonical_text(const GiNaC::ex& e, TextStyle style) { return Writer(style).text(e); }

}  // namespace appell::sym
