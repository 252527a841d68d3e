// The two-level reductions (`two-level`: a node's ranks fold into their
// leader, the leaders reduce across the network, an allreduce's leaders hand
// the result back). For rank counts drawn from 2..70 (primes among them),
// roots and placements (blocks of 1 to 4 ranks a node, and ranks shuffled
// over nodes), each builds and verifies; the network carries one vector per
// node (a reduce's ranks send once, inside their node or as a leader); a
// non-commutative operator is refused with the reason; and on platforms of
// the random arena where the evaluator times it fastest, auto takes it.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <set>

using namespace collc;

namespace {

/// Rank counts: 2, 3, 7, 31, 70, and drawn ones from 2..70.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps{2, 3, 7, 31, 70};
  Rng G(27027);
  while (Ps.size() < 11)
    Ps.insert(static_cast<int32_t>(G.uniform(2, 70)));
  return {Ps.begin(), Ps.end()};
}

/// On platform \p Index of the arena's draw (\p Ranks ranks), \p C of 1 KiB:
/// auto takes two-level, faster than the flat trees and doubling it takes
/// over from (and than \p Rival, the one auto took before).
void autoTakesTwoLevel(uint64_t Index, int32_t Ranks, Collective C,
                       const char *Rival) {
  int32_t P = 0;
  const Machine M = test::arenaPlatform(Index, P);
  REQUIRE(P == Ranks);
  Request R = test::arenaRequest(M, C, 1024, "auto");
  auto Auto = compile(M, R);
  REQUIRE(Auto);
  CHECK(Auto->Algorithm == "two-level");
  for (const char *Other : {"binomial", "direct", Rival}) {
    R.Algorithm = Other;
    auto S = compile(M, R);
    REQUIRE(S);
    CAPTURE(Other);
    CHECK(Auto->Makespan < S->Makespan);
  }
}

} // namespace

TEST_CASE("two-level: every rank count, root and placement builds and "
          "verifies; the network carries one vector per node") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  Rng G(91);
  size_t Built = 0;
  for (Collective C : {Collective::Reduce, Collective::Allreduce})
    for (int32_t P : rankCounts())
      for (int32_t Root : {0, P / 2, P - 1})
        for (int PerNode : {1, 2, 3, 4, 0})
          for (const Machine *M : {&Net, &Model}) {
            if (M == &Model && P > 16)
              continue; // its 16 nodes
            if (C == Collective::Allreduce && Root != 0)
              continue;
            Request R = test::request(*M, C, P, Root, 4000, "two-level");
            // PerNode 0: ranks shuffled over P / 3 nodes.
            test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
            CAPTURE(collectiveName(C));
            CAPTURE(P);
            CAPTURE(Root);
            CAPTURE(PerNode);
            CAPTURE(M->Name);
            auto S = compile(*M, R);
            REQUIRE_MESSAGE(static_cast<bool>(S),
                            llvm::toString(S.takeError()));
            CHECK(S->Algorithm == "two-level");
            std::set<int64_t> Nodes(R.Nodes.begin(), R.Nodes.end());
            // Transfers between nodes, and each rank's sends.
            size_t Across = 0;
            std::vector<int64_t> Sent(size_t(P), 0);
            for (const Step &St : S->Steps)
              for (const Transfer &T : St.Transfers) {
                Across += R.Nodes[size_t(T.Src)] != R.Nodes[size_t(T.Dst)];
                ++Sent[size_t(T.Src)];
              }
            if (C == Collective::Reduce) {
              // A tree: every rank but the root sends once; one vector
              // leaves every node but the root's.
              for (int32_t V = 0; V < P; ++V)
                CHECK(Sent[size_t(V)] == (V == Root ? 0 : 1));
              CHECK(Across == Nodes.size() - 1);
            } else {
              // Recursive doubling or one exchange over the n leaders: at
              // most n (n - 1) vectors across.
              CHECK(Across <= Nodes.size() * (Nodes.size() - 1));
              CHECK(Across >= Nodes.size() - 1);
            }
            ++Built;
          }
  CHECK(Built > 200);
}

TEST_CASE("two-level: a non-commutative operator is refused, saying why") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (Collective C : {Collective::Reduce, Collective::Allreduce}) {
    auto R = makeRequest(
        test::fields(C, 8, 0, 4000, "two-level", /*Commutative=*/false), Net);
    REQUIRE_FALSE(R);
    CHECK(llvm::toString(R.takeError()).find("commutative") !=
          std::string::npos);
  }
}

TEST_CASE("two-level: auto takes it where the evaluator times it fastest "
          "(platforms of the arena where SMPI's MVAPICH2 reduce and "
          "allreduce beat auto's earlier choice at 1 KiB)") {
  // A 2x3x2 torus of 12 hosts, 2 ranks each.
  autoTakesTwoLevel(8, 24, Collective::Reduce, "knomial");
  // A 2x10 torus, one rank a host: the leaders' k-nomial tree, its
  // subtrees sent as soon as they are done.
  autoTakesTwoLevel(21, 20, Collective::Reduce, "knomial");
  // A 2-level fat tree of 4 hosts, 4 ranks each.
  autoTakesTwoLevel(16, 16, Collective::Allreduce, "nearest-doubling");
}
