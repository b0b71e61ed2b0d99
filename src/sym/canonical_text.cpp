#include "appell/sym/canonical_text.hpp"

#include <sstream>

#include "appell/sym/canonical_order.hpp"

namespace appell::sym {

namespace {

class Writer {
 public:
  std::string text(const GiNaC::ex& e) {
    if (GiNaC::is_a<GiNaC::add>(e)) {
      std::string out;
      for (const GiNaC::ex& term : order_.operands(e)) {
        const std::string t = text(term);
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
      std::string out;
      bool negative = false;
      for (const GiNaC::ex& factor : order_.operands(e)) {
        if (factor.is_equal(-1)) {
          negative = !negative;
          continue;
        }
        std::string f = sign_normalized(factor, negative);
        if (!f.empty() && f[0] == '-') {
          negative = !negative;
          f = f.substr(1);
        }
        out += (out.empty() ? "" : "*") + f;
      }
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
  // Whether a sum's first term in the canonical order is written with a minus sign.
  bool leads_negative(const GiNaC::ex& sum) {
    const auto terms = order_.operands(sum);
    if (terms.empty()) return false;
    const std::string first = text(terms.front());
    return !first.empty() && first[0] == '-';
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
