#include "algorithms/NodeLeaders.h"

#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"

#include <cstddef>
#include <utility>

namespace collc {

llvm::Expected<Schedule> buildNodeLeadersAllgather(const Machine &M,
                                                   const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "node-leaders");
  const int32_t P = S.size();
  // Each node's ranks, increasing; the first is the leader.
  const std::vector<std::vector<int32_t>> Nodes = ranksByNode(S);
  const int64_t N = static_cast<int64_t>(Nodes.size());
  std::vector<int64_t> NodeOf(P);
  for (int64_t G = 0; G < N; ++G)
    for (int32_t Rk : Nodes[G])
      NodeOf[Rk] = G;
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  auto Add = [&](Transfer T, int64_t Group) {
    Ts.push_back(std::move(T));
    Groups.push_back(Group);
  };
  // 1. Inside every node, every rank's block to the others.
  for (const std::vector<int32_t> &Node : Nodes)
    for (int32_t A : Node)
      for (int32_t B : Node)
        if (A != B)
          Add(allgatherBlocks(S, A, B, {{A, A + 1}}), 0);
  // 2. Every leader sends its node's blocks to every other leader, the
  // next node first.
  for (int64_t D = 1; D < N; ++D)
    for (int64_t G = 0; G < N; ++G)
      Add(allgatherBlocks(S, Nodes[G].front(), Nodes[(G + D) % N].front(),
                          asIntervals(Nodes[G])),
          1);
  // 3. Every leader hands the other nodes' blocks to its node's other
  // ranks, one message each.
  for (int64_t G = 0; G < N; ++G) {
    if (Nodes[G].size() < 2)
      continue;
    std::vector<int32_t> Others;
    for (int32_t Rk = 0; Rk < P; ++Rk)
      if (NodeOf[Rk] != G)
        Others.push_back(Rk);
    if (Others.empty())
      continue;
    const std::vector<Interval> Blocks = asIntervals(Others);
    for (size_t J = 1; J < Nodes[G].size(); ++J)
      Add(allgatherBlocks(S, Nodes[G].front(), Nodes[G][J], Blocks), 2);
  }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Groups));
  return S;
}

} // namespace collc
