// Gauss–Legendre quadrature on [−1, 1], the rules the elements integrate with.
#pragma once

#include <array>
#include <stdexcept>

namespace appell::fem {

/// `count` points in [−1, 1] and their weights (summing to 2); entries past `count` are 0.
struct GaussRule {
  int count = 0;
  std::array<double, 5> points{};
  std::array<double, 5> weights{};
};

/// The n-point rule (1 ≤ n ≤ 5), exact for polynomials of degree 2n − 1. Throws
/// std::invalid_argument for another n.
inline const GaussRule& gauss_legendre(int n) {
  static const std::array<GaussRule, 5> rules = {{
      {1, {0.0}, {2.0}},
      {2, {-0.57735026918962576451, 0.57735026918962576451}, {1.0, 1.0}},
      {3,
       {-0.77459666924148337704, 0.0, 0.77459666924148337704},
       {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0}},
      {4,
       {-0.86113631159405257522, -0.33998104358485626480, 0.33998104358485626480,
        0.86113631159405257522},
       {0.34785484513745385737, 0.65214515486254614263, 0.65214515486254614263,
        0.34785484513745385737}},
      {5,
       {-0.90617984593866399280, -0.53846931010568309104, 0.0, 0.53846931010568309104,
        0.90617984593866399280},
       {0.23692688505618908751, 0.47862867049936646804, 0.56888888888888888889,
        0.47862867049936646804, 0.23692688505618908751}},
  }};
  if (n < 1 || n > 5) throw std::invalid_argument("gauss_legendre: 1 to 5 points");
  return rules[std::size_t(n - 1)];
}

}  // namespace appell::fem
