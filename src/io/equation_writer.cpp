#include "appell/io/equation_writer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "appell/model/values.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/sym/canonical_order.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/time_functions.hpp"
#include "cost_json.hpp"
#include "form_writers.hpp"
#include "matrix_listing.hpp"

namespace appell::io {

sym::ReadableContext readable_context(const model::Model& model) {
  return principles::readable_context(model);
}

namespace {

using GiNaC::ex;
using GiNaC::exvector;
using GiNaC::numeric;

enum class Notation { Text, Latex };

bool is_identifier(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string digits(const numeric& integer) {
  std::ostringstream out;
  out << integer;
  return out.str();
}

/// Shortest text that reads back as the same double ("0.5", "2e-06").
std::string shortest_double(double value) {
  if (value == 0.0) value = 0.0;  // never "-0"
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined += separator;
    joined += parts[i];
  }
  return joined;
}

/// LaTeX spellings of the model language's functions (MODEL_FORMAT.md, "Expressions").
const std::map<std::string, std::string>& latex_functions() {
  static const std::map<std::string, std::string> names = {
      {"sin", "\\sin"},     {"cos", "\\cos"},     {"tan", "\\tan"},
      {"asin", "\\arcsin"}, {"acos", "\\arccos"}, {"atan", "\\arctan"},
      {"sinh", "\\sinh"},   {"cosh", "\\cosh"},   {"tanh", "\\tanh"},
      {"exp", "\\exp"},     {"log", "\\ln"},      {"atan2", "\\operatorname{atan2}"}};
  return names;
}

bool is_power_prefix_function(const std::string& name) {
  // Written \cos^{2}\left(q\right) rather than with the power after the parenthesis.
  static const std::vector<std::string> names = {"sin", "cos", "tan", "sinh", "cosh", "tanh"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// appell's expression printer (file comment of equation_writer.hpp). Each distinct node is
/// printed once and its text reused wherever the node is shared.
class Printer {
 public:
  Printer(const sym::ReadableContext& context, Notation notation, std::size_t max_chars)
      : notation_(notation), max_chars_(max_chars) {
    for (std::size_t i = 0; i < context.parameters.size(); ++i)
      parameters_.emplace(context.parameters[i], i);
    const std::size_t n = context.accelerations.size();
    for (std::size_t i = 0; i < n; ++i) motion_.emplace(context.accelerations[i], i);
    for (std::size_t i = 0; i < context.velocities.size(); ++i)
      motion_.emplace(context.velocities[i], n + i);
    accelerations_ = n;
    for (std::size_t i = 0; i < context.coordinates.size(); ++i)
      coordinates_.emplace(context.coordinates[i], i);
  }

  std::string print(const ex& e) {
    const Signed& s = signed_form(e);
    return s.negative ? "-" + s.magnitude : s.magnitude;
  }

 private:
  /// A node's text split into sign and magnitude, so that sums can write " - " rather than
  /// "+ -".
  struct Signed {
    bool negative = false;
    std::string magnitude;
  };
  /// Where a factor goes in a product, in this order.
  enum class Place { Parameter, Symbol, Function, Other, Sum, Motion };

  const Signed& signed_form(const ex& e) {
    const void* key = sym::node_key(e);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second.second;
    Signed s = compute(e);
    produced_ += s.magnitude.size();
    check_budget(0);
    return cache_.emplace(key, std::make_pair(e, std::move(s))).first->second.second;
  }

  Signed compute(const ex& e) {
    if (GiNaC::is_a<numeric>(e)) {
      const numeric& n = GiNaC::ex_to<numeric>(e);
      if (n.is_real() && n.is_negative()) return {true, number(-n)};
      return {false, number(n)};
    }
    if (GiNaC::is_a<GiNaC::add>(e)) return {false, sum(e)};
    if (GiNaC::is_a<GiNaC::mul>(e) || sign_flips(e)) {
      const Reading& reading = read(e);
      numeric coefficient = reading.coefficient;
      const exvector& factors = reading.factors;
      const auto is_sum = [](const ex& f) { return GiNaC::is_a<GiNaC::add>(f); };
      const auto sum_factor = std::find_if(factors.begin(), factors.end(), is_sum);
      std::optional<std::string> sum_text;
      if (sum_factor != factors.end() &&
          std::find_if(sum_factor + 1, factors.end(), is_sum) == factors.end()) {
        const auto [front, scale] = regroup(coefficient, *sum_factor);
        if (scale != 1) {
          coefficient = front;
          sum_text = sum(*sum_factor, scale);
        }
      }
      const bool negative = coefficient.is_real() && coefficient.is_negative();
      return {negative, product(negative ? -coefficient : coefficient, factors,
                                sum_text ? &*sum_text : nullptr)};
    }
    if (GiNaC::is_a<GiNaC::power>(e)) {
      if (is_negative_number(e.op(1))) return {false, product(1, {e})};
      return {false, power(e.op(0), e.op(1))};
    }
    if (GiNaC::is_a<GiNaC::symbol>(e)) return {false, symbol(GiNaC::ex_to<GiNaC::symbol>(e))};
    if (GiNaC::is_a<GiNaC::constant>(e) && e.is_equal(GiNaC::Pi))
      return {false, latex() ? "\\pi" : "pi"};
    if (GiNaC::is_a<GiNaC::function>(e)) return {false, function(e)};
    // Nothing a model produces; GiNaC's own spelling keeps it visible.
    std::ostringstream out;
    if (latex()) out << GiNaC::latex;
    out << e;
    return {false, out.str()};
  }

  bool latex() const { return notation_ == Notation::Latex; }

  /// Every node's text is kept for reuse, so what the printer holds is the total of all texts
  /// it made; that total, with `pending` characters about to be added, must stay in budget.
  void check_budget(std::size_t pending) const {
    if (produced_ + pending > max_chars_)
      throw std::length_error("expression too large to print (more than " +
                              std::to_string(max_chars_) +
                              " characters); simplify the equations first");
  }

  static bool is_negative_number(const ex& e) {
    return GiNaC::is_a<numeric>(e) && GiNaC::ex_to<numeric>(e).is_real() &&
           GiNaC::ex_to<numeric>(e).is_negative();
  }

  std::string parenthesised(const std::string& s) const {
    return latex() ? "\\left(" + s + "\\right)" : "(" + s + ")";
  }

  /// A non-negative number (a complex one in parentheses).
  std::string number(const numeric& n) {
    if (n.is_integer()) return digits(n);
    if (n.is_rational()) {
      if (auto decimal = decimal_text(n)) return *decimal;
      if (latex()) return "\\frac{" + digits(n.numer()) + "}{" + digits(n.denom()) + "}";
      return digits(n.numer()) + "/" + digits(n.denom());
    }
    if (n.is_real()) {
      std::string text = shortest_double(n.to_double());
      if (!latex()) return text;
      const auto e = text.find('e');
      if (e == std::string::npos) return text;
      return text.substr(0, e) + " \\cdot 10^{" + text.substr(e + 1) + "}";
    }
    std::ostringstream out;
    if (latex()) out << GiNaC::latex;
    out << n;
    return parenthesised(out.str());
  }

  /// A positive rational as the decimal it equals exactly, when it is one that reads as a
  /// decimal: its denominator 2^a 5^b with a factor 5 and at least 10 (what decimals written in
  /// a model or URDF file become: 0.1197 is 1197/10000, 9.81 is 981/100), so that 1/2, 1/4 and
  /// 2/5 of the formulas stay fractions. Small values take an exponent (4.43e-12; in LaTeX
  /// 4.43 \cdot 10^{-12}). The model language reads either back as the same rational.
  std::optional<std::string> decimal_text(const numeric& n) const {
    numeric denominator = n.denom();
    if (denominator < 10) return std::nullopt;
    int twos = 0, fives = 0;
    while (GiNaC::irem(denominator, 2).is_zero()) {
      denominator = denominator / 2;
      ++twos;
    }
    while (GiNaC::irem(denominator, 5).is_zero()) {
      denominator = denominator / 5;
      ++fives;
    }
    if (denominator != 1 || fives == 0) return std::nullopt;
    const int places = std::max(twos, fives);
    // n = scaled / 10^places exactly.
    const std::string scaled = digits(n * numeric(10).power(places));
    std::string text;
    if (static_cast<int>(scaled.size()) > places) {
      text = scaled.substr(0, scaled.size() - places) + "." + scaled.substr(scaled.size() - places);
    } else {
      const int zeros = places - static_cast<int>(scaled.size());
      if (zeros < 4) {
        text = "0." + std::string(static_cast<std::size_t>(zeros), '0') + scaled;
      } else {
        // scaled = d.ddd * 10^(size - 1), so n = d.ddd * 10^(size - 1 - places).
        std::string mantissa = scaled.substr(0, 1);
        std::string rest = scaled.substr(1);
        while (!rest.empty() && rest.back() == '0') rest.pop_back();
        if (!rest.empty()) mantissa += "." + rest;
        const std::string exponent = std::to_string(static_cast<int>(scaled.size()) - 1 - places);
        return latex() ? mantissa + " \\cdot 10^{" + exponent + "}" : mantissa + "e" + exponent;
      }
    }
    while (text.back() == '0') text.pop_back();
    return text;
  }

  std::string symbol(const GiNaC::symbol& s) const {
    const std::string name = s.get_name();
    if (!latex()) return name;
    // Time-function symbols carry their LaTeX (\dot{q}_{1}); model names are spelled by rule.
    return is_identifier(name) ? sym::latex_identifier(name) : s.get_TeX_name();
  }

  std::string function(const ex& e) {
    const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    std::vector<std::string> arguments;
    for (const ex& argument : e) arguments.push_back(print(argument));
    const std::string list = join(arguments, ", ");
    if (!latex()) return name + "(" + list + ")";
    if (name == "abs") return "\\left|" + list + "\\right|";
    return latex_function_name(name) + parenthesised(list);
  }

  static std::string latex_function_name(const std::string& name) {
    const auto& names = latex_functions();
    if (auto it = names.find(name); it != names.end()) return it->second;
    return "\\operatorname{" + name + "}";
  }

  /// base^exponent for a positive or symbolic exponent.
  std::string power(const ex& base, const ex& exponent) {
    if (exponent.is_equal(GiNaC::numeric(1, 2)))
      return latex() ? "\\sqrt{" + print(base) + "}" : "sqrt(" + print(base) + ")";
    const bool whole = exponent.info(GiNaC::info_flags::posint);
    if (latex()) {
      if (whole && GiNaC::is_a<GiNaC::function>(base)) {
        const std::string name = GiNaC::ex_to<GiNaC::function>(base).get_name();
        if (is_power_prefix_function(name)) {
          std::vector<std::string> arguments;
          for (const ex& argument : base) arguments.push_back(print(argument));
          return latex_function_name(name) + "^{" + print(exponent) + "}" +
                 parenthesised(join(arguments, ", "));
        }
      }
      return base_operand(base, false) + "^{" + print(exponent) + "}";
    }
    const bool plain_exponent = whole || GiNaC::is_a<GiNaC::symbol>(exponent);
    return base_operand(base, true) + "^" +
           (plain_exponent ? print(exponent) : parenthesised(print(exponent)));
  }

  /// The base of a power: names and positive integers as they are, anything else parenthesised
  /// (in LaTeX a function too, since \exp\left(x\right)^{2} would read as exp(x^2)).
  std::string base_operand(const ex& base, bool function_is_plain) {
    const bool plain = GiNaC::is_a<GiNaC::symbol>(base) || GiNaC::is_a<GiNaC::constant>(base) ||
                       base.info(GiNaC::info_flags::posint) ||
                       (function_is_plain && GiNaC::is_a<GiNaC::function>(base));
    return plain ? print(base) : parenthesised(print(base));
  }

  /// A factor of a product with a positive (or symbolic) exponent: sums parenthesised.
  std::string operand(const ex& factor) {
    if (GiNaC::is_a<GiNaC::add>(factor)) return parenthesised(print(factor));
    if (GiNaC::is_a<GiNaC::power>(factor)) return power(factor.op(0), factor.op(1));
    return print(factor);
  }

  /// GiNaC keeps a sum factor primitive, pulling its numeric content into the product's
  /// coefficient: M*l^2*(5/3 + cos(q2)) is stored as 1/3*M*l^2*(5 + 3*cos(q2)). For a product
  /// with exactly one sum, the coefficient is put back into the sum's terms and only what they
  /// all share is taken out again (the same rule as sym::readable): a common magnitude, and the
  /// sign when all are negative. Returns {coefficient left in front, scale of the sum's terms}.
  std::pair<numeric, numeric> regroup(const numeric& coefficient, const ex& sum) {
    if (!coefficient.is_real()) return {coefficient, 1};
    std::optional<numeric> shared;
    bool same_magnitude = true, all_negative = true;
    for (const ex& term : sum) {
      const numeric c = coefficient * numeric_factor(term);
      if (!c.is_real()) return {coefficient, 1};
      if (!c.is_negative()) all_negative = false;
      if (shared && *shared != GiNaC::abs(c)) same_magnitude = false;
      shared = GiNaC::abs(c);
    }
    numeric front = same_magnitude && shared ? *shared : numeric(1);
    if (all_negative) front = -front;
    return {front, coefficient / front};
  }

  numeric numeric_factor(const ex& term) { return read(term).coefficient; }

  /// A term of a sum whose coefficients are multiplied by `scale`. Only its own text is new:
  /// its factors are the original, shared nodes (or their sign-normalised variants).
  Signed scaled_term(const ex& term, const numeric& scale) {
    const Reading& reading = read(term);
    numeric c = scale * reading.coefficient;
    const bool negative = c.is_real() && c.is_negative();
    if (negative) c = -c;
    return {negative, reading.factors.empty() ? number(c) : product(c, reading.factors)};
  }

  /// A product as its numeric coefficient and its other factors, every sum among them (alone or
  /// raised to a whole power) in the variant of its sign that reads_negated() does not prefer,
  /// the sign moved into the coefficient, and the variants of one base merged (A·(-A) is -A²).
  /// GiNaC leaves a sign inside a sum factor or in front of the product depending on its term
  /// order, which changes from run to run with the addresses of its type names; the printed text
  /// must not (sym/canonical_order.hpp).
  struct Reading {
    numeric coefficient = 1;
    exvector factors;
  };

  const Reading& read(const ex& term) {
    const void* key = sym::node_key(term);
    if (auto it = readings_.find(key); it != readings_.end()) return it->second.second;
    Reading reading;
    const auto take = [&](const ex& factor) {
      if (GiNaC::is_a<numeric>(factor)) {
        reading.coefficient *= GiNaC::ex_to<numeric>(factor);
        return;
      }
      const bool whole_power =
          GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).info(GiNaC::info_flags::integer);
      ex base = whole_power ? factor.op(0) : factor;
      numeric exponent = whole_power ? GiNaC::ex_to<numeric>(factor.op(1)) : numeric(1);
      if (GiNaC::is_a<GiNaC::add>(base) && reads_negated(base)) {
        base = (-base).eval();
        if (exponent.is_odd()) reading.coefficient = -reading.coefficient;
      } else if (!whole_power) {
        reading.factors.push_back(factor);  // kept as it is: the shared node
        return;
      }
      for (ex& f : reading.factors) {
        const bool f_power =
            GiNaC::is_a<GiNaC::power>(f) && f.op(1).info(GiNaC::info_flags::integer);
        const ex f_base = f_power ? f.op(0) : f;
        if (!f_base.is_equal(base)) continue;
        const numeric total = exponent + (f_power ? GiNaC::ex_to<numeric>(f.op(1)) : numeric(1));
        f = unevaluated_power(base, total);
        return;
      }
      reading.factors.push_back(exponent == 1 ? base : unevaluated_power(base, exponent));
    };
    if (GiNaC::is_a<GiNaC::mul>(term)) {
      for (const ex& factor : term) take(factor);
    } else {
      take(term);
    }
    // A merged power may have become 1 (A·A⁻¹ does not reach here from GiNaC, but stay safe).
    reading.factors.erase(std::remove_if(reading.factors.begin(), reading.factors.end(),
                                         [](const ex& f) { return f.is_equal(1); }),
                          reading.factors.end());
    return readings_.emplace(key, std::make_pair(term, std::move(reading))).first->second.second;
  }

  /// base^exponent as written: GiNaC's evaluation would give an integer power of a sum the sign
  /// of its own (run-dependent) leading term again, undoing read()'s choice.
  static ex unevaluated_power(const ex& base, const numeric& exponent) {
    if (exponent == 1) return base;
    return (new GiNaC::power(base, exponent))
        ->setflag(GiNaC::status_flags::dynallocated | GiNaC::status_flags::evaluated);
  }

  /// Whether a power or a lone factor would print differently once read (a whole power of a
  /// sum that reads negated): such a node goes through the product path.
  bool sign_flips(const ex& e) {
    return GiNaC::is_a<GiNaC::power>(e) && e.op(1).info(GiNaC::info_flags::integer) &&
           GiNaC::is_a<GiNaC::add>(e.op(0)) && reads_negated(e.op(0));
  }

  /// Whether a sum factor reads better as -(−S): when more of its terms are negative than
  /// positive, or as many and the first in printed order is negative; b - a becomes -(a - b)
  /// only so that every run prints the same.
  bool reads_negated(const ex& sum) {
    const void* key = sym::node_key(sum);
    if (auto it = negated_.find(key); it != negated_.end()) return it->second.second;
    int balance = 0;  // positive terms minus negative ones
    for (const ex& term : sum) {
      const numeric c = numeric_factor(term);
      if (!c.is_real()) continue;
      balance += c.is_negative() ? -1 : 1;
    }
    bool negated = balance < 0;
    if (balance == 0) {
      const std::vector<Term> terms = ordered_terms(sum, 1, nullptr);
      // By the sign read() gives the first term, not by its text: a term's text may take its
      // sign back into its sum factor (regroup), and the two variants would disagree.
      negated = !terms.empty() && terms.front().negative_coefficient;
    }
    return negated_.emplace(key, std::make_pair(sum, negated)).first->second.second;
  }

  /// Orders texts as people do: digit runs by value (q2 before q10), and what closes a group
  /// before anything else (cos(q1) before cos(q1 + q2); in LaTeX "}" and "\\right").
  static bool natural_less(const std::string& a, const std::string& b) {
    const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    const auto rank = [](char c) {
      const bool closing = c == ')' || c == ',' || c == '}' || c == '\\';
      return closing ? 0 : c == ' ' ? 1 : 2 + static_cast<unsigned char>(c);
    };
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (is_digit(a[i]) && is_digit(b[j])) {
        std::size_t i_end = i, j_end = j;
        while (i_end < a.size() && is_digit(a[i_end])) ++i_end;
        while (j_end < b.size() && is_digit(b[j_end])) ++j_end;
        const std::string run_a = a.substr(i, i_end - i), run_b = b.substr(j, j_end - j);
        if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
        if (run_a != run_b) return run_a < run_b;
        i = i_end;
        j = j_end;
        continue;
      }
      if (a[i] != b[j]) return rank(a[i]) < rank(b[j]);
      ++i;
      ++j;
    }
    return a.size() - i < b.size() - j;
  }

  /// Where a factor with this base goes, and a text to order equals by.
  struct Rank {
    Place place;
    std::size_t index;
    const std::string* text;
    bool operator<(const Rank& other) const {
      if (place != other.place) return place < other.place;
      if (index != other.index) return index < other.index;
      return natural_less(*text, *other.text);
    }
  };
  /// A factor's rank goes by its base (l, l^2 and 1/l rank alike), whose text is printed
  /// before the factor's own.
  Rank rank(const ex& factor) {
    const ex base = GiNaC::is_a<GiNaC::power>(factor) ? factor.op(0) : factor;
    const auto [where, index] = place(base);
    return {where, index, &signed_form(base).magnitude};
  }

  std::pair<Place, std::size_t> place(const ex& base) const {
    if (GiNaC::is_a<GiNaC::symbol>(base)) {
      if (auto it = parameters_.find(base); it != parameters_.end())
        return {Place::Parameter, it->second};
      if (auto it = motion_.find(base); it != motion_.end()) return {Place::Motion, it->second};
      if (auto it = coordinates_.find(base); it != coordinates_.end())
        return {Place::Symbol, it->second};
      return {Place::Symbol, coordinates_.size()};
    }
    if (GiNaC::is_a<GiNaC::constant>(base)) return {Place::Symbol, coordinates_.size()};
    if (GiNaC::is_a<GiNaC::function>(base)) return {Place::Function, 0};
    if (GiNaC::is_a<GiNaC::add>(base)) return {Place::Sum, 0};
    return {Place::Other, 0};
  }

  /// coefficient × factors, coefficient non-negative (or complex); factors with a negative
  /// numeric exponent form the denominator.
  /// `sum_text`, if given, replaces the text of the (single) sum among the factors.
  std::string product(const numeric& coefficient, const exvector& factors,
                      const std::string* sum_text = nullptr) {
    struct Item {
      Rank rank;
      bool denominator;
      std::string text;
    };
    std::vector<Item> items;
    for (const ex& factor : factors) {
      const bool is_power = GiNaC::is_a<GiNaC::power>(factor);
      const ex base = is_power ? factor.op(0) : factor;
      const Rank where = rank(factor);
      if (is_power && is_negative_number(factor.op(1))) {
        const ex exponent = -factor.op(1);
        const std::string text =
            exponent.is_equal(1)
                ? (GiNaC::is_a<GiNaC::add>(base) ? parenthesised(print(base)) : print(base))
                : power(base, exponent);
        items.push_back({where, true, text});
      } else {
        const bool replaced = sum_text && GiNaC::is_a<GiNaC::add>(factor);
        items.push_back({where, false, replaced ? parenthesised(*sum_text) : operand(factor)});
      }
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.rank < b.rank; });
    std::vector<std::string> numerator, denominator;
    for (auto& item : items) (item.denominator ? denominator : numerator).push_back(item.text);

    // A rational coefficient joins the fraction when there is one: g*sin(q1)/(2*l); any other
    // coefficient leads the product.
    std::string lead;
    if (!denominator.empty() && coefficient.is_rational()) {
      if (coefficient.denom() != 1)
        denominator.insert(denominator.begin(), digits(coefficient.denom()));
      if (coefficient.numer() != 1 || numerator.empty())
        numerator.insert(numerator.begin(), digits(coefficient.numer()));
    } else if (!denominator.empty()) {
      if (coefficient != 1) lead = number(coefficient);
    } else if (coefficient != 1 || numerator.empty()) {
      numerator.insert(numerator.begin(), number(coefficient));
    }

    if (!latex()) {
      if (!lead.empty()) numerator.insert(numerator.begin(), lead);
      const std::string top = numerator.empty() ? "1" : join(numerator, "*");
      if (denominator.empty()) return top;
      const std::string bottom = join(denominator, "*");
      return top + "/" + (denominator.size() == 1 ? bottom : "(" + bottom + ")");
    }
    std::string top;
    for (std::size_t i = 0; i < numerator.size(); ++i) {
      // Two numbers side by side would read as one: 2 \cdot 3^{x}.
      const bool numeric_next = std::isdigit(static_cast<unsigned char>(numerator[i][0]));
      if (i > 0) top += numeric_next ? " \\cdot " : " ";
      top += numerator[i];
    }
    if (denominator.empty()) return top;
    return (lead.empty() ? "" : lead + " ") + "\\frac{" + (top.empty() ? "1" : top) + "}{" +
           join(denominator, " ") + "}";
  }

