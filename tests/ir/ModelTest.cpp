#include "ir/Machine.h"

#include <doctest/doctest.h>

using namespace collc;

TEST_CASE("model: every kind derives t_hold and t_end from its own "
          "parameters") {
  Model P;
  P.Kind = ModelKind::Parameterized;
  P.Parameterized = {{20, 0.02}, {55, 0.07}};
  CHECK(P.tHold(1000) == 20 + 0.02 * 1000);
  CHECK(P.tEnd(1000) == 55 + 0.07 * 1000);
  CHECK(P.holdAffine().Base == 20);
  CHECK(P.holdAffine().PerByte == 0.02);

  // Paper 001: a sender is busy for the whole transfer, t_hold = t_end.
  Model L;
  L.Kind = ModelKind::Linear;
  L.Linear = {46, 0.035};
  CHECK(L.tHold(1000) == 46 + 0.035 * 1000);
  CHECK(L.tEnd(1000, 7) == L.tHold(1000));
  CHECK(L.holdAffine().Base == 46);
  CHECK(L.holdAffine().PerByte == 0.035);

  // A machine built in code sets no times of its own for unit calls.
  Model U;
  U.Kind = ModelKind::UnitCall;
  CHECK(U.tHold(12345) == 1);
  CHECK(U.tEnd(12345, 3) == 1);
  CHECK(U.holdAffine().Base == 1);
  CHECK(U.holdAffine().PerByte == 0);

  // Wormhole: whole flits, and (k-1) c_d more over k channels.
  Model W;
  W.Kind = ModelKind::Wormhole;
  W.Worm = {2000, 2, 2, 3500, 3, 4};
  CHECK(W.tHold(10) == 2000 + 3 * 2);
  CHECK(W.tEnd(10, 3) == 2000 + 3500 + 2 * 2 + 3 * (2 + 2 + 3));
  CHECK(W.holdAffine().Base == 2000);
  CHECK(W.holdAffine().PerByte == 0.5);
}
