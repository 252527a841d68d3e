// The allgather of node leaders (`node-leaders`, SMPI's smp_simple): for
// rank counts drawn from 2..70 (primes among them) and placements (one rank
// a node, three, shuffled), it builds and verifies; only leaders send
// across nodes, and every other rank gets everything from outside its node
// in one message from its leader; and on the drawn thin cluster where
// SMPI's smp_simple beat auto's node-direct at 1 KiB, auto takes it.
#include "algorithms/Personalized.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <map>
#include <utility>

using namespace collc;

TEST_CASE("node-leaders: every rank count and placement builds and "
          "verifies; leaders alone cross nodes, one message into each "
          "other rank") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(4409);
  size_t Built = 0;
  const std::vector<int32_t> Ps =
      test::drawnRankCounts({2, 3, 17, 32, 41, 67}, 9127, 10);
  for (int32_t P : Ps)
    for (int PerNode : {1, 3, 0}) {
      Request R =
          test::request(Net, Collective::Allgather, P, 0, 1000, "node-leaders");
      test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
      CAPTURE(P);
      CAPTURE(PerNode);
      auto S = compile(Net, R);
      REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
      CHECK(S->Algorithm == "node-leaders");
      const std::vector<std::vector<int32_t>> Nodes = ranksByNode(*S);
      std::map<int32_t, int32_t> LeaderOf;
      for (const std::vector<int32_t> &Node : Nodes)
        for (int32_t Rk : Node)
          LeaderOf[Rk] = Node.front();
      // Messages into each rank from outside its node, and their senders.
      std::map<int32_t, int> Across;
      for (const Step &St : S->Steps)
        for (const Transfer &T : St.Transfers) {
          const bool Crosses = LeaderOf[T.Src] != LeaderOf[T.Dst];
          if (Crosses) {
            CHECK(LeaderOf[T.Src] == T.Src);
            CHECK(LeaderOf[T.Dst] == T.Dst);
            ++Across[T.Dst];
          }
          // Inside a node, blocks of other nodes: from the leader to its
          // node's other ranks.
          bool Outside = false;
          for (const Piece &Pc : T.Pieces)
            for (int32_t O = Pc.Origins.Lo; O < Pc.Origins.Hi; ++O)
              Outside = Outside || LeaderOf[O] != LeaderOf[T.Src];
          if (!Crosses && Outside) {
            CHECK(T.Src == LeaderOf[T.Src]);
            ++Across[T.Dst];
          }
        }
      for (const std::vector<int32_t> &Node : Nodes)
        for (size_t J = 0; J < Node.size(); ++J)
          CHECK(Across[Node[J]] == (J == 0 ? static_cast<int>(Nodes.size()) - 1
                                           : (Nodes.size() > 1 ? 1 : 0)));
      ++Built;
    }
  CHECK(Built == Ps.size() * 3);
}

TEST_CASE("node-leaders: auto takes it on the drawn thin cluster where "
          "SMPI's smp_simple beat node-direct's 1 KiB allgather") {
  // Seed 20261127's sixth platform: 16 hosts of a thin-backbone cluster, 2
  // ranks each. auto took node-direct (SMPI 18.32 us; smp_simple 17.90).
  int32_t P = 0;
  const Machine M = test::drawnPlatform(20261127, 24, 64, 5, P);
  REQUIRE(P == 32);
  test::autoTakes(M, test::arenaRequest(M, Collective::Allgather, 1024, "auto"),
                  "node-leaders", {"node-direct", "direct"});
}
