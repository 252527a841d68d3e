#include "algorithms/NonblockingRing.h"

#include "algorithms/Personalized.h"

namespace collc {

llvm::Expected<Schedule> buildNonblockingRingAllgather(const Machine &M,
                                                       const Request &R) {
  llvm::Expected<Schedule> S = buildRingAllgatherPart(M, R, -1);
  if (!S)
    return S.takeError();
  S->Algorithm = "nonblocking-ring";
  S->SendsAhead = true;
  return S;
}

} // namespace collc
