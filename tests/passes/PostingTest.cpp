// The posting plan: interval colouring (no two live requests share a slot;
// with unit sizes the peak is the largest live set), scratch reused by
// lifetime on relaying schedules, and the waits that guard reuse.
#include "passes/Posting.h"

#include "algorithms/RankParts.h"
#include "algorithms/Registry.h"
#include "backends/Emit.h"
#include "backends/MpiTables.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

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
    // Up to FewRequests (64) assignSlots scans the live runs, beyond it
    // searches a tree: both.
    const int N = 1 + static_cast<int>(Rng() % (Round % 4 == 3 ? 500 : 80));
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

namespace {

/// Rank \p R's operations in \p T, block by block: (step, peer, flags) and
/// per block (buffer, block, chunks).
using BlockText = std::tuple<uint8_t, int64_t, int32_t, int32_t>;
using OpBlocks = std::tuple<int32_t, int32_t, uint8_t, std::vector<BlockText>>;

std::vector<OpBlocks> blocksOf(const MpiTables &T, int32_t R) {
  std::vector<OpBlocks> V;
  for (int64_t I = T.RankOps[size_t(R)]; I < T.RankOps[size_t(R) + 1]; ++I) {
    const rt::Op &O = T.Ops[size_t(I)];
    OpBlocks X{O.Step, O.Peer, O.Flags, {}};
    for (int32_t J = 0; J < O.NumSegs; ++J) {
      const rt::Seg &G = T.Segs[size_t(O.Seg + J)];
      for (int64_t B = G.Block; B < G.Block + G.NumBlocks; ++B)
        std::get<3>(X).push_back({G.Buf, B, G.ChunkLo, G.ChunkHi});
    }
    V.push_back(std::move(X));
  }
  return V;
}

/// Checks rank \p R's tables \p T of Bruck's all-to-all \p Part (its part,
/// or the whole schedule) block by block against the part's transfers: each
/// operation moves the blocks its transfer's pieces list, in their order,
/// from and to the user's buffers where they are the rank's own, else from
/// the scratch slot the block came into, and a slot takes a new block only
/// in a receive of a step after the last use of its previous one. Returns
/// the rank's scratch blocks.
int64_t checkBruckBlocks(const Schedule &Part, const MpiTables &T, int32_t R) {
  CAPTURE(R);
  const std::vector<OpBlocks> Ops = blocksOf(T, R);
  std::map<std::pair<int64_t, int64_t>, int64_t> SlotOf; // (origin, dest)
  std::map<int64_t, std::pair<std::pair<int64_t, int64_t>, int32_t>> Held;
  size_t I = 0;
  int64_t Slots = 0;
  for (size_t SI = 0; SI < Part.Steps.size(); ++SI)
    for (const Transfer &Tr : Part.Steps[SI].Transfers) {
      if (Tr.Src != R && Tr.Dst != R)
        continue;
      REQUIRE(I < Ops.size());
      const auto &[Step, Peer, Flags, Blocks] = Ops[I++];
      const bool Recv = Tr.Dst == R;
      CHECK(Step == int32_t(SI));
      CHECK(Peer == (Recv ? Tr.Src : Tr.Dst));
      CHECK(bool(Flags & rt::OpRecv) == Recv);
      size_t B = 0;
      for (const Piece &Pc : Tr.Pieces)
        for (int64_t O = Pc.Origins.Lo; O < Pc.Origins.Hi; ++O)
          for (int64_t D = Pc.Dests.Lo; D < Pc.Dests.Hi; ++D) {
            REQUIRE(B < Blocks.size());
            const auto &[Buf, Block, Lo, Hi] = Blocks[B++];
            CHECK(Lo == Pc.Chunks.Lo);
            CHECK(Hi == Pc.Chunks.Hi);
            if (O == R) {
              CHECK(Buf == rt::SendBuf);
              CHECK(Block == D);
              continue;
            }
            if (D == R) {
              CHECK(Buf == rt::RecvBuf);
              CHECK(Block == O);
              continue;
            }
            REQUIRE(Buf == rt::ScratchBuf);
            Slots = std::max(Slots, Block + 1);
            auto It = Held.find(Block);
            if (It == Held.end() || It->second.first != std::pair{O, D}) {
              // A block comes in a receive, into a slot whose last block's
              // uses are all of earlier steps.
              REQUIRE(Recv);
              if (It != Held.end())
                CHECK(It->second.second < int32_t(SI));
              SlotOf[{O, D}] = Block;
            }
            CHECK(SlotOf[{O, D}] == Block);
            Held[Block] = {{O, D}, int32_t(SI)};
          }
      CHECK(B == Blocks.size());
    }
  CHECK(I == Ops.size());
  CHECK(Slots <= T.ScratchBlocks);
  return T.ScratchBlocks;
}

/// \p Alg's all-to-all of \p P ranks on the torus model, its ranks with
/// \p Ports ports, and the machine.
std::pair<Machine, Schedule> alltoallOf(const char *Alg, int32_t P,
                                        unsigned Ports, uint64_t Bytes) {
  Machine M = linearTorus(P);
  M.Ports = Ports;
  auto S = findAlgorithm(Alg, Collective::Alltoall)
               ->Build(M, request(Collective::Alltoall, P, 0, Bytes, Alg));
  REQUIRE(S);
  return {M, std::move(*S)};
}

} // namespace

