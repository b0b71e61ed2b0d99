#include "appell/sym/readable.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "appell/sym/cancellation.hpp"
#include "appell/sym/canonical_order.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/operation_count.hpp"
#include "appell/sym/progress.hpp"

namespace appell::sym {

ReadableContext ReadableContext::for_functions(TimeFunctions& functions,
                                               const std::vector<std::string>& names,
                                               std::vector<GiNaC::symbol> parameters) {
  ReadableContext context;
  for (const auto& name : names) {
    context.coordinates.push_back(functions.derivative(name, 0));
    context.velocities.push_back(functions.derivative(name, 1));
    context.accelerations.push_back(functions.derivative(name, 2));
  }
  context.parameters = std::move(parameters);
  return context;
}

namespace {

using GiNaC::ex;
using GiNaC::exvector;
using GiNaC::numeric;

// Angles people write are a handful of nodes; a larger sin/cos argument stays opaque instead of
// having its tree expanded.
constexpr std::size_t kMaxAngleNodes = 256;

// Factoring multivariate polynomials costs more than linear time; roots of larger ones stay
// expanded.
constexpr std::size_t kMaxFactorNodes = 64;

// Splitting a coefficient by its most shared factor recurses; beyond this many terms it is not
// tried.
constexpr std::size_t kMaxSplitTerms = 40;

// A coefficient put over one denominator is divided by its sums only while its numerator stays
// this small (exact multivariate division costs more than linear time).
constexpr std::size_t kMaxNumeratorTerms = 400;

/// Made of symbols and numbers by +, × and whole positive powers.
bool is_polynomial(const ex& e) {
  if (GiNaC::is_a<GiNaC::symbol>(e) || GiNaC::is_a<numeric>(e)) return true;
  if (GiNaC::is_a<GiNaC::power>(e))
    return e.op(1).info(GiNaC::info_flags::posint) && is_polynomial(e.op(0));
  if (!GiNaC::is_a<GiNaC::add>(e) && !GiNaC::is_a<GiNaC::mul>(e)) return false;
  for (const ex& operand : e)
    if (!is_polynomial(operand)) return false;
  return true;
}

bool is_sin_or_cos(const ex& e) {
  return GiNaC::is_the_function<GiNaC::sin_SERIAL>(e) ||
         GiNaC::is_the_function<GiNaC::cos_SERIAL>(e);
}

bool contains_symbol(const ex& e) {
  if (GiNaC::is_a<GiNaC::symbol>(e)) return true;
  for (std::size_t i = 0; i < e.nops(); ++i)
    if (contains_symbol(e.op(i))) return true;
  return false;
}

/// Thrown out of a FourierForm whose ReadableBudget ran out; readable_within() catches it.
struct OverBudget {};

/// Made of positive symbols (`positive`), positive numbers and π by +, ×, / and real powers.
bool is_positive(const ex& e, const std::set<ex, GiNaC::ex_is_less>& positive) {
  if (GiNaC::is_a<numeric>(e))
    return GiNaC::ex_to<numeric>(e).is_real() && GiNaC::ex_to<numeric>(e).is_positive();
  if (GiNaC::is_a<GiNaC::symbol>(e)) return positive.count(e) != 0;
  if (GiNaC::is_a<GiNaC::constant>(e)) return e.is_equal(GiNaC::Pi);
  if (GiNaC::is_a<GiNaC::power>(e))
    return GiNaC::is_a<numeric>(e.op(1)) && GiNaC::ex_to<numeric>(e.op(1)).is_real() &&
           is_positive(e.op(0), positive);
  if (!GiNaC::is_a<GiNaC::add>(e) && !GiNaC::is_a<GiNaC::mul>(e)) return false;
  for (const ex& operand : e)
    if (!is_positive(operand, positive)) return false;
  return true;
}

exvector terms_of(const ex& sum) {
  if (GiNaC::is_a<GiNaC::add>(sum)) return exvector(sum.begin(), sum.end());
  if (sum.is_zero()) return {};
  return {sum};
}

exvector factors_of(const ex& term) {
  if (GiNaC::is_a<GiNaC::mul>(term)) return exvector(term.begin(), term.end());
  return {term};
}

/// A monomial split as numeric coefficient × the rest.
std::pair<numeric, ex> split_coefficient(const ex& term) {
  if (GiNaC::is_a<numeric>(term)) return {GiNaC::ex_to<numeric>(term), 1};
  numeric coefficient = 1;
  exvector rest;
  for (const ex& factor : factors_of(term)) {
    if (GiNaC::is_a<numeric>(factor))
      coefficient *= GiNaC::ex_to<numeric>(factor);
    else
      rest.push_back(factor);
  }
  return {coefficient, GiNaC::mul(rest)};
}

/// A sin/cos argument as Σ coefficient·angle + phase, angles being monomials ("atoms") and the
/// phase the part without symbols (numbers, multiples of π).
struct AngleSplit {
  std::vector<std::pair<ex, numeric>> angles;
  ex phase = 0;
};

std::optional<AngleSplit> split_angle(const ex& argument) {
  if (dag_size(argument) > kMaxAngleNodes) return std::nullopt;
  AngleSplit split;
  for (const ex& term : terms_of(argument.expand())) {
    auto [coefficient, monomial] = split_coefficient(term);
    if (!coefficient.is_real()) return std::nullopt;
    if (!contains_symbol(monomial)) {
      split.phase += term;
      continue;
    }
    if (coefficient.is_rational()) {
      split.angles.emplace_back(monomial, coefficient);
    } else {
      // A floating-point coefficient has no denominator to take a least common multiple of,
      // so it stays part of the atom (only its sign is taken out, so that cos(-0.5*q) and
      // cos(0.5*q) share one).
      const numeric sign = coefficient.is_negative() ? -1 : 1;
      split.angles.emplace_back(GiNaC::abs(coefficient) * monomial, sign);
    }
  }
  // exp(-i·phase) is the conjugate of exp(i·phase) only for a real phase.
  if (!GiNaC::evalf(split.phase).info(GiNaC::info_flags::real)) return std::nullopt;
  return split;
}

/// Bottom-up rewriting into Fourier form and back (file comment of readable.hpp).
class FourierForm {
 public:
  /// The context's coordinates say which angles come first; its parameters which angles are
  /// constant.
  FourierForm(const exvector& roots, const ReadableContext& context,
              const ReadableBudget& budget = unlimited())
      : budget_(budget), positive_(context.positive.begin(), context.positive.end()) {
    find_angles(roots);
    number_atoms(context.coordinates);
    classify_atoms(context.parameters);
  }

