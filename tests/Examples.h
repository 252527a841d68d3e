/// \file
/// The bundled example machines, loaded for tests, and requests of reductions
/// with a chosen commutativity.
#ifndef COLLC_TESTS_EXAMPLES_H
#define COLLC_TESTS_EXAMPLES_H

#include "readers/MachineSpec.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <string>

namespace collc::test {

/// examples/machines/<File>, which must load.
inline Machine exampleMachine(const char *File) {
  auto M =
      loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/machines/" + File);
  REQUIRE(static_cast<bool>(M));
  return *M;
}

/// \p C on \p P ranks; reductions sum \p Bytes / 4 int32 elements, with an
/// operator that is \p Commutative or not.
inline Request request(Collective C, int32_t P, int32_t Root, uint64_t Bytes,
                       const char *Alg, bool Commutative) {
  Request R = request(C, P, Root, Bytes, Alg);
  R.Commutative = Commutative;
  return R;
}

} // namespace collc::test

#endif
