// Software barriers: the three builders' shapes, and every schedule they
// build verifies (no rank leaves before every rank arrived).
#include "algorithms/Barriers.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Machine min64() {
  Machine M = test::parameterized(1, 2);
  M.Name = "min64";
  M.Topo.Kind = TopologyKind::Min;
  M.Topo.Nodes = 64;
  M.Topo.SwitchRadix = 8;
  return M;
}

int32_t log2Ceil(int32_t P) {
  int32_t L = 0;
  while ((1 << L) < P)
    ++L;
  return L;
}

} // namespace

TEST_CASE("barrier: every builder verifies for 1..70 ranks, every root, on a "
          "crossbar and "
          "the MIN") {
  for (const Machine &M : {test::parameterized(20, 55), min64()})
    for (const char *Alg : {"dissemination", "tree", "gather-broadcast"})
      for (int32_t P = 1; P <= (M.Topo.Kind == TopologyKind::Min ? 64 : 70);
           ++P)
        for (int32_t Root : {0, P / 2, P - 1}) {
          CAPTURE(Alg);
          CAPTURE(P);
          CAPTURE(Root);
          auto S = compile(
              M, test::request(M, Collective::Barrier, P, Root, 0, Alg));
          REQUIRE_MESSAGE(S, llvm::toString(S.takeError()));
          CHECK(S->Coll == Collective::Barrier);
          for (const Step &St : S->Steps)
            for (const Transfer &T : St.Transfers) {
              CHECK(T.Kind == TransferKind::Signal);
              CHECK(T.Bytes == 0);
              CHECK(T.Pieces.empty());
            }
        }
}

TEST_CASE("barrier: dissemination takes ceil(log2 P) rounds of P signals") {
  Machine M = test::parameterized(20, 55);
  for (int32_t P : {2, 3, 5, 8, 13, 64, 100}) {
    auto S = compile(
        M, test::request(M, Collective::Barrier, P, 0, 0, "dissemination"));
    REQUIRE(S);
    CHECK(S->Steps.size() == static_cast<size_t>(log2Ceil(P)));
    CHECK(S->numTransfers() == static_cast<uint64_t>(P) * log2Ceil(P));
    // Every round costs one t_end: the makespan is ceil(log2 P) t_end.
    CHECK(S->Makespan == doctest::Approx(55.0 * log2Ceil(P)));
  }
}

TEST_CASE("barrier: tree gathers to the root and releases, 2(P-1) signals in 2 "
          "ceil(log2 P) "
          "steps") {
  Machine M = test::parameterized(20, 55);
  for (int32_t P : {2, 3, 7, 16, 33}) {
    auto S =
        compile(M, test::request(M, Collective::Barrier, P, P / 3, 0, "tree"));
    REQUIRE(S);
    CHECK(S->numTransfers() == 2u * (P - 1));
    CHECK(S->Steps.size() == 2u * log2Ceil(P));
    // The first half only sends towards the root, the second only away.
    size_t Half = S->Steps.size() / 2;
    int64_t IntoRoot = 0, OutOfRoot = 0;
    for (size_t I = 0; I < S->Steps.size(); ++I)
      for (const Transfer &T : S->Steps[I].Transfers) {
        if (I < Half)
          IntoRoot += T.Dst == S->Root;
        else
          OutOfRoot += T.Src == S->Root;
      }
    CHECK(IntoRoot == log2Ceil(P));
    CHECK(OutOfRoot == log2Ceil(P));
  }
}

TEST_CASE("barrier: gather-broadcast is the gather worm then the broadcast "
          "worm on a line "
          "(paper 003, Figure 1)") {
  Machine M = test::parameterized(20, 55);
  // Figure 1 with the root P0 and the line P0..P4: the gather worm starts
  // at P4 and visits P3, P2, P1 to P0; the release goes back P1, P2, P3, P4.
  auto S = compile(
      M, test::request(M, Collective::Barrier, 5, 0, 0, "gather-broadcast"));
  REQUIRE(S);
  std::vector<std::pair<int32_t, int32_t>> Want = {
      {4, 3}, {3, 2}, {2, 1}, {1, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}};
  REQUIRE(S->Steps.size() == Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    REQUIRE(S->Steps[I].Transfers.size() == 1);
    CHECK(S->Steps[I].Transfers[0].Src == Want[I].first);
    CHECK(S->Steps[I].Transfers[0].Dst == Want[I].second);
  }
  CHECK(S->Makespan == doctest::Approx(8 * 55.0));
}

TEST_CASE(
    "barrier: on the MIN the cost pass charges the turnaround route's hops") {
  Machine M = min64();
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {1, 0, 0.5, 1, 0, 1};
  // Ranks 0 and 1 share a switch (2 channels); 0 and 8 do not (4 channels).
  RequestFields F = test::fields(Collective::Barrier, 2, 0, 0, "tree");
  auto Near = compile(M, test::made(M, F));
  REQUIRE(Near);
  F.Participants = {0, 8};
  auto Far = compile(M, test::made(M, F));
  REQUIRE(Far);
  // t_end = s_s + r_s + (k-1) c_d for a zero-byte signal: 2.5 vs 3.5.
  CHECK(Near->Makespan == doctest::Approx(2 * 2.5));
  CHECK(Far->Makespan == doctest::Approx(2 * 3.5));
}

TEST_CASE("barrier: more ranks than the verifier handles is a user error") {
  Machine M = test::parameterized(20, 55);
  // The request checks refuse it, as collc's command line does.
  auto S = makeRequest(test::fields(Collective::Barrier,
                                    static_cast<int32_t>(MaxBarrierRanks) + 1,
                                    0, 0, "dissemination"),
                       M);
  REQUIRE(!S);
  std::string Msg = llvm::toString(S.takeError());
  CHECK(Msg.find("larger than collc verifies") != std::string::npos);
}
