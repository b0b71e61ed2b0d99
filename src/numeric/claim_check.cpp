#include "appell/numeric/claim_check.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "appell/kinematics/kinematics.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/finite_number.hpp"
#include "appell/sym/readable.hpp"

namespace appell::num {

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Holds:
      return "holds";
    case Verdict::HoldsUpToFactor:
      return "holds-up-to-factor";
    case Verdict::Differs:
      return "differs";
  }
  return "?";
}

namespace {

using GiNaC::ex;
using model::Claim;

// Random states at which claim and appell are compared: the first with the parameters at their
// defaults (the state a witness is best shown at), the others with every symbol random. A fixed
// seed: the same claims give the same verdicts and witnesses.
constexpr int kStates = 8;

/// What is relative-equal at a state.
bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

class Checker {
 public:
  Checker(std::shared_ptr<const model::Model> model, const std::vector<GiNaC::symbol>& multipliers)
      : model_(std::move(model)), multipliers_(multipliers) {
    std::mt19937 generator(20261124);
    std::uniform_real_distribution<double> angle(-1.2, 1.2), rate(-1.0, 1.0), size(0.5, 2.0);
    const auto defaults = model_->parameter_values();
    // Every symbol the model knows, by name, with a value per state.
    std::vector<GiNaC::symbol> all{model_->time_functions->time()};
    for (std::size_t j = 0; j < model_->dof(); ++j)
      for (int order = 0; order <= 2; ++order) all.push_back(model_->coordinate_symbol(j, order));
    for (const auto& p : model_->parameters) all.push_back(p.symbol);
    for (const auto& m : multipliers_) all.push_back(m);
    order_ = all;
    for (int s = 0; s < kStates; ++s) {
      GiNaC::exmap state;
      for (const auto& symbol : all) {
        const std::string name = symbol.get_name();
        const model::Parameter* p = model_->find_parameter(name);
        double value;
        if (p && s == 0 && defaults.count(name) != 0)
          value = defaults.at(name);
        else if (p)
          value = size(generator);
        else if (name.rfind("dot(", 0) == 0 || name.rfind("ddot(", 0) == 0)
          value = rate(generator);
        else
          value = angle(generator);
        state[symbol] = value;
      }
      states_.push_back(state);
    }
  }

  ClaimResult judge(const Claim& claim) {
    ClaimResult result;
    result.name = claim.name;
    if (claim.kind == Claim::Kind::Multiplier) return judge_multiplier(claim, result);
    const ex claimed = claim.kind == Claim::Kind::Equation ? claim.left - claim.value : claim.value;
    const ex appell = appell_side(claim);
    add_unknown_symbols(claimed);
    add_unknown_symbols(appell);
    const bool energy = claim.kind == Claim::Kind::AccelerationEnergy;

    std::vector<std::optional<std::pair<double, double>>> values;  // claimed, appell per state
    for (const auto& state : states_) values.push_back(evaluate_pair(claimed, appell, state));

    // An equation may be multiplied through: the factor is the ratio of the accelerations'
    // coefficients when that is one constant.
    ex factor = 1;
    if (claim.kind == Claim::Kind::Equation)
      if (auto k = equation_factor(claim, claimed)) factor = *k;
    const double kappa = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(factor)).to_double();

    std::optional<std::size_t> differing;
    for (std::size_t s = 0; s < values.size() && !differing; ++s) {
      if (!values[s]) continue;
      double c = values[s]->first, a = kappa * values[s]->second;
      if (energy) {  // up to terms free of the accelerations
        GiNaC::exmap still = states_[s];
        for (std::size_t j = 0; j < model_->dof(); ++j) still[model_->coordinate_symbol(j, 2)] = 0;
        const auto at_rest = evaluate_pair(claimed, appell, still);
        if (!at_rest) continue;
        c -= at_rest->first;
        a -= at_rest->second;
      }
      if (!close(c, a)) differing = s;
    }
    if (!differing) {
      result.verdict = factor.is_equal(1) ? Verdict::Holds : Verdict::HoldsUpToFactor;
      if (claim.kind == Claim::Kind::Equation) result.factor = factor;
      return result;
    }
    result.verdict = Verdict::Differs;
    if (claim.kind == Claim::Kind::Equation) result.factor = factor;
    const ex difference =
        sym::readable(claimed - factor * appell, principles::readable_context(*model_));
    for (const ex& term : GiNaC::is_a<GiNaC::add>(difference)
                              ? GiNaC::exvector(difference.begin(), difference.end())
                              : GiNaC::exvector{difference}) {
      if (energy && !has_acceleration(term)) continue;
      if (!term.is_zero()) result.difference.push_back(term);
    }
    result.witness = witness(*differing, values[*differing]->first,
                             kappa * values[*differing]->second, claimed - factor * appell);
    return result;
  }

