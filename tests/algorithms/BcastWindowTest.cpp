// Broadcast pipelines with an open receive window (searchWindows): node-tree
// and kary-pipeline search their segment counts under the posting rule's
// window and with an open one, as MPI libraries' pipelines post every
// receive; and whether auto builds node-tree.
#include "algorithms/Placement.h"
#include "algorithms/SwitchBcast.h"
#include "compiler/Driver.h"
#include "passes/NetworkCost.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

/// A broadcast from rank 0 among 24 ranks, 4 on each of \p M's nodes 0..5.
Request fourPerNode(const Machine &M, uint64_t Bytes, const char *Alg) {
  return test::fourPerNode(M, Collective::Bcast, Bytes, Alg);
}

} // namespace

TEST_CASE("node-tree: on a thin-backbone cluster at 1 MiB the open window "
          "with the fastest band's segments beats the rule's window by 1.8x; "
          "auto takes it") {
  const Machine Thin = test::thinCluster();
  auto S = compile(Thin, fourPerNode(Thin, 1 << 20, "node-tree"));
  REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
  CHECK(S->NumChunks == fastestBandCount(Thin, 1 << 20, 1));
  CHECK(S->RecvWindow == std::min(S->NumChunks, OpenWindow));
  // The same segments under the rule's window, and the rule's best count.
  Schedule Rule = *S;
  Rule.RecvWindow = 0;
  estimateNetworkCost(Rule, Thin);
  CAPTURE(S->Makespan);
  CAPTURE(Rule.Makespan);
  CHECK(S->Makespan < 0.6 * Rule.Makespan);
  double BestRule = 1e300;
  for (int64_t K : {1, 2, 3, 4, 8, 16}) {
    Request R = fourPerNode(Thin, 1 << 20, "node-tree");
    R.Segments = K;
    auto Fixed = compile(Thin, R);
    REQUIRE(Fixed);
    Schedule F = *Fixed;
    F.RecvWindow = 0;
    estimateNetworkCost(F, Thin);
    BestRule = std::min(BestRule, F.Makespan);
  }
  CAPTURE(BestRule);
  CHECK(S->Makespan * 1.8 < BestRule);
  auto Auto = compile(Thin, fourPerNode(Thin, 1 << 20, "auto"));
  REQUIRE(Auto);
  CHECK(Auto->Algorithm == "node-tree");
  CHECK(Auto->Makespan == doctest::Approx(S->Makespan));
}

TEST_CASE("node-tree in auto: where ranks share nodes; one rank a node, on "
          "switch networks up to MaxAutoNodeTreeRanks ranks") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  std::string Why;
  for (int32_t P : {2, 17, MaxAutoNodeTreeRanks})
    CHECK(nodeTreeInAuto(
        Net, test::request(Net, Collective::Bcast, P, 0, 4096, "auto"), Why));
  Why.clear();
  const int32_t Big = MaxAutoNodeTreeRanks + 1;
  CHECK_FALSE(nodeTreeInAuto(
      Net, test::request(Net, Collective::Bcast, Big, 0, 4096, "auto"), Why));
  CHECK(Why.find("more than") != std::string::npos);
  // Sharing nodes, any size.
  Request Shared =
      test::request(Net, Collective::Bcast, 2 * Big, 0, 4096, "auto");
  for (int32_t I = 0; I < 2 * Big; ++I)
    Shared.Nodes[size_t(I)] = I / 2;
  CHECK(nodeTreeInAuto(Net, Shared, Why));
  // Never on a torus with one rank a node (not a switch network), nor
  // without a network (a model machine).
  for (const char *File : {"torus-16x16-net.yaml", "ibm-sp.yaml"}) {
    const Machine Other = test::exampleMachine(File);
    CAPTURE(File);
    Why.clear();
    CHECK_FALSE(nodeTreeInAuto(
        Other, test::request(Other, Collective::Bcast, 16, 0, 4096, "auto"),
        Why));
    CHECK(!Why.empty());
  }
}
