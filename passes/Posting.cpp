#include "passes/Posting.h"

#include "passes/Dependencies.h"
#include "passes/ReductionFlow.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <map>
#include <queue>
#include <unordered_map>

using namespace llvm;

namespace collc {

namespace {

/// How a received reduction chunk updates the value it lands in: the Seg
/// mode bits of value 0 (or of value 1 when only that one is updated).
uint8_t modeOf(Fold How, bool Combine) {
  return uint8_t((How == Fold::Right ? SegRight : 0) |
                 (How == Fold::Store && Combine ? SegStore : 0));
}

/// Appends \p G, merging it into the previous segment when it continues it.
void appendSeg(std::vector<PlannedSeg> &V, PlannedSeg G) {
  if (!V.empty()) {
    PlannedSeg &L = V.back();
    if (L.Buf == G.Buf && L.Mode == G.Mode && L.Block == G.Block &&
        L.NumBlocks == 1 && G.NumBlocks == 1 && L.ChunkHi == G.ChunkLo) {
      L.ChunkHi = G.ChunkHi; // next chunks of the same block
      return;
    }
    if (L.Buf == G.Buf && L.Mode == G.Mode && L.ChunkLo == G.ChunkLo &&
        L.ChunkHi == G.ChunkHi && L.Block + L.NumBlocks == G.Block) {
      L.NumBlocks += G.NumBlocks; // the same chunks of the next block
      return;
    }
  }
  V.push_back(G);
}

/// Whether the segments are one contiguous run of one buffer for every
/// block size (\p K chunks a block): the runtime then moves them in place.
bool contiguous(const std::vector<PlannedSeg> &V, int64_t K) {
  bool First = true;
  uint8_t Buf = 0;
  int64_t EndBlock = 0, EndChunk = 0; // where the run so far ends
  for (const PlannedSeg &G : V) {
    const bool Whole = G.ChunkLo == 0 && G.ChunkHi == K;
    if (!Whole && G.NumBlocks > 1)
      return false;
    if (!First &&
        !(G.Buf == Buf &&
          ((G.Block == EndBlock && G.ChunkLo == EndChunk) ||
           (G.Block == EndBlock + 1 && EndChunk == K && G.ChunkLo == 0))))
      return false;
    First = false;
    Buf = G.Buf;
    EndBlock = G.Block + G.NumBlocks - 1;
    EndChunk = G.ChunkHi;
  }
  return true;
}

/// Chunk units of \p V: what staging holds of it.
int64_t unitsOf(const std::vector<PlannedSeg> &V) {
  int64_t N = 0;
  for (const PlannedSeg &G : V)
    N += int64_t(G.ChunkHi - G.ChunkLo) * G.NumBlocks;
  return N;
}

constexpr int32_t NoOp = -1;

/// Builds the plan: operations with their segments (scratch blocks named by
/// a per-rank key until slots are assigned), then memory, then waits.
class Planner {
public:
  /// \p Only: plan that rank alone (-1: every rank). \p Compact (with a
  /// rank): keep its plan as the plan's only rank, Ranks[0], so that the
  /// work does not grow with the number of ranks (peakScratchByRank plans
  /// every rank so). \p HopClasses: try Bruck's all-to-all's scratch
  /// layout by hop class (hopSlot) before the colouring.
  Planner(const Schedule &S, int32_t Only, bool Compact = false,
          bool HopClasses = true)
      : S(S), P(S.size()), C(S.Coll), K(std::max<int64_t>(S.NumChunks, 1)),
        Only(Only), Compact(Compact && Only >= 0), First(Only < 0 ? 0 : Only),
        End(Only < 0 ? P : Only + 1),
        ByHopClass(HopClasses && C == Collective::Alltoall &&
                   S.Algorithm == "bruck"),
        Plan(), Keys(this->Compact ? 1 : P), KeyLast(this->Compact ? 1 : P),
        ScratchRuns(ByHopClass ? (this->Compact ? 1 : P) : 0) {
    Plan.Ranks.resize(this->Compact ? 1 : P);
    if (ByHopClass)
      placeHopClasses();
  }

  Expected<PostingPlan> run() {
    if (Error E = buildOps())
      return E;
    for (int32_t R = First; R < End; ++R) {
      if (ByHopClass) {
        // A schedule that only bears Bruck's name may not fit the layout:
        // then it is planned as any other.
        if (Misfit || !hopClassScratch(R))
          return Planner(S, Only, Compact, /*HopClasses=*/false).run();
        assignStaging(R);
      } else {
        assignMemory(R);
      }
      computeWaits(R);
    }
    dataWaits();
    return std::move(Plan);
  }

private:
  bool planned(int32_t R) const { return Only < 0 || R == Only; }
  /// Where rank \p R's plan and keys are kept.
  size_t at(int32_t R) const { return Compact ? 0 : size_t(R); }
  RankPlan &rank(int32_t R) { return Plan.Ranks[at(R)]; }

