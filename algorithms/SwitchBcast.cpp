#include "algorithms/SwitchBcast.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/SegmentedBcast.h"
#include "algorithms/TreePipeline.h"
#include "passes/Verify.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace collc {

namespace {

/// On a fat tree every message of a pipeline crosses the few uplinks that
/// all the others share, and timing a candidate costs the evaluator more:
/// kary-pipeline searches within a smaller budget.
constexpr int64_t MaxKarySearchTransfers = int64_t(1) << 13;

/// Rank \p List[i] (i > 0) receives from \p List[(i - 1) / \p Fan]: a k-ary
/// heap over the list, rooted at its first rank.
void karyHeap(ParentArray &Tree, llvm::ArrayRef<int32_t> List, int64_t Fan) {
  for (size_t I = 1; I < List.size(); ++I)
    Tree[List[I]] = List[(I - 1) / Fan];
}

/// A broadcast's skeleton and its ranks in node order from the root
/// (nodeOrderFromRoot), the start of the builders over node order.
struct NodeOrdered {
  Schedule Skel;
  std::vector<int32_t> Order;
};

NodeOrdered nodeOrdered(const Machine &M, const Request &R,
                        llvm::StringRef Name) {
  NodeOrdered N{scheduleSkeleton(M, R, Name), {}};
  N.Order = nodeOrderFromRoot(N.Skel);
  return N;
}

} // namespace

bool switchBcastApplies(const Machine &M, const Request &, std::string &Why) {
  return topologyIsOneOf(
      M, {TopologyKind::FatTree, TopologyKind::Cluster, TopologyKind::Full},
      "orders ranks by leaf switch: needs a fat-tree, cluster or full "
      "topology",
      Why);
}

bool nodeTreeInAuto(const Machine &M, const Request &R, std::string &Why) {
  if (sharesNodes(M, R, Why))
    return true;
  if (!onNetwork(M, R, Why) || !switchBcastApplies(M, R, Why))
    return false;
  if (R.size() <= MaxAutoNodeTreeRanks)
    return true;
  Why = "one rank a node and more than " +
        std::to_string(MaxAutoNodeTreeRanks) +
        " ranks: its search costs seconds (name it to build it)";
  return false;
}

llvm::Expected<Schedule> buildKaryPipeline(const Machine &M, const Request &R,
                                           Pipeline &Pl) {
  const NodeOrdered N = nodeOrdered(M, R, "kary-pipeline");
  const int32_t P = N.Skel.size();
  if (P < 2)
    return N.Skel;
  Cheapest Fanouts(M, Pl, makespanJudge());
  for (int64_t Fan : {2, 4}) {
    ParentArray Tree(P, -1);
    karyHeap(Tree, N.Order, Fan);
    Fanouts.consider("fan-out " + llvm::Twine(Fan), [&] {
      return searchOneTree(M, R, Pl, N.Skel, Tree,
                           pipelineOptimalSegments(M, P / Fan + 1, R.Bytes),
                           MaxKarySearchTransfers);
    });
  }
  return Fanouts.take();
}

llvm::Expected<Schedule> buildNodeTree(const Machine &M, const Request &R,
                                       Pipeline &Pl) {
  // A node's first rank in node order from the root leads it (the root
  // leads its own node).
  const NodeOrdered NO = nodeOrdered(M, R, "node-tree");
  const Schedule &Skel = NO.Skel;
  const int32_t P = Skel.size();
  if (P < 2)
    return Skel;
  auto NodeOf = [&](int32_t Rank) { return Skel.Participants[Rank].Node; };
  std::vector<int32_t> Leaders;
  std::vector<std::vector<int32_t>> Members; // per leader, its node's ranks
  // The order wraps round to the root's node's ranks before the root: a
  // node is found by its node, not by adjacency.
  std::map<int64_t, size_t> LeaderOf;
  for (int32_t Rank : NO.Order) {
    auto [It, New] = LeaderOf.emplace(NodeOf(Rank), Leaders.size());
    if (New) {
      Leaders.push_back(Rank);
      Members.emplace_back();
    }
    Members[It->second].push_back(Rank);
  }
  const int64_t N = static_cast<int64_t>(Leaders.size());
  Cheapest Shapes(M, Pl, makespanJudge());
  struct Form {
    int64_t Across; // fan-out among the leaders
    int64_t Inside; // fan-out inside a node (P: all from the leader)
    bool Together;  // a rank's sends of a segment posted together
  };
  // With one rank a node the chain is `pipeline`'s, and forms that differ
  // only inside a node are one tree: each tree is searched once. Segment
  // counts are coarse (searchSegments): seven forms under two windows are
  // many contenders whose shapes --emit select would otherwise locate at
  // every few kilobytes.
  const bool Shared = N < P;
  std::set<std::pair<ParentArray, bool>> Tried;
  for (Form F : {Form{2, 2, false}, Form{1, 1, false}, Form{2, 2, true},
                 Form{2, P, true}, Form{4, P, true}, Form{P, P, true},
                 Form{P, P, false}}) {
    if (!Shared && F.Across == 1)
      continue;
    ParentArray Tree(P, -1);
    karyHeap(Tree, Leaders, F.Across);
    // Each node's ranks in a heap below their leader.
    for (int64_t L = 0; L < N; ++L)
      karyHeap(Tree, Members[L], F.Inside);
    if (!Tried.insert({Tree, F.Together}).second)
      continue;
    if (F.Together) {
      // A fan-out in one step needs as many ports as children.
      std::vector<int64_t> Children(P, 0);
      for (int32_t V = 0; V < P; ++V)
        if (Tree[V] >= 0)
          ++Children[Tree[V]];
      if (*std::max_element(Children.begin(), Children.end()) >
          static_cast<int64_t>(portsPerStep(M)))
        continue;
    }
    const std::string Inside =
        F.Inside >= P ? "flat" : std::to_string(F.Inside);
    Shapes.consider(
        "across " + llvm::Twine(F.Across) + ", inside " + Inside +
            (F.Together ? ", fan-outs together" : ""),
        [&] {
          return searchWindows(M, Pl, [&](bool Open) {
            return searchSegments(
                M, R, Pl, pipelineOptimalSegments(M, N / F.Across + 2, R.Bytes),
                maxSegmentsPerTree(R, 1, MaxKarySearchTransfers),
                [&](int64_t K) -> llvm::Expected<Schedule> {
                  Schedule S = Skel;
                  S.NumChunks = K;
                  if (Open)
                    openWindow(S);
                  TreeShare Share{Tree, 0, K};
                  Share.FanOutTogether = F.Together;
                  S.Steps = forestSteps(S, {Share});
                  return S;
                },
                1, SegmentCounts::Coarse);
          });
        });
  }
  return Shapes.take();
}

} // namespace collc
