#include "backends/MpiTables.h"

#include "passes/ReductionFlow.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

using namespace llvm;

namespace collc {

// The runtime's collectives (runtime/collc/tables.h) are the IR's
// (ir/Collective.h): the same numbers, names and traits.
static_assert(rt::Bcast == static_cast<int>(Collective::Bcast) &&
              rt::Multicast == static_cast<int>(Collective::Multicast) &&
              rt::Reduce == static_cast<int>(Collective::Reduce) &&
              rt::Allreduce == static_cast<int>(Collective::Allreduce) &&
              rt::Scan == static_cast<int>(Collective::Scan) &&
              rt::Exscan == static_cast<int>(Collective::Exscan) &&
              rt::Gather == static_cast<int>(Collective::Gather) &&
              rt::Scatter == static_cast<int>(Collective::Scatter) &&
              rt::Allgather == static_cast<int>(Collective::Allgather) &&
              rt::Alltoall == static_cast<int>(Collective::Alltoall) &&
              rt::Barrier == static_cast<int>(Collective::Barrier) &&
              rt::Barrier + 1 == static_cast<int>(NumCollectives));

namespace {

/// Whether \p A equals \p B, optionally after "MPI_" and with its first
/// letter in upper case (\p AsMpi: "MPI_Bcast" against "bcast").
constexpr bool sameName(const char *A, const char *B, bool AsMpi) {
  if (AsMpi) {
    for (const char *Prefix = "MPI_"; *Prefix; ++Prefix, ++A)
      if (*A != *Prefix)
        return false;
    if (*A != *B - 'a' + 'A')
      return false;
    ++A;
    ++B;
  }
  for (; *A && *A == *B; ++A, ++B)
    ;
  return *A == *B;
}

constexpr bool runtimeAgrees() {
  for (const CollectiveTraits &T : CollectiveTable) {
    const int C = static_cast<int>(T.Coll);
    if (!sameName(rt::collName(C), T.Name, false) ||
        !sameName(rt::mpiName(C), traits(T.Entry).Name, true) ||
        rt::isRooted(C) != T.rooted() ||
        rt::isReduction(C) != (T.Data == DataKind::Reduction))
      return false;
  }
  return true;
}
static_assert(runtimeAgrees(), "runtime/collc/tables.h disagrees with "
                               "ir/Collective.h on a collective's traits");

auto key(const rt::Seg &G) {
  return std::tie(G.Block, G.NumBlocks, G.ChunkLo, G.ChunkHi, G.Buf, G.Mode);
}

struct SegListLess {
  bool operator()(const std::vector<rt::Seg> &A,
                  const std::vector<rt::Seg> &B) const {
    return std::lexicographical_compare(
        A.begin(), A.end(), B.begin(), B.end(),
        [](const rt::Seg &X, const rt::Seg &Y) { return key(X) < key(Y); });
  }
};

/// How a received reduction chunk updates the value it lands in: the Seg
/// mode bits of value 0 (or of value 1 when only that one is updated).
uint8_t modeOf(Fold How, bool Combine) {
  return uint8_t((How == Fold::Right ? rt::SegRight : 0) |
                 (How == Fold::Store && Combine ? rt::SegStore : 0));
}

/// Builds the tables of one schedule.
class TableBuilder {
public:
  explicit TableBuilder(const Schedule &S)
      : S(S), P(S.size()), C(S.Coll), Ops(P), Scratch(P), ScratchCount(P, 0) {}

