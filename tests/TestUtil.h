/// \file
/// Helpers shared by the unit tests: machines and requests built in code.
#ifndef COLLC_TESTS_TESTUTIL_H
#define COLLC_TESTS_TESTUTIL_H

#include "ir/Machine.h"
#include "ir/Request.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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

inline Request bcast(int32_t Ranks, int32_t Root = 0, uint64_t Bytes = 0,
                     const char *Algorithm = "auto") {
  Request R;
  R.Coll = Collective::Bcast;
  R.Nodes.resize(Ranks);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Root = Root;
  R.Bytes = Bytes;
  R.Algorithm = Algorithm;
  return R;
}

/// A request for \p C on ranks 0..Ranks-1 (nodes 0..Ranks-1); reductions
/// sum int32 elements.
inline Request request(Collective C, int32_t Ranks, int32_t Root,
                       uint64_t Bytes, const char *Algorithm) {
  Request R =
      bcast(Ranks, Root, C == Collective::Barrier ? 0 : Bytes, Algorithm);
  R.Coll = C;
  if (isReduction(C)) {
    R.Op = "sum";
    R.Datatype = "int32";
  }
  return R;
}

} // namespace collc::test

#endif
