#include "algorithms/Mesh.h"

#include "algorithms/OptTree.h"
#include "algorithms/Trees.h"

#include <algorithm>
#include <numeric>

namespace collc {

std::vector<int32_t> dimensionOrderedChain(const Schedule &S) {
  std::vector<int32_t> Chain(S.size());
  std::iota(Chain.begin(), Chain.end(), 0);
  // Node numbers are row-major on the written coordinates, so their order is
  // <_d. Ranks on one node (allowed for bcast) keep rank order.
  std::stable_sort(Chain.begin(), Chain.end(), [&](int32_t A, int32_t B) {
    return S.Participants[A].Node < S.Participants[B].Node;
  });
  return Chain;
}

namespace {

llvm::Expected<Schedule> meshSchedule(const Machine &M, const Request &R,
                                      llvm::StringRef Name,
                                      const ChainSplit &Split) {
  Schedule S = scheduleSkeleton(M, R, Name);
  std::vector<int32_t> Chain = dimensionOrderedChain(S);
  int64_t Source =
      std::find(Chain.begin(), Chain.end(), S.Root) - Chain.begin();
  S.Steps =
      stepsByRounds(chainSplitTransfers(S, Chain, Source, Split), S.size());
  return S;
}

} // namespace

bool meshApplies(const Machine &M, const Request &, std::string &Why) {
  return topologyIsOneOf(
      M, {TopologyKind::Mesh, TopologyKind::Torus, TopologyKind::Hypercube},
      "needs a mesh, torus or hypercube topology", Why);
}

llvm::Expected<Schedule> buildOptMesh(const Machine &M, const Request &R) {
  return meshSchedule(M, R, "opt-mesh", optTreeSplit(M, R));
}

llvm::Expected<Schedule> buildUMesh(const Machine &M, const Request &R) {
  return meshSchedule(M, R, "u-mesh", binomialSplit());
}

} // namespace collc
