#include "algorithms/NodeRing.h"

#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"

#include <utility>
#include <vector>

namespace collc {

llvm::Expected<Schedule> buildNodeRingAllgather(const Machine &M,
                                                const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "node-ring");
  const std::vector<std::vector<int32_t>> Nodes = ranksByNode(S);
  const int64_t N = static_cast<int64_t>(Nodes.size());
  // Lane j's rank on node n.
  auto Member = [&](int64_t Node, size_t Lane) {
    const std::vector<int32_t> &Ranks = Nodes[Node % N];
    return Ranks[Lane % Ranks.size()];
  };
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  auto Add = [&](int32_t From, int32_t To, int32_t Origin, int64_t Round) {
    Ts.push_back(allgatherBlocks(S, From, To, {{Origin, Origin + 1}}));
    Groups.push_back(Round);
  };
  for (int64_t Round = 0; Round < N; ++Round)
    for (int64_t Node = 0; Node < N; ++Node) {
      // The blocks this node's lanes hold: those of node Node - Round.
      const std::vector<int32_t> &Origins = Nodes[(Node - Round + N) % N];
      for (size_t Lane = 0; Lane < Origins.size(); ++Lane) {
        const int32_t Holder = Member(Node, Lane);
        if (Round + 1 < N)
          Add(Holder, Member(Node + 1, Lane), Origins[Lane], Round);
        for (int32_t Peer : Nodes[Node])
          if (Peer != Holder)
            Add(Holder, Peer, Origins[Lane], Round);
      }
    }
  S.Steps = groupedRounds(M, std::move(Ts), S.size(), std::move(Groups));
  return S;
}

} // namespace collc