  static ReadableBudget unlimited() {
    constexpr std::size_t all = std::numeric_limits<std::size_t>::max();
    return {all, all, all};
  }

  /// Placeholder symbol -> the opaque factor it stands for.
  const GiNaC::exmap& placeholders() const { return placeholders_; }

  /// Starts the work count of one entry (ReadableBudget::max_entry_work).
  void start_entry() { entry_work_ = 0; }

  /// The shortest of the ways to write the Fourier form of `e` back (readable.hpp), collected
  /// by `collector`, opaque factors revealed.
  template <typename Collect>
  ex shortest(const ex& e, const Collect& collect);

  /// `e` as an expanded Laurent polynomial in the z variables with z-free coefficients.
  ex fourier(const ex& e);
  /// A Fourier form back in sin/cos of the atoms, expanded, with real coefficients; opaque
  /// factors are still placeholders.
  ex trig(const ex& f);
  /// The opaque factors put back in place of their placeholders.
  ex reveal(const ex& e) const;

 private:
  struct Atom {
    numeric denominator = 1;  // d: z = exp(i·angle/d)
    GiNaC::symbol z;
    GiNaC::symbol c, s;  // cos(angle/d) and sin(angle/d) in the power forms
    std::size_t index = 0;
  };
  enum class Powers { SingleAngles, Everywhere };
  struct Memo {
    ex original;  // keeps the key's node alive
    ex result;
  };

  void find_angles(const exvector& roots);
  void number_atoms(const std::vector<GiNaC::symbol>& angle_order);
  void classify_atoms(const std::vector<GiNaC::symbol>& parameters);
  ex back_convert(const ex& f, bool constant_level);
  ex fourier_power(const ex& e);
  ex fourier_sin_cos(const ex& e);
  ex opaque(const ex& e);
  ex factored(const ex& base);
  ex hide(const ex& value);
  bool is_z_factor(const ex& factor, std::size_t* index, long* exponent) const;
  bool is_z_free(const ex& f) const;
  ex root(const ex& base, const ex& exponent);
  ex root_base(const ex& base);
  ex root_base_uncached(const ex& base);
  void require_terms(double estimate);
  void spend(const ex& formed);
  std::optional<ex> power_form(const ex& e, Powers where);
  std::optional<ex> power_of_angle(const ex& function, Powers where);
  ex eliminated(const ex& polynomial, const GiNaC::symbol& square, const GiNaC::symbol& other);
  ex angle_functions(const ex& e) const;

  std::map<ex, Atom, GiNaC::ex_is_less> atoms_;           // angle -> atom
  std::vector<ex> angles_;                                // by atom index
  std::map<ex, std::size_t, GiNaC::ex_is_less> z_index_;  // z symbol -> atom index
  std::unordered_map<const void*, std::pair<ex, std::optional<AngleSplit>>> splits_;
  std::unordered_map<const void*, Memo> fourier_memo_;
  std::unordered_map<const void*, Memo> trig_memo_;
  // By structure, not by node: equal bases under roots recur as distinct nodes all over the
  // entries of a large model (the Whipple bicycle's sqrt(1 - kn^2) from its front contact, some
  // hundred times), and each factor() of them costs milliseconds (GiNaC::factor's gcds).
  std::map<ex, ex, GiNaC::ex_is_less> root_base_memo_, factored_memo_;
  std::map<ex, GiNaC::symbol, GiNaC::ex_is_less> placeholder_of_;  // opaque factor -> symbol
  GiNaC::exmap placeholders_;                                      // symbol -> opaque factor
  std::vector<bool> constant_angle_;  // by atom index: the angle is made of parameters only
  bool has_constant_angles_ = false;
  ReadableBudget budget_;
  std::size_t entry_work_ = 0, total_work_ = 0;
  std::set<ex, GiNaC::ex_is_less> positive_;
};

void FourierForm::require_terms(double estimate) {
  if (estimate > static_cast<double>(budget_.max_terms)) throw OverBudget{};
}

void FourierForm::spend(const ex& formed) {
  const std::size_t terms = GiNaC::is_a<GiNaC::add>(formed) ? formed.nops() : 1;
  entry_work_ += terms;
  total_work_ += terms;
  if (entry_work_ > budget_.max_entry_work || total_work_ > budget_.max_total_work)
    throw OverBudget{};
  require_terms(static_cast<double>(terms));
}

void FourierForm::find_angles(const exvector& roots) {
  // All denominators must be known before the first z power is formed, hence this pass over the
  // whole DAG before any rewriting.
  // `visited` keeps every node alive: op() of a mul builds its powers afresh, and a freed
  // temporary's address must not be mistaken for a node already seen.
  std::unordered_map<const void*, ex> visited;
  exvector stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    ex e = stack.back();
    stack.pop_back();
    if (!visited.emplace(node_key(e), e).second) continue;
    if (is_sin_or_cos(e)) {
      auto split = split_angle(e.op(0));
      if (split) {
        for (const auto& [angle, coefficient] : split->angles) {
          Atom& atom = atoms_[angle];
          atom.denominator = GiNaC::lcm(atom.denominator, coefficient.denom());
        }
      }
      splits_.emplace(node_key(e), std::make_pair(e, std::move(split)));
    }
    for (std::size_t i = 0; i < e.nops(); ++i) stack.push_back(e.op(i));
  }
}

void FourierForm::number_atoms(const std::vector<GiNaC::symbol>& angle_order) {
  // The first nonzero exponent of a pair z^α, z^-α decides which of ±α names the angle, so the
  // atom order shows in the result: coordinates in model order (cos(q1 - q2), not
  // cos(-q1 + q2)), then the other atoms by spelling, which unlike GiNaC's hash order does not
  // depend on when symbols were created.
  struct Ranked {
    std::size_t rank;
    std::string spelling;
    ex angle;
  };
  std::vector<Ranked> ranked;
  for (const auto& [angle, atom] : atoms_) {
    (void)atom;
    std::size_t rank = angle_order.size();
    for (std::size_t i = 0; i < angle_order.size(); ++i)
      if (angle.is_equal(angle_order[i])) rank = i;
    std::ostringstream spelling;
    spelling << angle;
    ranked.push_back({rank, spelling.str(), angle});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return std::tie(a.rank, a.spelling) < std::tie(b.rank, b.spelling);
  });
  for (const Ranked& r : ranked) {
    Atom& atom = atoms_.at(r.angle);
    atom.index = angles_.size();
    z_index_.emplace(atom.z, atom.index);
    angles_.push_back(r.angle);
  }
}

