// checkTables (backends/MpiTables.h): the runtime's tables checked on their
// own, as a reader of tables it did not write must check them.
#include "backends/MpiTables.h"

#include "ir/Diagnostic.h"
#include "ir/Request.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace llvm;

namespace collc {

namespace {

/// What a rank may do with a buffer in a collective: how many blocks it has
/// there (0: the buffer is not the schedule's on that rank: not significant,
/// MPI_IN_PLACE, or another buffer's alias) and whether receives may write
/// it. Mirrors the runtime's execute() and the lowering's locate().
struct Access {
  int64_t Blocks = 0;
  bool Writable = false;
};

Access accessOf(Collective C, uint8_t Buf, int32_t Rank, int32_t Root,
                int64_t P) {
  const bool IsRoot = Rank == Root;
  switch (Buf) {
  case rt::SendBuf:
    switch (C) {
    case Collective::Gather:
      return {IsRoot ? 0 : 1, false};
    case Collective::Scatter:
      return {IsRoot ? P : 0, false};
    case Collective::Alltoall:
      return {P, false};
    default:
      return {};
    }
  case rt::RecvBuf:
    switch (C) {
    case Collective::Bcast:
    case Collective::Multicast:
      return {1, true};
    case Collective::Gather:
      return {IsRoot ? P : 0, true};
    case Collective::Scatter:
      return {IsRoot ? 0 : 1, true};
    case Collective::Allgather:
    case Collective::Alltoall:
      return {P, true};
    default:
      return {};
    }
  case rt::AccBuf:
    return {isReduction(C) ? 1 : 0, true};
  case rt::ResultBuf:
    return {C == Collective::Exscan ? 1 : 0, true};
  default:
    return {};
  }
}

const char *bufName(uint8_t B) {
  static const char *Names[] = {"send buffer", "receive buffer", "scratch",
                                "accumulator", "result"};
  return B <= rt::ResultBuf ? Names[B] : "an unknown buffer";
}

/// Blocks of scratch a rank can need at most: every block of the collective
/// that is not its own (a personalized collective relays others' blocks;
/// replicated data and reductions keep theirs in the user's buffers).
int64_t scratchBound(Collective C, int64_t P) {
  switch (C) {
  case Collective::Gather:
  case Collective::Scatter:
    return P;
  case Collective::Alltoall:
    return P * P;
  default:
    return 0;
  }
}

class Checker {
public:
  Checker(const MpiTables &T, Collective C, int32_t Ranks, int32_t Root,
          int64_t K)
      : T(T), C(C), P(Ranks), Root(Root), K(K) {}

  Error run() {
    if (Error E = checkShape())
      return E;
    for (int32_t R = 0; R < P; ++R)
      if (Error E = checkRank(R))
        return E;
    if (Error E = checkPairs())
      return E;
    return checkProgress();
  }

private:
  template <typename... Ts> Error fail(const char *Fmt, const Ts &...Vals) {
    return error(("the tables fail a check: " + std::string(Fmt)).c_str(),
                 Vals...);
  }

  int64_t numOps(int32_t R) const { return T.RankOps[R + 1] - T.RankOps[R]; }
  const rt::Op &op(int32_t R, int64_t I) const {
    return T.Ops[size_t(T.RankOps[R] + I)];
  }

  Error checkShape() {
    if (P < 1 || P > MaxRanks)
      return fail("%d ranks", P);
    if (K < 1 || K > INT32_MAX)
      return fail("%lld chunks per block", (long long)K);
    if (isRooted(C) && (Root < 0 || Root >= P))
      return fail("root %d of %d ranks", Root, P);
    if (T.RankOps.size() != size_t(P) + 1 || T.RankOps.front() != 0 ||
        T.RankOps.back() != int64_t(T.Ops.size()))
      return fail("the operations of %d ranks are not laid out in order", P);
    for (int32_t R = 0; R < P; ++R)
      if (T.RankOps[R + 1] < T.RankOps[R] || numOps(R) > INT32_MAX)
        return fail("rank %d has a negative or too large operation count", R);
    if (T.Waits.size() < 3 || T.Waits.size() > size_t(INT32_MAX))
      return fail("the wait records are missing or too many");
    if (T.ScratchBlocks < 0 || T.ScratchBlocks > scratchBound(C, P))
      return fail("%lld scratch blocks, where a %s of %d ranks needs at most "
                  "%lld",
                  (long long)T.ScratchBlocks, collectiveName(C), P,
                  (long long)scratchBound(C, P));
    return Error::success();
  }