  /// A term of a sum and what orders it.
  struct Term {
    int group;
    std::vector<std::size_t> motion;
    bool constant;
    std::vector<Rank> factors;
    const Signed* text;
    bool negative_coefficient;  // read(term).coefficient < 0
  };

  /// The terms of a sum, coefficients multiplied by `scale`, in printed order (before the
  /// positive-first rotation of sum()); texts of scaled terms live in `scaled`.
  std::vector<Term> ordered_terms(const ex& e, const numeric& scale, std::deque<Signed>* scaled) {
    std::vector<Term> terms;
    std::deque<Signed> local;
    for (const ex& term : e) {
      const Reading& reading = read(term);
      Term t{2,  {},      GiNaC::is_a<numeric>(term),
             {}, nullptr, reading.coefficient.is_real() && reading.coefficient.is_negative()};
      for (const ex& factor : reading.factors) {
        t.factors.push_back(rank(factor));
        const bool whole_power =
            GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).info(GiNaC::info_flags::posint);
        const ex base = whole_power ? factor.op(0) : factor;
        auto it = motion_.find(base);
        if (it == motion_.end()) continue;
        const long count = whole_power ? GiNaC::ex_to<numeric>(factor.op(1)).to_long() : 1;
        t.motion.insert(t.motion.end(), static_cast<std::size_t>(count), it->second);
        t.group = std::min(t.group, it->second < accelerations_ ? 0 : 1);
      }
      std::sort(t.motion.begin(), t.motion.end());
      std::sort(t.factors.begin(), t.factors.end());
      if (scale == 1) {
        t.text = &signed_form(term);
      } else {
        std::deque<Signed>& store = scaled ? *scaled : local;
        store.push_back(scaled_term(term, scale));
        t.text = &store.back();
      }
      terms.push_back(std::move(t));
    }
    std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
      if (a.group != b.group) return a.group < b.group;
      if (a.motion != b.motion) return a.motion < b.motion;
      if (a.constant != b.constant) return a.constant;
      if (std::lexicographical_compare(a.factors.begin(), a.factors.end(), b.factors.begin(),
                                       b.factors.end()))
        return true;
      if (std::lexicographical_compare(b.factors.begin(), b.factors.end(), a.factors.begin(),
                                       a.factors.end()))
        return false;
      // Factors rank by their bases (l, l^2 and 1/l alike), so cos(phi) and -2*cos(phi)^2 tie:
      // by their texts then, never by GiNaC's run-dependent order.
      if (a.text->magnitude != b.text->magnitude)
        return natural_less(a.text->magnitude, b.text->magnitude);
      return a.text->negative < b.text->negative;
    });
    return terms;
  }

  /// A sum: accelerations, then velocities (each by coordinate order), then the rest led by a
  /// numeric constant; terms of one group ordered like their factors in products (parameters in
  /// model order, coordinates in model order, then by natural spelling).
  std::string sum(const ex& e, const numeric& scale = 1) {
    std::deque<Signed> scaled;  // texts of scaled terms; a deque keeps pointers valid
    std::vector<Term> terms = ordered_terms(e, scale, &scaled);
    // Without velocities or accelerations to order by, a sum reads better opening with a
    // positive term: phi - beta, cos(q) - 1.
    const bool plain =
        std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.group == 2; });
    if (plain && !terms.empty() && terms.front().text->negative) {
      const auto positive =
          std::find_if(terms.begin(), terms.end(), [](const Term& t) { return !t.text->negative; });
      if (positive != terms.end()) std::rotate(terms.begin(), positive, positive + 1);
    }
    std::string text;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const Signed& s = *terms[i].text;
      if (i == 0)
        text += s.negative ? "-" : "";
      else
        text += s.negative ? " - " : " + ";
      text += s.magnitude;
      check_budget(text.size());
    }
    return text;
  }

  Notation notation_;
  std::size_t max_chars_;
  std::size_t produced_ = 0;  // characters of all texts made so far
  std::map<ex, std::size_t, GiNaC::ex_is_less> parameters_;
  std::map<ex, std::size_t, GiNaC::ex_is_less> motion_;  // accelerations, then velocities
  std::size_t accelerations_ = 0;
  std::map<ex, std::size_t, GiNaC::ex_is_less> coordinates_;
  std::unordered_map<const void*, std::pair<ex, Signed>> cache_;  // ex keeps the key alive
  std::unordered_map<const void*, std::pair<ex, Reading>> readings_;
  std::unordered_map<const void*, std::pair<ex, bool>> negated_;
};