void FourierForm::classify_atoms(const std::vector<GiNaC::symbol>& parameters) {
  const std::set<ex, GiNaC::ex_is_less> constants(parameters.begin(), parameters.end());
  std::function<bool(const ex&)> only_constants = [&](const ex& e) {
    if (GiNaC::is_a<GiNaC::symbol>(e)) return constants.count(e) != 0;
    for (std::size_t i = 0; i < e.nops(); ++i)
      if (!only_constants(e.op(i))) return false;
    return true;
  };
  for (const ex& angle : angles_) {
    constant_angle_.push_back(only_constants(angle));
    has_constant_angles_ = has_constant_angles_ || constant_angle_.back();
  }
}

bool FourierForm::is_z_factor(const ex& factor, std::size_t* index, long* exponent) const {
  ex base = factor;
  long power = 1;
  if (GiNaC::is_a<GiNaC::power>(factor)) {
    if (!factor.op(1).info(GiNaC::info_flags::integer)) return false;
    base = factor.op(0);
    power = GiNaC::ex_to<numeric>(factor.op(1)).to_long();
  }
  if (!GiNaC::is_a<GiNaC::symbol>(base)) return false;
  auto it = z_index_.find(base);
  if (it == z_index_.end()) return false;
  *index = it->second;
  *exponent = power;
  return true;
}

bool FourierForm::is_z_free(const ex& f) const {
  std::size_t index = 0;
  long exponent = 0;
  for (const ex& term : terms_of(f))
    for (const ex& factor : factors_of(term))
      if (is_z_factor(factor, &index, &exponent)) return false;
  return true;
}

ex FourierForm::fourier(const ex& e) {
  if (GiNaC::is_a<GiNaC::symbol>(e) || GiNaC::is_a<numeric>(e) || GiNaC::is_a<GiNaC::constant>(e))
    return e;
  const void* key = node_key(e);
  if (auto it = fourier_memo_.find(key); it != fourier_memo_.end()) return it->second.result;
  poll_cancellation();

  ex result;
  if (GiNaC::is_a<GiNaC::add>(e)) {
    exvector terms;
    double estimate = 0;
    for (const ex& term : e) {
      terms.push_back(fourier(term));
      estimate += static_cast<double>(terms_of(terms.back()).size());
    }
    require_terms(estimate);
    // The terms are expanded already, so this expand() only merges them.
    result = ex(GiNaC::add(terms)).expand();
  } else if (GiNaC::is_a<GiNaC::mul>(e)) {
    exvector factors;
    double estimate = 1;
    for (const ex& factor : e) {
      factors.push_back(fourier(factor));
      estimate *= static_cast<double>(std::max<std::size_t>(1, terms_of(factors.back()).size()));
    }
    require_terms(estimate);
    result = ex(GiNaC::mul(factors)).expand();
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    result = fourier_power(e);
  } else if (is_sin_or_cos(e)) {
    result = fourier_sin_cos(e);
  } else {
    result = opaque(e);
  }
  spend(result);
  fourier_memo_.emplace(key, Memo{e, result});
  return result;
}

ex FourierForm::fourier_power(const ex& e) {
  const ex base = fourier(e.op(0));
  const ex& exponent = e.op(1);
  if (exponent.info(GiNaC::info_flags::integer)) {
    // Positive powers multiply out; a negative power of a single z-monomial is again one; the
    // inverse of a sum that involves angles (1/(2 + cos q)) is no Laurent polynomial and stays
    // an opaque factor.
    if (exponent.info(GiNaC::info_flags::positive) || !GiNaC::is_a<GiNaC::add>(base) ||
        is_z_free(base)) {
      if (exponent.info(GiNaC::info_flags::positive))
        require_terms(std::pow(static_cast<double>(terms_of(base).size()),
                               GiNaC::ex_to<numeric>(exponent).to_double()));
      return ex(GiNaC::pow(base, exponent)).expand();
    }
    return hide(GiNaC::pow(factored(trig(base)), exponent));
  }
  return root(root_base(trig(base)), trig(fourier(exponent)));
}

ex FourierForm::root_base(const ex& base) {
  if (auto it = root_base_memo_.find(base); it != root_base_memo_.end()) return it->second;
  const ex result = root_base_uncached(base);
  root_base_memo_.emplace(base, result);
  return result;
}