  Expected<MpiTables> build() {
    ScheduleFlow Flow;
    if (isReduction(C))
      Flow = reductionFlow(S);
    for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
      const std::vector<Transfer> &Ts = S.Steps[SI].Transfers;
      for (size_t TI = 0; TI < Ts.size(); ++TI) {
        const Transfer &T = Ts[TI];
        if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P ||
            T.Src == T.Dst)
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu is not between two ranks", T.Src,
              T.Dst, SI);
        uint8_t Kind = T.Kind == TransferKind::Signal    ? rt::OpSignal
                       : T.Kind == TransferKind::Combine ? rt::OpCombine
                                                         : 0;
        if (T.Kind == TransferKind::Signal) {
          add(T.Src, {int32_t(SI), T.Dst, Kind, 0, 0}, {});
          add(T.Dst, {int32_t(SI), T.Src, uint8_t(Kind | rt::OpRecv), 0, 0},
              {});
          continue;
        }
        // Reductions keep two values per rank (Transfer::From/Into); only
        // exscan's result lives apart, in the receive buffer.
        if ((T.From != 0 || T.Into != 1) &&
            (!traits(C).ResultApart || T.From > 1 || T.Into < 1 || T.Into > 3))
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu keeps a result apart (from %u, "
              "into %u): the MPI backend keeps one apart for exscan only",
              T.Src, T.Dst, SI, unsigned(T.From), unsigned(T.Into));
        std::vector<rt::Seg> SendSegs, RecvSegs;
        if (isReduction(C)) {
          if (Error E =
                  reductionSegs(SI, T, Flow.Steps[SI][TI], SendSegs, RecvSegs))
            return E;
        } else {
          dataSegs(T, SendSegs, RecvSegs);
        }
        add(T.Src, {int32_t(SI), T.Dst, Kind, 0, 0}, SendSegs);
        add(T.Dst, {int32_t(SI), T.Src, uint8_t(Kind | rt::OpRecv), 0, 0},
            RecvSegs);
      }
    }
    MpiTables Out;
    Out.RankOps.reserve(static_cast<size_t>(P) + 1);
    for (int32_t R = 0; R < P; ++R) {
      Out.RankOps.push_back(static_cast<int64_t>(Out.Ops.size()));
      Out.Ops.insert(Out.Ops.end(), Ops[R].begin(), Ops[R].end());
    }
    Out.RankOps.push_back(static_cast<int64_t>(Out.Ops.size()));
    Out.Segs = std::move(Segs);
    for (int64_t N : ScratchCount)
      Out.ScratchBlocks = std::max(Out.ScratchBlocks, N);
    Out.NeedsCommutative = Flow.NeedsCommutative;
    return Out;
  }