  Error buildOps() {
    ScheduleFlow Flow;
    if (isReduction(C))
      Flow = reductionFlow(S);
    uint32_t Id = 0;
    for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
      const std::vector<Transfer> &Ts = S.Steps[SI].Transfers;
      for (size_t TI = 0; TI < Ts.size(); ++TI, ++Id) {
        const Transfer &T = Ts[TI];
        if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P ||
            T.Src == T.Dst)
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu is not between two ranks", T.Src,
              T.Dst, SI);
        if (!planned(T.Src) && !planned(T.Dst))
          continue;
        uint8_t Kind = T.Kind == TransferKind::Signal    ? OpSignal
                       : T.Kind == TransferKind::Combine ? OpCombine
                                                         : 0;
        PlannedOp Send, Recv;
        Send.Transfer = Recv.Transfer = Id;
        Send.Step = Recv.Step = int32_t(SI);
        Send.Peer = T.Dst;
        Recv.Peer = T.Src;
        Send.Flags = Kind;
        Recv.Flags = uint8_t(Kind | OpRecv);
        if (T.Kind != TransferKind::Signal) {
          // Reductions keep two values per rank (Transfer::From/Into); only
          // exscan's result lives apart, in the receive buffer.
          if ((T.From != 0 || T.Into != 1) &&
              (!traits(C).ResultApart || T.From > 1 || T.Into < 1 ||
               T.Into > 3))
            return createStringError(
                inconvertibleErrorCode(),
                "transfer %d -> %d of step %zu keeps a result apart (from %u, "
                "into %u): the MPI backend keeps one apart for exscan only",
                T.Src, T.Dst, SI, unsigned(T.From), unsigned(T.Into));
          if (isReduction(C) && !planned(T.Dst)) {
            // The receiver's values are not followed: what is sent is the
            // chunks the pieces name, as the receiver's runs would give.
            sentChunks(T, Send.Segs);
          } else if (isReduction(C)) {
            if (Error E = reductionSegs(SI, T, Flow.Steps[SI][TI], Send.Segs,
                                        Recv.Segs))
              return E;
          } else {
            dataSegs(T, Send.Segs, Recv.Segs);
          }
        }
        if (planned(T.Src))
          rank(T.Src).Ops.push_back(std::move(Send));
        if (planned(T.Dst))
          rank(T.Dst).Ops.push_back(std::move(Recv));
      }
    }
    // One rank's flow says nothing of the others' folds.
    Plan.NeedsCommutative = Only < 0 && Flow.NeedsCommutative;
    return Error::success();
  }

  /// A reduction transfer's chunks: the sender's value From, and the
  /// receiver's values Into updated as the flow says.
  Error reductionSegs(size_t SI, const Transfer &T, const TransferFlow &F,
                      std::vector<PlannedSeg> &SendSegs,
                      std::vector<PlannedSeg> &RecvSegs) {
    const bool Combine = T.Kind == TransferKind::Combine;
    for (const ChunkRun &Run : F.Runs) {
      const Fold How0 = Run.Into[0], How1 = Run.Into[1];
      for (Fold H : {How0, How1})
        if (H == Fold::Twice || H == Fold::Unordered)
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu combines a contribution twice "
              "or out of rank order: the schedule does not verify",
              T.Src, T.Dst, SI);
      uint8_t Mode = 0, Buf = AccBuf;
      if (T.Into & 1)
        Mode = modeOf(How0, Combine);
      if (T.Into & 2) {
        if (T.Into & 1) {
          if (How0 == Fold::Right && How1 == Fold::Right)
            return createStringError(
                inconvertibleErrorCode(),
                "transfer %d -> %d of step %zu combines higher ranks into both "
                "values of rank %d: the MPI backend does not execute that",
                T.Src, T.Dst, SI, T.Dst);
          Mode |= uint8_t(SegAlso | (How1 == Fold::Right ? SegAlsoRight : 0) |
                          (How1 == Fold::Store ? SegAlsoStore : 0));
        } else {
          Buf = ResultBuf;
          Mode = modeOf(How1, Combine);
        }
      }
      const int32_t Lo = int32_t(Run.Chunks.Lo), Hi = int32_t(Run.Chunks.Hi);
      appendSeg(SendSegs,
                {0, 1, Lo, Hi, uint8_t(T.From ? ResultBuf : AccBuf), 0});
      appendSeg(RecvSegs, {0, 1, Lo, Hi, Buf, Mode});
    }
    return Error::success();
  }

  /// What a reduction transfer \p T sends, from its pieces alone: the chunks
  /// they name in increasing order, merged where they continue each other
  /// (the receiver's runs, which reductionSegs follows, cover the same).
  void sentChunks(const Transfer &T, std::vector<PlannedSeg> &SendSegs) {
    std::vector<Interval> Chunks;
    for (const Piece &Pc : T.Pieces)
      Chunks.push_back(Pc.Chunks);
    std::sort(Chunks.begin(), Chunks.end(),
              [](const Interval &A, const Interval &B) { return A.Lo < B.Lo; });
    int64_t Lo = 0, Hi = 0;
    auto Flush = [&] {
      if (Hi > Lo)
        appendSeg(SendSegs, {0, 1, int32_t(Lo), int32_t(Hi),
                             uint8_t(T.From ? ResultBuf : AccBuf), 0});
    };
    for (const Interval &I : Chunks) {
      if (I.Lo > Hi) {
        Flush();
        Lo = I.Lo;
      }
      Hi = std::max(Hi, I.Hi);
    }
    Flush();
  }

  /// A copy of replicated or personalized data: the blocks of its pieces,
  /// where sender and receiver keep them (scratch blocks by key, one
  /// segment each until slots are assigned; by hop class, in their slots
  /// and merged at once). Only the planned ranks' sides.
  void dataSegs(const Transfer &T, std::vector<PlannedSeg> &SendSegs,
                std::vector<PlannedSeg> &RecvSegs) {
    std::vector<Piece> Pieces(T.Pieces.begin(), T.Pieces.end());
    if (Pieces.empty())
      Pieces.push_back(S.wholeMessage());
    const bool Src = planned(T.Src), Dst = planned(T.Dst);
    for (const Piece &Pc : Pieces) {
      if (ByHopClass && Pc.Dests.size() == 1 && Pc.Chunks == Interval{0, K}) {
        // Whole blocks of one dest (Bruck's rectangles): run by run.
        for (int32_t R : {T.Src, T.Dst})
          if (planned(R))
            placeOrigins(R, Pc.Origins.Lo, Pc.Origins.Hi, Pc.Dests.Lo,
                         R == T.Src ? SendSegs : RecvSegs);
        continue;
      }
      for (int64_t O = Pc.Origins.Lo; O < Pc.Origins.Hi; ++O)
        for (int64_t D = Pc.Dests.Lo; D < Pc.Dests.Hi; ++D) {
          if (!isPersonalized(C) && D != Pc.Dests.Lo)
            break; // replicated data: the dest axis does not split it
          const int32_t Lo = int32_t(Pc.Chunks.Lo), Hi = int32_t(Pc.Chunks.Hi);
          if (Src)
            place(T.Src, O, D, Lo, Hi, SendSegs);
          if (Dst)
            place(T.Dst, O, D, Lo, Hi, RecvSegs);
        }
    }
  }

  /// place() for whole blocks of origins [\p O, \p OEnd) and dest \p D, a
  /// run at a time: the send buffer's one block (origin \p R), the receive
  /// buffer's run (dest \p R), or a run of slots of one hop class (hopSlot:
  /// it breaks where the distance travelled, R - O, falls below a power of
  /// two).
  void placeOrigins(int32_t R, int64_t O, int64_t OEnd, int64_t D,
                    std::vector<PlannedSeg> &Segs) {
    const int32_t Whole = int32_t(K);
    while (O < OEnd) {
      if (O == R) {
        appendSeg(Segs, {D, 1, 0, Whole, SendBuf, 0});
        ++O;
        continue;
      }
      int64_t End = R > O ? std::min<int64_t>(OEnd, R) : OEnd;
      if (D == R) {
        appendSeg(Segs, {O, End - O, 0, Whole, RecvBuf, 0});
      } else {
        const int64_t T = ((R - O) % P + P) % P;
        End = std::min(End, O + T - (int64_t(1) << llvm::Log2_64(T)) + 1);
        appendScratch(R, Segs, hopSlot(R, O, D), O, D, End - O, 0, Whole);
      }
      O = End;
    }
  }

  /// Appends slots [\p Slot, + \p N), blocks of origins from \p O and
  /// dest \p D, to rank \p R's \p Segs: a run of slots continues where its
  /// origins do and its dest is the same, which hopClassScratch reads back.
  void appendScratch(int32_t R, std::vector<PlannedSeg> &Segs, int64_t Slot,
                     int64_t O, int64_t D, int64_t N, int32_t Lo, int32_t Hi) {
    if (Slot < 0) {
      Misfit = true;
      return;
    }
    std::vector<std::pair<int32_t, int32_t>> &Runs = ScratchRuns[at(R)];
    if (!Segs.empty()) {
      PlannedSeg &L = Segs.back();
      if (L.Buf == ScratchBuf && L.ChunkLo == Lo && L.ChunkHi == Hi &&
          L.Block + L.NumBlocks == Slot &&
          Runs.back().first + L.NumBlocks == O && Runs.back().second == D) {
        L.NumBlocks += N;
        return;
      }
    }
    Segs.push_back({Slot, N, Lo, Hi, ScratchBuf, 0});
    Runs.push_back({int32_t(O), int32_t(D)});
  }

  /// Appends to \p Segs, rank \p R's, chunks [Lo, Hi) of block (\p O,
  /// \p D) where \p R keeps it.
  void place(int32_t R, int64_t O, int64_t D, int32_t Lo, int32_t Hi,
             std::vector<PlannedSeg> &Segs) {
    if (!ByHopClass) {
      auto L = locate(R, O, D);
      Segs.push_back({L.second, 1, Lo, Hi, L.first, 0});
      return;
    }
    if (O == R)
      appendSeg(Segs, {D, 1, Lo, Hi, SendBuf, 0});
    else if (D == R)
      appendSeg(Segs, {O, 1, Lo, Hi, RecvBuf, 0});
    else
      appendScratch(R, Segs, hopSlot(R, O, D), O, D, 1, Lo, Hi);
  }

  /// Bruck's all-to-all sends in step k every block whose distance left
  /// has bit k set, so a rank keeps a relayed block (origin O, dest D) from
  /// the step k of its arrival, the top bit of the distance travelled
  /// t = R - O (mod P), to the step k' of its next hop, the lowest bit of the
  /// distance left L = D - R (k < k'; t + L < P is the block's distance).
  /// Its slot is its hop class's (k, k') first slot (placeHopClasses) plus
  /// (L >> (k' + 1)) 2^k + (2^(k+1) - 1 - t): the ascending origins of one
  /// dest, a rectangle of the rank part, are one run of slots on the
  /// receiving side (k the step) and one run per class on the sending side
  /// (t below each power of two). -1 (the layout does not apply) for a
  /// block no class holds.
  int64_t hopSlot(int32_t R, int64_t O, int64_t D) const {
    const int64_t T = ((R - O) % P + P) % P, L = ((D - R) % P + P) % P;
    const unsigned Arrived = llvm::Log2_64(uint64_t(T)),
                   Next = llvm::countTrailingZeros(uint64_t(L));
    if (Arrived >= Next || T + L >= P)
      return -1;
    const int64_t Low = int64_t(1) << Arrived;
    return ClassBase[size_t(Arrived) * HopBits + Next] +
           (L >> (Next + 1)) * Low + (2 * Low - 1 - T);
  }

  /// The first slot of each hop class (k, k'), k < k' < log2 P rounded up:
  /// its blocks are live from step k to step k', (h + 1) 2^k slots for the
  /// h + 1 values L >> (k' + 1) takes. About (log2 P)^2 / 2 classes, placed
  /// by first fit (two share slots only where their steps do not meet) in
  /// the order of k, of size and of length, whichever needs the fewest
  /// slots: the first is the most blocks live at once where P is a power of
  /// two, the others come nearer it elsewhere. The layout is computed, not
  /// searched block by block; hopClassScratch checks that a slot changes
  /// hands only in a later step than its last use.
  void placeHopClasses() {
    HopBits = 0;
    while ((int64_t(1) << HopBits) < P)
      ++HopBits;
    std::vector<SlotRequest> Classes;
    for (unsigned A = 0; A < HopBits; ++A)
      for (unsigned N = A + 1; N < HopBits; ++N) {
        const int64_t Min = (int64_t(1) << A) + (int64_t(1) << N);
        Classes.push_back(
            {int64_t(A), int64_t(N),
             P - 1 < Min ? 0 : (((P - 1 - Min) >> (N + 1)) + 1) << A});
      }
    std::vector<size_t> Order(Classes.size());
    std::vector<int64_t> At, Best;
    int64_t BestUsed = -1;
    for (int Way = 0; Way < 3; ++Way) {
      for (size_t I = 0; I < Order.size(); ++I)
        Order[I] = I;
      std::stable_sort(Order.begin(), Order.end(), [&](size_t X, size_t Y) {
        const SlotRequest &A = Classes[X], &B = Classes[Y];
        return Way == 0   ? A.First < B.First
               : Way == 1 ? A.Size > B.Size
                          : A.Last - A.First < B.Last - B.First;
      });
      const int64_t Used = firstFitInOrder(Classes, Order, At);
      if (BestUsed < 0 || Used < BestUsed) {
        BestUsed = Used;
        Best.swap(At);
      }
    }
    ClassBase.assign(size_t(HopBits) * HopBits, 0);
    size_t I = 0;
    for (unsigned A = 0; A < HopBits; ++A)
      for (unsigned N = A + 1; N < HopBits; ++N)
        ClassBase[size_t(A) * HopBits + N] = Best[I++];
  }

  /// First fit of \p Q in the order \p Order: each request at the lowest
  /// slot clear of those placed before it whose steps meet its own. Fills
  /// \p At, returns the slots used.
  static int64_t firstFitInOrder(const std::vector<SlotRequest> &Q,
                                 const std::vector<size_t> &Order,
                                 std::vector<int64_t> &At) {
    At.assign(Q.size(), 0);
    std::vector<size_t> Placed;
    std::vector<std::pair<int64_t, int64_t>> Busy;
    int64_t Used = 0;
    for (size_t I : Order) {
      Busy.clear();
      for (size_t J : Placed)
        if (Q[J].First <= Q[I].Last && Q[I].First <= Q[J].Last)
          Busy.push_back({At[J], At[J] + Q[J].Size});
      std::sort(Busy.begin(), Busy.end());
      int64_t Slot = 0;
      for (const auto &B : Busy) {
        if (B.first >= Slot + Q[I].Size)
          break;
        Slot = std::max(Slot, B.second);
      }
      At[I] = Slot;
      Placed.push_back(I);
      Used = std::max(Used, Slot + Q[I].Size);
    }
    return Used;
  }

  /// Rank \p R's scratch by hop class (hopSlot), at Lookahead 0: checks
  /// that each slot changes hands in a receive, in a step after every use
  /// of its previous block, and then, as assignScratch does, has that
  /// receive wait for those uses. False when it does not fit.
  bool hopClassScratch(int32_t R) {
    RankPlan &RP = rank(R);
    const std::vector<std::pair<int32_t, int32_t>> &Runs = ScratchRuns[at(R)];
    int64_t Slots = 0;
    for (const PlannedOp &O : RP.Ops)
      for (const PlannedSeg &G : O.Segs)
        if (G.Buf == ScratchBuf)
          Slots = std::max(Slots, G.Block + G.NumBlocks);
    // Per slot: the block it holds (origin P + dest; -1: none), the step of
    // its last use, and its uses since it came: the first two in Use, the
    // others in a list through More (a block of Bruck's has two, the
    // receive that brings it and the send that takes it on).
    std::vector<int64_t> Holder(size_t(Slots), -1);
    std::vector<int32_t> LastStep(size_t(Slots), -1), Head(size_t(Slots), -1);
    std::vector<std::array<int32_t, 2>> Use(size_t(Slots), {NoOp, NoOp});
    std::vector<std::pair<int32_t, int32_t>> More; // (op, next)
    std::vector<int32_t> WaitedBy(RP.Ops.size(), NoOp);
    auto Wait = [&](PlannedOp &O, int32_t I, int32_t W) {
      if (W != NoOp && WaitedBy[size_t(W)] != I) {
        WaitedBy[size_t(W)] = I;
        O.PostWaits.push_back(W);
      }
    };
    int64_t Blocks = 0;
    size_t Run = 0;
    for (size_t I = 0; I < RP.Ops.size(); ++I) {
      PlannedOp &O = RP.Ops[I];
      for (const PlannedSeg &G : O.Segs) {
        if (G.Buf != ScratchBuf)
          continue;
        const auto [Origin, Dest] = Runs[Run++];
        for (int64_t J = 0; J < G.NumBlocks; ++J) {
          const size_t Sl = size_t(G.Block + J);
          const int64_t Block = (int64_t(Origin) + J) * P + Dest;
          if (Holder[Sl] != Block) {
            if (!O.isRecv() || LastStep[Sl] >= O.Step)
              return false;
            for (int32_t W : Use[Sl])
              Wait(O, int32_t(I), W);
            for (int32_t U = Head[Sl]; U >= 0; U = More[size_t(U)].second)
              Wait(O, int32_t(I), More[size_t(U)].first);
            Holder[Sl] = Block;
            Use[Sl] = {NoOp, NoOp};
            Head[Sl] = -1;
            ++Blocks;
          }
          LastStep[Sl] = O.Step;
          // Uses in operation order: the latest is the last one recorded.
          std::array<int32_t, 2> &U = Use[Sl];
          const int32_t Latest = Head[Sl] >= 0  ? More[size_t(Head[Sl])].first
                                 : U[1] != NoOp ? U[1]
                                                : U[0];
          if (Latest == int32_t(I))
            continue;
          if (U[0] == NoOp) {
            U[0] = int32_t(I);
          } else if (U[1] == NoOp) {
            U[1] = int32_t(I);
          } else {
            More.push_back({int32_t(I), Head[Sl]});
            Head[Sl] = int32_t(More.size() - 1);
          }
        }
      }
    }
    RP.ScratchSlots = Slots;
    RP.ScratchBlocksApart = Blocks;
    RP.Lookahead = 0;
    return true;
  }

  /// Where rank \p R keeps block (origin \p O, dest \p D): a user buffer and
  /// block index, or a scratch block, by key.
  std::pair<uint8_t, int64_t> locate(int32_t R, int64_t O, int64_t D) {
    switch (C) {
    case Collective::Bcast:
    case Collective::Multicast:
      return {RecvBuf, 0};
    case Collective::Allgather:
      return {RecvBuf, O};
    case Collective::Scatter:
    case Collective::Gather: {
      // The root keeps every rank's block in one user buffer (the scatter's
      // send buffer, the gather's receive buffer), by rank; any other rank
      // its own block in the other.
      const bool Out = C == Collective::Scatter;
      const int64_t Owner = Out ? D : O;
      if (R == S.Root)
        return {Out ? SendBuf : RecvBuf, Owner};
      if (Owner == R)
        return {Out ? RecvBuf : SendBuf, 0};
      break;
    }
    case Collective::Alltoall:
      if (O == R)
        return {SendBuf, D};
      if (D == R)
        return {RecvBuf, O};
      break;
    default:
      break;
    }
    // A rank not planned keeps no keys: its side of a transfer is dropped.
    if (!planned(R))
      return {ScratchBuf, -1};
    // The verifier guarantees a rank sends only what it holds: a block is
    // first seen on the receiving side.
    uint64_t Key = static_cast<uint64_t>(O) * P + D;
    auto [It, New] = Keys[at(R)].try_emplace(Key, int64_t(Keys[at(R)].size()));
    return {ScratchBuf, It->second};
  }

  /// Colours rank \p R's scratch blocks with \p Lookahead; returns the slots
  /// used and fills \p Slot per key.
  int64_t colourScratch(int32_t R, int64_t Lookahead, bool Runs,
                        std::vector<int64_t> &Slot) {
    RankPlan &RP = rank(R);
    const int64_t NumKeys = int64_t(Keys[at(R)].size());
    std::vector<SlotRequest> Reqs;
    std::vector<int64_t> ReqKeys, ReqBegin; // keys of each request, in order
    std::vector<bool> Seen(size_t(NumKeys), false);
    for (const PlannedOp &O : RP.Ops) {
      SlotRequest Q{std::max<int64_t>(0, O.Step - Lookahead), O.Step, 0};
      const size_t Begin = ReqKeys.size();
      for (const PlannedSeg &G : O.Segs)
        if (G.Buf == ScratchBuf && !Seen[size_t(G.Block)]) {
          Seen[size_t(G.Block)] = true;
          ReqKeys.push_back(G.Block);
          Q.Last = std::max(Q.Last, KeyLast[at(R)][size_t(G.Block)]);
          ++Q.Size;
          if (!Runs) { // every block on its own
            ReqBegin.push_back(int64_t(ReqKeys.size() - 1));
            Reqs.push_back(Q);
            Q = {Q.First, O.Step, 0};
          }
        }
      if (Q.Size) {
        ReqBegin.push_back(int64_t(Begin));
        Reqs.push_back(Q);
      }
    }
    std::vector<int64_t> First;
    const int64_t Used = assignSlots(Reqs, First);
    Slot.assign(size_t(NumKeys), 0);
    for (size_t I = 0; I < Reqs.size(); ++I)
      for (int64_t J = 0; J < Reqs[I].Size; ++J)
        Slot[size_t(ReqKeys[size_t(ReqBegin[I] + J)])] = First[I] + J;
    return Used;
  }

  /// The lookahead for rank \p R: the largest (doubling from 1, up to all
  /// steps) whose \p Peak stays within \p Budget given the peak at 0.
  template <typename F>
  int64_t chooseLookahead(int64_t Peak0, int64_t Budget, F &&Peak) {
    const int64_t Steps = int64_t(S.Steps.size());
    int64_t Best = 0;
    for (int64_t L = 1;; L = std::min(2 * L, Steps)) {
      if (Peak(L) > std::max(Budget, Peak0))
        break;
      Best = L;
      if (L >= Steps)
        break;
    }
    return Best;
  }

  /// Scratch and staging of rank \p R: blocks kept in runs (one receive's
  /// new blocks consecutive, so that it lands in place) or each on its own
  /// (fewer slots when they die apart, more staging), whichever needs less.
  void assignMemory(int32_t R) {
    RankPlan &RP = rank(R);
    if (Keys[at(R)].empty()) {
      assignScratch(R, true);
      assignStaging(R);
      return;
    }
    const RankPlan Raw = RP;
    RankPlan Best;
    int64_t Apart = 0;
    for (bool Runs : {true, false}) {
      RP = Raw;
      assignScratch(R, Runs);
      assignStaging(R);
      if (Runs) {
        Apart = RP.StagingUnitsApart; // in runs, as the runtime did before
      }
      if (Runs || RP.ScratchSlots * K + RP.StagingUnits <
                      Best.ScratchSlots * K + Best.StagingUnits)
        Best = std::move(RP);
    }
    RP = std::move(Best);
    RP.StagingUnitsApart = Apart;
  }

  void assignScratch(int32_t R, bool Runs) {
    RankPlan &RP = rank(R);
    const size_t NumKeys = Keys[at(R)].size();
    KeyLast[at(R)].assign(NumKeys, 0);
    for (const PlannedOp &O : RP.Ops)
      for (const PlannedSeg &G : O.Segs)
        if (G.Buf == ScratchBuf)
          KeyLast[at(R)][size_t(G.Block)] =
              std::max<int64_t>(KeyLast[at(R)][size_t(G.Block)], O.Step);
    RP.ScratchBlocksApart = int64_t(NumKeys);
    std::vector<int64_t> Slot;
    int64_t L = 0;
    if (NumKeys) {
      // The chosen lookahead's colouring is the last one within the budget:
      // kept, not made again.
      const int64_t Peak0 = colourScratch(R, 0, Runs, Slot);
      const int64_t Budget = Peak0 + Peak0 / 4;
      std::vector<int64_t> Kept = Slot, Trial;
      int64_t KeptPeak = Peak0;
      L = chooseLookahead(Peak0, Budget, [&](int64_t La) {
        const int64_t Peak = colourScratch(R, La, Runs, Trial);
        if (Peak <= Budget) {
          Kept.swap(Trial);
          KeptPeak = Peak;
        }
        return Peak;
      });
      Slot.swap(Kept);
      RP.ScratchSlots = KeptPeak;
    }
    RP.Lookahead = L;
    // The segments in slots, merged where they continue each other. A slot
    // that changes hands: the new block's first operation waits for every
    // use of the previous one (all in earlier steps, by the colouring).
    std::vector<int64_t> Holder(size_t(RP.ScratchSlots), -1);
    std::vector<std::vector<int32_t>> Users(size_t(RP.ScratchSlots));
    for (size_t I = 0; I < RP.Ops.size(); ++I) {
      PlannedOp &O = RP.Ops[I];
      std::vector<PlannedSeg> Raw;
      Raw.swap(O.Segs);
      for (PlannedSeg G : Raw) {
        if (G.Buf == ScratchBuf) {
          const int64_t Key = G.Block;
          G.Block = Slot[size_t(Key)];
          std::vector<int32_t> &U = Users[size_t(G.Block)];
          if (Holder[size_t(G.Block)] != Key) {
            Holder[size_t(G.Block)] = Key;
            for (int32_t J : U)
              if (RP.Ops[size_t(J)].Step < O.Step)
                O.PostWaits.push_back(J);
            U.clear();
          }
          if (U.empty() || U.back() != int32_t(I))
            U.push_back(int32_t(I));
        }
        appendSeg(O.Segs, G);
      }
    }
  }

  /// Staging areas: reduction receives and messages not in one run.
  void assignStaging(int32_t R) {
    RankPlan &RP = rank(R);
    std::vector<size_t> Staged;
    for (size_t I = 0; I < RP.Ops.size(); ++I) {
      PlannedOp &O = RP.Ops[I];
      if (O.Flags & OpSignal)
        continue;
      if ((O.isRecv() && isReduction(C)) || !contiguous(O.Segs, K)) {
        O.StageUnits = unitsOf(O.Segs);
        if (O.StageUnits == 0)
          continue;
        Staged.push_back(I);
        RP.StagingUnitsApart += O.StageUnits;
      }
    }
    if (Staged.empty())
      return;
    std::vector<int64_t> First;
    auto Colour = [&](int64_t La, std::vector<int64_t> &Out) {
      std::vector<SlotRequest> Reqs;
      for (size_t I : Staged) {
        const PlannedOp &O = RP.Ops[I];
        Reqs.push_back(
            {std::max<int64_t>(0, O.Step - La), O.Step, O.StageUnits});
      }
      return assignSlots(Reqs, Out);
    };
    // As for the scratch: the chosen lookahead's colouring is kept.
    const int64_t Peak0 = Colour(0, First);
    // The schedule may ask for several of its busiest step's staging at
    // once (Schedule::StagingDepth: Open MPI's two receive buffers).
    const int64_t Budget =
        std::max(Peak0 * std::max<int64_t>(1, S.StagingDepth) + Peak0 / 4, K);
    std::vector<int64_t> Trial;
    int64_t Kept = Peak0;
    chooseLookahead(Peak0, Budget, [&](int64_t La) {
      const int64_t Peak = Colour(La, Trial);
      if (Peak <= Budget) {
        First.swap(Trial);
        Kept = Peak;
      }
      return Peak;
    });
    RP.StagingUnits = Kept;
    for (size_t J = 0; J < Staged.size(); ++J)
      RP.Ops[Staged[J]].Stage = First[J];
  }

  /// Memory waits of rank \p R: receives after the earlier users of what
  /// they write (scratch slots and staging), staged sends after the earlier
  /// users of their staging, reduction receives' applies after the sends
  /// reading what they update.
  void computeWaits(int32_t R) {
    RankPlan &RP = rank(R);
    // Staging: the latest user of each stretch of units (Lo -> (Hi, op)).
    std::map<int64_t, std::pair<int64_t, int32_t>> Stage;
    // Reductions: per value (acc, result) and chunk, the sends reading it
    // since its last update.
    std::vector<std::vector<int32_t>> Readers[2];
    if (isReduction(C))
      for (auto &V : Readers)
        V.resize(size_t(K));
    std::vector<int32_t> W;
    auto AddWait = [&](PlannedOp &O, int32_t J) {
      if (J != NoOp && RP.Ops[size_t(J)].Step < O.Step)
        O.PostWaits.push_back(J);
    };
    for (size_t Begin = 0; Begin < RP.Ops.size();) {
      size_t End = Begin;
      while (End < RP.Ops.size() && RP.Ops[End].Step == RP.Ops[Begin].Step)
        ++End;
      // The step's sends read the values before the step's updates.
      if (isReduction(C))
        for (size_t I = Begin; I < End; ++I)
          if (!RP.Ops[I].isRecv())
            for (const PlannedSeg &G : RP.Ops[I].Segs)
              for (int32_t Ch = G.ChunkLo; Ch < G.ChunkHi; ++Ch)
                Readers[G.Buf == ResultBuf][size_t(Ch)].push_back(int32_t(I));
      for (size_t I = Begin; I < End; ++I) {
        PlannedOp &O = RP.Ops[I];
        if (O.Stage >= 0) {
          const int64_t Lo = O.Stage, Hi = O.Stage + O.StageUnits;
          auto It = Stage.upper_bound(Lo);
          if (It != Stage.begin() && std::prev(It)->second.first > Lo)
            --It;
          std::vector<std::pair<int64_t, std::pair<int64_t, int32_t>>> Keep;
          while (It != Stage.end() && It->first < Hi) {
            AddWait(O, It->second.second);
            if (It->first < Lo)
              Keep.push_back({It->first, {Lo, It->second.second}});
            if (It->second.first > Hi)
              Keep.push_back({Hi, It->second});
            It = Stage.erase(It);
          }
          for (auto &E : Keep)
            Stage.insert(E);
          Stage[Lo] = {Hi, int32_t(I)};
        }
        if (isReduction(C)) {
          if (!O.isRecv())
            continue;
          W.clear();
          for (const PlannedSeg &G : O.Segs)
            for (int32_t Ch = G.ChunkLo; Ch < G.ChunkHi; ++Ch)
              for (int V = 0; V < 2; ++V) {
                const bool Writes =
                    V == 0 ? G.Buf == AccBuf
                           : (G.Buf == ResultBuf || (G.Mode & SegAlso));
                if (!Writes)
                  continue;
                std::vector<int32_t> &Rd = Readers[V][size_t(Ch)];
                W.insert(W.end(), Rd.begin(), Rd.end());
                Rd.clear();
              }
          std::sort(W.begin(), W.end());
          W.erase(std::unique(W.begin(), W.end()), W.end());
          O.ApplyWaits = W;
          continue;
        }
      }
      Begin = End;
    }
    for (PlannedOp &O : RP.Ops) {
      std::sort(O.PostWaits.begin(), O.PostWaits.end());
      O.PostWaits.erase(std::unique(O.PostWaits.begin(), O.PostWaits.end()),
                        O.PostWaits.end());
    }
  }

  /// Data waits: every send after the receives it depends on
  /// (passes/Dependencies.h), as indices of its rank's operations (a
  /// reduction's receives are applied in order, so the latest suffices),
  /// and after the sends of the rank's latest earlier step that sends; every
  /// receive after the one the window before it from the same peer
  /// (RecvWindow, or the schedule's own; the rank's window is never the
  /// smaller).
  void dataWaits() {
    TransferDependencies D = transferDependencies(S);
    // Where each transfer's receive is in its receiver's program.
    std::vector<int32_t> RecvAt(D.Ids.size(), NoOp);
    for (int32_t R = First; R < End; ++R)
      for (size_t I = 0; I < rank(R).Ops.size(); ++I)
        if (rank(R).Ops[I].isRecv())
          RecvAt[rank(R).Ops[I].Transfer] = int32_t(I);
    for (int32_t R = First; R < End; ++R) {
      std::unordered_map<int32_t, std::vector<int32_t>> From;
      std::vector<int32_t> All;
      const size_t PeerWin =
          size_t(S.RecvWindow > 0 ? S.RecvWindow : RecvWindow);
      const size_t RankWin = std::max(size_t(RankRecvWindow), PeerWin);
      // The rank window of the first receive of the current step (NoOp:
      // none): the step's later receives wait for it, not for receives of
      // their own step, so a step's receives are posted together.
      int32_t Step = -1, StepWait = NoOp;
      for (size_t I = 0; I < rank(R).Ops.size(); ++I) {
        PlannedOp &O = rank(R).Ops[I];
        if (!O.isRecv())
          continue;
        std::vector<int32_t> &F = From[O.Peer];
        if (F.size() >= PeerWin)
          O.PostWaits.push_back(F[F.size() - PeerWin]);
        int32_t Win = All.size() >= RankWin ? All[All.size() - RankWin] : NoOp;
        if (O.Step != Step) {
          Step = O.Step;
          StepWait = Win;
        } else if (Win != NoOp && rank(R).Ops[size_t(Win)].Step == Step) {
          Win = StepWait;
        }
        if (Win != NoOp)
          O.PostWaits.push_back(Win);
        std::sort(O.PostWaits.begin(), O.PostWaits.end());
        O.PostWaits.erase(std::unique(O.PostWaits.begin(), O.PostWaits.end()),
                          O.PostWaits.end());
        F.push_back(int32_t(I));
        All.push_back(int32_t(I));
      }
    }
    // Lockstep: every operation after every one of the rank's latest
    // earlier step that has any.
    if (S.Lockstep)
      for (int32_t R = First; R < End; ++R) {
        std::vector<PlannedOp> &Ops = rank(R).Ops;
        std::vector<int32_t> Prev, Cur;
        int32_t CurStep = -1;
        for (size_t I = 0; I < Ops.size(); ++I) {
          if (Ops[I].Step != CurStep) {
            if (!Cur.empty())
              Prev.swap(Cur);
            Cur.clear();
            CurStep = Ops[I].Step;
          }
          Cur.push_back(int32_t(I));
          std::vector<int32_t> &W = Ops[I].PostWaits;
          W.insert(W.end(), Prev.begin(), Prev.end());
          std::sort(W.begin(), W.end());
          W.erase(std::unique(W.begin(), W.end()), W.end());
        }
      }
    for (int32_t R = First; R < End; ++R) {
      // The sends of the latest earlier step in which the rank sends.
      std::vector<int32_t> Prev, Cur;
      int32_t CurStep = -1;
      for (size_t I = 0; I < rank(R).Ops.size(); ++I) {
        PlannedOp &O = rank(R).Ops[I];
        if (O.isRecv())
          continue;
        if (O.Step != CurStep) {
          if (!Cur.empty())
            Prev.swap(Cur);
          Cur.clear();
          CurStep = O.Step;
        }
        Cur.push_back(int32_t(I));
        std::vector<int32_t> W;
        for (uint32_t Dep : D.of(O.Transfer))
          W.push_back(RecvAt[Dep]);
        if (isReduction(C) && !W.empty())
          W = {*std::max_element(W.begin(), W.end())};
        if (!S.SendsAhead)
          W.insert(W.end(), Prev.begin(), Prev.end());
        W.insert(W.end(), O.PostWaits.begin(), O.PostWaits.end());
        std::sort(W.begin(), W.end());
        W.erase(std::unique(W.begin(), W.end()), W.end());
        O.PostWaits = std::move(W);
      }
    }
  }

  const Schedule &S;
  const int32_t P;
  const Collective C;
  const int64_t K;
  const int32_t Only;
  const bool Compact;
  /// The ranks planned: [First, End).
  const int32_t First, End;
  /// Scratch by hop class (hopSlot): Bruck's all-to-all.
  const bool ByHopClass;
  /// hopSlot's classes: bits of P - 1, and the first slot of class (k, k')
  /// at k HopBits + k'.
  unsigned HopBits = 0;
  std::vector<int64_t> ClassBase;
  /// A block the hop classes do not hold: the colouring plans the schedule.
  bool Misfit = false;
  PostingPlan Plan;
  /// Open addressing, one allocation per rank: a rank's part of a
  /// 65,536-rank all-to-all names half a million blocks.
  std::vector<llvm::DenseMap<uint64_t, int64_t>> Keys;
  std::vector<std::vector<int64_t>> KeyLast;
  /// By hop class: per rank, the first origin and the dest of each run of
  /// scratch slots, in the order of its operations and segments.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> ScratchRuns;
};

} // namespace

