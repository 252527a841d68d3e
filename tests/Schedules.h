/// \file
/// Test helpers on built schedules.
#ifndef COLLC_TESTS_SCHEDULES_H
#define COLLC_TESTS_SCHEDULES_H

#include "ir/Schedule.h"

#include <doctest/doctest.h>

namespace collc::test {

/// Checks that \p A and \p B list the same steps of the same transfers
/// (what the JSON form writes of them, the times aside).
inline void checkSameTransfers(const Schedule &A, const Schedule &B) {
  REQUIRE(A.Steps.size() == B.Steps.size());
  CHECK(A.Algorithm == B.Algorithm);
  CHECK(A.NumChunks == B.NumChunks);
  CHECK(A.Bytes == B.Bytes);
  for (size_t I = 0; I < A.Steps.size(); ++I) {
    CAPTURE(I);
    const auto &X = A.Steps[I].Transfers, &Y = B.Steps[I].Transfers;
    REQUIRE(X.size() == Y.size());
    for (size_t J = 0; J < X.size(); ++J) {
      CHECK(X[J].Src == Y[J].Src);
      CHECK(X[J].Dst == Y[J].Dst);
      CHECK(X[J].Kind == Y[J].Kind);
      CHECK(X[J].Bytes == Y[J].Bytes);
      CHECK(X[J].From == Y[J].From);
      CHECK(X[J].Into == Y[J].Into);
      CHECK(X[J].Pieces == Y[J].Pieces);
    }
  }
}

} // namespace collc::test

#endif