const model::Model& model_of(const principles::Equations& equations) {
  if (!equations.model) throw std::invalid_argument("equations without a model");
  return *equations.model;
}

/// Σ_k M_jk ddot(q_k), the left-hand side of equation j.
ex inertia_side(const principles::Equations& equations, unsigned j) {
  const model::Model& model = model_of(equations);
  exvector terms;
  for (unsigned k = 0; k < equations.mass_matrix.cols(); ++k)
    terms.push_back(equations.mass_matrix(j, k) * model.coordinate_symbol(k, equations.order + 1));
  return GiNaC::add(terms);
}

constexpr std::size_t kMaxChars = std::size_t{1} << 28;

/// Σ_k A_ik ddot(q_k), the left-hand side of constraint row i at acceleration level.
ex constraint_side(const principles::Equations& equations, unsigned i) {
  const model::Model& model = model_of(equations);
  exvector terms;
  for (unsigned k = 0; k < equations.constraint_matrix.cols(); ++k)
    terms.push_back(equations.constraint_matrix(i, k) *
                    model.coordinate_symbol(k, equations.order + 1));
  return GiNaC::add(terms);
}

std::string headline(const principles::Equations& equations, const std::string& formula) {
  if (equations.order > 1)
    return model_of(equations).name + ": equations of order " + std::to_string(equations.order) +
           " by gibbs-appell, M(q) q^(" + std::to_string(equations.order + 1) + ") = f";
  return model_of(equations).name + ": equations of motion by " +
         principles::method_name(equations.method) + ", " + formula;
}

}  // namespace

