// The bounds `auto` leaves reductions unbuilt by (AlgorithmInfo::AutoBound)
// never exceed the makespan the step pricing gives the schedule built, on
// drawn requests (rank counts, roots, sizes, ranks sharing nodes) on the
// bundled platforms' families; `direct`'s allreduce bound is close to its
// time on a torus, and above the log P exchanges' time on a large one.
#include "algorithms/Registry.h"
#include "passes/StepCost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

/// \p A's bound of \p R and the step-priced makespan of its schedule.
std::pair<double, double> boundAndTime(const AlgorithmInfo &A, const Machine &M,
                                       const Request &R) {
  PipelineOptions O;
  Pipeline Pl(O);
  auto S = A.Build(M, R, Pl);
  REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
  REQUIRE(estimateStepCost(*S, M));
  return {A.AutoBound ? A.AutoBound(M, R) : 0.0, S->Makespan};
}

} // namespace

TEST_CASE("auto's bounds of reductions never exceed the step-priced makespan "
          "of the schedule built") {
  const Machine Platforms[] = {test::smpiTorus16x16(), test::smpiFatTree256(),
                               test::smpiCluster256()};
  std::vector<const AlgorithmInfo *> Bounded;
  for (const AlgorithmInfo &A : algorithms())
    if (A.AutoBound &&
        (A.supports(Collective::Reduce) || A.supports(Collective::Allreduce)))
      Bounded.push_back(&A);
  REQUIRE(!Bounded.empty());
  Rng G(2026112801);
  int Checked = 0;
  for (int Draw = 0; Draw < 48; ++Draw) {
    const Machine &M = Platforms[Draw % 3];
    const Collective C = Draw % 2 ? Collective::Allreduce : Collective::Reduce;
    const int32_t P = static_cast<int32_t>(G.uniform(2, 256));
    const int32_t Root = static_cast<int32_t>(G.uniform(0, P - 1));
    // Whole int32 elements: 4 B, 64 KiB, 1 MiB or drawn.
    const uint64_t Elements[] = {1, 16384, 262144,
                                 static_cast<uint64_t>(G.uniform(1, 786432))};
    const uint64_t Bytes = 4 * Elements[G.uniform(0, 3)];
    const int PerNode = static_cast<int>(G.uniform(1, 3));
    for (const AlgorithmInfo *A : Bounded) {
      if (!A->supports(C))
        continue;
      CAPTURE(M.Name);
      const std::string Name = A->Name;
      CAPTURE(Name);
      const std::string Coll = collectiveName(C);
      CAPTURE(Coll);
      CAPTURE(P);
      CAPTURE(Root);
      CAPTURE(Bytes);
      CAPTURE(PerNode);
      Request R = test::request(M, C, P, Root, Bytes, A->Name);
      test::placeOnNodes(R, PerNode, /*Shuffled=*/Draw % 4 == 3, G);
      const auto [Bound, Time] = boundAndTime(*A, M, R);
      CHECK(Bound >= 0);
      CHECK(Bound <= Time * (1 + 1e-12));
      Checked += Bound > 0;
    }
  }
  CHECK(Checked >= 40);
}

TEST_CASE("auto's bound of the `direct` allreduce on a torus at 4 B is within "
          "2% of its makespan, and above swing's time at 16,384 ranks") {
  // Both steps' farthest messages carry the whole load of the root's link
  // they cross: on a large torus the log P exchanges beat the flat tree.
  const AlgorithmInfo *Direct = findAlgorithm("direct", Collective::Allreduce);
  REQUIRE(Direct);
  const AlgorithmInfo *Swing = findAlgorithm("swing", Collective::Allreduce);
  REQUIRE(Swing);
  for (int32_t Side : {16, 128})
    for (int32_t Root : {0, 77}) {
      const Machine M = Side == 16
                            ? test::smpiTorus16x16()
                            : test::smpiTorus("torus-128x128", {Side, Side});
      CAPTURE(M.Name);
      CAPTURE(Root);
      const int32_t P = Side * Side;
      const auto [Bound, Time] = boundAndTime(
          *Direct, M,
          test::request(M, Collective::Allreduce, P, Root, 4, "direct"));
      CHECK(Bound <= Time);
      CHECK(Bound >= 0.98 * Time);
      if (P >= 16384) {
        const double Swung =
            boundAndTime(
                *Swing, M,
                test::request(M, Collective::Allreduce, P, Root, 4, "swing"))
                .second;
        CHECK(Bound > Swung);
      }
    }
}

TEST_CASE("auto's bound of the `direct` reduce on a fat tree and a cluster "
          "at 1 MiB: the root's link the vectors enter by") {
  // Every vector enters the root by its one link to its switch, one after
  // the other: the bound is within 1% of the time (0.2% on both, 256 ranks).
  const AlgorithmInfo *Direct = findAlgorithm("direct", Collective::Reduce);
  REQUIRE(Direct);
  for (const Machine &M : {test::smpiFatTree256(), test::smpiCluster256()}) {
    CAPTURE(M.Name);
    const auto [Bound, Time] = boundAndTime(
        *Direct, M,
        test::request(M, Collective::Reduce, 256, 5, 1 << 20, "direct"));
    CHECK(Bound <= Time);
    CHECK(Bound >= 0.99 * Time);
  }
}
