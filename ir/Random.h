/// \file
/// The one pseudo-random generator of collc: SplitMix64 (Steele, Lea and
/// Flood), small, seeded and the same on every compiler and standard library,
/// so that searches and simulations are reproducible.
#ifndef COLLC_IR_RANDOM_H
#define COLLC_IR_RANDOM_H

#include <cstdint>

namespace collc {

/// SplitMix64's output for the state \p X: a stateless 64-bit hash, for
/// choices keyed by (seed, step, node) without carrying a generator along.
inline uint64_t splitMix64(uint64_t X) {
  X += 0x9e3779b97f4a7c15ULL;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ULL;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

/// A SplitMix64 stream from a seed.
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = splitMix64(State);
    State += 0x9e3779b97f4a7c15ULL;
    return Z;
  }
  /// Uniform integer in [Lo, Hi].
  int64_t uniform(int64_t Lo, int64_t Hi) {
    uint64_t Span = static_cast<uint64_t>(Hi - Lo) + 1;
    // Rejection keeps the draw exactly uniform.
    uint64_t Limit = UINT64_MAX - UINT64_MAX % Span;
    uint64_t X;
    do
      X = next();
    while (X >= Limit);
    return Lo + static_cast<int64_t>(X % Span);
  }
  /// True with probability \p P.
  bool chance(double P) {
    if (P <= 0)
      return false;
    return static_cast<double>(next() >> 11) * 0x1.0p-53 < P;
  }

private:
  uint64_t State;
};

} // namespace collc

#endif
