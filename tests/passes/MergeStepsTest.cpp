// Step merging: adjacent steps with disjoint ranks and channels merge, all
// others stay apart, and the verifier passes afterwards.
#include "passes/MergeSteps.h"
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Machine mesh(std::vector<int64_t> Dims) {
  Machine M = test::parameterized(20, 55);
  M.Topo.Kind = TopologyKind::Mesh;
  M.Topo.Dims = Dims;
  M.Topo.Nodes = 1;
  for (int64_t D : Dims)
    M.Topo.Nodes *= D;
  return M;
}

/// A broadcast from rank 0 over ranks on nodes \p Nodes, one step per pair.
Schedule bcastSteps(std::vector<int64_t> Nodes,
                    std::vector<std::pair<int32_t, int32_t>> Pairs) {
  Schedule S;
  S.Coll = Collective::Bcast;
  S.Algorithm = "test";
  for (int64_t N : Nodes)
    S.Participants.push_back({N});
  for (auto [A, B] : Pairs) {
    Transfer T;
    T.Src = A;
    T.Dst = B;
    T.Pieces.push_back(S.wholeMessage());
    S.Steps.push_back({{T}});
  }
  return S;
}

} // namespace

TEST_CASE("merge-steps: independent steps merge, dependent ones do not") {
  // 2x2 mesh, rank r on node r: 0->1, then 0->2 and 1->3 (disjoint ranks
  // and channels: they merge), then nothing else.
  Machine M = mesh({2, 2});
  Schedule S = bcastSteps({0, 1, 2, 3}, {{0, 1}, {0, 2}, {1, 3}});
  MergeStats St = mergeSteps(S, M);
  CHECK(St.StepsBefore == 3);
  CHECK(St.removed() == 1);
  REQUIRE(S.Steps.size() == 2);
  CHECK(S.Steps[1].Transfers.size() == 2);
  estimateCost(S, M);
  CHECK(verifySchedule(S, M).empty());
  CHECK(checkContention(S, M).clean());
}

TEST_CASE("merge-steps: steps sharing a channel stay apart") {
  // A 1x4 line, ranks on nodes 0..3: 0->1, then 0->2 and 1->3, which both
  // cross (0,1)->(0,2) although their ranks are disjoint.
  Machine M = mesh({1, 4});
  Schedule S = bcastSteps({0, 1, 2, 3}, {{0, 1}, {0, 2}, {1, 3}});
  MergeStats St = mergeSteps(S, M);
  CHECK(St.removed() == 0);
  CHECK(S.Steps.size() == 3);
  estimateCost(S, M);
  CHECK(verifySchedule(S, M).empty());
}

TEST_CASE("merge-steps: a rank's sends never move ahead of its receive") {
  Machine M = mesh({4, 4});
  // A chain 0->1->2->3: every step depends on the one before.
  Schedule S = bcastSteps({0, 5, 10, 15}, {{0, 1}, {1, 2}, {2, 3}});
  CHECK(mergeSteps(S, M).removed() == 0);
}

TEST_CASE("merge-steps: compiled schedules still verify after merging") {
  Machine M = mesh({8, 8});
  for (const char *Alg : {"opt-mesh", "u-mesh", "opt-tree", "sequential"}) {
    Request R = test::bcast(64, 9, 512, Alg);
    CompileOptions O;
    O.MergeSteps = true;
    auto S = compile(M, R, O);
    REQUIRE(static_cast<bool>(S));
    CHECK(verifySchedule(*S, M).empty());
  }
}
