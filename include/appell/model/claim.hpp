// A published claim about a model's equations (`appell check`): what a paper printed, as it
// printed it, in the model's names — an equation of motion, an entry of M or f, a generalized
// force of one load, T, S or a multiplier. Read by io/claims_reader.hpp, judged by
// numeric/claim_check.hpp.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <optional>
#include <string>

#include "appell/model/source_location.hpp"

namespace appell::model {

/// One claim. Indices are 0-based here (the claims file writes them 1-based, as printed).
struct Claim {
  enum class Kind {
    Equation,            // the equation of motion of `coordinate`: left = right
    MassMatrix,          // M[row, column] = value
    Forcing,             // f[row] = value
    GeneralizedForce,    // Q[coordinate] of one load (or gravity) = value
    KineticEnergy,       // T = value
    AccelerationEnergy,  // S = value, up to terms free of the accelerations
    Multiplier,          // the multiplier `multiplier` = value
  };
  std::string name;
  Kind kind = Kind::Equation;
  std::size_t coordinate = 0;       // Equation, Forcing (row), GeneralizedForce; MassMatrix's row
  std::size_t column = 0;           // MassMatrix
  std::optional<std::size_t> load;  // GeneralizedForce: index in Model::loads; nullopt: gravity
  std::size_t multiplier = 0;       // Multiplier: index in Model::constraints
  GiNaC::ex left;                   // Equation: the left side (0 otherwise)
  GiNaC::ex value;                  // Equation: the right side; otherwise the claimed value
  SourceLocation where;             // the claim's place in its file
};

}  // namespace appell::model