TEST_CASE("posting: Bruck's all-to-all keeps each relayed block in a slot of "
          "its hop class, block for block what its transfers move") {
  // Drawn rank counts: small ones whole (every rank, and the tables pass
  // checkTables), large ones (past BruckBlockPieces: rectangles) by the
  // rank-part builder, for drawn ranks; against the colouring's tables of
  // the same schedule under another name.
  std::mt19937 G(0xb2c4);
  const RankPartFn Build = rankPartBuilder("bruck", Collective::Alltoall);
  REQUIRE(static_cast<bool>(Build));
  double Worst = 0;
  for (int Draw = 0; Draw < 8; ++Draw) {
    const bool Large = Draw >= 5;
    const int32_t P = int32_t(std::uniform_int_distribution<int>(
        Large ? 1000 : 2, Large ? 5000 : 120)(G));
    CAPTURE(P);
    const uint64_t Bytes = 1 + G() % 5000;
    const Machine M = linearTorus(P);
    const Request R = request(Collective::Alltoall, P, 0, Bytes, "bruck");
    std::vector<int32_t> Ranks;
    if (Large) {
      for (int32_t Rk : {0, P - 1, P / 2})
        Ranks.push_back(Rk);
      for (int I = 0; I < 3; ++I)
        Ranks.push_back(int32_t(G() % uint32_t(P)));
    } else {
      auto S = findAlgorithm("bruck", Collective::Alltoall)->Build(M, R);
      REQUIRE(S);
      auto Whole = lowerToTables(*S);
      REQUIRE(Whole);
      if (llvm::Error E = checkTables(*Whole, S->Coll, P, 0, S->NumChunks))
        FAIL(llvm::toString(std::move(E)));
      for (int32_t Rk = 0; Rk < P; ++Rk)
        checkBruckBlocks(*S, *Whole, Rk);
      CHECK(Whole->ScratchBlocks <= 2 * int64_t(P));
      Ranks.push_back(int32_t(G() % uint32_t(P)));
    }
    for (int32_t Rk : Ranks) {
      CAPTURE(Rk);
      auto Part = Build(M, R, Rk);
      REQUIRE(Part);
      auto T = lowerRankTables(*Part, Rk);
      REQUIRE(T);
      const int64_t Slots = checkBruckBlocks(*Part, *T, Rk);
      CHECK(Slots <= 2 * int64_t(P));
      // The colouring moves the same blocks between the same buffers, its
      // scratch aside.
      Schedule Other = *Part;
      Other.Algorithm = "bruck-coloured";
      auto Coloured = lowerRankTables(Other, Rk);
      REQUIRE(Coloured);
      const auto A = blocksOf(*T, Rk), B = blocksOf(*Coloured, Rk);
      REQUIRE(A.size() == B.size());
      for (size_t I = 0; I < A.size(); ++I) {
        CHECK(std::get<0>(A[I]) == std::get<0>(B[I]));
        CHECK(std::get<1>(A[I]) == std::get<1>(B[I]));
        CHECK(std::get<2>(A[I]) == std::get<2>(B[I]));
        const auto &X = std::get<3>(A[I]), &Y = std::get<3>(B[I]);
        REQUIRE(X.size() == Y.size());
        for (size_t J = 0; J < X.size(); ++J)
          if (std::get<0>(X[J]) != rt::ScratchBuf)
            CHECK(X[J] == Y[J]);
      }
      if (Coloured->ScratchBlocks > 0)
        Worst =
            std::max(Worst, double(Slots) / double(Coloured->ScratchBlocks));
    }
  }
  MESSAGE("scratch by hop class over the colouring's, at most " << Worst);
}