 private:
  const principles::Equations& equations() {
    if (!equations_) equations_ = principles::derive(model_, principles::Method::GibbsAppell);
    return *equations_;
  }

  kin::Kinematics& kinematics() {
    if (!kinematics_) {
      differentiator_ = std::make_unique<sym::Differentiator>(model_->time_functions);
      kinematics_ = std::make_unique<kin::Kinematics>(model_, *differentiator_);
    }
    return *kinematics_;
  }

  ex appell_side(const Claim& claim) {
    const std::size_t n = model_->dof();
    switch (claim.kind) {
      case Claim::Kind::Equation: {
        const auto& eq = equations();
        const unsigned j = static_cast<unsigned>(claim.coordinate);
        ex residual = -eq.forcing(j, 0);
        for (unsigned k = 0; k < n; ++k)
          residual += eq.mass_matrix(j, k) * model_->coordinate_symbol(k, 2);
        for (unsigned i = 0; i < eq.constraint_count(); ++i)
          residual -= eq.constraint_matrix(i, j) * multipliers_.at(i);
        return residual;
      }
      case Claim::Kind::MassMatrix:
        return equations().mass_matrix(static_cast<unsigned>(claim.coordinate),
                                       static_cast<unsigned>(claim.column));
      case Claim::Kind::Forcing:
        return equations().forcing(static_cast<unsigned>(claim.coordinate), 0);
      case Claim::Kind::KineticEnergy:
        return principles::kinetic_energy(kinematics());
      case Claim::Kind::AccelerationEnergy:
        return principles::acceleration_energy(kinematics());
      case Claim::Kind::GeneralizedForce: {
        // The model with only this load (or only gravity): its generalized forces by virtual work.
        auto one = std::make_shared<model::Model>(*model_);
        one->loads.clear();
        if (claim.load) {
          one->loads.push_back(model_->loads.at(*claim.load));
          one->gravity.reset();
        }
        sym::Differentiator d(one->time_functions);
        kin::Kinematics kin(one, d);
        return principles::generalized_forces(kin)(static_cast<unsigned>(claim.coordinate), 0);
      }
      case Claim::Kind::Multiplier:
        break;
    }
    throw std::invalid_argument("check_claims: no appell side for this claim");
  }

  bool has_acceleration(const ex& term) const {
    for (std::size_t j = 0; j < model_->dof(); ++j)
      if (term.has(model_->coordinate_symbol(j, 2))) return true;
    return false;
  }

  /// Symbols the states do not give a value yet (inputs, unspecified prescribed functions):
  /// random, like the coordinates.
  void add_unknown_symbols(const ex& e) {
    const auto found = sym::symbols_by_name({e});
    std::mt19937 generator(static_cast<unsigned>(found.size()) + 7);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (const auto& [name, symbol] : found) {
      if (states_.front().count(symbol) != 0) continue;
      order_.push_back(symbol);
      for (auto& state : states_) state[symbol] = value(generator);
    }
  }

  static std::optional<double> evaluate(const ex& e, const GiNaC::exmap& state) {
    // Step by step in the range of a double (sym/finite_number.hpp): CLN alone would take
    // exp(exp(1000)) for 1 and let a claim scaled by it "hold".
    try {
      return sym::finite_double(e, state);
    } catch (const std::exception&) {
      return std::nullopt;  // a pole at this state, or no finite real value there
    }
  }

  static std::optional<std::pair<double, double>> evaluate_pair(const ex& a, const ex& b,
                                                                const GiNaC::exmap& state) {
    auto x = evaluate(a, state), y = evaluate(b, state);
    if (!x || !y) return std::nullopt;
    return std::make_pair(*x, *y);
  }

  /// The claimed equation's factor over appell's: ∂claim/∂q̈_k ÷ M_jk, when that is one constant
  /// over every state (for the first k with M_jk ≠ 0). Nullopt otherwise.
  std::optional<ex> equation_factor(const Claim& claim, const ex& claimed) {
    const auto& eq = equations();
    const unsigned j = static_cast<unsigned>(claim.coordinate);
    for (unsigned k = 0; k < eq.dof(); ++k) {
      const ex m = eq.mass_matrix(j, k);
      if (m.is_zero()) continue;
      const ex c = claimed.diff(model_->coordinate_symbol(k, 2));
      std::optional<double> ratio;
      for (const auto& state : states_) {
        const auto pair = evaluate_pair(c, m, state);
        if (!pair || std::abs(pair->second) < 1e-12) continue;
        const double r = pair->first / pair->second;
        if (ratio && !close(*ratio, r)) return std::nullopt;
        ratio = r;
      }
      if (!ratio || std::abs(*ratio) < 1e-12) return std::nullopt;
      return rational(*ratio);
    }
    return std::nullopt;
  }

