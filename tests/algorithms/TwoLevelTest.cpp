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

/// On platform \p Index of the arena's draw (\p Ranks ranks), \p C of
/// \p Bytes: auto takes two-level (with the vector in \p Chunks chunks),
/// faster than the flat trees and than \p Rival, the one auto took before.
void autoTakesTwoLevel(uint64_t Index, int32_t Ranks, Collective C,
                       uint64_t Bytes, const char *Rival, int64_t Chunks) {
  int32_t P = 0;
  const Machine M = test::arenaPlatform(Index, P);
  REQUIRE(P == Ranks);
  const Schedule Auto =
      test::autoTakes(M, test::arenaRequest(M, C, Bytes, "auto"), "two-level",
                      {"binomial", "direct", Rival});
  CHECK(Auto.NumChunks == Chunks);
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
            const uint64_t N = Nodes.size();
            // Bytes between nodes, and each rank's sends.
            uint64_t Across = 0;
            std::vector<int64_t> Sent(size_t(P), 0);
            for (const Step &St : S->Steps)
              for (const Transfer &T : St.Transfers) {
                if (R.Nodes[size_t(T.Src)] != R.Nodes[size_t(T.Dst)])
                  Across += T.Bytes;
                ++Sent[size_t(T.Src)];
              }
            // A rank that leads no node sends once, to its leader (and an
            // allreduce's gets the result from it).
            std::set<int32_t> Leaders;
            for (const Step &St : S->Steps)
              for (const Transfer &T : St.Transfers)
                if (R.Nodes[size_t(T.Src)] != R.Nodes[size_t(T.Dst)])
                  Leaders.insert(T.Src);
            CHECK(Leaders.size() <= N);
            for (int32_t V = 0; V < P; ++V)
              if (!Leaders.count(V) && V != Root)
                CHECK(Sent[size_t(V)] == 1);
            if (C == Collective::Reduce) {
              // The root sends nothing, or each other owner its chunk.
              CHECK(Sent[size_t(Root)] == S->NumChunks - 1);
              // A k-nomial tree of the leaders, n - 1 vectors, or a
              // reduce-scatter and gather among them, (n - 1) / n each.
              CHECK(Across <= N * 4000);
            } else {
              // At most one exchange of every leader with every other.
              CHECK(Across <= N * (N - 1) * 4000);
            }
            CHECK(Across >= (N - 1) * 4000 / N);
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
          "(platforms of the arena where SMPI's MVAPICH2 and MPICH reduce "
          "and allreduce beat auto's earlier choice)") {
  // A 2x3x2 torus of 12 hosts, 2 ranks each.
  autoTakesTwoLevel(8, 24, Collective::Reduce, 1024, "knomial", 1);
  // A 2x10 torus, one rank a host: the leaders' k-nomial tree, its
  // subtrees sent as soon as they are done.
  autoTakesTwoLevel(21, 20, Collective::Reduce, 1024, "knomial", 1);
  // A 2-level fat tree of 4 hosts, 4 ranks each.
  autoTakesTwoLevel(16, 16, Collective::Allreduce, 1024, "nearest-doubling", 1);
  // A 2-level fat tree of 4 hosts, 4 ranks each, at 64 KiB: the leaders
  // reduce-scatter (4 chunks) and gather, as MPICH's SMP-aware reduce.
  autoTakesTwoLevel(9, 16, Collective::Reduce, 65536, "pipeline", 4);
}