namespace {

/// Slots 0..N-1, each free or busy, with the lowest free run of a given
/// length found in O(log N): a segment tree whose nodes keep the longest
/// free run inside them and the free runs at their two ends.
class FreeRuns {
public:
  explicit FreeRuns(int64_t N) : N(std::max<int64_t>(N, 1)) {
    Width = 1;
    while (Width < this->N)
      Width *= 2;
    Nodes.resize(size_t(2 * Width));
    // Every slot free: the leaves (node Width + i for slot i), then each
    // level above them from its children.
    for (int64_t I = 0; I < Width; ++I)
      fill(Width + I, I, 1, false);
    for (int64_t First = Width / 2, Len = 2; First >= 1; First /= 2, Len *= 2)
      for (int64_t Node = First; Node < 2 * First; ++Node)
        pull(Node, Len);
  }

  /// The lowest slot that starts \p Size free slots (Size <= N; there is
  /// always one while at most N - Size slots are busy).
  int64_t lowestFit(int64_t Size) const {
    int64_t Node = 1, Lo = 0, Len = Width;
    while (Len > 1) {
      const int64_t Half = Len / 2;
      const Run &L = Nodes[size_t(2 * Node)], &R = Nodes[size_t(2 * Node + 1)];
      if (L.Best >= Size) {
        Node = 2 * Node;
      } else if (L.Suffix + R.Prefix >= Size) {
        return Lo + Half - L.Suffix;
      } else {
        Node = 2 * Node + 1;
        Lo += Half;
      }
      Len = Half;
    }
    return Lo;
  }

