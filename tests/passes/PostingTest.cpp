// The posting plan: interval colouring (no two live requests share a slot;
// with unit sizes the peak is the largest live set), scratch reused by
// lifetime on relaying schedules, and the waits that guard reuse.
#include "passes/Posting.h"

#include "algorithms/Registry.h"
#include "backends/Emit.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <random>

using namespace collc;
using namespace collc::test;

namespace {

/// Whether two requests of \p Q placed at \p Slots overlap in time and slots.
bool clash(const std::vector<SlotRequest> &Q, const std::vector<int64_t> &Slots,
           size_t A, size_t B) {
  const bool Time = Q[A].First <= Q[B].Last && Q[B].First <= Q[A].Last;
  const bool Space =
      Slots[A] < Slots[B] + Q[B].Size && Slots[B] < Slots[A] + Q[A].Size;
  return Time && Space && Q[A].Size > 0 && Q[B].Size > 0;
}

/// The 8x8 wormhole torus SEM relays blocks on (through scratch).
Machine wormholeTorus8x8() {
  Machine M;
  M.Name = "torus";
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {8, 8};
  M.Topo.Nodes = 64;
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {5, 0.001, 0.0001, 5, 0.001, 1};
  return M;
}

} // namespace

TEST_CASE("posting: unit requests get as many slots as are live at once") {
  std::mt19937 Rng(7);
  for (int Round = 0; Round < 200; ++Round) {
    const int N = 1 + static_cast<int>(Rng() % 60);
    const int64_t Steps = 1 + Rng() % 40;
    std::vector<SlotRequest> Q(static_cast<size_t>(N));
    for (SlotRequest &R : Q) {
      R.First = static_cast<int64_t>(Rng() % Steps);
      R.Last = R.First + static_cast<int64_t>(Rng() % 8);
      R.Size = 1;
    }
    std::vector<int64_t> Slots;
    const int64_t Used = assignSlots(Q, Slots);
    int64_t MaxLive = 0;
    for (int64_t T = 0; T < Steps + 8; ++T) {
      int64_t Live = 0;
      for (const SlotRequest &R : Q)
        Live += R.First <= T && T <= R.Last;
      MaxLive = std::max(MaxLive, Live);
    }
    CHECK(Used == MaxLive);
    for (size_t A = 0; A < Q.size(); ++A) {
      CHECK(Slots[A] >= 0);
      CHECK(Slots[A] + Q[A].Size <= Used);
      for (size_t B = A + 1; B < Q.size(); ++B)
        CHECK_FALSE(clash(Q, Slots, A, B));
    }
  }
}

TEST_CASE("posting: runs of slots never overlap while live") {
  std::mt19937 Rng(11);
  for (int Round = 0; Round < 200; ++Round) {
    const int N = 1 + static_cast<int>(Rng() % 40);
    std::vector<SlotRequest> Q(static_cast<size_t>(N));
    int64_t LiveSum = 0;
    for (SlotRequest &R : Q) {
      R.First = static_cast<int64_t>(Rng() % 30);
      R.Last = R.First + static_cast<int64_t>(Rng() % 6);
      R.Size = static_cast<int64_t>(Rng() % 5);
    }
    for (int64_t T = 0; T < 40; ++T) {
      int64_t Live = 0;
      for (const SlotRequest &R : Q)
        Live += (R.First <= T && T <= R.Last) ? R.Size : 0;
      LiveSum = std::max(LiveSum, Live);
    }
    std::vector<int64_t> Slots;
    const int64_t Used = assignSlots(Q, Slots);
    CHECK(Used >= LiveSum);
    for (size_t A = 0; A < Q.size(); ++A)
      for (size_t B = A + 1; B < Q.size(); ++B)
        CHECK_FALSE(clash(Q, Slots, A, B));
  }
}

