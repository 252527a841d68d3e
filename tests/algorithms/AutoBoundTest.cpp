// The bounds `auto` skips candidates by (AlgorithmInfo::AutoBound): never
// above the makespan the step pricing gives the schedule built, on drawn
// requests (rank counts, roots, sizes, ranks sharing nodes) on the bundled
// platforms' families, and close enough to it to skip the candidates that
// lose by a chain's latencies. Likewise grid-direct's bound of a group count
// (gridDirectBound), which its own search skips counts by.
#include "algorithms/Personalized.h"
#include "algorithms/Registry.h"
#include "passes/StepCost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <string>

using namespace collc;

TEST_CASE("auto's bounds never exceed the step-priced makespan of the "
          "schedule built") {
  const Machine Machines[] = {test::smpiTorus16x16(), test::smpiFatTree256(),
                              test::smpiCluster256()};
  Rng G(2026112701);
  int Checked = 0;
  for (int Draw = 0; Draw < 40; ++Draw) {
    const Machine &M = Machines[Draw % 3];
    const int32_t P = static_cast<int32_t>(G.uniform(2, 256));
    const int32_t Root = static_cast<int32_t>(G.uniform(0, P - 1));
    const uint64_t Sizes[] = {1, 65536, uint64_t(1) << 20,
                              static_cast<uint64_t>(G.uniform(2, 3 << 20))};
    const uint64_t Bytes = Sizes[G.uniform(0, 3)];
    const int PerNode = static_cast<int>(G.uniform(1, 2));
    for (const AlgorithmInfo &A : algorithms()) {
      if (!A.AutoBound || !A.supports(Collective::Bcast))
        continue;
      CAPTURE(M.Name);
      CAPTURE(A.Name);
      CAPTURE(P);
      CAPTURE(Root);
      CAPTURE(Bytes);
      CAPTURE(PerNode);
      Request R = test::request(M, Collective::Bcast, P, Root, Bytes, A.Name);
      test::placeOnNodes(R, PerNode, /*Shuffled=*/false, G);
      auto S = A.Build(M, R);
      REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
      REQUIRE(estimateStepCost(*S, M));
      const double Bound = A.AutoBound(M, R);
      CHECK(Bound >= 0);
      CHECK(Bound <= S->Makespan * (1 + 1e-12));
      ++Checked;
    }
  }
  CHECK(Checked >= 120);
}

TEST_CASE("auto's bounds of the path pipelines are at least 60% of their "
          "makespan on a torus at 1 MiB") {
  const Machine M = test::smpiTorus16x16();
  for (std::string Name : {"pipeline", "two-path-pipeline"}) {
    CAPTURE(Name);
    const AlgorithmInfo *A = findAlgorithm(Name, Collective::Bcast);
    REQUIRE(A);
    const bool HasBound = A->AutoBound != nullptr;
    REQUIRE(HasBound);
    Request R = test::request(M, Collective::Bcast, 256, 0, 1 << 20, Name);
    auto S = A->Build(M, R);
    REQUIRE(S);
    estimateStepCost(*S, M);
    const double Bound = A->AutoBound(M, R);
    CHECK(Bound <= S->Makespan);
    CHECK(Bound >= 0.6 * S->Makespan);
  }
}

TEST_CASE("grid-direct's bound never exceeds the step-priced makespan of "
          "the schedule of its group count") {
  const Machine Machines[] = {test::smpiTorus16x16(), test::smpiFatTree256(),
                              test::smpiCluster256()};
  Rng G(2026112702);
  for (int Draw = 0; Draw < 36; ++Draw) {
    const Machine &M = Machines[Draw % 3];
    const int32_t P = static_cast<int32_t>(G.uniform(2, 256));
    const uint64_t Sizes[] = {1, 16, 256, 4096,
                              static_cast<uint64_t>(G.uniform(2, 1 << 16))};
    const uint64_t Bytes = Sizes[G.uniform(0, 4)];
    const int64_t Groups = G.uniform(1, P);
    const int PerNode = static_cast<int>(G.uniform(1, 2));
    const bool Shuffled = G.uniform(0, 1) == 1;
    CAPTURE(M.Name);
    CAPTURE(P);
    CAPTURE(Bytes);
    CAPTURE(Groups);
    CAPTURE(PerNode);
    CAPTURE(Shuffled);
    Request R =
        test::request(M, Collective::Allgather, P, 0, Bytes, "grid-direct");
    test::placeOnNodes(R, PerNode, Shuffled, G);
    Schedule S = gridDirectAllgather(M, R, Groups);
    REQUIRE(estimateStepCost(S, M));
    const double Bound = gridDirectBound(M, R, Groups);
    CHECK(Bound > 0);
    CHECK(Bound <= S.Makespan * (1 + 1e-12));
  }
}