ex FourierForm::root_base_uncached(const ex& base) {
  // A polynomial factors as it is; a trigonometric one in powers of sin and cos, with sin² or
  // cos² eliminated: l^2/2 - l^2*cos(2θ)/2 + 2*l*d*sin(θ) + d^2 = (l*sin(θ) + d)^2.
  const ex polynomial_factors = factored(base);
  if (!polynomial_factors.is_equal(base) || angles_.empty() || !GiNaC::is_a<GiNaC::add>(base) ||
      dag_size(base) > kMaxFactorNodes)
    return polynomial_factors;
  const auto converted = power_form(base, Powers::Everywhere);
  if (!converted) return base;
  const ex polynomial = converted->expand();
  if (!is_polynomial(polynomial) || dag_size(polynomial) > kMaxFactorNodes) return base;
  exvector trials{polynomial};
  // In the atoms' order (number_atoms), not the map's, which follows GiNaC's run-dependent order.
  for (const ex& angle : angles_) {
    const Atom& atom = atoms_.at(angle);
    trials.push_back(eliminated(polynomial, atom.c, atom.s));
    trials.push_back(eliminated(polynomial, atom.s, atom.c));
  }
  const auto has_square = [](const ex& f) {
    for (const ex& factor : factors_of(f))
      if (GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).info(GiNaC::info_flags::even))
        return true;
    return false;
  };
  for (const ex& trial : trials) {
    if (dag_size(trial) > kMaxFactorNodes) continue;
    const ex f = GiNaC::factor(trial);
    if (has_square(f)) return angle_functions(f);
  }
  return base;
}

ex FourierForm::root(const ex& base, const ex& exponent) {
  // (f^n)^r = f^(n·r) for f > 0, and |f|^(n·r) for an even n (f real), when n·r is whole:
  // sqrt((d + x)^2) = |d + x|, or d + x when d and x are positive.
  if (!GiNaC::is_a<numeric>(exponent) || !GiNaC::ex_to<numeric>(exponent).is_rational())
    return hide(GiNaC::pow(base, exponent));
  const numeric r = GiNaC::ex_to<numeric>(exponent);
  ex outside = 1;
  exvector inside;
  for (const ex& factor : factors_of(base)) {
    const bool is_power =
        GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).info(GiNaC::info_flags::integer);
    const ex f = is_power ? factor.op(0) : factor;
    const numeric n = is_power ? GiNaC::ex_to<numeric>(factor.op(1)) : numeric(1);
    const numeric p = n * r;
    const bool positive = is_positive(f, positive_);
    if (GiNaC::is_a<numeric>(f) || !p.is_integer() || (!positive && !n.is_even())) {
      inside.push_back(factor);
      continue;
    }
    if (positive || p.is_even())
      outside *= p.is_positive() ? ex(GiNaC::pow(fourier(f), p)).expand() : hide(GiNaC::pow(f, p));
    else
      outside *= hide(GiNaC::pow(GiNaC::abs(f), p));
  }
  const ex rest = GiNaC::mul(inside);
  const ex rooted = rest.is_equal(1) ? ex(1) : hide(GiNaC::pow(rest, exponent));
  return (outside * rooted).expand();
}

ex FourierForm::factored(const ex& base) {
  // Under a root the expanded form hides what people wrote: sqrt((d + x)^2), not
  // sqrt(d^2 + 2*d*x + x^2). GiNaC factors polynomials only, and small ones quickly.
  if (!GiNaC::is_a<GiNaC::add>(base) || dag_size(base) > kMaxFactorNodes || !is_polynomial(base))
    return base;
  if (auto it = factored_memo_.find(base); it != factored_memo_.end()) return it->second;
  const ex result = GiNaC::factor(base);
  factored_memo_.emplace(base, result);
  return result;
}

ex FourierForm::fourier_sin_cos(const ex& e) {
  auto it = splits_.find(node_key(e));
  if (it == splits_.end() || !it->second.second) return opaque(e);
  const AngleSplit& split = *it->second.second;

  // exp(i·argument) = exp(i·phase) · Π z_k^(coefficient_k · d_k).
  ex rotation = 1;
  for (const auto& [angle, coefficient] : split.angles) {
    const Atom& atom = atoms_.at(angle);
    rotation *= GiNaC::pow(atom.z, coefficient * atom.denominator);
  }
  const ex cos_phase = GiNaC::cos(split.phase);
  const ex sin_phase = GiNaC::sin(split.phase);
  const ex forward = (cos_phase + GiNaC::I * sin_phase) * rotation;
  const ex backward = (cos_phase - GiNaC::I * sin_phase) * GiNaC::pow(rotation, -1);
  if (GiNaC::is_the_function<GiNaC::cos_SERIAL>(e)) return ((forward + backward) / 2).expand();
  return ((forward - backward) * (-GiNaC::I / 2)).expand();
}

struct ReadableArguments : GiNaC::map_function {
  explicit ReadableArguments(FourierForm& form) : form(form) {}
  ex operator()(const ex& argument) override { return form.trig(form.fourier(argument)); }
  FourierForm& form;
};

ex FourierForm::opaque(const ex& e) {
  if (e.nops() == 0) return e;
  if (GiNaC::is_the_function<GiNaC::abs_SERIAL>(e) && is_positive(e.op(0), positive_))
    return fourier(e.op(0));
  ReadableArguments readable_arguments(*this);
  return hide(e.map(readable_arguments));
}

ex FourierForm::hide(const ex& value) {
  // A placeholder symbol stands for an opaque factor while the Fourier forms are expanded:
  // expand() would otherwise multiply out what is inside it again (sqrt((d + x)^2)), and equal
  // opaque factors share one symbol, so they still cancel and combine.
  const ex full = placeholders_.empty() ? value : substitute(value, placeholders_);
  if (GiNaC::is_a<numeric>(full) || GiNaC::is_a<GiNaC::symbol>(full) ||
      GiNaC::is_a<GiNaC::constant>(full))
    return full;
  auto [it, added] = placeholder_of_.emplace(full, GiNaC::symbol());
  if (added) placeholders_.emplace(it->second, full);
  return it->second;
}

ex FourierForm::reveal(const ex& e) const {
  return placeholders_.empty() ? e : substitute(e, placeholders_);
}

ex FourierForm::trig(const ex& f) {
  if (angles_.empty()) return f;
  const void* key = node_key(f);
  if (auto it = trig_memo_.find(key); it != trig_memo_.end()) return it->second.result;
  ex converted = back_convert(f, false);
  trig_memo_.emplace(key, Memo{f, converted});
  return converted;
}

