/// \file
/// The bundled example machines, loaded for tests.
#ifndef COLLC_TESTS_EXAMPLES_H
#define COLLC_TESTS_EXAMPLES_H

#include "readers/MachineSpec.h"
#include "tests/Requests.h"

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

} // namespace collc::test

#endif
