// The size of an expression as a reader sees it: the operations of its tree, counted the way
// SymPy's count_ops counts them, so that appell's readable forms can be compared with the raw form
// they came from and with SymPy's simplifications (bench/readable_vs_sympy.py).
#pragma once

#include <ginac/ginac.h>

#include <cstddef>

namespace appell::sym {

/// The operations of `e` written out as a tree (shared nodes counted at every use): n − 1 for a
/// sum of n terms or a product of n factors, 1 for each power, division, function call and
/// non-integer rational number, nothing for symbols, integers and signs (so that the count does not
/// depend on where GiNaC put a sign). Computed over the DAG (each
/// distinct node once), so an exponentially large tree costs linear time; the count saturates at
/// the largest std::size_t.
std::size_t operation_count(const GiNaC::ex& e);

}  // namespace appell::sym