std::string expression_text(const GiNaC::ex& e, const sym::ReadableContext& context,
                            std::size_t max_chars) {
  return Printer(context, Notation::Text, max_chars).print(e);
}

std::string expression_text(const GiNaC::ex& e, const model::Model& model) {
  return expression_text(e, readable_context(model));
}

std::string expression_latex(const GiNaC::ex& e, const sym::ReadableContext& context,
                             std::size_t max_chars) {
  return Printer(context, Notation::Latex, max_chars).print(e);
}

std::string write_text(const principles::Equations& equations, const WriteOptions& options) {
  if (equations.form == principles::Form::Speeds) return detail::speeds_text(equations, options);
  if (equations.form == principles::Form::Minimal) return detail::minimal_text(equations, options);
  const model::Model& model = model_of(equations);
  Printer printer(readable_context(model), Notation::Text, kMaxChars);
  const unsigned n = static_cast<unsigned>(equations.dof());
  std::ostringstream out;
  out << "# " << headline(equations, "M(q) q̈ = f(q, q̇, t)") << "\n";
  out << "# " << (equations.simplified ? "simplified" : "as formed, not simplified") << "\n";
  const unsigned m = static_cast<unsigned>(equations.constraint_count());
  for (unsigned j = 0; j < n; ++j) {
    out << "eq " << j + 1 << " (" << model.coordinates.at(j).name
        << "): " << printer.print(inertia_side(equations, j)) << " = "
        << printer.print(equations.forcing(j, 0));
    // The constraint forces Aᵀλ, one multiplier per constraint.
    for (unsigned i = 0; i < m; ++i)
      if (!equations.constraint_matrix(i, j).is_zero())
        out << detail::force_term(
            equations.constraint_matrix(i, j), equations.multipliers[i],
            [&](const ex& e) { return printer.print(e); }, false);
    out << "\n";
  }
  if (m > 0) {
    out << "\nconstraints at acceleration level, A q̈ = b:\n";
    for (unsigned i = 0; i < m; ++i) {
      out << "  " << model.constraints.at(i).name << ": "
          << printer.print(constraint_side(equations, i)) << " = "
          << printer.print(equations.constraint_rhs(i, 0)) << "\n";
    }
  }
  out << "\n"
      << detail::mass_and_forcing_text(equations.mass_matrix, equations.forcing,
                                       [&](const ex& e) { return printer.print(e); });
  out << "\n" << detail::cost_text(equations.cost, equations.simplified, options);
  return out.str();
}

