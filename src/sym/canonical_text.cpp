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
  std::string text(const GiNaC::ex& e) {
    if (GiNaC::is_a<GiNaC::add>(e)) {
      std::string out;
      for (const std::string& t : term_texts(e)) {
        if (out.empty())
          out = t;
        else if (!t.empty() && t[0] == '-')
          out += " - " + t.substr(1);
        else
          out += " + " + t;
      }
      return out;
    }
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
      if (out.empty()) out = "1";
      return negative ? "-" + out : out;
    }
    if (GiNaC::is_a<GiNaC::power>(e)) return grouped(e.op(0)) + "^" + grouped(e.op(1));
    if (GiNaC::is_a<GiNaC::function>(e)) {
      std::string out = GiNaC::ex_to<GiNaC::function>(e).get_name() + "(";
      for (std::size_t i = 0; i < e.nops(); ++i) out += (i ? ", " : "") + text(e.op(i));
      return out + ")";
    }
    std::ostringstream leaf;
    leaf << e;
    return leaf.str();
  }

 private:
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
      if (factor.is_equal(-1)) {
        negative = !negative;
        continue;
      }
      std::string f = sign_normalized(factor, negative);
      if (!f.empty() && f[0] == '-') {
        negative = !negative;
        f = f.substr(1);
      }
      if (f == "1") continue;
      const int rank = GiNaC::is_a<GiNaC::numeric>(factor) ? 0 : (f[0] == '(' ? 2 : 1);
      out.emplace_back(rank, f);
    }
  }

  // The texts of a sum's terms in the order of their texts without the sign (then the positive
  // first): for the same reason as a product's factors, a term's text does not depend on how
  // GiNaC holds it, its place among the operands may.
  std::vector<std::string> term_texts(const GiNaC::ex& sum) {
    std::vector<std::pair<std::string, std::string>> keyed;
    for (const GiNaC::ex& term : order_.operands(sum)) {
      std::string t = text(term);
      const bool minus = !t.empty() && t[0] == '-';
      keyed.emplace_back((minus ? t.substr(1) : t) + (minus ? "\x01" : ""), std::move(t));
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::string> texts;
    for (auto& [key, t] : keyed) texts.push_back(std::move(t));
    return texts;
  }

  // Whether a sum's first term (term_texts' order) is written with a minus sign.
  bool leads_negative(const GiNaC::ex& sum) {
    const auto terms = term_texts(sum);
    return !terms.empty() && !terms.front().empty() && terms.front()[0] == '-';
  }

  // A factor of a product, grouped. GiNaC keeps a sum factor with either sign, by its hash order
  // (−cos(λ)·(−rR + rF) in one run, cos(λ)·(rR − rF) in the next): a sum, or an integer power of
  // one, whose first term is negative is written negated, the sign moved to the product
  // (`negative` flips), so that the text does not depend on it.
  std::string sign_normalized(const GiNaC::ex& factor, bool& negative) {
    if (GiNaC::is_a<GiNaC::add>(factor) && leads_negative(factor)) {
      negative = !negative;
      return grouped(-factor);
    }
    if (GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<GiNaC::add>(factor.op(0)) &&
        GiNaC::is_a<GiNaC::numeric>(factor.op(1)) &&
        GiNaC::ex_to<GiNaC::numeric>(factor.op(1)).is_integer() && leads_negative(factor.op(0))) {
      if (GiNaC::ex_to<GiNaC::numeric>(factor.op(1)).is_odd()) negative = !negative;
      return "(" + text(-factor.op(0)) + ")^" + grouped(factor.op(1));
    }
    return grouped(factor);
  }

  // A sum, product, power or fraction in parentheses (as an operand of a product or power).
  std::string grouped(const GiNaC::ex& e) {
    const std::string t = text(e);
    const bool compound =
        GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e) || GiNaC::is_a<GiNaC::power>(e) ||
        (GiNaC::is_a<GiNaC::numeric>(e) && !GiNaC::ex_to<GiNaC::numeric>(e).is_integer());
    return compound ? "(" + t + ")" : t;
  }

  CanonicalOrder order_;
};

}  // namespace

std::string canonical_text(const GiNaC::ex& e) { return Writer().text(e); }

}  // namespace appell::sym
