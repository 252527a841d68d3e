// The nonblocking ring allgather (`nonblocking-ring`: the ring, each rank
// sending every block on as it arrives without waiting for its previous
// send, as SMPI's SMP_NTS). For rank counts drawn from 2..70 (primes among
// them) and placements, it builds, verifies and keeps SendsAhead through
// JSON; in its posting plan a send waits for the receive it forwards and
// not for the send before it (the ring's does); and on a platform of a fresh
// random draw where the evaluator times it fastest (SMPI's SMP_NTS beat
// auto's ring there), auto takes it.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Posting.h"
#include "tests/Examples.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace collc;

namespace {

/// Whether some send of \p S's plan waits for an earlier send of its rank.
bool sendWaitsForSend(const Schedule &S) {
  auto Plan = planPosting(S);
  REQUIRE(static_cast<bool>(Plan));
  for (const RankPlan &RP : Plan->Ranks)
    for (const PlannedOp &O : RP.Ops)
      if (!O.isRecv())
        for (int32_t W : O.PostWaits)
          if (!RP.Ops[size_t(W)].isRecv())
            return true;
  return false;
}

} // namespace

TEST_CASE("nonblocking-ring: every rank count and placement builds and "
          "verifies; its sends wait for their data only") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(613);
  size_t Built = 0;
  const std::vector<int32_t> Ps =
      test::drawnRankCounts({2, 3, 17, 41, 70}, 5113, 10);
  for (int32_t P : Ps)
    for (int PerNode : {1, 3, 0}) {
      Request R = test::request(Net, Collective::Allgather, P, 0, 3000,
                                "nonblocking-ring");
      test::placeOnNodes(R, PerNode ? PerNode : 3, PerNode == 0, G);
      CAPTURE(P);
      CAPTURE(PerNode);
      auto S = compile(Net, R);
      REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
      CHECK(S->Algorithm == "nonblocking-ring");
      CHECK(S->SendsAhead);
      std::string Text;
      const Schedule Back = test::jsonRoundTrip(*S, Net, Text);
      CHECK(Text.find("\"sends_ahead\": true") != std::string::npos);
      CHECK(Back.SendsAhead);
      CHECK_FALSE(sendWaitsForSend(*S));
      if (P >= 3) {
        R.Algorithm = "ring";
        auto Ring = compile(Net, R);
        REQUIRE(Ring);
        CHECK(sendWaitsForSend(*Ring));
      }
      ++Built;
    }
  CHECK(Built == Ps.size() * 3);
}

TEST_CASE("nonblocking-ring: auto takes it where the evaluator times it "
          "fastest (a platform of a fresh draw where SMPI's SMP_NTS beat "
          "auto's ring)") {
  // Seed 20261127's third platform: a 2-level fat tree of 63 hosts, one
  // rank each, 64 KiB blocks (past the rendezvous size).
  int32_t P = 0;
  const Machine M = test::drawnPlatform(20261127, 24, 64, 2, P);
  REQUIRE(P == 63);
  test::autoTakes(M,
                  test::arenaRequest(M, Collective::Allgather, 65536, "auto"),
                  "nonblocking-ring", {"ring"});
}
