/// \file
/// Machines built in code, for the unit tests and the benchmarks (requests:
/// tests/Requests.h).
#ifndef COLLC_TESTS_TESTUTIL_H
#define COLLC_TESTS_TESTUTIL_H

#include "ir/Machine.h"

#include <algorithm>
#include <cmath>

namespace collc::test {

inline Machine parameterized(double THold, double TEnd, double HoldPerByte = 0,
                             double EndPerByte = 0) {
  Machine M;
  M.Name = "test";
  M.M.Kind = ModelKind::Parameterized;
  M.M.Parameterized = {{THold, HoldPerByte}, {TEnd, EndPerByte}};
  return M;
}

/// A linear-model machine on a 2-D torus of about \p P nodes (extents
/// a x b >= P, a near sqrt(P)).
inline Machine linearTorus(int32_t P) {
  Machine M;
  M.Name = "scale";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {2, 1e-4};
  M.M.OpPerByte = 1e-5;
  int64_t A = std::max<int64_t>(2, std::llround(std::sqrt(double(P))));
  int64_t B = std::max<int64_t>(2, (P + A - 1) / A);
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {A, B};
  M.Topo.Nodes = A * B;
  return M;
}

} // namespace collc::test

#endif