std::string write_latex(const principles::Equations& equations) {
  if (equations.form == principles::Form::Speeds) return detail::speeds_latex(equations);
  if (equations.form == principles::Form::Minimal) return detail::minimal_latex(equations);
  const model::Model& model = model_of(equations);
  Printer printer(readable_context(model), Notation::Latex, kMaxChars);
  const unsigned n = static_cast<unsigned>(equations.dof());
  std::ostringstream out;
  out << "% " << headline(equations, "M(q) \\ddot{q} = f(q, \\dot{q}, t)") << "\n";
  out << "\\begin{align}\n";
  const unsigned m = static_cast<unsigned>(equations.constraint_count());
  for (unsigned j = 0; j < n; ++j) {
    out << "  " << printer.print(inertia_side(equations, j))
        << " &= " << printer.print(equations.forcing(j, 0));
    for (unsigned i = 0; i < m; ++i)
      if (!equations.constraint_matrix(i, j).is_zero())
        out << detail::force_term(
            equations.constraint_matrix(i, j), detail::multiplier_latex(equations.multipliers[i]),
            [&](const ex& e) { return printer.print(e); }, true);
    out << (j + 1 < n || m > 0 ? " \\\\" : "") << "\n";
  }
  for (unsigned i = 0; i < m; ++i) {
    out << "  " << printer.print(constraint_side(equations, i))
        << " &= " << printer.print(equations.constraint_rhs(i, 0)) << (i + 1 < m ? " \\\\" : "")
        << "\n";
  }
  out << "\\end{align}\n";
  return out.str();
}