TEST_CASE("posting: a schedule named bruck whose blocks do not fit the slots "
          "by hop class is planned by the colouring") {
  // Pairwise on 8 ranks, but blocks (0, 2) and (3, 5) go through rank 1 in
  // two steps before it: rank 1 keeps them from step 0, and their distances
  // left, 1 and 4, have their lowest bits at or below the top bit of the
  // distances travelled, 1 and 6: no hop class holds them.
  auto [M, Pairwise] = alltoallOf("pairwise", 8, 8, 100);
  Schedule *S = &Pairwise;
  auto Block = [&](int32_t Src, int32_t Dst, int32_t O, int32_t D) {
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Bytes = S->Bytes;
    T.Pieces.push_back({{O, O + 1}, {D, D + 1}, {0, S->NumChunks}});
    return T;
  };
  std::vector<Transfer> &Second = S->Steps[1].Transfers;
  Second.erase(std::remove_if(
                   Second.begin(), Second.end(),
                   [](const Transfer &T) { return T.Src == 0 || T.Src == 3; }),
               Second.end());
  Step In, On;
  In.Transfers = {Block(0, 1, 0, 2), Block(3, 1, 3, 5)};
  On.Transfers = {Block(1, 2, 0, 2), Block(1, 5, 3, 5)};
  S->Steps.insert(S->Steps.begin(), {In, On});
  VerifyOptions O;
  O.Timing = false;
  if (llvm::Error E = verify(*S, M, O))
    FAIL(llvm::toString(std::move(E)));
  Schedule Named = *S;
  Named.Algorithm = "bruck";
  auto T = lowerToTables(Named);
  REQUIRE(T);
  if (llvm::Error E = checkTables(*T, Named.Coll, 8, 0, Named.NumChunks))
    FAIL(llvm::toString(std::move(E)));
  auto Plain = lowerToTables(*S);
  REQUIRE(Plain);
  CHECK(T->ScratchBlocks == 2);
  for (int32_t Rk = 0; Rk < 8; ++Rk)
    CHECK(blocksOf(*T, Rk) == blocksOf(*Plain, Rk));
}

TEST_CASE("posting: a Bruck all-to-all holding a block past its hop class's "
          "steps fails the slots' check and is planned by the colouring") {
  // Bruck on 16 ranks, but rank 1 forwards block (0, 3), which came in step
  // 0 and has distance 2 left, in the last step instead of step 1: its slot
  // is hop class (0, 1)'s, which class (2, 3), live in steps 2 and 3, shares
  // (first fit, in whichever order), so in step 2 another block comes into
  // it while it still waits.
  auto [M, Held] = alltoallOf("bruck", 16, 2, 64);
  Schedule *S = &Held;
  REQUIRE(S->Steps.size() == 4);
  Transfer Late;
  for (Transfer &T : S->Steps[1].Transfers) {
    if (T.Src != 1)
      continue;
    REQUIRE(T.Dst == 3);
    auto It =
        std::find_if(T.Pieces.begin(), T.Pieces.end(), [](const Piece &P) {
          return P.Origins == Interval{0, 1} && P.Dests == Interval{3, 4};
        });
    REQUIRE(It != T.Pieces.end());
    Late.Src = 1;
    Late.Dst = 3;
    Late.Bytes = S->Bytes;
    Late.Pieces.push_back(*It);
    T.Pieces.erase(It);
    T.Bytes -= S->Bytes;
  }
  S->Steps[3].Transfers.push_back(Late);
  VerifyOptions O;
  O.Timing = false;
  if (llvm::Error E = verify(*S, M, O))
    FAIL(llvm::toString(std::move(E)));
  auto T = lowerToTables(*S);
  REQUIRE(T);
  if (llvm::Error E = checkTables(*T, S->Coll, 16, 0, S->NumChunks))
    FAIL(llvm::toString(std::move(E)));
  for (int32_t Rk = 0; Rk < 16; ++Rk)
    checkBruckBlocks(*S, *T, Rk);
  Schedule Other = *S;
  Other.Algorithm = "bruck-coloured";
  auto Coloured = lowerToTables(Other);
  REQUIRE(Coloured);
  for (int32_t Rk = 0; Rk < 16; ++Rk)
    CHECK(blocksOf(*T, Rk) == blocksOf(*Coloured, Rk));
  // Without the late block, the slots are by hop class: not the colouring's.
  const Schedule Plain = alltoallOf("bruck", 16, 2, 64).second;
  Schedule PlainOther = Plain;
  PlainOther.Algorithm = "bruck-coloured";
  auto ByClass = lowerToTables(Plain), ByColour = lowerToTables(PlainOther);
  REQUIRE(ByClass);
  REQUIRE(ByColour);
  bool Differ = false;
  for (int32_t Rk = 0; Rk < 16; ++Rk)
    Differ |= blocksOf(*ByClass, Rk) != blocksOf(*ByColour, Rk);
  CHECK(Differ);
}