ex FourierForm::back_convert(const ex& f, bool constant_level) {
  // Angles that vary (coordinates, t) are converted first and constant angles (a parameter β)
  // inside their coefficients, so that a tilt shows as cos(β)·cos(φ) rather than as
  // cos(φ − β) + cos(φ + β).
  const auto finish = [&](const ex& coefficient) {
    const ex expanded = coefficient.expand();
    return constant_level || !has_constant_angles_ ? expanded : back_convert(expanded, true);
  };

  // Group the terms by their z exponents α over this level's atoms: f = Σ_α C_α z^α.
  std::map<std::vector<long>, exvector> by_exponents;
  for (const ex& term : terms_of(f)) {
    std::vector<long> alpha(angles_.size(), 0);
    exvector coefficient;
    for (const ex& factor : factors_of(term)) {
      std::size_t index = 0;
      long exponent = 0;
      if (is_z_factor(factor, &index, &exponent) && constant_angle_[index] == constant_level)
        alpha[index] += exponent;
      else
        coefficient.push_back(factor);
    }
    by_exponents[alpha].push_back(GiNaC::mul(coefficient));
  }

  // C_α z^α + C_-α z^-α = (C_α + C_-α) cos(α·θ) + i (C_α − C_-α) sin(α·θ).
  exvector result;
  for (const auto& [alpha, coefficients] : by_exponents) {
    auto first_nonzero = std::find_if(alpha.begin(), alpha.end(), [](long a) { return a != 0; });
    if (first_nonzero == alpha.end()) {
      result.push_back(finish(GiNaC::add(coefficients)));
      continue;
    }
    std::vector<long> opposite(alpha.size());
    std::transform(alpha.begin(), alpha.end(), opposite.begin(), [](long a) { return -a; });
    const auto partner = by_exponents.find(opposite);
    ex plus = GiNaC::add(coefficients);
    ex minus = partner == by_exponents.end() ? ex(0) : ex(GiNaC::add(partner->second));
    std::vector<long> angle_exponents = alpha;
    if (*first_nonzero < 0) {
      if (partner != by_exponents.end()) continue;  // emitted with its partner
      std::swap(plus, minus);
      angle_exponents = opposite;
    }
    ex angle = 0;
    for (std::size_t k = 0; k < angles_.size(); ++k)
      if (angle_exponents[k] != 0)
        angle += numeric(angle_exponents[k]) / atoms_.at(angles_[k]).denominator * angles_[k];
    result.push_back(finish(plus + minus) * GiNaC::cos(angle));
    result.push_back(finish(GiNaC::I * (plus - minus)) * GiNaC::sin(angle));
  }
  return ex(GiNaC::add(result)).expand();
}

/// The final collection for reading: Σ over velocity/acceleration monomials of
/// (common factors × numeric content) × (rest).
class Collector {
 public:
  /// `opaque`: placeholder symbol -> the opaque factor it stands for (FourierForm), grouped
  /// with the functions.
  Collector(const ReadableContext& context, const GiNaC::exmap& opaque) : opaque_(opaque) {
    for (const auto& s : context.accelerations) motion_.insert(s);
    for (const auto& s : context.velocities) motion_.insert(s);
  }

  ex collect(const ex& expanded) const {
    std::map<ex, exvector, GiNaC::ex_is_less> by_motion;
    for (const ex& term : terms_of(expanded)) {
      exvector motion, rest;
      for (const ex& factor : factors_of(term))
        (is_motion_factor(factor) ? motion : rest).push_back(factor);
      by_motion[GiNaC::mul(motion)].push_back(GiNaC::mul(rest));
    }
    exvector result;
    for (const auto& [motion, coefficients] : by_motion)
      result.push_back(coefficient_form(coefficients) * motion);
    return shortest_of_groups(result);
  }

 private:
  bool is_motion_factor(const ex& factor) const {
    if (GiNaC::is_a<GiNaC::symbol>(factor)) return motion_.count(factor) != 0;
    return GiNaC::is_a<GiNaC::power>(factor) && motion_.count(factor.op(0)) != 0 &&
           factor.op(1).info(GiNaC::info_flags::posint);
  }

  /// Σ terms written as common × Σ (terms / common): the powers every term shares (all
  /// positive or all negative; parameters, cos(q), ...), and the numeric coefficient when all
  /// terms have the same magnitude (its sign too when all are negative).
  static ex factor_common(const exvector& terms) {
    if (terms.size() == 1) return terms.front();
    const auto powers_of = [](const ex& term) {
      std::map<ex, long, GiNaC::ex_is_less> powers;
      for (const ex& factor : factors_of(term)) {
        if (GiNaC::is_a<numeric>(factor)) continue;
        if (GiNaC::is_a<GiNaC::power>(factor) && factor.op(1).info(GiNaC::info_flags::integer))
          powers[factor.op(0)] += GiNaC::ex_to<numeric>(factor.op(1)).to_long();
        else
          powers[factor] += 1;
      }
      return powers;
    };
    // base -> lowest and highest exponent, over the bases present in every term
    std::map<ex, std::pair<long, long>, GiNaC::ex_is_less> shared;
    for (const auto& [base, exponent] : powers_of(terms.front()))
      shared.emplace(base, std::make_pair(exponent, exponent));
    for (std::size_t i = 1; i < terms.size() && !shared.empty(); ++i) {
      const auto powers = powers_of(terms[i]);
      for (auto it = shared.begin(); it != shared.end();) {
        auto found = powers.find(it->first);
        if (found == powers.end()) {
          it = shared.erase(it);
          continue;
        }
        it->second.first = std::min(it->second.first, found->second);
        it->second.second = std::max(it->second.second, found->second);
        ++it;
      }
    }
    ex common = 1;
    for (const auto& [base, range] : shared) {
      const auto [lowest, highest] = range;
      const long exponent = lowest > 0 ? lowest : (highest < 0 ? highest : 0);
      if (exponent != 0) common *= GiNaC::pow(base, exponent);
    }

    std::optional<numeric> magnitude;
    bool same_magnitude = true, all_negative = true;
    for (const ex& term : terms) {
      const numeric coefficient = split_coefficient(term).first;
      if (!coefficient.is_real()) {
        same_magnitude = all_negative = false;
        break;
      }
      if (!coefficient.is_negative()) all_negative = false;
      const numeric size = GiNaC::abs(coefficient);
      if (magnitude && *magnitude != size) same_magnitude = false;
      magnitude = size;
    }
    numeric content = same_magnitude && magnitude ? *magnitude : numeric(1);
    if (all_negative) content = -content;
    common *= content;

    if (common.is_equal(1)) return GiNaC::add(terms);
    exvector rest;
    for (const ex& term : terms) rest.push_back(term / common);
    return common * GiNaC::add(rest);
  }

