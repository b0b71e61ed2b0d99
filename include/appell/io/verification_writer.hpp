// The JSON of `appell verify --json` (numeric/verification.hpp): every row with its verdict.
#pragma once

#include <string>

#include "appell/io/write_options.hpp"
#include "appell/model/model.hpp"
#include "appell/numeric/verification.hpp"

namespace appell::io {

/// One JSON object (indented by 2, no final line break):
/// {"model", "coordinates" (names, the order of a witness's q and qd), "reference", "states",
/// "tolerance", "symbolic" (whether the symbolic comparison was run), "rows", "all_agree",
/// "first_disagreement"}; each row {"method", "verdict" ("equal" | "agree numerically" |
/// "differ"), "agrees", "symbolic" (proved equal), "symbolic_test" ("zero" | "inconclusive" |
/// "not run"), "max_error", "bound", "states", "ill_conditioned", "first_difference", "witness"
/// (null, or {"t", "q", "qd", "entry", "reference", "other", "error", "bound"}),
/// "differentiations", "derivative_nodes", "size_before", "size_after"}, and "seconds" and
/// "simplify_seconds" only with options.timing. A number that is not finite (max_error when no
/// state could be compared) is null.
std::string write_verification_json(const model::Model& model,
                                    const num::VerificationReport& report,
                                    const WriteOptions& options = {});

/// "zero", "inconclusive" or "not run".
std::string symbolic_test_name(num::SymbolicTest test);

}  // namespace appell::io