std::string write_json(const principles::Equations& equations, const WriteOptions& options) {
  if (equations.form == principles::Form::Speeds) return detail::speeds_json(equations, options);
  if (equations.form == principles::Form::Minimal) return detail::minimal_json(equations, options);
  const model::Model& model = model_of(equations);
  Printer printer(readable_context(model), Notation::Text, kMaxChars);

  nlohmann::ordered_json json;
  json["model"] = model.name;
  json["method"] = principles::method_name(equations.method);
  if (equations.order > 1) json["order"] = equations.order;
  json["coordinates"] = nlohmann::ordered_json::array();
  for (const auto& coordinate : model.coordinates) json["coordinates"].push_back(coordinate.name);

  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  std::map<std::string, double> values;
  try {
    values = model::bind(model, {}).parameters;
  } catch (const std::exception&) {
    // A default that is no number (yet) is reported as its expression below.
  }
  for (const auto& parameter : model.parameters) {
    if (auto it = values.find(parameter.name); it != values.end())
      parameters[parameter.name] = it->second;
    else
      parameters[parameter.name] = printer.print(parameter.default_value);
  }
  json["parameters"] = parameters;

  detail::mass_and_forcing_json(json, equations.mass_matrix, equations.forcing,
                                [&](const ex& e) { return printer.print(e); });
  // M q̈ = f + Aᵀλ with A q̈ = b.
  detail::constraints_json(json, equations.multipliers, equations.constraint_matrix,
                           equations.constraint_rhs, [&](const ex& e) { return printer.print(e); });
  json["simplified"] = equations.simplified;

  json["cost"] = detail::cost_json(equations.cost, options);
  return json.dump(2);
}

}  // namespace appell::io
