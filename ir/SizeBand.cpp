#include "ir/SizeBand.h"

#include <algorithm>
#include <cmath>

namespace collc {

uint64_t ByteBand::buildBytes(uint64_t Unit) const {
  if (Unit == 0)
    Unit = 1;
  // The band's first and last whole unit counts.
  const uint64_t A = Lo / Unit + (Lo % Unit != 0), B = Hi / Unit;
  if (A > B)
    return Lo;
  const double G = std::floor(
      std::sqrt((static_cast<double>(A) + 1) * (static_cast<double>(B) + 1)));
  const uint64_t U = std::clamp<uint64_t>(static_cast<uint64_t>(G) - 1, A, B);
  return U * Unit;
}

int powerOfTwoBand(uint64_t Bytes) {
  return Bytes == 0 ? 0 : 64 - __builtin_clzll(Bytes);
}

ByteBand powerOfTwoBandRange(int Index) {
  if (Index <= 0)
    return {0, 0};
  const uint64_t Lo = uint64_t(1) << (Index - 1);
  return {Lo, Index >= 64 ? UINT64_MAX : (Lo << 1) - 1};
}

} // namespace collc
