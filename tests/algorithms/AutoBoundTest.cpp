// The bounds `auto` skips candidates by (AlgorithmInfo::AutoBound): never
// above the makespan the step pricing gives the schedule built, on drawn
// requests (rank counts, roots, sizes, ranks sharing nodes) on the bundled
// platforms' families, and close enough to it to skip the candidates that
// lose by a chain's latencies. Likewise grid-direct's bound of a group count
// (gridDirectBound) and knomial's of a radix (knomialRadixBound), which their
// own searches skip counts and radices by.
#include "algorithms/LibraryBcast.h"
#include "algorithms/Personalized.h"
#include "algorithms/Registry.h"
#include "passes/Pipeline.h"
#include "passes/StepCost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

using namespace collc;

namespace {

/// A broadcast drawn for the bound tests: on one of the bundled platforms'
/// families (by turns), 2..256 ranks, a root, a size, one or two ranks per
/// node.
struct DrawnBcast {
  const Machine *M = nullptr;
  int32_t P = 0, Root = 0;
  uint64_t Bytes = 0;
  int PerNode = 1;
};

DrawnBcast drawBcast(int Draw, Rng &G) {
  static const Machine Machines[] = {
      test::smpiTorus16x16(), test::smpiFatTree256(), test::smpiCluster256()};
  DrawnBcast D;
  D.M = &Machines[Draw % 3];
  D.P = static_cast<int32_t>(G.uniform(2, 256));
  D.Root = static_cast<int32_t>(G.uniform(0, D.P - 1));
  const uint64_t Sizes[] = {1, 65536, uint64_t(1) << 20,
                            static_cast<uint64_t>(G.uniform(2, 3 << 20))};
  D.Bytes = Sizes[G.uniform(0, 3)];
  D.PerNode = static_cast<int>(G.uniform(1, 2));
  return D;
}

} // namespace

