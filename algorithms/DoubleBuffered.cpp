#include "algorithms/DoubleBuffered.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Reductions.h"
#include "algorithms/TwoLevel.h"

#include <cmath>
#include <string>

namespace collc {

namespace {

/// \p Built with two staging areas, renamed, its times cleared so that the
/// search prices it again.
llvm::Expected<Schedule> twoBuffers(llvm::Expected<Schedule> Built) {
  if (!Built)
    return Built.takeError();
  Built->Algorithm = "double-buffered";
  Built->StagingDepth = 2;
  Built->Makespan = NAN;
  return Built;
}

} // namespace

llvm::Expected<Schedule>
buildDoubleBufferedReduce(const Machine &M, const Request &R, Pipeline &Pl) {
  Cheapest Search(M, Pl, makespanJudge());
  Search.consider("tree=binomial", [&] {
    return twoBuffers(buildBinomialReducePart(M, R, -1));
  });
  std::string Why;
  if (knomialReduceApplies(M, R, Why))
    Search.consider("tree=knomial",
                    [&] { return twoBuffers(buildKnomialReduce(M, R, Pl)); });
  if (twoLevelApplies(M, R, Why))
    Search.consider("tree=two-level", [&] {
      return twoBuffers(buildTwoLevelReduction(M, R, Pl));
    });
  return Search.take();
}

} // namespace collc
