// Writers of `appell check`'s verdicts (numeric/claim_check.hpp): text and JSON.
#pragma once

#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/numeric/claim_check.hpp"

namespace appell::io {

/// One line per claim, "NAME: VERDICT" (with " (factor F)" for an equation that holds up to a
/// factor); for a claim that differs, the difference (claim − appell) term by term and the state
/// where it shows; a last line counting the verdicts.
std::string write_check_text(const model::Model& model,
                             const std::vector<num::ClaimResult>& results);

/// {"claims": [{"name", "verdict", "factor", "difference", "witness"}]} (indented by 2, no final
/// line break): factor an expression string or null; difference a list of term strings (empty
/// when the claim holds); witness null or {"state": {SYMBOL: number}, "claimed", "appell"}.
std::string write_check_json(const model::Model& model,
                             const std::vector<num::ClaimResult>& results);

}  // namespace appell::io