  /// Marks slots [Lo, Hi) busy or free.
  void set(int64_t Lo, int64_t Hi, bool Busy) {
    update(1, 0, Width, Lo, Hi, Busy);
  }

private:
  struct Run {
    int64_t Best = 0, Prefix = 0, Suffix = 0;
    int8_t Pending = -1; ///< A whole-node assignment not yet pushed down.
  };

  void fill(int64_t Node, int64_t Lo, int64_t Len, bool Busy) {
    // Slots past N are busy forever, so that no run crosses the end.
    const int64_t Free = Busy ? 0 : std::max<int64_t>(0, std::min(Len, N - Lo));
    Run &X = Nodes[size_t(Node)];
    X.Best = Free;
    X.Prefix = Free;
    X.Suffix = Free == Len ? Len : 0;
    X.Pending = Len > 1 ? int8_t(Busy) : int8_t(-1);
  }

  void pull(int64_t Node, int64_t Len) {
    const int64_t Half = Len / 2;
    const Run &L = Nodes[size_t(2 * Node)], &R = Nodes[size_t(2 * Node + 1)];
    Run &X = Nodes[size_t(Node)];
    X.Best = std::max({L.Best, R.Best, L.Suffix + R.Prefix});
    X.Prefix = L.Prefix == Half ? Half + R.Prefix : L.Prefix;
    X.Suffix = R.Suffix == Half ? Half + L.Suffix : R.Suffix;
  }

