// The random numbers of a sweep's samples (sample_cases): xoshiro256** (Blackman and Vigna,
// "Scrambled linear pseudorandom number generators", 2021) seeded by splitmix64, both written
// here from their published formulas, so that a seed gives the same numbers on every platform,
// compiler and standard library. std::mt19937_64 would too, but std::uniform_*_distribution
// would not: the standard leaves their algorithms to each library, so a sample drawn through
// them could change with the compiler. Uniform reals and bounded integers are therefore made
// here from the raw 64-bit outputs, by exact integer and power-of-two arithmetic.
#pragma once

#include <array>
#include <cstdint>

namespace appell::sweep {

class RandomStream {
 public:
  /// The state is the first four outputs of splitmix64 started at `seed` (the seeding the
  /// authors recommend: it never gives the all-zero state xoshiro cannot leave).
  explicit RandomStream(std::uint64_t seed);
  /// A given state (not all zero), for the published reference outputs.
  explicit RandomStream(const std::array<std::uint64_t, 4>& state);

  /// The next 64-bit output of xoshiro256**.
  std::uint64_t next();
  /// A real in [0, 1): the top 53 bits of next() times 2⁻⁵³ (every value a multiple of 2⁻⁵³,
  /// each equally likely; exact, no rounding).
  double uniform();
  /// An integer in [0, bound), bound > 0, each equally likely: next() modulo bound, drawing again
  /// while the output falls in the last incomplete block of 2⁶⁴ (so there is no modulo bias).
  std::uint64_t below(std::uint64_t bound);

  /// splitmix64 (Steele, Lea and Flood 2014, as Vigna publishes it): advances `state` by the
  /// golden-ratio increment and returns its mix.
  static std::uint64_t splitmix64(std::uint64_t& state);

 private:
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace appell::sweep
