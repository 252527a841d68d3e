/// \file
/// A band of message sizes: the bytes a schedule serves, [Lo, Hi], and the
/// one size it is built at. The request set (`--bytes-range`), `--emit
/// select`, the backends' size checks and the drop-in's bands all use it, so
/// a band of the compiler and the same band of the drop-in build the same
/// schedule.
#ifndef COLLC_IR_SIZEBAND_H
#define COLLC_IR_SIZEBAND_H

#include <cstdint>

namespace collc {

/// Message sizes [Lo, Hi], bytes, inclusive.
struct ByteBand {
  uint64_t Lo = 0, Hi = 0;

  bool contains(uint64_t Bytes) const { return Bytes >= Lo && Bytes <= Hi; }

  /// The size a band's schedule is built at: the geometric middle of the
  /// band in whole units of \p Unit bytes (the element size of a reduction,
  /// 1 otherwise), floor(sqrt((a+1)(b+1))) - 1 units for the band's first
  /// and last whole unit counts a and b, so that 1..1048576 bytes is built at
  /// 1447 bytes and a power-of-two band [2^k, 2^(k+1)-1] at about 2^k sqrt 2.
  /// A band holding no whole unit is built at Lo.
  uint64_t buildBytes(uint64_t Unit = 1) const;

  bool operator==(const ByteBand &O) const { return Lo == O.Lo && Hi == O.Hi; }
  bool operator!=(const ByteBand &O) const { return !(*this == O); }
  bool operator<(const ByteBand &O) const {
    return Lo != O.Lo ? Lo < O.Lo : Hi < O.Hi;
  }
};

/// The power-of-two bands the drop-in serves sizes in: band 0 is {0}, band k
/// (1..64) is [2^(k-1), 2^k - 1]. The band of \p Bytes.
int powerOfTwoBand(uint64_t Bytes);
/// The sizes of power-of-two band \p Index (0..64).
ByteBand powerOfTwoBandRange(int Index);

} // namespace collc

#endif