  void update(int64_t Node, int64_t Lo, int64_t Len, int64_t A, int64_t B,
              bool Busy) {
    if (B <= Lo || Lo + Len <= A)
      return;
    if (A <= Lo && Lo + Len <= B) {
      fill(Node, Lo, Len, Busy);
      return;
    }
    const int64_t Half = Len / 2;
    Run &X = Nodes[size_t(Node)];
    if (X.Pending >= 0) {
      fill(2 * Node, Lo, Half, X.Pending);
      fill(2 * Node + 1, Lo + Half, Half, X.Pending);
      X.Pending = -1;
    }
    update(2 * Node, Lo, Half, A, B, Busy);
    update(2 * Node + 1, Lo + Half, Half, A, B, Busy);
    pull(Node, Len);
  }

  int64_t N, Width;
  std::vector<Run> Nodes;
};

int64_t maxSizeOf(ArrayRef<SlotRequest> Requests) {
  int64_t Max = 0;
  for (const SlotRequest &Q : Requests)
    Max = std::max(Max, Q.Size);
  return Max;
}

/// Requests by their steps: the order of First (ties as given) and, per
/// step, the requests whose Last it is, by counting (steps are schedule step
/// indices, so this is linear where a sort and a heap of expiries were not).
struct StepIndex {
  std::vector<size_t> Order;
  /// Expiring[S]: the requests of Size > 0 whose max(Last, First) is S.
  std::vector<std::vector<size_t>> Expiring;

