#include "ir/SizeBand.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>

using namespace collc;

TEST_CASE("size band: a band's schedule is built inside the band") {
  CHECK(ByteBand{1, 1048576}.buildBytes(1) == 1447);
  CHECK(ByteBand{0, 0}.buildBytes(1) == 0);
  CHECK(ByteBand{0, 0}.buildBytes(4) == 0);
  CHECK(ByteBand{4, 8}.buildBytes(4) == 4);
  CHECK(ByteBand{1000, 1000}.buildBytes(8) == 1000);
  // Bands whose ends are not whole units: the size is a whole unit inside
  // the band when the band holds one, else the band's first size.
  CHECK(ByteBand{5, 7}.buildBytes(4) == 5);
  CHECK(ByteBand{2, 3}.buildBytes(4) == 2);
  CHECK(ByteBand{3, 9}.buildBytes(4) == 4);
  for (uint64_t Unit : {1, 3, 4, 8})
    for (uint64_t Lo = 0; Lo < 1400; Lo += 47)
      for (uint64_t Hi = Lo; Hi < 50000; Hi = Hi * 3 + 1) {
        const ByteBand B{Lo, Hi};
        const uint64_t X = B.buildBytes(Unit);
        CHECK(B.contains(X));
        if (Lo / Unit + (Lo % Unit != 0) <= Hi / Unit)
          CHECK(X % Unit == 0);
        else
          CHECK(X == Lo);
      }
}

TEST_CASE("size band: the power-of-two bands cover every size once") {
  CHECK(powerOfTwoBand(0) == 0);
  CHECK(powerOfTwoBandRange(0) == ByteBand{0, 0});
  CHECK(powerOfTwoBandRange(0).buildBytes(4) == 0);
  uint64_t Next = 1;
  for (int I = 1; I <= 64; ++I) {
    const ByteBand B = powerOfTwoBandRange(I);
    CHECK(B.Lo == Next);
    CHECK(powerOfTwoBand(B.Lo) == I);
    CHECK(powerOfTwoBand(B.Hi) == I);
    for (uint64_t Unit : {uint64_t(1), uint64_t(4)}) {
      const uint64_t X = B.buildBytes(Unit);
      CHECK(B.contains(X));
      if (B.Hi - B.Lo + 1 >= Unit)
        CHECK(X % Unit == 0);
    }
    Next = B.Hi + 1;
  }
  CHECK(Next == 0); // the last band ends at UINT64_MAX
  // 2^20 sqrt 2, rounded down: the drop-in builds band 21 at the size
  // `--bytes-range 1048576:2097151` builds it at.
  CHECK(powerOfTwoBandRange(21).buildBytes(1) == 1482910);
}