  /// The motion groups (coefficient × q̇/q̈ monomial) written as a textbook would when that is
  /// shorter: the factors every group shares taken out, -m*l*(l*sin(q)*dot(q)^2 + g*cos(q)), and
  /// groups whose coefficients differ by a number only merged under that coefficient,
  /// m*l^2*sin(q2)*dot(q2)*(2*dot(q1) + dot(q2)).
  ex shortest_of_groups(const exvector& groups) const {
    ex best = GiNaC::add(groups);
    if (groups.size() < 2) return best;
    std::size_t best_count = operation_count(best);
    const auto consider = [&](const ex& candidate) {
      const std::size_t count = operation_count(candidate);
      if (count < best_count) {
        best = candidate;
        best_count = count;
      }
    };
    consider(factor_common(groups));
    // coefficient without its number -> Σ number × motion, in the order the groups come.
    std::vector<std::pair<ex, exvector>> by_coefficient;
    for (const ex& group : groups) {
      exvector motion, rest;
      for (const ex& factor : factors_of(group))
        (is_motion_factor(factor) ? motion : rest).push_back(factor);
      // Not a structured binding: clang 14 does not let a lambda capture one.
      const std::pair<numeric, ex> split = split_coefficient(GiNaC::mul(rest));
      const numeric& number = split.first;
      const ex& coefficient = split.second;
      const auto same =
          std::find_if(by_coefficient.begin(), by_coefficient.end(),
                       [&](const auto& entry) { return entry.first.is_equal(coefficient); });
      const ex weighted = number * GiNaC::mul(motion);
      if (same == by_coefficient.end())
        by_coefficient.emplace_back(coefficient, exvector{weighted});
      else
        same->second.push_back(weighted);
    }
    if (by_coefficient.size() == groups.size()) return best;
    exvector merged;
    for (const auto& [coefficient, motions] : by_coefficient)
      merged.push_back(coefficient * factor_common(motions));
    consider(GiNaC::add(merged));
    consider(factor_common(merged));
    return best;
  }

  /// The shorter of: common factors taken out (factor_common); the terms grouped by their
  /// functions, each group's parameters collected, the way a textbook writes
  /// sin(θ)^2·(m·h^2 + A − C) + C.
  ex coefficient_form(const exvector& terms) const {
    ex best = factor_common(terms);
    if (terms.size() < 2) return best;
    std::size_t best_count = operation_count(best);
    const auto consider = [&](const ex& candidate) {
      const std::size_t count = operation_count(candidate);
      if (count < best_count) {
        best = candidate;
        best_count = count;
      }
    };
    // Speeds of polar coordinates or of a quaternion put powers of x^2 + y^2 or |e|^2 below,
    // and the terms of one coefficient may cancel only over one denominator:
    // 2*x^4/(x^2 + y^2) + 4*x^2*y^2/(x^2 + y^2) - 2*x^2 - 2*y^2 is 0.
    if (terms.size() <= kMaxSplitTerms &&
        std::any_of(terms.begin(), terms.end(), has_sum_denominator))
      consider(over_one_denominator(terms));
    std::map<ex, exvector, GiNaC::ex_is_less> by_functions;
    for (const ex& term : terms) {
      exvector functions, rest;
      for (const ex& factor : factors_of(term))
        (is_function_factor(factor) ? functions : rest).push_back(factor);
      by_functions[GiNaC::mul(functions)].push_back(GiNaC::mul(rest));
    }
    if (by_functions.size() < terms.size()) {
      exvector grouped;
      for (const auto& [functions, coefficients] : by_functions)
        grouped.push_back(factor_common(coefficients) * functions);
      consider(factor_common(grouped));
    }
    // The factor most terms share taken out of those terms, the rest collected alike:
    // l1^2*(m1 + m2) + m2*l2*(2*l1*cos(q2) + l2).
    if (terms.size() <= kMaxSplitTerms) {
      std::map<ex, std::size_t, GiNaC::ex_is_less> shared_by;
      for (const ex& term : terms)
        for (const ex& factor : factors_of(term))
          if (!GiNaC::is_a<numeric>(factor))
            ++shared_by[GiNaC::is_a<GiNaC::power>(factor) ? factor.op(0) : factor];
      // Ties go by structure, not by GiNaC's run-dependent order of the map.
      CanonicalOrder order;
      const ex* most = nullptr;
      std::size_t count = 1;
      for (const auto& [base, n] : shared_by)
        if (n < terms.size() &&
            (n > count || (n == count && most != nullptr && order.less(base, *most)))) {
          most = &base;
          count = n;
        }
      if (most != nullptr) {
        exvector with, without;
        for (const ex& term : terms) (term.has(*most) ? with : without).push_back(term);
        if (!with.empty() && !without.empty())
          consider(coefficient_form(with) + coefficient_form(without));
      }
    }
    return best;
  }

  /// A factor 1/(a + b)^k.
  static bool has_sum_denominator(const ex& term) {
    for (const ex& factor : factors_of(term))
      if (GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<GiNaC::add>(factor.op(0)) &&
          factor.op(1).info(GiNaC::info_flags::negative))
        return true;
    return false;
  }