  explicit StepIndex(ArrayRef<SlotRequest> Requests) {
    int64_t MaxStep = 0;
    for (const SlotRequest &Q : Requests) {
      assert(Q.First >= 0 && "a slot request's steps are step indices");
      MaxStep = std::max({MaxStep, Q.First, Q.Last});
    }
    std::vector<size_t> Start(size_t(MaxStep) + 2, 0);
    for (const SlotRequest &Q : Requests)
      ++Start[size_t(Q.First) + 1];
    for (size_t I = 1; I < Start.size(); ++I)
      Start[I] += Start[I - 1];
    Order.resize(Requests.size());
    for (size_t I = 0; I < Requests.size(); ++I)
      Order[Start[size_t(Requests[I].First)]++] = I;
    Expiring.resize(size_t(MaxStep) + 1);
    for (size_t I = 0; I < Requests.size(); ++I)
      if (Requests[I].Size > 0)
        Expiring[size_t(std::max(Requests[I].Last, Requests[I].First))]
            .push_back(I);
  }
};

/// assignSlots() when no request needs more than one slot: first fit is the
/// lowest free slot, the lowest freed one or else the next never used.
int64_t assignUnitSlots(ArrayRef<SlotRequest> Requests, const StepIndex &Ix,
                        std::vector<int64_t> &Slots) {
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>>
      Freed;
  int64_t Used = 0, Released = 0; // steps whose expiries are freed
  for (size_t I : Ix.Order) {
    const SlotRequest &Q = Requests[I];
    for (; Released < Q.First; ++Released)
      for (size_t J : Ix.Expiring[size_t(Released)])
        Freed.push(Slots[J]);
    if (Q.Size <= 0)
      continue;
    int64_t At = Used;
    if (!Freed.empty()) {
      At = Freed.top();
      Freed.pop();
    }
    Slots[I] = At;
    Used = std::max(Used, At + 1);
  }
  return Used;
}

/// Requests up to which assignSlots() scans the live runs rather than
/// building the tree, whose size is the slots that could be busy: a rank's
/// staged messages are few and large (Bruck's all-to-all stages 2 log2 P of
/// P/2 blocks each, a tree of millions of nodes for 32 requests).
constexpr size_t FewRequests = 64;

/// assignSlots() for a few requests: the live runs kept in order, each
/// request at the lowest gap that holds it.
int64_t assignFewSlots(ArrayRef<SlotRequest> Requests, const StepIndex &Ix,
                       std::vector<int64_t> &Slots) {
  std::vector<std::pair<int64_t, int64_t>> Busy; // [first, end), in order
  int64_t Used = 0, Released = 0;
  for (size_t I : Ix.Order) {
    const SlotRequest &Q = Requests[I];
    for (; Released < Q.First; ++Released)
      for (size_t J : Ix.Expiring[size_t(Released)])
        Busy.erase(std::find_if(Busy.begin(), Busy.end(), [&](const auto &B) {
          return B.first == Slots[J];
        }));
    if (Q.Size <= 0)
      continue;
    int64_t At = 0;
    auto It = Busy.begin();
    for (; It != Busy.end() && It->first < At + Q.Size; ++It)
      At = std::max(At, It->second);
    Busy.insert(It, {At, At + Q.Size});
    Slots[I] = At;
    Used = std::max(Used, At + Q.Size);
  }
  return Used;
}

} // namespace

