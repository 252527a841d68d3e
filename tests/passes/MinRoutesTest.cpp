// Routes and contention on the MIN (passes/Routes dispatching to
// ir/MultistageNetwork.h).
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Routes.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Topology min(int64_t Nodes, int64_t Radix) {
  Topology T;
  T.Kind = TopologyKind::Min;
  T.Nodes = Nodes;
  T.SwitchRadix = Radix;
  return T;
}

} // namespace

TEST_CASE("routes: on the MIN a route is a walk through the switches as long "
          "as distance") {
  for (auto [N, K] : {std::pair<int64_t, int64_t>{64, 8}, {64, 4}, {27, 3}}) {
    Topology T = min(N, K);
    REQUIRE(isRouted(T));
    for (int64_t A = 0; A < N; ++A)
      for (int64_t B = 0; B < N; ++B) {
        auto R = route(T, A, B);
        REQUIRE(static_cast<bool>(R));
        CHECK(R->size() == T.distance(A, B));
        if (A == B)
          continue;
        CHECK(R->front().From == A);
        CHECK(R->back().To == B);
        for (size_t I = 1; I < R->size(); ++I)
          CHECK((*R)[I - 1].To == (*R)[I].From);
        // Inner vertices are switches, numbered from Nodes on.
        for (size_t I = 0; I + 1 < R->size(); ++I)
          CHECK((*R)[I].To >= N);
      }
  }
  Topology T = min(64, 8);
  auto R = route(T, 3, 50);
  REQUIRE(static_cast<bool>(R));
  std::string Names;
  for (const Channel &C : *R)
    Names += channelName(T, C) + " ";
  // Up from p3's switch through up port 50/8 = 6, down to p50's switch.
  CHECK(Names == "3->sw(0,0) sw(0,0)->sw(1,6) sw(1,6)->sw(0,6) sw(0,6)->50 ");
}

TEST_CASE("contention: on the 64-node MIN the tree barrier is contention-free, "
          "dissemination is not") {
  Machine M = test::parameterized(1, 2);
  M.Topo = min(64, 8);
  Request R = test::bcast(64, 0, 0, "tree");
  R.Coll = Collective::Barrier;
  auto Tree = compile(M, R);
  REQUIRE(Tree);
  ContentionReport TreeReport = checkContention(*Tree, M);
  CHECK(TreeReport.Checked);
  CHECK(TreeReport.clean());
  R.Algorithm = "dissemination";
  auto Dis = compile(M, R);
  REQUIRE(Dis);
  ContentionReport DisReport = checkContention(*Dis, M);
  CHECK(DisReport.Checked);
  CHECK(!DisReport.clean());
}
