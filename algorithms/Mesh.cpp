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

/// The index of \p S's root in \p Chain.
int64_t sourceIndex(const Schedule &S, const std::vector<int32_t> &Chain) {
  return std::find(Chain.begin(), Chain.end(), S.Root) - Chain.begin();
}

llvm::Expected<Schedule> meshSchedule(const Machine &M, const Request &R,
                                      llvm::StringRef Name,
                                      const ChainSplit &Split) {
  Schedule S = scheduleSkeleton(M, R, Name);
  std::vector<int32_t> Chain = dimensionOrderedChain(S);
  S.Steps = stepsByRounds(
      chainSplitTransfers(S, Chain, sourceIndex(S, Chain), Split), S.size());
  return S;
}

/// chainSplitBound of meshSchedule's tree.
double meshBound(const Machine &M, const Request &R, const ChainSplit &Split) {
  const Schedule S = scheduleSkeleton(M, R, "");
  const std::vector<int32_t> Chain = dimensionOrderedChain(S);
  return chainSplitBound(M, S, Chain, sourceIndex(S, Chain), Split);
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

double optMeshBound(const Machine &M, const Request &R) {
  return meshBound(M, R, optTreeSplit(M, R));
}

double uMeshBound(const Machine &M, const Request &R) {
  return meshBound(M, R, binomialSplit());
}

} // namespace collc