int64_t assignSlots(ArrayRef<SlotRequest> Requests,
                    std::vector<int64_t> &Slots) {
  const StepIndex Ix(Requests);
  Slots.assign(Requests.size(), 0);
  if (maxSizeOf(Requests) <= 1)
    return assignUnitSlots(Requests, Ix, Slots);
  if (Requests.size() <= FewRequests)
    return assignFewSlots(Requests, Ix, Slots);
  // Where first fit can reach: when k other requests of Live slots in all
  // are live, the free slots below Live + (k + 1) x Size form at most k + 1
  // runs of at least (k + 1) x Size slots in all, so one of them fits. The
  // peaks are taken after each step's changes (its ends count before its
  // starts).
  const size_t Steps = Ix.Expiring.size() + 1;
  std::vector<int64_t> LiveAt(Steps, 0), CountAt(Steps, 0);
  int64_t Total = 0, MaxSize = 0;
  for (const SlotRequest &Q : Requests)
    if (Q.Size > 0) {
      Total += Q.Size;
      MaxSize = std::max(MaxSize, Q.Size);
      const size_t End = size_t(std::max(Q.Last, Q.First)) + 1;
      LiveAt[size_t(Q.First)] += Q.Size;
      LiveAt[End] -= Q.Size;
      ++CountAt[size_t(Q.First)];
      --CountAt[End];
    }
  int64_t Live = 0, Count = 0, PeakLive = 0, PeakCount = 0;
  for (size_t St = 0; St < Steps; ++St) {
    Live += LiveAt[St];
    Count += CountAt[St];
    PeakLive = std::max(PeakLive, Live);
    PeakCount = std::max(PeakCount, Count);
  }
  FreeRuns Free(std::min(Total, PeakLive + PeakCount * MaxSize));
  int64_t Used = 0, Released = 0;
  for (size_t I : Ix.Order) {
    const SlotRequest &Q = Requests[I];
    for (; Released < Q.First; ++Released)
      for (size_t J : Ix.Expiring[size_t(Released)])
        Free.set(Slots[J], Slots[J] + Requests[J].Size, false);
    if (Q.Size <= 0) {
      Slots[I] = 0;
      continue;
    }
    const int64_t At = Free.lowestFit(Q.Size);
    Slots[I] = At;
    Free.set(At, At + Q.Size, true);
    Used = std::max(Used, At + Q.Size);
  }
  return Used;
}

