// Reading a claims file (`appell check MODEL CLAIMS.yaml`): what a paper printed about a model.
//
//   claims:
//     - {name: eq117, coordinate: q1, equation: "LHS = RHS"}   # an equation of motion
//     - {name: M12, mass_matrix: [1, 2], value: "EXPR"}       # 1-based, as printed
//     - {name: f1, forcing: 1, value: "EXPR"}
//     - {name: Qg1, generalized_force: q1, load: gravity, value: "EXPR"}  # gravity, a load's
//                                                   # 1-based position in `loads`
//     - {name: T, kinetic_energy: "EXPR"}
//     - {name: S, acceleration_energy: "EXPR"}        # up to terms free of the accelerations
//     - {name: lam, multiplier: NAME, value: "EXPR"}
//
// Expressions are in the model file's language (MODEL_FORMAT.md) and may use the model's
// parameters, coordinates (with dot() and ddot()), prescribed functions, inputs, t and the
// multipliers lambda_NAME of its constraints.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/model/claim.hpp"
#include "appell/model/model.hpp"

namespace appell::io {

/// The claims of the file at `path` about `model`, in the order written, plus the symbols that
/// stand for the model's multipliers (lambda_NAME, one per constraint, in constraint order).
struct Claims {
  std::vector<model::Claim> claims;
  std::vector<GiNaC::symbol> multipliers;
};

/// Reads the claims file at `path`. Throws model::ModelError at FILE:LINE:COLUMN (exit 2) for a
/// file that cannot be read, YAML that is not valid, a missing or unknown key, a claim that is not
/// exactly one kind, a duplicate name, an index out of range, an unknown coordinate, load or
/// multiplier, or an expression that does not parse (at the offending character, naming it).
Claims read_claims_file(const std::string& path, const model::Model& model);

/// The same for YAML text, `source_name` standing for the file in error messages.
Claims parse_claims(const std::string& yaml_text, const std::string& source_name,
                    const model::Model& model);

}  // namespace appell::io