  /// Whether the segments of \p O form one contiguous run of one buffer at
  /// every block size (else the message must be staged).
  bool contiguous(const rt::Op &O) const {
    for (int32_t J = 0; J < O.NumSegs; ++J) {
      const rt::Seg &G = T.Segs[size_t(O.Seg + J)];
      const bool Whole = G.ChunkLo == 0 && G.ChunkHi == K;
      if (G.NumBlocks > 1 && !Whole)
        return false;
      if (J == 0)
        continue;
      const rt::Seg &F = T.Segs[size_t(O.Seg + J - 1)];
      if (F.Buf != G.Buf)
        return false;
      const bool SameBlock =
          F.NumBlocks == 1 && F.Block == G.Block && F.ChunkHi == G.ChunkLo;
      const bool NextBlock =
          F.ChunkHi == K && G.ChunkLo == 0 && F.Block + F.NumBlocks == G.Block;
      if (!SameBlock && !NextBlock)
        return false;
    }
    return true;
  }

  Error checkRank(int32_t R) {
    const int64_t N = numOps(R);
    const bool Red = isReduction(C);
    int64_t StageTotal = 0; // chunk units of all staged operations
    int64_t StageEnd = 0;   // the furthest staging any operation uses
    int32_t LastStep = INT32_MIN;
    for (int64_t I = 0; I < N; ++I) {
      const rt::Op &O = op(R, I);
      const bool Recv = O.Flags & rt::OpRecv;
      if (O.Flags & ~(rt::OpRecv | rt::OpCombine | rt::OpSignal))
        return fail("rank %d operation %lld has unknown flags %d", R,
                    (long long)I, int(O.Flags));
      if (O.Peer < 0 || O.Peer >= P || O.Peer == R)
        return fail("rank %d operation %lld has peer %d (expected another "
                    "rank of %d)",
                    R, (long long)I, O.Peer, P);
      if (O.Step < 0 || O.Step < LastStep)
        return fail("rank %d operation %lld is out of step order", R,
                    (long long)I);
      LastStep = O.Step;
      if ((O.Flags & rt::OpCombine) && (!Red || (O.Flags & rt::OpSignal)))
        return fail("rank %d operation %lld combines, which a %s does not", R,
                    (long long)I, collectiveName(C));
      const bool Signal = O.Flags & rt::OpSignal;
      if (O.Seg < 0 || O.NumSegs < 0 ||
          uint64_t(O.Seg) + uint64_t(O.NumSegs) > T.Segs.size())
        return fail("rank %d operation %lld has segments outside the table", R,
                    (long long)I);
      if (Signal != (O.NumSegs == 0))
        return fail("rank %d operation %lld: %s", R, (long long)I,
                    Signal ? "a signal carries data"
                           : "a message carries no data");
      int64_t Units = 0;
      for (int32_t J = 0; J < O.NumSegs; ++J) {
        const rt::Seg &G = T.Segs[size_t(O.Seg + J)];
        if (Error E = checkSeg(R, I, G, Recv))
          return E;
        // Bounded by the checks: blocks <= P^2, chunks <= K <= 2^31.
        Units += int64_t(G.ChunkHi - G.ChunkLo) * G.NumBlocks;
        if (Units > (int64_t(1) << 62) / 4)
          return fail("rank %d operation %lld moves too much", R, (long long)I);
      }
      // The wait record.
      const int64_t W = O.Wait, NW = int64_t(T.Waits.size());
      if (W < 0 || W > NW - 3)
        return fail("rank %d operation %lld has no wait record", R,
                    (long long)I);
      const int64_t Stage = T.Waits[size_t(W)], NP = T.Waits[size_t(W + 1)],
                    NA = T.Waits[size_t(W + 2)];
      if (Stage < -1 || NP < 0 || NA < 0 || NP + NA > NW - W - 3)
        return fail("rank %d operation %lld has a malformed wait record", R,
                    (long long)I);
      const bool RedRecv = Recv && Red;
      if (NA > 0 && !RedRecv)
        return fail("rank %d operation %lld waits to be applied but is no "
                    "reduction receive",
                    R, (long long)I);
      for (int64_t J = W + 3; J < W + 3 + NP + NA; ++J) {
        const int32_t On = T.Waits[size_t(J)];
        if (On < 0 || On >= N || On == I)
          return fail("rank %d operation %lld waits for operation %d (expected "
                      "another of its %lld)",
                      R, (long long)I, On, (long long)N);
        if (J >= W + 3 + NP && (op(R, On).Flags & rt::OpRecv))
          return fail("rank %d operation %lld waits to be applied for a "
                      "receive (expected sends)",
                      R, (long long)I);
      }
      if (Stage >= 0) {
        if (Signal)
          return fail("rank %d operation %lld stages a signal", R,
                      (long long)I);
        StageTotal += Units;
        StageEnd = std::max(StageEnd, Stage + Units);
      } else if (!Signal && (RedRecv || !contiguous(O))) {
        return fail("rank %d operation %lld is %s and not staged", R,
                    (long long)I,
                    RedRecv ? "a reduction receive" : "not contiguous");
      }
    }
    if (StageEnd > StageTotal)
      return fail("rank %d stages %lld chunk units where its staged "
                  "operations move %lld",
                  R, (long long)StageEnd, (long long)StageTotal);
    return Error::success();
  }