uint64_t scratchBytes(const RankPlan &R, uint64_t BlockBytes,
                      uint64_t UnitBytes, bool Apart) {
  return uint64_t(Apart ? R.ScratchBlocksApart : R.ScratchSlots) * BlockBytes +
         uint64_t(Apart ? R.StagingUnitsApart : R.StagingUnits) * UnitBytes;
}

std::pair<int32_t, uint64_t> peakScratch(const PostingPlan &Plan,
                                         const Schedule &S, bool Apart) {
  const uint64_t Unit = S.chunkBytes({0, 1});
  std::pair<int32_t, uint64_t> Peak{0, 0};
  for (size_t R = 0; R < Plan.Ranks.size(); ++R) {
    const uint64_t B = scratchBytes(Plan.Ranks[R], S.Bytes, Unit, Apart);
    if (B > Peak.second)
      Peak = {int32_t(R), B};
  }
  return Peak;
}

Expected<PostingPlan> planPosting(const Schedule &S) {
  return Planner(S, -1).run();
}

Expected<PostingPlan> planRankPosting(const Schedule &S, int32_t Rank) {
  assert(Rank >= 0 && Rank < S.size());
  // Planned compact (no per-rank keys for the others), then put in place.
  Expected<PostingPlan> Plan = Planner(S, Rank, /*Compact=*/true).run();
  if (!Plan)
    return Plan.takeError();
  RankPlan Mine = std::move(Plan->Ranks[0]);
  Plan->Ranks.clear();
  Plan->Ranks.resize(size_t(S.size()));
  Plan->Ranks[size_t(Rank)] = std::move(Mine);
  return Plan;
}

Expected<ScratchPeak> peakScratchByRank(const Schedule &S) {
  const int32_t P = S.size();
  // Each rank's transfers in schedule order, as offsets into one array.
  std::vector<uint64_t> Begin(size_t(P) + 1, 0);
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P || T.Src == T.Dst)
        return planPosting(S).takeError();
      ++Begin[size_t(T.Src) + 1];
      ++Begin[size_t(T.Dst) + 1];
    }
  for (int32_t R = 0; R < P; ++R)
    Begin[size_t(R) + 1] += Begin[size_t(R)];
  std::vector<TransferRef> Refs(Begin[size_t(P)]);
  {
    std::vector<uint64_t> Next(Begin.begin(), Begin.end() - 1);
    for (size_t SI = 0; SI < S.Steps.size(); ++SI)
      for (size_t TI = 0; TI < S.Steps[SI].Transfers.size(); ++TI) {
        const Transfer &T = S.Steps[SI].Transfers[TI];
        const TransferRef Ref{uint32_t(SI), uint32_t(TI)};
        Refs[Next[size_t(T.Src)]++] = Ref;
        Refs[Next[size_t(T.Dst)]++] = Ref;
      }
  }
  // One part, refilled for each rank: the schedule without its transfers.
  Schedule Part;
  Part.Coll = S.Coll;
  Part.Algorithm = S.Algorithm; // Bruck's all-to-all's scratch by hop class
  Part.Bytes = S.Bytes;
  Part.Root = S.Root;
  Part.NumChunks = S.NumChunks;
  Part.RecvWindow = S.RecvWindow;
  Part.StagingDepth = S.StagingDepth;
  Part.Lockstep = S.Lockstep;
  Part.SendsAhead = S.SendsAhead;
  Part.Op = S.Op;
  Part.Datatype = S.Datatype;
  Part.Commutative = S.Commutative;
  Part.Participants = S.Participants;
  Part.Steps.resize(S.Steps.size());
  const uint64_t Unit = S.chunkBytes({0, 1});
  ScratchPeak Peak;
  for (int32_t R = 0; R < P; ++R) {
    for (uint64_t I = Begin[size_t(R)]; I < Begin[size_t(R) + 1]; ++I)
      Part.Steps[Refs[I].Step].Transfers.push_back(
          S.Steps[Refs[I].Step].Transfers[Refs[I].Index]);
    Expected<PostingPlan> Plan = Planner(Part, R, /*Compact=*/true).run();
    if (!Plan) {
      // The whole plan names the schedule's first problem.
      consumeError(Plan.takeError());
      return planPosting(S).takeError();
    }
    const RankPlan &Mine = Plan->Ranks[0];
    const uint64_t B = scratchBytes(Mine, S.Bytes, Unit);
    if (B > Peak.Bytes) {
      Peak.Rank = R;
      Peak.Bytes = B;
    }
    Peak.Apart = std::max(Peak.Apart, scratchBytes(Mine, S.Bytes, Unit, true));
    for (uint64_t I = Begin[size_t(R)]; I < Begin[size_t(R) + 1]; ++I)
      Part.Steps[Refs[I].Step].Transfers.clear();
  }
  return Peak;
}

} // namespace collc
