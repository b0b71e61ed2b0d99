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
        std::string f = grouped(factor);
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
