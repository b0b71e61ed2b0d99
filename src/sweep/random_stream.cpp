#include "appell/sweep/random_stream.hpp"

namespace appell::sweep {

namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t RandomStream::splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

RandomStream::RandomStream(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

RandomStream::RandomStream(const std::array<std::uint64_t, 4>& state) : s_(state) {}

std::uint64_t RandomStream::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() {
  // 53 bits fill a double's significand: k · 2⁻⁵³ is exact for every k < 2⁵³.
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::uint64_t RandomStream::below(std::uint64_t bound) {
  // 2⁶⁴ mod bound outputs at the bottom would make the small results more likely: skip them.
  const std::uint64_t threshold = (0 - bound) % bound;
  std::uint64_t x = next();
  while (x < threshold) x = next();
  return x % bound;
}

}  // namespace appell::sweep