  /// A double as the simplest fraction p/q (q ≤ 1000) within 1e-9, or as the double.
  static ex rational(double x) {
    for (long q = 1; q <= 1000; ++q) {
      const double p = std::round(x * static_cast<double>(q));
      if (std::abs(p / static_cast<double>(q) - x) <= 1e-9 * std::max(1.0, std::abs(x)))
        return GiNaC::numeric(static_cast<long>(p), q);
    }
    return GiNaC::numeric(x);
  }

  Witness witness(std::size_t s, double claimed, double appell, const ex& difference) {
    const auto involved = sym::symbols_by_name({difference});
    Witness w;
    for (const auto& symbol : order_) {
      if (involved.count(symbol.get_name()) == 0) continue;
      w.state.emplace_back(symbol.get_name(),
                           GiNaC::ex_to<GiNaC::numeric>(states_[s].at(symbol)).to_double());
    }
    w.claimed = claimed;
    w.appell = appell;
    return w;
  }

  ClaimResult judge_multiplier(const Claim& claim, ClaimResult& result) {
    // λ from M q̈ = f + Aᵀλ, A q̈ = b at each state, solved numerically.
    const auto& eq = equations();
    const std::size_t n = eq.dof(), m = eq.constraint_count();
    add_unknown_symbols(claim.value);
    for (std::size_t s = 0; s < states_.size(); ++s) {
      Eigen::MatrixXd kkt =
          Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n + m), static_cast<Eigen::Index>(n + m));
      Eigen::VectorXd rhs(static_cast<Eigen::Index>(n + m));
      bool ok = true;
      const auto value = [&](const ex& e) {
        auto v = evaluate(e, states_[s]);
        ok = ok && v.has_value();
        return v.value_or(0.0);
      };
      for (unsigned i = 0; i < n; ++i) {
        for (unsigned k = 0; k < n; ++k) kkt(i, k) = value(eq.mass_matrix(i, k));
        rhs(i) = value(eq.forcing(i, 0));
      }
      for (unsigned c = 0; c < m; ++c) {
        for (unsigned k = 0; k < n; ++k) {
          const double a = value(eq.constraint_matrix(c, k));
          kkt(static_cast<Eigen::Index>(n + c), k) = a;
          kkt(k, static_cast<Eigen::Index>(n + c)) = -a;
        }
        rhs(static_cast<Eigen::Index>(n + c)) = value(eq.constraint_rhs(c, 0));
      }
      if (!ok) continue;
      const Eigen::VectorXd solution = kkt.fullPivLu().solve(rhs);
      GiNaC::exmap state = states_[s];
      for (unsigned k = 0; k < n; ++k) state[model_->coordinate_symbol(k, 2)] = solution(k);
      const double lambda = solution(static_cast<Eigen::Index>(n + claim.multiplier));
      const auto claimed = evaluate(claim.value, state);
      if (!claimed || close(*claimed, lambda)) continue;
      result.verdict = Verdict::Differs;
      Witness w;
      const auto involved = sym::symbols_by_name({claim.value});
      for (const auto& symbol : order_)
        if (involved.count(symbol.get_name()) != 0 ||
            (symbol.get_name().rfind("ddot(", 0) != 0 && symbol.get_name() != "t" &&
             !model_->find_parameter(symbol.get_name()) &&
             std::find(multipliers_.begin(), multipliers_.end(), symbol) == multipliers_.end()))
          w.state.emplace_back(
              symbol.get_name(),
              GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(state.at(symbol))).to_double());
      w.claimed = *claimed;
      w.appell = lambda;
      result.witness = w;
      return result;
    }
    result.verdict = Verdict::Holds;
    return result;
  }

  std::shared_ptr<const model::Model> model_;
  std::vector<GiNaC::symbol> multipliers_;
  std::vector<GiNaC::exmap> states_;
  std::vector<GiNaC::symbol> order_;  // symbols in the order a witness lists them
  std::optional<principles::Equations> equations_;
  std::unique_ptr<sym::Differentiator> differentiator_;
  std::unique_ptr<kin::Kinematics> kinematics_;
};

}  // namespace

std::vector<ClaimResult> check_claims(std::shared_ptr<const model::Model> model,
                                      const std::vector<model::Claim>& claims,
                                      const std::vector<GiNaC::symbol>& multipliers) {
  if (multipliers.size() != model->constraints.size())
    throw std::invalid_argument("check_claims: one multiplier symbol per constraint");
  for (const auto& c : claims)
    if (c.coordinate >= model->dof() || c.column >= model->dof() ||
        (c.load && *c.load >= model->loads.size()) ||
        (c.kind == Claim::Kind::Multiplier && c.multiplier >= model->constraints.size()))
      throw std::invalid_argument("check_claims: claim " + c.name + " does not fit the model");
  Checker checker(model, multipliers);
  std::vector<ClaimResult> results;
  for (const auto& claim : claims) results.push_back(checker.judge(claim));
  return results;
}

}  // namespace appell::num