  Error checkSeg(int32_t R, int64_t I, const rt::Seg &G, bool Recv) {
    if (G.ChunkLo < 0 || G.ChunkLo >= G.ChunkHi || G.ChunkHi > K)
      return fail("rank %d operation %lld addresses chunks [%d, %d) of %lld", R,
                  (long long)I, G.ChunkLo, G.ChunkHi, (long long)K);
    int64_t Blocks;
    bool Writable = true;
    if (G.Buf == rt::ScratchBuf) {
      Blocks = T.ScratchBlocks;
    } else {
      Access A = accessOf(C, G.Buf, R, Root, P);
      Blocks = A.Blocks;
      Writable = A.Writable;
    }
    if (G.Block < 0 || G.NumBlocks < 1 || G.Block > Blocks ||
        G.NumBlocks > Blocks - G.Block)
      return fail("rank %d operation %lld addresses blocks [%lld, +%lld) of "
                  "the %s, which has %lld there",
                  R, (long long)I, (long long)G.Block, (long long)G.NumBlocks,
                  bufName(G.Buf), (long long)Blocks);
    if (Recv && !Writable)
      return fail("rank %d operation %lld receives into the %s", R,
                  (long long)I, bufName(G.Buf));
    const uint8_t Also = rt::SegAlso | rt::SegAlsoRight | rt::SegAlsoStore;
    if (G.Mode & ~(rt::SegRight | rt::SegStore | Also))
      return fail("rank %d operation %lld has unknown modes %d", R,
                  (long long)I, int(G.Mode));
    if (G.Mode && (!Recv || !isReduction(C)))
      return fail("rank %d operation %lld has a receive mode outside a "
                  "reduction receive",
                  R, (long long)I);
    if ((G.Mode & Also) && (C != Collective::Exscan || G.Buf != rt::AccBuf ||
                            !(G.Mode & rt::SegAlso)))
      return fail("rank %d operation %lld updates the result kept apart "
                  "outside an exscan's accumulator",
                  R, (long long)I);
    return Error::success();
  }

  /// The k-th send of a to b against the k-th receive of b from a.
  Error checkPairs() {
    // Operations grouped by (sender, receiver), each side in its order.
    std::vector<std::pair<uint64_t, int64_t>> Sends, Recvs;
    for (int32_t R = 0; R < P; ++R)
      for (int64_t I = 0; I < numOps(R); ++I) {
        const rt::Op &O = op(R, I);
        if (O.Flags & rt::OpRecv)
          Recvs.push_back(
              {uint64_t(O.Peer) * uint64_t(P) + uint64_t(R), T.RankOps[R] + I});
        else
          Sends.push_back(
              {uint64_t(R) * uint64_t(P) + uint64_t(O.Peer), T.RankOps[R] + I});
      }
    if (Sends.size() != Recvs.size())
      return fail("%zu sends and %zu receives", Sends.size(), Recvs.size());
    Partner.assign(T.Ops.size(), -1);
    auto ByPair = [](const std::pair<uint64_t, int64_t> &A,
                     const std::pair<uint64_t, int64_t> &B) { return A < B; };
    std::sort(Sends.begin(), Sends.end(), ByPair);
    std::sort(Recvs.begin(), Recvs.end(), ByPair);
    for (size_t I = 0; I < Sends.size(); ++I) {
      const uint64_t Pair = Sends[I].first;
      const int32_t A = int32_t(Pair / uint64_t(P)),
                    B = int32_t(Pair % uint64_t(P));
      if (Recvs[I].first != Pair)
        return fail("the sends of rank %d to rank %d and the receives of %d "
                    "from %d differ in number",
                    A, B, B, A);
      Partner[size_t(Sends[I].second)] = Recvs[I].second;
      Partner[size_t(Recvs[I].second)] = Sends[I].second;
      const rt::Op &S = T.Ops[size_t(Sends[I].second)];
      const rt::Op &Q = T.Ops[size_t(Recvs[I].second)];
      if (S.Step != Q.Step ||
          (S.Flags & ~rt::OpRecv) != (Q.Flags & ~rt::OpRecv) ||
          !sameShape(S, Q))
        return fail("a send of rank %d in step %d and the receive of rank %d "
                    "it meets (step %d) do not move the same chunks",
                    A, S.Step, B, Q.Step);
    }
    return Error::success();
  }

