/// \file
/// Requests for the unit tests, made by collc's one request constructor
/// (makeRequest, readers/RequestSpec.h): a test asks only for what collc
/// itself accepts, checked as a request file or the command line is.
#ifndef COLLC_TESTS_REQUESTS_H
#define COLLC_TESTS_REQUESTS_H

#include "algorithms/Registry.h"
#include "ir/Random.h"
#include "readers/RequestSpec.h"
#include "tests/TestUtil.h"

#include "llvm/Support/Error.h"

#include <doctest/doctest.h>

#include <numeric>
#include <string>
#include <vector>

namespace collc::test {

/// The fields of \p C among ranks 0..P-1 on nodes 0..P-1, rooted at rank
/// \p Root, of \p Bytes (a barrier has none), by \p Algorithm; reductions
/// sum int32 elements with an operator that is \p Commutative or not. A
/// multicast's group is its root's node, then the other nodes in order (its
/// root is rank 0).
inline RequestFields fields(Collective C, int32_t P, int32_t Root,
                            uint64_t Bytes, const std::string &Algorithm,
                            bool Commutative = true) {
  RequestFields F;
  F.Coll = C;
  std::vector<int64_t> Nodes(static_cast<size_t>(P));
  std::iota(Nodes.begin(), Nodes.end(), 0);
  if (C == Collective::Multicast) {
    F.Root = Root;
    Nodes.erase(Nodes.begin() + Root);
    F.Destinations = std::move(Nodes);
  } else {
    F.Participants = std::move(Nodes);
    F.RootRank = Root;
  }
  F.Bytes = C == Collective::Barrier ? 0 : Bytes;
  F.Algorithm = Algorithm;
  if (isReduction(C)) {
    F.Op = "sum";
    F.Datatype = "int32";
    F.Commutative = Commutative;
  }
  return F;
}

/// The request \p F asks for on \p M; the test stops, with makeRequest's
/// reason, where it is refused.
inline Request made(const Machine &M, const RequestFields &F) {
  llvm::Expected<Request> R = makeRequest(F, M);
  const std::string Why = R ? "" : llvm::toString(R.takeError());
  REQUIRE_MESSAGE(Why.empty(), Why);
  return std::move(*R);
}

/// made(M, fields(...)): \p C among ranks 0..P-1 on \p M.
inline Request request(const Machine &M, Collective C, int32_t P, int32_t Root,
                       uint64_t Bytes, const std::string &Algorithm,
                       bool Commutative = true) {
  return made(M, fields(C, P, Root, Bytes, Algorithm, Commutative));
}

/// The machine the requests below are made on when a test gives none: of no
/// fixed size, one process per node, a model that times any size. It leaves
/// makeRequest the checks that hold on every machine (the fields each
/// collective needs, a group of distinct nodes, the root among it, the
/// reduction's operator and element size, MaxRanks and MaxBytes).
inline const Machine &anyMachine() {
  static const Machine M = parameterized(1, 1);
  return M;
}

/// \p C among ranks 0..P-1 on nodes 0..P-1, made by makeRequest on
/// anyMachine(); reductions sum int32 elements with an operator that is
/// \p Commutative or not. \p Algorithm must name an algorithm of \p C (or
/// be "auto"); whether it runs on the test's machine is checked where the
/// test builds the request there (lookupAlgorithm), as collc does.
inline Request request(Collective C, int32_t P, int32_t Root, uint64_t Bytes,
                       const std::string &Algorithm, bool Commutative = true) {
  REQUIRE_MESSAGE((Algorithm == "auto" || findAlgorithm(Algorithm, C)),
                  "unknown algorithm " << Algorithm);
  Request R =
      made(anyMachine(), fields(C, P, Root, Bytes, "auto", Commutative));
  R.Algorithm = Algorithm;
  return R;
}

/// A broadcast of \p Bytes from rank \p Root among ranks 0..P-1.
inline Request bcast(int32_t P, int32_t Root = 0, uint64_t Bytes = 0,
                     const std::string &Algorithm = "auto") {
  return request(Collective::Bcast, P, Root, Bytes, Algorithm);
}

/// Places \p R's ranks \p PerNode to a node: in blocks (rank r on node
/// r / PerNode), or with \p Shuffled each on a node drawn from as many.
inline void placeOnNodes(Request &R, int PerNode, bool Shuffled, Rng &G) {
  const int32_t P = R.size();
  for (int32_t Rk = 0; Rk < P; ++Rk)
    R.Nodes[Rk] = Shuffled ? G.uniform(0, (P - 1) / PerNode) : Rk / PerNode;
}

} // namespace collc::test

#endif