  /// Σ terms over the least common multiple D of their denominators that are powers of sums,
  /// N/D with N = Σ terms·D expanded and divided exactly by each sum of D while it divides:
  /// the denominators as written, and structures that are the same in every run (GiNaC's
  /// normal() chooses signs and orders by its hash order, which changes from run to run).
  /// The terms themselves when there is nothing to gain or the polynomials are too large.
  static ex over_one_denominator(const exvector& terms) {
    std::map<ex, long, GiNaC::ex_is_less> denominators;  // sum -> highest power below
    for (const ex& term : terms)
      for (const ex& factor : factors_of(term))
        if (GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<GiNaC::add>(factor.op(0)) &&
            factor.op(1).info(GiNaC::info_flags::negint)) {
          long& power = denominators[factor.op(0)];
          power = std::max(power, -GiNaC::ex_to<numeric>(factor.op(1)).to_long());
        }
    ex common = 1;
    for (const auto& [sum, power] : denominators) common *= GiNaC::pow(sum, power);
    ex numerator = 0;
    for (const ex& term : terms) numerator += (term * common).expand();
    if (numerator.is_zero()) return 0;
    if (GiNaC::is_a<GiNaC::add>(numerator) && numerator.nops() > kMaxNumeratorTerms)
      return GiNaC::add(terms);
    // Functions and roots stand as symbols while dividing (to_polynomial), the same for both.
    GiNaC::exmap replaced;
    ex polynomial = numerator.to_polynomial(replaced);
    ex below = 1;
    for (const auto& [sum, power] : denominators) {
      const ex divisor = sum.to_polynomial(replaced);
      long left = power;
      try {
        for (ex quotient; left > 0 && GiNaC::divide(polynomial, divisor, quotient); --left)
          polynomial = quotient;
      } catch (const std::exception&) {
        // Coefficients that are no rationals (floating-point numbers): no exact division.
      }
      below *= GiNaC::pow(sum, left);
    }
    return polynomial.subs(replaced, GiNaC::subs_options::no_pattern) / below;
  }

  bool is_function_factor(const ex& factor) const {
    const ex base = GiNaC::is_a<GiNaC::power>(factor) ? factor.op(0) : factor;
    if (GiNaC::is_a<GiNaC::function>(base)) return true;
    return GiNaC::is_a<GiNaC::symbol>(base) && opaque_.count(base) != 0;
  }

  std::set<ex, GiNaC::ex_is_less> motion_;
  const GiNaC::exmap& opaque_;
};

// Power forms are tried only where multiplying (c + i·s)^k out stays small.
constexpr std::size_t kMaxPowerFormTerms = 400;
constexpr long kMaxPowerFormExponent = 8;

std::optional<ex> FourierForm::power_of_angle(const ex& function, Powers where) {
  // cos(Σ e_k·θ_k/d_k) and sin(...) through E = Π (c_k + i·s_k)^e_k: cos = (E + Ē)/2,
  // sin = (E − Ē)/(2i), with Ē = Π (c_k − i·s_k)^e_k (c² + s² = 1 makes (c + i·s)^-1 = c − i·s).
  const auto split = split_angle(function.op(0));
  if (!split || !split->phase.is_zero() || split->angles.empty()) return std::nullopt;
  if (where == Powers::SingleAngles && split->angles.size() > 1) return std::nullopt;
  ex forward = 1, backward = 1;
  long total = 0;
  for (const auto& [angle, coefficient] : split->angles) {
    auto it = atoms_.find(angle);
    if (it == atoms_.end()) return std::nullopt;
    const numeric e = coefficient * it->second.denominator;
    if (!e.is_integer()) return std::nullopt;
    const long k = e.to_long();
    total += std::labs(k);
    const ex unit = it->second.c + GiNaC::I * it->second.s;
    const ex conjugate = it->second.c - GiNaC::I * it->second.s;
    forward *= GiNaC::pow(k > 0 ? unit : conjugate, std::labs(k));
    backward *= GiNaC::pow(k > 0 ? conjugate : unit, std::labs(k));
  }
  if (total > kMaxPowerFormExponent) return std::nullopt;
  if (GiNaC::is_the_function<GiNaC::cos_SERIAL>(function))
    return ((forward + backward) / 2).expand();
  return ((forward - backward) * (-GiNaC::I / 2)).expand();
}

std::optional<ex> FourierForm::power_form(const ex& e, Powers where) {
  // `e` is a trig form: sums of products of coefficients, sin/cos and placeholders.
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    exvector operands;
    for (const ex& operand : e) {
      auto converted = power_form(operand, where);
      if (!converted) return std::nullopt;
      operands.push_back(*converted);
    }
    return GiNaC::is_a<GiNaC::add>(e) ? ex(GiNaC::add(operands)) : ex(GiNaC::mul(operands));
  }
  if (GiNaC::is_a<GiNaC::power>(e)) {
    if (!e.op(1).info(GiNaC::info_flags::integer)) return e;
    const long n = GiNaC::ex_to<numeric>(e.op(1)).to_long();
    if (!is_sin_or_cos(e.op(0))) {
      auto base = power_form(e.op(0), where);
      if (!base) return std::nullopt;
      return ex(GiNaC::pow(*base, n));
    }
    auto base = power_of_angle(e.op(0), where);
    if (!base) return e;
    // A negative power only of a single c or s: 1/cos(θ)^2, not 1/cos(2θ).
    if (n < 0 && (GiNaC::is_a<GiNaC::add>(*base) || std::labs(n) > kMaxPowerFormExponent)) return e;
    if (std::labs(n) > kMaxPowerFormExponent) return e;
    return ex(GiNaC::pow(*base, n));
  }
  if (is_sin_or_cos(e)) {
    auto converted = power_of_angle(e, where);
    return converted ? *converted : e;
  }
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    // A placeholder for 1/cos(θ)^2 joins the powers of cos θ.
    auto it = placeholders_.find(e);
    if (it == placeholders_.end()) return e;
    const ex& value = it->second;
    if (GiNaC::is_a<GiNaC::power>(value) && is_sin_or_cos(value.op(0))) {
      auto converted = power_form(value, where);
      if (converted && !converted->is_equal(value)) return converted;
    }
    return e;
  }
  return e;
}

