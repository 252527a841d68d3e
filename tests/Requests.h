/// \file
/// Requests for the unit tests, made by collc's one request constructor
/// (makeRequest, readers/RequestSpec.h): a test asks only for what collc
/// itself accepts, checked as a request file or the command line is.
#ifndef COLLC_TESTS_REQUESTS_H
#define COLLC_TESTS_REQUESTS_H

#include "readers/RequestSpec.h"

#include "llvm/Support/Error.h"

#include <doctest/doctest.h>

#include <numeric>
#include <string>

namespace collc::test {

/// The fields of \p C among ranks 0..P-1 on nodes 0..P-1, rooted at rank
/// \p Root, of \p Bytes (a barrier has none), by \p Algorithm; reductions
/// sum int32 elements with an operator that is \p Commutative or not.
inline RequestFields fields(Collective C, int32_t P, int32_t Root,
                            uint64_t Bytes, const std::string &Algorithm,
                            bool Commutative = true) {
  RequestFields F;
  F.Coll = C;
  F.Participants.emplace(static_cast<size_t>(P));
  std::iota(F.Participants->begin(), F.Participants->end(), 0);
  F.RootRank = Root;
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

} // namespace collc::test

#endif