namespace {

/// First fit the plain way: in order of First (stable), each request at the
/// lowest slot where it meets none of the placed requests still live.
std::vector<int64_t> firstFitByScan(const std::vector<SlotRequest> &Q) {
  std::vector<size_t> Order(Q.size());
  for (size_t I = 0; I < Q.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Q[A].First < Q[B].First; });
  std::vector<int64_t> Slots(Q.size(), 0);
  std::vector<size_t> Placed;
  for (size_t I : Order) {
    if (Q[I].Size <= 0)
      continue;
    std::vector<int64_t> Starts = {0};
    for (size_t J : Placed)
      if (Q[J].Last >= Q[I].First)
        Starts.push_back(Slots[J] + Q[J].Size);
    int64_t Best = INT64_MAX;
    for (int64_t At : Starts) {
      bool Free = true;
      for (size_t J : Placed)
        Free &= !(Q[J].Last >= Q[I].First && At < Slots[J] + Q[J].Size &&
                  Slots[J] < At + Q[I].Size);
      if (Free)
        Best = std::min(Best, At);
    }
    Slots[I] = Best;
    Placed.push_back(I);
  }
  return Slots;
}

} // namespace

TEST_CASE("posting: first fit puts every request at its lowest free slots") {
  std::mt19937 Rng(23);
  for (int Round = 0; Round < 400; ++Round) {
    const int N = 1 + static_cast<int>(Rng() % 80);
    const int64_t MaxSize = Round % 2 ? 1 : 1 + Rng() % 9;
    std::vector<SlotRequest> Q(static_cast<size_t>(N));
    for (SlotRequest &R : Q) {
      R.First = static_cast<int64_t>(Rng() % 30);
      R.Last = R.First + static_cast<int64_t>(Rng() % 10);
      R.Size = static_cast<int64_t>(Rng() % (MaxSize + 1));
      if (MaxSize == 1)
        R.Size = 1;
    }
    std::vector<int64_t> Slots;
    const int64_t Used = assignSlots(Q, Slots);
    const std::vector<int64_t> Want = firstFitByScan(Q);
    int64_t WantUsed = 0;
    for (size_t I = 0; I < Q.size(); ++I) {
      if (Q[I].Size > 0)
        CHECK(Slots[I] == Want[I]);
      WantUsed = std::max(WantUsed, Want[I] + std::max<int64_t>(Q[I].Size, 0));
    }
    CHECK(Used == WantUsed);
  }
}

TEST_CASE("posting: relayed blocks share scratch slots by lifetime") {
  // SEM on an 8x8 torus relays blocks through scratch.
  const Machine M = wormholeTorus8x8();
  Request R = request(Collective::Alltoall, 64, 0, 1024, "sem");
  auto S = findAlgorithm("sem", Collective::Alltoall)->Build(M, R);
  REQUIRE(S);
  auto Plan = planPosting(*S);
  REQUIRE(Plan);
  bool Reused = false;
  for (const RankPlan &RP : Plan->Ranks) {
    CHECK(RP.ScratchSlots <= RP.ScratchBlocksApart);
    Reused |= RP.ScratchSlots < RP.ScratchBlocksApart;
    // Waits name operations of earlier steps, or an earlier receive from
    // the same peer.
    for (size_t I = 0; I < RP.Ops.size(); ++I)
      for (int32_t J : RP.Ops[I].PostWaits)
        CHECK((RP.Ops[size_t(J)].Step < RP.Ops[I].Step ||
               (RP.Ops[I].isRecv() &&
                RP.Ops[size_t(J)].Peer == RP.Ops[I].Peer && size_t(J) < I)));
  }
  CHECK(Reused);
}

TEST_CASE("posting: every wait names an earlier step, an earlier receive "
          "from the same peer, or the same step for a reduction's apply") {
  Machine M = parameterized(1, 1);
  for (const char *Alg : {"binomial", "reduce-scatter-allgather"}) {
    Request R = request(Collective::Allreduce, 9, 0, 4000, Alg);
    auto S = findAlgorithm(Alg, Collective::Allreduce)->Build(M, R);
    REQUIRE(S);
    auto Plan = planPosting(*S);
    REQUIRE(Plan);
    for (const RankPlan &RP : Plan->Ranks)
      for (const PlannedOp &O : RP.Ops) {
        for (int32_t J : O.PostWaits) {
          const PlannedOp &W = RP.Ops[size_t(J)];
          // An earlier step, or the receive window: an earlier receive from
          // the same peer.
          CHECK((W.Step < O.Step || (O.isRecv() && W.isRecv() &&
                                     W.Peer == O.Peer && J < &O - &RP.Ops[0])));
        }
        for (int32_t J : O.ApplyWaits) {
          CHECK(RP.Ops[size_t(J)].Step <= O.Step);
          CHECK_FALSE(RP.Ops[size_t(J)].isRecv());
        }
        if (O.isRecv())
          CHECK(O.Stage >= 0); // a reduction receive is staged
      }
  }
}