TEST_CASE("grid-direct's bound is within 10% of its makespan on a fat tree "
          "at 256 B blocks") {
  // The 256-rank platforms at 256 B blocks: the links' loads bound the
  // time (16 and 32 groups on the fat tree: within 10%).
  const Machine Fat = test::smpiFatTree256();
  Request R =
      test::request(Fat, Collective::Allgather, 256, 0, 256, "grid-direct");
  for (int64_t Groups : {16, 32}) {
    CAPTURE(Groups);
    Schedule S = gridDirectAllgather(Fat, R, Groups);
    REQUIRE(estimateStepCost(S, Fat));
    CHECK(gridDirectBound(Fat, R, Groups) >= 0.9 * S.Makespan);
  }
}

TEST_CASE("grid-direct's search past StepPricingRanks: the count it builds "
          "is the one of least priced time, and the other's bound leaves it "
          "unbuilt where it loses by more than its bound") {
  // 2,304 ranks (48 and 64 groups) on a 48x48 torus and a fat tree with
  // the bundled platforms' links: priced by steps.
  const Machine Machines[] = {test::smpiTorus("torus-48x48", {48, 48}),
                              test::smpiFatTree("fat-tree-2304", 48, 12)};
  const auto [Below, Above] = divisorsNearSqrt(2304);
  REQUIRE(Below > 0);
  REQUIRE(Above > Below);
  int Skippable = 0;
  for (const Machine &M : Machines)
    for (uint64_t Bytes : {1, 256}) {
      CAPTURE(M.Name);
      CAPTURE(Bytes);
      const Request R = test::request(M, Collective::Allgather, 2304, 0, Bytes,
                                      "grid-direct");
      REQUIRE(pricedBySteps(R.size(), M));
      // Each count built and priced whole, and its bound.
      double Time[2], Bound[2];
      size_t Transfers[2];
      const int64_t Counts[2] = {Below, Above};
      for (int I = 0; I < 2; ++I) {
        Schedule S = gridDirectAllgather(M, R, Counts[I]);
        REQUIRE(estimateStepCost(S, M));
        Time[I] = S.Makespan;
        Transfers[I] = S.numTransfers();
        Bound[I] = gridDirectBound(M, R, Counts[I]);
        CHECK(Bound[I] <= Time[I] * (1 + 1e-12));
      }
      // The smaller count on a tie, as the search without bounds.
      const int Win = Time[1] < Time[0] ? 1 : 0;
      Skippable += Bound[1 - Win] > Time[Win];
      PipelineOptions O;
      Pipeline P(O);
      auto Chosen = buildGridDirectAllgather(M, R, P);
      REQUIRE(Chosen);
      CHECK(Chosen->numTransfers() == Transfers[Win]);
      CHECK(Chosen->Makespan == Time[Win]);
    }
  CHECK(Skippable >= 1);
}

TEST_CASE("auto's bound of `direct` on a torus at 1 B is within 2% of its "
          "makespan, and above knomial's time at 16,384 ranks") {
  // The farthest rank's hops and the root's link it leaves by, shared with
  // every message leaving by it: what makes the flat tree lose to knomial
  // on a large torus (at 256 ranks it may win: root 77).
  const AlgorithmInfo *Direct = findAlgorithm("direct", Collective::Bcast);
  const AlgorithmInfo *Knomial = findAlgorithm("knomial", Collective::Bcast);
  REQUIRE(Direct);
  REQUIRE(Knomial);
  const Machine Machines[] = {test::smpiTorus16x16(),
                              test::smpiTorus("torus-128x128", {128, 128})};
  for (const Machine &M : Machines)
    for (int32_t Root : {0, 77}) {
      CAPTURE(M.Name);
      CAPTURE(Root);
      const int32_t P = static_cast<int32_t>(M.Topo.Nodes);
      Request R = test::request(M, Collective::Bcast, P, Root, 1, "direct");
      auto S = Direct->Build(M, R);
      REQUIRE(S);
      REQUIRE(estimateStepCost(*S, M));
      const double Bound = Direct->AutoBound(M, R);
      CHECK(Bound <= S->Makespan);
      CHECK(Bound >= 0.98 * S->Makespan);
      if (P < 16384)
        continue;
      R = test::request(M, Collective::Bcast, P, Root, 1, "knomial");
      auto K = Knomial->Build(M, R);
      REQUIRE(K);
      REQUIRE(estimateStepCost(*K, M));
      CHECK(Bound > K->Makespan);
    }
}