  /// Whether \p S and \p Q move the same chunk ranges of the same number of
  /// blocks, in order (then their bytes agree at every block size).
  bool sameShape(const rt::Op &S, const rt::Op &Q) const {
    int32_t JS = 0, JQ = 0;
    int64_t LeftS = 0, LeftQ = 0; // blocks left of the current segments
    const rt::Seg *GS = nullptr, *GQ = nullptr;
    for (;;) {
      if (LeftS == 0 && JS < S.NumSegs) {
        GS = &T.Segs[size_t(S.Seg + JS++)];
        LeftS = GS->NumBlocks;
      }
      if (LeftQ == 0 && JQ < Q.NumSegs) {
        GQ = &T.Segs[size_t(Q.Seg + JQ++)];
        LeftQ = GQ->NumBlocks;
      }
      if (LeftS == 0 || LeftQ == 0)
        return LeftS == 0 && LeftQ == 0;
      if (GS->ChunkLo != GQ->ChunkLo || GS->ChunkHi != GQ->ChunkHi)
        return false;
      const int64_t Step = std::min(LeftS, LeftQ);
      LeftS -= Step;
      LeftQ -= Step;
    }
  }

  /// Runs every rank's operations under the runtime's rules until nothing
  /// changes; every operation must have finished.
  Error checkProgress() {
    const size_t NumOps = T.Ops.size();
    std::vector<int32_t> PostLeft(NumOps), ApplyLeft(NumOps);
    std::vector<int64_t> NextSame(NumOps, -1);
    std::vector<uint8_t> Posted(NumOps, 0), Arrived(NumOps, 0), Done(NumOps, 0);
    // Who waits for whom (global operation indices): CSR lists.
    std::vector<int64_t> WaiterBegin(NumOps + 1, 0);
    std::vector<int64_t> Waiters;
    for (int32_t R = 0; R < P; ++R)
      for (int64_t I = 0; I < numOps(R); ++I) {
        const int32_t *Rec = &T.Waits[size_t(op(R, I).Wait)];
        for (int32_t J = 0; J < Rec[1] + Rec[2]; ++J)
          ++WaiterBegin[size_t(T.RankOps[R] + Rec[3 + J]) + 1];
      }
    for (size_t I = 0; I < NumOps; ++I)
      WaiterBegin[I + 1] += WaiterBegin[I];
    Waiters.resize(size_t(WaiterBegin[NumOps]));
    std::vector<int64_t> Fill(WaiterBegin.begin(), WaiterBegin.end() - 1);
    std::vector<int64_t> Ready, NextApply(size_t(P), 0);
    for (int32_t R = 0; R < P; ++R) {
      std::vector<int64_t> Last(2 * size_t(P), -1);
      for (int64_t I = 0; I < numOps(R); ++I) {
        const int64_t G = T.RankOps[R] + I;
        const rt::Op &O = T.Ops[size_t(G)];
        const int32_t *Rec = &T.Waits[size_t(O.Wait)];
        PostLeft[size_t(G)] = Rec[1];
        ApplyLeft[size_t(G)] = Rec[2];
        for (int32_t J = 0; J < Rec[1] + Rec[2]; ++J)
          Waiters[size_t(Fill[size_t(T.RankOps[R] + Rec[3 + J])]++)] =
              2 * G + (J >= Rec[1] ? 1 : 0);
        const bool Recv = O.Flags & rt::OpRecv;
        int64_t &L = Last[2 * size_t(O.Peer) + (Recv ? 1 : 0)];
        if (L >= 0) {
          NextSame[size_t(L)] = G;
          ++PostLeft[size_t(G)];
        }
        L = G;
      }
    }
    std::vector<int32_t> RankOf(NumOps);
    for (int32_t R = 0; R < P; ++R)
      for (int64_t G = T.RankOps[R]; G < T.RankOps[R + 1]; ++G)
        RankOf[size_t(G)] = R;
    for (size_t G = 0; G < NumOps; ++G)
      if (PostLeft[G] == 0)
        Ready.push_back(int64_t(G));

    size_t Finished = 0;
    std::vector<int32_t> ApplyCheck; // ranks whose next apply may be due
    auto finish = [&](int64_t G) {
      Done[size_t(G)] = 1;
      ++Finished;
      for (int64_t K2 = WaiterBegin[size_t(G)]; K2 < WaiterBegin[size_t(G) + 1];
           ++K2) {
        const int64_t W = Waiters[size_t(K2)] / 2;
        if (Waiters[size_t(K2)] & 1) {
          if (--ApplyLeft[size_t(W)] == 0)
            ApplyCheck.push_back(RankOf[size_t(W)]);
        } else if (--PostLeft[size_t(W)] == 0) {
          Ready.push_back(W);
        }
      }
    };
    const bool Red = isReduction(C);
    auto arrive = [&](int64_t G) {
      Arrived[size_t(G)] = 1;
      if (Red)
        ApplyCheck.push_back(RankOf[size_t(G)]);
      else
        finish(G);
    };
    while (!Ready.empty() || !ApplyCheck.empty()) {
      while (!Ready.empty()) {
        const int64_t G = Ready.back();
        Ready.pop_back();
        Posted[size_t(G)] = 1;
        if (NextSame[size_t(G)] >= 0 &&
            --PostLeft[size_t(NextSame[size_t(G)])] == 0)
          Ready.push_back(NextSame[size_t(G)]);
        const int64_t Q = Partner[size_t(G)];
        if (Q >= 0 && Posted[size_t(Q)]) {
          const bool GRecv = T.Ops[size_t(G)].Flags & rt::OpRecv;
          const int64_t Snd = GRecv ? Q : G, Rcv = GRecv ? G : Q;
          finish(Snd);
          arrive(Rcv);
        }
      }
      while (!ApplyCheck.empty()) {
        const int32_t R = ApplyCheck.back();
        ApplyCheck.pop_back();
        // The runtime applies a rank's reduction receives in order.
        int64_t &Next = NextApply[size_t(R)];
        while (Next < numOps(R)) {
          const int64_t G = T.RankOps[R] + Next;
          if (!(T.Ops[size_t(G)].Flags & rt::OpRecv)) {
            ++Next;
            continue;
          }
          if (!Arrived[size_t(G)] || ApplyLeft[size_t(G)] > 0)
            break;
          ++Next;
          finish(G);
        }
      }
    }
    if (Finished == NumOps)
      return Error::success();
    for (size_t G = 0; G < NumOps; ++G)
      if (!Done[G]) {
        const int32_t R = RankOf[G];
        const rt::Op &O = T.Ops[G];
        return fail("rank %d would wait forever for its operation %lld (step "
                    "%d, %s rank %d; %s)",
                    R, (long long)(int64_t(G) - T.RankOps[R]), O.Step,
                    (O.Flags & rt::OpRecv) ? "receive from" : "send to", O.Peer,
                    !Posted[G] ? "never posted"
                    : Partner[G] < 0 || !Posted[size_t(Partner[G])]
                        ? "its partner is never posted"
                        : "never applied");
      }
    return Error::success();
  }

  const MpiTables &T;
  /// Per operation (global index): the operation it meets (checkPairs).
  std::vector<int64_t> Partner;
  Collective C;
  int32_t P;
  int32_t Root;
  int64_t K;
};

} // namespace

Error checkTables(const MpiTables &T, Collective Coll, int32_t Ranks,
                  int32_t Root, int64_t NumChunks) {
  return Checker(T, Coll, Ranks, Root, NumChunks).run();
}

} // namespace collc
