// The double-buffered tree reduces (`double-buffered`: collc's binomial,
// k-nomial and two-level reduces with two children's vectors staged at once,
// as Open MPI's tree reduce receives into two buffers). For rank counts drawn
// from 2..70 (primes among them), roots, placements and operators, each
// builds, verifies and keeps its staging depth through JSON; the posting
// plan gives a parent's consecutive whole-vector receives two staging areas
// (one without the depth); and on platforms of the random arena where the
// evaluator times it fastest (SMPI's ompi_binomial and mvapich2 beat auto's
// earlier choice there), auto takes it.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Posting.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace collc;

namespace {

/// The staging areas (first units) of the receives of rank \p Rank's plan
/// of \p S, in its program's order.
std::vector<int64_t> receiveAreas(const Schedule &S, int32_t Rank) {
  auto Plan = planPosting(S);
  REQUIRE(static_cast<bool>(Plan));
  std::vector<int64_t> Areas;
  for (const PlannedOp &O : Plan->Ranks[size_t(Rank)].Ops)
    if (O.isRecv())
      Areas.push_back(O.Stage);
  return Areas;
}

/// On platform \p Index of the arena's draw (\p Ranks ranks), a reduce of
/// \p Bytes to rank 0: auto takes double-buffered, faster than \p Rival (the
/// one auto took before) and than the tree it doubles, \p Tree.
void autoTakesDoubleBuffered(uint64_t Index, int32_t Ranks, uint64_t Bytes,
                             const char *Rival, const char *Tree) {
  int32_t P = 0;
  const Machine M = test::arenaPlatform(Index, P);
  REQUIRE(P == Ranks);
  const Schedule Auto = test::autoTakes(
      M, test::arenaRequest(M, Collective::Reduce, Bytes, "auto"),
      "double-buffered", {Rival, Tree});
  CHECK(Auto.StagingDepth == 2);
}

} // namespace

TEST_CASE("double-buffered: every rank count, root, placement and operator "
          "builds and verifies, with two staging areas") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(2711);
  size_t Built = 0;
  const std::vector<int32_t> Ps =
      test::drawnRankCounts({2, 3, 13, 31, 70}, 7207, 10);
  for (int32_t P : Ps)
    for (int32_t Root : {0, P / 2, P - 1})
      for (int PerNode : {1, 3, 0})
        for (bool Commutative : {true, false}) {
          Request R = test::request(Net, Collective::Reduce, P, Root, 4000,
                                    "double-buffered", Commutative);
          // PerNode 0: ranks shuffled over P / 3 nodes.
          test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(PerNode);
          CAPTURE(Commutative);
          auto S = compile(Net, R);
          REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
          CHECK(S->Algorithm == "double-buffered");
          CHECK(S->StagingDepth == 2);
          std::string Text;
          const Schedule Back = test::jsonRoundTrip(*S, Net, Text);
          CHECK(Text.find("\"staging_depth\": 2") != std::string::npos);
          CHECK(Back.StagingDepth == 2);
          ++Built;
        }
  CHECK(Built == Ps.size() * 3 * 3 * 2);
}

TEST_CASE("double-buffered: a parent's consecutive whole-vector receives "
          "land in two staging areas, one without the depth") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (int32_t P : {16, 23}) {
    CAPTURE(P);
    auto Two = compile(Net, test::request(Net, Collective::Reduce, P, 0,
                                          1 << 20, "double-buffered"));
    REQUIRE(Two);
    auto One = compile(
        Net, test::request(Net, Collective::Reduce, P, 0, 1 << 20, "binomial"));
    REQUIRE(One);
    // The binomial tree's root receives from 1, 2, 4, 8 (and 16).
    const std::vector<int64_t> A2 = receiveAreas(*Two, 0);
    const std::vector<int64_t> A1 = receiveAreas(*One, 0);
    REQUIRE(A2.size() == A1.size());
    REQUIRE(A1.size() >= 4);
    for (size_t I = 0; I + 1 < A1.size(); ++I) {
      CAPTURE(I);
      CHECK(A1[I] >= 0);
      CHECK(A1[I] == A1[I + 1]);
      CHECK(A2[I] >= 0);
      CHECK(A2[I] != A2[I + 1]);
    }
    // Whole vectors arriving two at a time: no slower at the root.
    CHECK(Two->Makespan <= One->Makespan);
  }
}

TEST_CASE("double-buffered: auto takes it where the evaluator times it "
          "fastest (platforms of the arena where SMPI's ompi_binomial and "
          "mvapich2 reduce beat auto's earlier choice)") {
  // A 2x14 torus, one rank a host: Open MPI's binomial reduce of 1 MiB.
  autoTakesDoubleBuffered(0, 28, 1 << 20, "reduce-scatter-direct", "binomial");
  // A cluster of 30 ranks behind a thin backbone, 1 KiB: the two-level
  // reduce, its leaders' vectors two at a time.
  autoTakesDoubleBuffered(19, 30, 1024, "two-level", "binomial");
}
