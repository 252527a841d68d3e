#include "algorithms/SwitchBcast.h"

#include "algorithms/Cheapest.h"
#include "algorithms/SegmentedBcast.h"
#include "algorithms/TreePipeline.h"

namespace collc {

namespace {

/// On a fat tree every message of a pipeline crosses the few uplinks that
/// all the others share, and timing a candidate costs the evaluator more:
/// kary-pipeline searches within a smaller budget.
constexpr int64_t MaxKarySearchTransfers = int64_t(1) << 13;

} // namespace

bool switchBcastApplies(const Machine &M, const Request &, std::string &Why) {
  return topologyIsOneOf(
      M, {TopologyKind::FatTree, TopologyKind::Cluster, TopologyKind::Full},
      "orders ranks by leaf switch: needs a fat-tree, cluster or full "
      "topology",
      Why);
}

llvm::Expected<Schedule> buildKaryPipeline(const Machine &M, const Request &R,
                                           Pipeline &Pl) {
  Schedule Skel = scheduleSkeleton(M, R, "kary-pipeline");
  const int32_t P = Skel.size();
  if (P < 2)
    return Skel;
  // Ranks in node order, from the root on.
  const std::vector<int32_t> Order = nodeOrderFromRoot(Skel);
  Cheapest Fanouts(M, Pl, makespanJudge());
  for (int64_t Fan : {2, 4}) {
    ParentArray Tree(P, -1);
    for (int64_t I = 1; I < P; ++I)
      Tree[Order[I]] = Order[(I - 1) / Fan];
    Fanouts.consider("fan-out " + llvm::Twine(Fan), [&] {
      return searchOneTree(M, R, Pl, Skel, Tree,
                           pipelineOptimalSegments(M, P / Fan + 1, R.Bytes),
                           MaxKarySearchTransfers);
    });
  }
  return Fanouts.take();
}

} // namespace collc
