// GiNaC's own storage of sums and products, read without building nodes.
//
// GiNaC keeps a sum as Σ rest_i·coeff_i + c and a product as Π rest_i^coeff_i · c (an expairseq).
// op(i) builds and evaluates a new node for every pair whose coeff is not 1, and a product's
// evaluation takes the integer content of each of its sum factors: on the formed equations of a
// 20-link chain, walking them through op() cost more than everything done with what it returned,
// and every node it built, at a new address each call, missed every memo keyed by node. Walks of
// large DAGs read the pairs instead (in op()'s order).
#pragma once

#include <ginac/ginac.h>

namespace appell::sym::detail {

struct Pairs : GiNaC::expairseq {
  /// The pairs of a sum or a product (GiNaC::is_a<GiNaC::expairseq>(e)).
  static const GiNaC::epvector& of(const GiNaC::ex& e) {
    return GiNaC::ex_to<GiNaC::expairseq>(e).*(&Pairs::seq);
  }
  /// The numeric c of a sum (0: absent, no operand) or a product (1: absent, no operand).
  static const GiNaC::ex& coefficient(const GiNaC::ex& e) {
    return GiNaC::ex_to<GiNaC::expairseq>(e).*(&Pairs::overall_coeff);
  }
};

}  // namespace appell::sym::detail
