// `appell check`: is a published equation right? Each claim (model/claim.hpp) is compared with
// what appell derives for the same model — the equations of motion by Gibbs–Appell, M, f, the
// generalized force of one load by virtual work, T, S, or a multiplier — symbolically where a
// difference is shown and numerically at random states (parameters at their defaults first, then
// random): a claim holds when claim − appell vanishes at every state.
//
//   const auto claims = io::read_claims_file("robot_claims.yaml", *model);
//   for (const auto& r : num::check_claims(model, claims.claims, claims.multipliers))
//     std::cout << r.name << ": " << num::verdict_name(r.verdict) << "\n";
#pragma once

#include <ginac/ginac.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "appell/model/claim.hpp"
#include "appell/model/model.hpp"

namespace appell::num {

/// holds; holds-up-to-factor (an equation multiplied through, or with its sides swapped: factor
/// −1); differs.
enum class Verdict { Holds, HoldsUpToFactor, Differs };
/// "holds", "holds-up-to-factor", "differs".
std::string verdict_name(Verdict verdict);

/// A state where a difference shows: the values of the symbols involved (t, coordinates,
/// velocities, accelerations, parameters, multipliers: named as printed, dot(q1), ...) and the
/// two sides there.
struct Witness {
  std::vector<std::pair<std::string, double>> state;
  double claimed = 0;  // the claim's value (for an equation: LHS − RHS)
  double appell = 0;  // appell's (for an equation: factor × (M q̈ − f − Aᵀλ) of the coordinate)
};

/// The verdict on one claim.
struct ClaimResult {
  std::string name;
  Verdict verdict = Verdict::Holds;
  /// An equation's factor: the claim is factor × appell's equation (set unless it differs and no
  /// constant factor relates the accelerations' coefficients).
  std::optional<GiNaC::ex> factor;
  /// When it differs: claim − factor × appell, simplified (sym::readable), term by term; for an
  /// acceleration energy only the terms with accelerations; empty for a multiplier (compared
  /// numerically only) and when the claim holds.
  GiNaC::exvector difference;
  std::optional<Witness> witness;  // when it differs
};

/// Every claim judged, in order. `multipliers` are the symbols the claims use for lambda_NAME
/// (io::Claims::multipliers), one per constraint. Throws model::ModelError for a model without
/// coordinates (principles::derive) and std::invalid_argument for a claim whose indices do not
/// fit the model.
std::vector<ClaimResult> check_claims(std::shared_ptr<const model::Model> model,
                                      const std::vector<model::Claim>& claims,
                                      const std::vector<GiNaC::symbol>& multipliers);

}  // namespace appell::num