TEST_CASE("auto's bounds never exceed the step-priced makespan of the "
          "schedule built") {
  Rng G(2026112701);
  int Checked = 0;
  for (int Draw = 0; Draw < 40; ++Draw) {
    const DrawnBcast D = drawBcast(Draw, G);
    const Machine &M = *D.M;
    const int32_t P = D.P, Root = D.Root;
    const uint64_t Bytes = D.Bytes;
    const int PerNode = D.PerNode;
    for (const AlgorithmInfo &A : algorithms()) {
      if (!A.AutoBound || !A.supports(Collective::Bcast))
        continue;
      CAPTURE(M.Name);
      CAPTURE(A.Name);
      CAPTURE(P);
      CAPTURE(Root);
      CAPTURE(Bytes);
      CAPTURE(PerNode);
      // OPT-mesh and U-mesh only on the torus.
      llvm::Expected<Request> Made = makeRequest(
          test::fields(Collective::Bcast, P, Root, Bytes, A.Name), M);
      if (!Made) {
        llvm::consumeError(Made.takeError());
        CHECK(!M.Topo.hasCoordinates());
        continue;
      }
      Request R = std::move(*Made);
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

TEST_CASE("auto's bounds of the flat trees on a torus at 1 B are within 2% "
          "of their makespans, and with edge-disjoint's above knomial's time "
          "at 16,384 ranks") {
  // `direct`: the farthest rank's hops and the root's link it leaves by,
  // shared with every message leaving by it; `sequential`: the root's
  // messages queued on the links they leave by. What makes the flat trees
  // lose to knomial on a large torus (at 256 ranks `direct` may win: root
  // 77); edge-disjoint's trees cross the torus by the cube's dimensions.
  const AlgorithmInfo *Knomial = findAlgorithm("knomial", Collective::Bcast);
  REQUIRE(Knomial);
  const Machine Machines[] = {test::smpiTorus16x16(),
                              test::smpiTorus("torus-128x128", {128, 128})};
  for (const Machine &M : Machines)
    for (int32_t Root : {0, 77}) {
      CAPTURE(M.Name);
      CAPTURE(Root);
      const int32_t P = static_cast<int32_t>(M.Topo.Nodes);
      double Knomial128 = 0;
      if (P >= 16384) {
        Request R = test::request(M, Collective::Bcast, P, Root, 1, "knomial");
        auto K = Knomial->Build(M, R);
        REQUIRE(K);
        REQUIRE(estimateStepCost(*K, M));
        Knomial128 = K->Makespan;
      }
      for (std::string Name : {"direct", "sequential", "edge-disjoint"}) {
        CAPTURE(Name);
        const AlgorithmInfo *A = findAlgorithm(Name, Collective::Bcast);
        REQUIRE(A);
        Request R = test::request(M, Collective::Bcast, P, Root, 1, Name);
        auto S = A->Build(M, R);
        REQUIRE(S);
        REQUIRE(estimateStepCost(*S, M));
        const double Bound = A->AutoBound(M, R);
        CHECK(Bound <= S->Makespan);
        if (Name != "edge-disjoint")
          CHECK(Bound >= 0.98 * S->Makespan);
        if (P >= 16384)
          CHECK(Bound > Knomial128);
      }
    }
}

TEST_CASE("knomial's radix bounds never exceed the step-priced makespan of "
          "the radix's schedule") {
  const AlgorithmInfo *Knomial = findAlgorithm("knomial", Collective::Bcast);
  REQUIRE(Knomial);
  Rng G(2026112801);
  int Checked = 0;
  for (int Draw = 0; Draw < 30; ++Draw) {
    const DrawnBcast D = drawBcast(Draw, G);
    const Machine &M = *D.M;
    const int64_t Segments = G.uniform(0, 1) ? 1 : G.uniform(2, 8);
    Request R =
        test::request(M, Collective::Bcast, D.P, D.Root, D.Bytes, "knomial");
    R.Segments = Segments;
    test::placeOnNodes(R, D.PerNode, /*Shuffled=*/G.uniform(0, 1) == 1, G);
    for (int64_t K :
         {int64_t(2), int64_t(3), G.uniform(4, 8), int64_t(16), int64_t(D.P)}) {
      CAPTURE(M.Name);
      CAPTURE(D.P);
      CAPTURE(D.Root);
      CAPTURE(D.Bytes);
      CAPTURE(D.PerNode);
      CAPTURE(Segments);
      CAPTURE(K);
      auto S = buildKnomialRadix(M, R, K, Segments);
      REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
      REQUIRE(estimateStepCost(*S, M));
      const double Bound = knomialRadixBound(M, R, K, Segments);
      CHECK(Bound > 0);
      CHECK(Bound <= S->Makespan * (1 + 1e-12));
      // knomial's AutoBound, the farthest rank's, holds whatever the radix.
      CHECK(Knomial->AutoBound(M, R) <= Bound * (1 + 1e-12));
      ++Checked;
    }
  }
  CHECK(Checked >= 120);
}

TEST_CASE("knomial's search past StepPricingRanks: the radix it builds is "
          "the one of least priced time, the radices whose bound exceeds it "
          "left unbuilt") {
  // 4,096 ranks on a 64x64 torus with the bundled platforms' links: priced
  // by steps. Every radix built and priced whole against the search.
  const Machine M = test::smpiTorus("torus-64x64", {64, 64});
  for (int32_t Root : {0, 77})
    for (uint64_t Bytes : {1, 65536}) {
      CAPTURE(Root);
      CAPTURE(Bytes);
      const Request R =
          test::request(M, Collective::Bcast, 4096, Root, Bytes, "knomial");
      REQUIRE(pricedBySteps(R.size(), M));
      std::vector<int64_t> Ks = {2, 3, 4, 5, 6, 7, 8};
      for (int64_t K = 16; K < 4096; K *= 2)
        Ks.push_back(K);
      double Least = std::numeric_limits<double>::infinity();
      size_t Steps = 0;
      std::vector<double> Bounds;
      for (int64_t K : Ks) {
        auto S = buildKnomialRadix(M, R, K, 1);
        REQUIRE(S);
        REQUIRE(estimateStepCost(*S, M));
        Bounds.push_back(knomialRadixBound(M, R, K, 1));
        CHECK(Bounds.back() <= S->Makespan);
        if (S->Makespan < Least) {
          Least = S->Makespan;
          Steps = S->Steps.size();
        }
      }
      int Skippable = 0;
      for (double B : Bounds)
        Skippable += B > Least;
      CHECK(Skippable >= 4);
      PipelineOptions O;
      Pipeline P(O);
      auto Chosen = buildKnomial(M, R, P);
      REQUIRE(Chosen);
      CHECK(Chosen->Makespan == Least);
      CHECK(Chosen->Steps.size() == Steps);
    }
}
