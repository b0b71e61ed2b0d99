// The sparse direct solvers of the fem module (SuiteSparse through Eigen's wrappers):
// CHOLMOD's supernodal Cholesky for the symmetric positive definite systems (static pre-stress,
// shift-invert of the eigenproblem), UMFPACK's LU for the time response, whose effective matrix
// is not symmetric once the frame turns (gyroscopic c and k(ε) are skew).
#pragma once

#include <Eigen/CholmodSupport>
#include <Eigen/UmfPackSupport>

#include "appell/fem/assembly.hpp"

namespace appell::fem {

using Cholesky = Eigen::CholmodSupernodalLLT<SparseMatrix, Eigen::Lower>;
using SparseLu = Eigen::UmfPackLU<SparseMatrix>;

}  // namespace appell::fem
