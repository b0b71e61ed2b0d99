#include "appell/sym/readable.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"

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
  FourierForm(const exvector& roots, const ReadableContext& context) {
    find_angles(roots);
    number_atoms(context.coordinates);
    classify_atoms(context.parameters);
  }

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
    std::size_t index = 0;
  };
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
  static ex factored(const ex& base);
  ex hide(const ex& value);
  bool is_z_factor(const ex& factor, std::size_t* index, long* exponent) const;
  bool is_z_free(const ex& f) const;

  std::map<ex, Atom, GiNaC::ex_is_less> atoms_;           // angle -> atom
  std::vector<ex> angles_;                                // by atom index
  std::map<ex, std::size_t, GiNaC::ex_is_less> z_index_;  // z symbol -> atom index
  std::unordered_map<const void*, std::pair<ex, std::optional<AngleSplit>>> splits_;
  std::unordered_map<const void*, Memo> fourier_memo_;
  std::unordered_map<const void*, Memo> trig_memo_;
  std::map<ex, GiNaC::symbol, GiNaC::ex_is_less> placeholder_of_;  // opaque factor -> symbol
  GiNaC::exmap placeholders_;                                      // symbol -> opaque factor
  std::vector<bool> constant_angle_;  // by atom index: the angle is made of parameters only
  bool has_constant_angles_ = false;
};

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
    for (const ex& term : e) terms.push_back(fourier(term));
    // The terms are expanded already, so this expand() only merges them.
    result = ex(GiNaC::add(terms)).expand();
  } else if (GiNaC::is_a<GiNaC::mul>(e)) {
    exvector factors;
    for (const ex& factor : e) factors.push_back(fourier(factor));
    result = ex(GiNaC::mul(factors)).expand();
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    result = fourier_power(e);
  } else if (is_sin_or_cos(e)) {
    result = fourier_sin_cos(e);
  } else {
    result = opaque(e);
  }
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
        is_z_free(base))
      return ex(GiNaC::pow(base, exponent)).expand();
    return hide(GiNaC::pow(factored(trig(base)), exponent));
  }
  return hide(GiNaC::pow(factored(trig(base)), trig(fourier(exponent))));
}

ex FourierForm::factored(const ex& base) {
  // Under a root the expanded form hides what people wrote: sqrt((d + x)^2), not
  // sqrt(d^2 + 2*d*x + x^2). GiNaC factors polynomials only, and small ones quickly.
  if (!GiNaC::is_a<GiNaC::add>(base) || dag_size(base) > kMaxFactorNodes || !is_polynomial(base))
    return base;
  return GiNaC::factor(base);
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
  explicit Collector(const ReadableContext& context) {
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
      result.push_back(factor_common(coefficients) * motion);
    return GiNaC::add(result);
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

  std::set<ex, GiNaC::ex_is_less> motion_;
};

}  // namespace

GiNaC::ex readable(const GiNaC::ex& e, const ReadableContext& context) {
  FourierForm form({e}, context);
  return form.reveal(Collector(context).collect(form.trig(form.fourier(e))));
}

GiNaC::matrix readable(const GiNaC::matrix& m, const ReadableContext& context) {
  exvector entries;
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) entries.push_back(m(i, j));
  FourierForm form(entries, context);
  const Collector collector(context);
  GiNaC::matrix result(m.rows(), m.cols());
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j)
      result(i, j) = form.reveal(collector.collect(form.trig(form.fourier(m(i, j)))));
  return result;
}

}  // namespace appell::sym