ex FourierForm::eliminated(const ex& polynomial, const GiNaC::symbol& square,
                           const GiNaC::symbol& other) {
  // square^n = square^(n mod 2) · (1 − other²)^(n div 2) for n ≥ 2.
  exvector terms;
  for (const ex& term : terms_of(polynomial)) {
    exvector factors;
    for (const ex& factor : factors_of(term)) {
      if (GiNaC::is_a<GiNaC::power>(factor) && factor.op(0).is_equal(square) &&
          factor.op(1).info(GiNaC::info_flags::posint)) {
        const long n = GiNaC::ex_to<numeric>(factor.op(1)).to_long();
        factors.push_back(GiNaC::pow(square, n % 2) * GiNaC::pow(1 - GiNaC::pow(other, 2), n / 2));
      } else {
        factors.push_back(factor);
      }
    }
    terms.push_back(GiNaC::mul(factors));
  }
  return ex(GiNaC::add(terms)).expand();
}

ex FourierForm::angle_functions(const ex& e) const {
  GiNaC::exmap back;
  for (const auto& [angle, atom] : atoms_) {
    back[atom.c] = GiNaC::cos(angle / atom.denominator);
    back[atom.s] = GiNaC::sin(angle / atom.denominator);
  }
  return e.subs(back);
}

template <typename Collect>
ex FourierForm::shortest(const ex& e, const Collect& collect) {
  const ex f = fourier(e);
  const ex multiple_angles = trig(f);
  ex best = reveal(collect(multiple_angles));
  if (angles_.empty() || terms_of(f).size() > kMaxPowerFormTerms) return best;
  std::size_t best_count = operation_count(best);
  const auto written = [&](const ex& polynomial) {
    return reveal(collect(angle_functions(polynomial)));
  };
  for (const Powers where : {Powers::SingleAngles, Powers::Everywhere}) {
    auto converted = power_form(multiple_angles, where);
    if (!converted) continue;
    ex polynomial = converted->expand();
    spend(polynomial);
    if (terms_of(polynomial).size() > kMaxPowerFormTerms) continue;
    ex candidate = written(polynomial);
    std::size_t count = operation_count(candidate);
    // sin² → 1 − cos² or cos² → 1 − sin², angle by angle, whichever is shorter.
    // In the atoms' order (number_atoms): the greedy choice depends on it.
    for (const ex& angle : angles_) {
      const Atom& atom = atoms_.at(angle);
      if (!polynomial.has(atom.c) && !polynomial.has(atom.s)) continue;
      for (const auto& [square, other] :
           {std::make_pair(atom.s, atom.c), std::make_pair(atom.c, atom.s)}) {
        const ex reduced = eliminated(polynomial, square, other);
        spend(reduced);
        const ex trial = written(reduced);
        const std::size_t trial_count = operation_count(trial);
        if (trial_count < count) {
          polynomial = reduced;
          candidate = trial;
          count = trial_count;
        }
      }
    }
    if (count < best_count) {
      best = candidate;
      best_count = count;
    }
  }
  return best;
}

}  // namespace

// Both readable()s work within the default ReadableBudget too: an expression whose Fourier form
// would explode (cos(phi)^100 multiplied out, (q1 + q2 + l)^1000) is returned as given, which is
// still equal to it, rather than taking minutes or escaping as OverBudget (which is no
// std::exception: it once ended the program through std::terminate).
GiNaC::ex readable(const GiNaC::ex& e, const ReadableContext& context) {
  try {
    FourierForm form({e}, context);
    const Collector collector(context, form.placeholders());
    return form.shortest(e, [&](const ex& x) { return collector.collect(x); });
  } catch (const OverBudget&) {
    return e;
  }
}

GiNaC::matrix readable(const GiNaC::matrix& m, const ReadableContext& context) {
  exvector entries;
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) entries.push_back(m(i, j));
  try {
    FourierForm form(entries, context);
    const Collector collector(context, form.placeholders());
    const auto collect = [&](const ex& x) { return collector.collect(x); };
    GiNaC::matrix result(m.rows(), m.cols());
    for (unsigned i = 0; i < m.rows(); ++i)
      for (unsigned j = 0; j < m.cols(); ++j) {
        form.start_entry();
        try {
          result(i, j) = form.shortest(m(i, j), collect);
        } catch (const OverBudget&) {
          result(i, j) = m(i, j);
        }
      }
    return result;
  } catch (const OverBudget&) {
    return m;
  }
}

std::size_t BoundedReadable::count(EntryForm form) const {
  return static_cast<std::size_t>(std::count(forms.begin(), forms.end(), form));
}

BoundedReadable readable_within(const GiNaC::exvector& entries, const ReadableContext& context,
                                const ReadableBudget& budget) {
  FourierForm form(entries, context, budget);
  const Collector collector(context, form.placeholders());
  const auto collect = [&](const ex& x) { return collector.collect(x); };
  BoundedReadable result;
  ProgressStep step("making the equations readable", entries.size());
  for (const ex& entry : entries) {
    step.advance();
    form.start_entry();
    try {
      const ex simple = form.shortest(entry, collect);
      if (operation_count(simple) <= operation_count(entry)) {
        result.entries.push_back(simple);
        result.forms.push_back(EntryForm::Readable);
      } else {
        result.entries.push_back(entry);
        result.forms.push_back(EntryForm::Smaller);
      }
    } catch (const OverBudget&) {
      result.entries.push_back(entry);
      result.forms.push_back(EntryForm::OverBudget);
    }
  }
  return result;
}

}  // namespace appell::sym