private:
  /// A reduction transfer's chunks: the sender's value From, and the
  /// receiver's values Into updated as the flow says.
  Error reductionSegs(size_t SI, const Transfer &T, const TransferFlow &F,
                      std::vector<rt::Seg> &SendSegs,
                      std::vector<rt::Seg> &RecvSegs) {
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
      uint8_t Mode = 0, Buf = rt::AccBuf;
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
          Mode |= uint8_t(rt::SegAlso |
                          (How1 == Fold::Right ? rt::SegAlsoRight : 0) |
                          (How1 == Fold::Store ? rt::SegAlsoStore : 0));
        } else {
          Buf = rt::ResultBuf;
          Mode = modeOf(How1, Combine);
        }
      }
      const int32_t Lo = int32_t(Run.Chunks.Lo), Hi = int32_t(Run.Chunks.Hi);
      appendSeg(SendSegs, {0, 1, Lo, Hi,
                           uint8_t(T.From ? rt::ResultBuf : rt::AccBuf), 0});
      appendSeg(RecvSegs, {0, 1, Lo, Hi, Buf, Mode});
    }
    return Error::success();
  }

  /// A copy of replicated or personalized data: the blocks of its pieces,
  /// where sender and receiver keep them.
  void dataSegs(const Transfer &T, std::vector<rt::Seg> &SendSegs,
                std::vector<rt::Seg> &RecvSegs) {
    std::vector<Piece> Pieces = T.Pieces;
    if (Pieces.empty())
      Pieces.push_back(S.wholeMessage());
    for (const Piece &Pc : Pieces)
      for (int64_t O = Pc.Origins.Lo; O < Pc.Origins.Hi; ++O)
        for (int64_t D = Pc.Dests.Lo; D < Pc.Dests.Hi; ++D) {
          if (!isPersonalized(C) && D != Pc.Dests.Lo)
            break; // replicated data: the dest axis does not split it
          auto Src = locate(T.Src, O, D, false);
          auto Dst = locate(T.Dst, O, D, true);
          appendSeg(SendSegs, {Src.second, 1, int32_t(Pc.Chunks.Lo),
                               int32_t(Pc.Chunks.Hi), Src.first, 0});
          appendSeg(RecvSegs, {Dst.second, 1, int32_t(Pc.Chunks.Lo),
                               int32_t(Pc.Chunks.Hi), Dst.first, 0});
        }
  }

  /// Where rank \p R keeps block (origin \p O, dest \p D): a user buffer and
  /// block index, or a scratch block (assigned on first receipt).
  std::pair<uint8_t, int64_t> locate(int32_t R, int64_t O, int64_t D,
                                     bool Receiving) {
    switch (C) {
    case Collective::Bcast:
    case Collective::Multicast:
      return {rt::RecvBuf, 0};
    case Collective::Allgather:
      return {rt::RecvBuf, O};
    case Collective::Scatter:
      if (R == S.Root)
        return {rt::SendBuf, D};
      if (D == R)
        return {rt::RecvBuf, 0};
      break;
    case Collective::Gather:
      if (R == S.Root)
        return {rt::RecvBuf, O};
      if (O == R)
        return {rt::SendBuf, 0};
      break;
    case Collective::Alltoall:
      if (O == R)
        return {rt::SendBuf, D};
      if (D == R)
        return {rt::RecvBuf, O};
      break;
    default:
      break;
    }
    uint64_t Key = static_cast<uint64_t>(O) * P + D;
    auto It = Scratch[R].find(Key);
    if (It != Scratch[R].end())
      return {rt::ScratchBuf, It->second};
    // The verifier guarantees a rank sends only what it holds; a block first
    // seen on the sending side is an invariant violation caught there.
    (void)Receiving;
    int64_t Slot = ScratchCount[R]++;
    Scratch[R].emplace(Key, Slot);
    return {rt::ScratchBuf, Slot};
  }

  /// Appends \p G, merging it into the previous segment when it continues it.
  static void appendSeg(std::vector<rt::Seg> &V, rt::Seg G) {
    if (!V.empty()) {
      rt::Seg &L = V.back();
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

  /// Adds an operation of rank \p R, interning its segment list.
  void add(int32_t R, rt::Op O, const std::vector<rt::Seg> &G) {
    O.NumSegs = static_cast<int32_t>(G.size());
    O.Seg = 0;
    if (!G.empty()) {
      auto It = Interned.find(G);
      if (It == Interned.end()) {
        It = Interned.emplace(G, static_cast<int32_t>(Segs.size())).first;
        Segs.insert(Segs.end(), G.begin(), G.end());
      }
      O.Seg = It->second;
    }
    Ops[R].push_back(O);
  }

  const Schedule &S;
  const int32_t P;
  const Collective C;
  std::vector<std::vector<rt::Op>> Ops;
  std::vector<rt::Seg> Segs;
  std::map<std::vector<rt::Seg>, int32_t, SegListLess> Interned;
  std::vector<std::unordered_map<uint64_t, int64_t>> Scratch;
  std::vector<int64_t> ScratchCount;
};

} // namespace

rt::Variant MpiTables::variant(const Schedule &S, uint64_t MinBytes,
                               uint64_t MaxBytes) const {
  return {S.Algorithm.c_str(),
          static_cast<int>(S.Coll),
          S.size(),
          isRooted(S.Coll) ? S.Root : 0,
          MinBytes,
          MaxBytes,
          S.NumChunks,
          NeedsCommutative,
          ScratchBlocks,
          RankOps.data(),
          Ops.data(),
          Segs.data()};
}

Expected<MpiTables> lowerToTables(const Schedule &S) {
  return TableBuilder(S).build();
}

} // namespace collc