TEST_CASE("posting: the summary reports the peak scratch per rank") {
  const Machine M = wormholeTorus8x8();
  auto S = findAlgorithm("sem", Collective::Alltoall)
               ->Build(M, request(Collective::Alltoall, 64, 0, 1024, "sem"));
  REQUIRE(S);
  auto Plan = planPosting(*S);
  REQUIRE(Plan);
  auto [Rank, Bytes] = peakScratch(*Plan, *S);
  auto [RankApart, Apart] = peakScratch(*Plan, *S, true);
  (void)RankApart;
  CHECK(Bytes > 0);
  CHECK(Bytes < Apart);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  emitSummary(OS, *S, M);
  OS.flush();
  CHECK(Text.find("scratch:    peak ") != std::string::npos);
  CHECK(Text.find(" per rank (rank " + std::to_string(Rank) + "), ") !=
        std::string::npos);
  CHECK(Text.find(" with every block apart\n") != std::string::npos);
}

TEST_CASE("posting: the peak scratch planned rank by rank is the whole "
          "plan's") {
  // Relaying (sem), staging (Bruck's allgather, the segmented scans) and
  // reductions (exscan keeps a result apart), at drawn rank counts.
  std::mt19937 G(0x26c0);
  const Machine M = wormholeTorus8x8();
  const std::pair<Collective, const char *> Cases[] = {
      {Collective::Alltoall, "sem"},
      {Collective::Alltoall, "bruck"},
      {Collective::Allgather, "bruck"},
      {Collective::Allgather, "ring"},
      {Collective::Allreduce, "reduce-scatter-allgather"},
      {Collective::Exscan, "pipelined"},
      {Collective::Bcast, "pipeline"}};
  for (const auto &Case : Cases) {
    const Collective C = Case.first;
    const char *Alg = Case.second;
    CAPTURE(Alg);
    const int32_t P =
        C == Collective::Alltoall && std::string(Alg) == "sem"
            ? 64
            : int32_t(std::uniform_int_distribution<int>(2, 64)(G));
    CAPTURE(P);
    Request R = request(C, P, 0, isReduction(C) ? 4000 : 1000, Alg);
    auto S = findAlgorithm(Alg, C)->Build(M, R);
    REQUIRE(S);
    auto Plan = planPosting(*S);
    REQUIRE(Plan);
    auto Whole = peakScratch(*Plan, *S);
    auto WholeApart = peakScratch(*Plan, *S, true);
    auto ByRank = peakScratchByRank(*S);
    REQUIRE(ByRank);
    CHECK(ByRank->Rank == Whole.first);
    CHECK(ByRank->Bytes == Whole.second);
    CHECK(ByRank->Apart == WholeApart.second);
  }
}

TEST_CASE("posting: the peak scratch rank by rank fails as the whole plan "
          "does") {
  const Machine M = wormholeTorus8x8();
  auto S = findAlgorithm("ring", Collective::Allgather)
               ->Build(M, request(Collective::Allgather, 8, 0, 100, "ring"));
  REQUIRE(S);
  S->Steps.back().Transfers.back().Dst = 99;
  auto Plan = planPosting(*S);
  auto ByRank = peakScratchByRank(*S);
  REQUIRE_FALSE(Plan);
  REQUIRE_FALSE(ByRank);
  CHECK(llvm::toString(ByRank.takeError()) == llvm::toString(Plan.takeError()));
}
