#include "backends/Mpi.h"

#include "ir/Escape.h"
#include "ir/Format.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

using namespace llvm;

namespace collc {

namespace {

// Mirrors the enums of runtime/collc/runtime.h.
enum RtBuf : uint8_t {
  SendBuf = 0,
  RecvBuf = 1,
  ScratchBuf = 2,
  AccBuf = 3,
  ResultBuf = 4
};
enum : uint8_t { OpRecv = 1, OpCombine = 2, OpSignal = 4 };
enum : uint8_t {
  SegRight = 1,
  SegStore = 2,
  SegAlso = 4,
  SegAlsoRight = 8,
  SegAlsoStore = 16
};

/// The collective whose entry point serves \p C (a multicast is a broadcast
/// among its participants).
Collective entryOf(Collective C) {
  return C == Collective::Multicast ? Collective::Bcast : C;
}

const char *rtName(Collective C) {
  switch (C) {
  case Collective::Bcast:
    return "Bcast";
  case Collective::Multicast:
    return "Multicast";
  case Collective::Reduce:
    return "Reduce";
  case Collective::Allreduce:
    return "Allreduce";
  case Collective::Scan:
    return "Scan";
  case Collective::Exscan:
    return "Exscan";
  case Collective::Gather:
    return "Gather";
  case Collective::Scatter:
    return "Scatter";
  case Collective::Allgather:
    return "Allgather";
  case Collective::Alltoall:
    return "Alltoall";
  case Collective::Barrier:
    return "Barrier";
  }
  return "?";
}

bool isReduction(Collective C) {
  return C == Collective::Reduce || C == Collective::Allreduce ||
         C == Collective::Scan || C == Collective::Exscan;
}
bool isPersonalized(Collective C) {
  return C == Collective::Gather || C == Collective::Scatter ||
         C == Collective::Alltoall;
}
bool isRooted(Collective C) {
  return C == Collective::Bcast || C == Collective::Multicast ||
         C == Collective::Reduce || C == Collective::Gather ||
         C == Collective::Scatter;
}

/// How an entry point looks and what it hands the runtime.
struct Entry {
  Collective C;
  const char *Params; ///< C parameter list.
  const char *Args;   ///< The same names, for the fallback call.
  const char *Mpi;    ///< MPI_<Mpi> is the library's collective.
  /// collc::rt::Call's fields after the collective: send buffer, count and
  /// datatype, receive buffer, count and datatype, operator, root, comm.
  const char *CallArgs;
};

#define COLLC_REDUCTION_PARAMS                                                 \
  "const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op "  \
  "op, "
#define COLLC_PERSONALIZED_PARAMS                                              \
  "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void "           \
  "*recvbuf, int recvcount, MPI_Datatype recvtype, "
#define COLLC_PERSONALIZED_ARGS                                                \
  "sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "

const Entry Entries[] = {
    {Collective::Bcast,
     "void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm",
     "buf, count, type, root, comm", "Bcast",
     "buf, count, type, buf, count, type, MPI_OP_NULL, root, comm"},
    {Collective::Reduce, COLLC_REDUCTION_PARAMS "int root, MPI_Comm comm",
     "sendbuf, recvbuf, count, type, op, root, comm", "Reduce",
     "sendbuf, count, type, recvbuf, count, type, op, root, comm"},
    {Collective::Allreduce, COLLC_REDUCTION_PARAMS "MPI_Comm comm",
     "sendbuf, recvbuf, count, type, op, comm", "Allreduce",
     "sendbuf, count, type, recvbuf, count, type, op, 0, comm"},
    {Collective::Scan, COLLC_REDUCTION_PARAMS "MPI_Comm comm",
     "sendbuf, recvbuf, count, type, op, comm", "Scan",
     "sendbuf, count, type, recvbuf, count, type, op, 0, comm"},
    {Collective::Exscan, COLLC_REDUCTION_PARAMS "MPI_Comm comm",
     "sendbuf, recvbuf, count, type, op, comm", "Exscan",
     "sendbuf, count, type, recvbuf, count, type, op, 0, comm"},
    {Collective::Gather, COLLC_PERSONALIZED_PARAMS "int root, MPI_Comm comm",
     COLLC_PERSONALIZED_ARGS "root, comm", "Gather",
     COLLC_PERSONALIZED_ARGS "MPI_OP_NULL, root, comm"},
    {Collective::Scatter, COLLC_PERSONALIZED_PARAMS "int root, MPI_Comm comm",
     COLLC_PERSONALIZED_ARGS "root, comm", "Scatter",
     COLLC_PERSONALIZED_ARGS "MPI_OP_NULL, root, comm"},
    {Collective::Allgather, COLLC_PERSONALIZED_PARAMS "MPI_Comm comm",
     COLLC_PERSONALIZED_ARGS "comm", "Allgather",
     COLLC_PERSONALIZED_ARGS "MPI_OP_NULL, 0, comm"},
    {Collective::Alltoall, COLLC_PERSONALIZED_PARAMS "MPI_Comm comm",
     COLLC_PERSONALIZED_ARGS "comm", "Alltoall",
     COLLC_PERSONALIZED_ARGS "MPI_OP_NULL, 0, comm"},
    {Collective::Barrier, "MPI_Comm comm", "comm", "Barrier",
     "nullptr, 0, MPI_BYTE, nullptr, 0, MPI_BYTE, MPI_OP_NULL, 0, comm"},
};

#undef COLLC_REDUCTION_PARAMS
#undef COLLC_PERSONALIZED_PARAMS
#undef COLLC_PERSONALIZED_ARGS

const Entry &entry(Collective C) {
  for (const Entry &E : Entries)
    if (E.C == entryOf(C))
      return E;
  llvm_unreachable("every collective has an entry point");
}

struct SegRec {
  int64_t Block, NumBlocks;
  int32_t ChunkLo, ChunkHi;
  uint8_t Buf, Mode;
  auto key() const {
    return std::tie(Block, NumBlocks, ChunkLo, ChunkHi, Buf, Mode);
  }
  bool operator<(const SegRec &O) const { return key() < O.key(); }
  bool operator==(const SegRec &O) const { return key() == O.key(); }
};

struct OpRec {
  int32_t Step, Peer;
  uint8_t Flags;
  int32_t Seg, NumSegs;
};

/// A sorted list of disjoint, non-adjacent rank intervals.
using RankSet = std::vector<Interval>;

RankSet normalize(RankSet S) {
  std::sort(S.begin(), S.end(),
            [](const Interval &A, const Interval &B) { return A.Lo < B.Lo; });
  RankSet Out;
  for (const Interval &I : S) {
    if (I.empty())
      continue;
    if (!Out.empty() && I.Lo <= Out.back().Hi)
      Out.back().Hi = std::max(Out.back().Hi, I.Hi);
    else
      Out.push_back(I);
  }
  return Out;
}

/// The tables of one variant.
class TableBuilder {
public:
  explicit TableBuilder(const Schedule &S)
      : S(S), P(S.size()), K(S.NumChunks), C(S.Coll), Ops(P), Scratch(P),
        ScratchCount(P, 0) {}

  Error build() {
    if (isReduction(C)) {
      // Value 0, the partial result, starts as the rank's contribution;
      // value 1, the result kept apart (exscan), empty.
      for (auto &A : Acc)
        A.assign(static_cast<size_t>(P) * K, {});
      for (int32_t R = 0; R < P; ++R)
        for (int64_t Ch = 0; Ch < K; ++Ch)
          Acc[0][static_cast<size_t>(R) * K + Ch] = {{R, R + 1}};
    }
    for (size_t SI = 0; SI < S.Steps.size(); ++SI) {
      std::vector<std::pair<const Transfer *, std::map<int64_t, RankSet>>>
          Updates;
      for (const Transfer &T : S.Steps[SI].Transfers) {
        if (T.Src < 0 || T.Src >= P || T.Dst < 0 || T.Dst >= P ||
            T.Src == T.Dst)
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu is not between two ranks", T.Src,
              T.Dst, SI);
        std::vector<Piece> Pieces = T.Pieces;
        if (Pieces.empty() && T.Kind != TransferKind::Signal)
          Pieces.push_back(S.wholeMessage());
        uint8_t Kind = T.Kind == TransferKind::Signal    ? OpSignal
                       : T.Kind == TransferKind::Combine ? OpCombine
                                                         : 0;
        if (T.Kind == TransferKind::Signal) {
          add(T.Src, {int32_t(SI), T.Dst, Kind, 0, 0}, {});
          add(T.Dst, {int32_t(SI), T.Src, uint8_t(Kind | OpRecv), 0, 0}, {});
          continue;
        }
        // Reductions keep two values per rank (Transfer::From/Into); only
        // exscan's result lives apart, in the receive buffer.
        if ((T.From != 0 || T.Into != 1) &&
            (C != Collective::Exscan || T.From > 1 || T.Into < 1 || T.Into > 3))
          return createStringError(
              inconvertibleErrorCode(),
              "transfer %d -> %d of step %zu keeps a result apart (from %u, "
              "into %u): the MPI backend keeps one apart for exscan only",
              T.Src, T.Dst, SI, unsigned(T.From), unsigned(T.Into));
        if (isReduction(C)) {
          std::map<int64_t, RankSet> Sets;
          for (const Piece &Pc : Pieces)
            for (int64_t Ch = Pc.Chunks.Lo; Ch < Pc.Chunks.Hi; ++Ch)
              Sets[Ch].push_back(Pc.Origins);
          for (auto &[Ch, Set] : Sets)
            Set = normalize(Set);
          const bool Combine = T.Kind == TransferKind::Combine;
          // How the incoming value updates value V of the receiver: stored
          // (a copy, or a combine into an empty value), or combined as the
          // right operand when it folds higher ranks (acc = acc op in),
          // else as the left one (acc = in op acc).
          auto How = [&](int V, int64_t Ch, const RankSet &Set, bool &Store,
                         bool &Right) {
            const RankSet &Mine = Acc[V][static_cast<size_t>(T.Dst) * K + Ch];
            Store = !Combine || Mine.empty();
            Right = !Store && !Set.empty() && Set.front().Lo >= Mine.back().Hi;
            if (!Store) {
              bool Adjacent =
                  Mine.size() == 1 && Set.size() == 1 &&
                  (Mine[0].Hi == Set[0].Lo || Set[0].Hi == Mine[0].Lo);
              if (!Adjacent)
                NeedsCommutative = true;
            }
          };
          std::vector<SegRec> SendSegs, RecvSegs;
          for (auto &[Ch, Set] : Sets) {
            bool Store0 = false, Right0 = false, Store1 = false, Right1 = false;
            uint8_t Mode = 0, Buf = AccBuf;
            if (T.Into & 1) {
              How(0, Ch, Set, Store0, Right0);
              Mode = uint8_t((Right0 ? SegRight : 0) |
                             (Store0 && Combine ? SegStore : 0));
            }
            if (T.Into & 2) {
              How(1, Ch, Set, Store1, Right1);
              if (T.Into & 1) {
                if (Right0 && Right1)
                  return createStringError(
                      inconvertibleErrorCode(),
                      "transfer %d -> %d of step %zu combines higher ranks "
                      "into both values of rank %d: the MPI backend does not "
                      "execute that",
                      T.Src, T.Dst, SI, T.Dst);
                Mode |= uint8_t(SegAlso | (Right1 ? SegAlsoRight : 0) |
                                (Store1 ? SegAlsoStore : 0));
              } else {
                Buf = ResultBuf;
                Mode = uint8_t((Right1 ? SegRight : 0) |
                               (Store1 && Combine ? SegStore : 0));
              }
            }
            appendSeg(SendSegs, {0, 1, int32_t(Ch), int32_t(Ch + 1),
                                 uint8_t(T.From ? ResultBuf : AccBuf), 0});
            appendSeg(RecvSegs,
                      {0, 1, int32_t(Ch), int32_t(Ch + 1), Buf, Mode});
          }
          add(T.Src, {int32_t(SI), T.Dst, Kind, 0, 0}, SendSegs);
          add(T.Dst, {int32_t(SI), T.Src, uint8_t(Kind | OpRecv), 0, 0},
              RecvSegs);
          Updates.push_back({&T, std::move(Sets)});
          continue;
        }
        std::vector<SegRec> SendSegs, RecvSegs;
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
        add(T.Src, {int32_t(SI), T.Dst, Kind, 0, 0}, SendSegs);
        add(T.Dst, {int32_t(SI), T.Src, uint8_t(Kind | OpRecv), 0, 0},
            RecvSegs);
      }
      // Reductions: the step's values were read before its receives apply.
      for (auto &[T, Sets] : Updates)
        for (int V = 0; V < 2; ++V)
          if (T->Into >> V & 1)
            for (auto &[Ch, Set] : Sets) {
              RankSet &Mine = Acc[V][static_cast<size_t>(T->Dst) * K + Ch];
              if (T->Kind == TransferKind::Copy) {
                Mine = Set;
              } else {
                RankSet U = Mine;
                U.insert(U.end(), Set.begin(), Set.end());
                Mine = normalize(U);
              }
            }
    }
    return Error::success();
  }

  void write(raw_ostream &OS, const std::string &Prefix) const {
    OS << "const int64_t " << Prefix << "_rank_ops[] = {";
    int64_t N = 0;
    std::string Line;
    auto Flush = [&](bool Last) {
      if (Line.size() > 90 || (Last && !Line.empty())) {
        OS << "\n   " << Line;
        Line.clear();
      }
    };
    for (int32_t R = 0; R <= P; ++R) {
      Line += " " + std::to_string(N) + ",";
      if (R < P)
        N += static_cast<int64_t>(Ops[R].size());
      Flush(R == P);
    }
    OS << "};\n";
    OS << "const collc::rt::Op " << Prefix << "_ops[] = {";
    bool Any = false;
    for (int32_t R = 0; R < P; ++R)
      for (const OpRec &O : Ops[R]) {
        Line += " {" + std::to_string(O.Step) + "," + std::to_string(O.Peer) +
                "," + std::to_string(O.Flags) + "," + std::to_string(O.Seg) +
                "," + std::to_string(O.NumSegs) + "},";
        Any = true;
        Flush(false);
      }
    if (!Any)
      Line = " {0, 0, 0, 0, 0}, /* unused */";
    Flush(true);
    OS << "};\n";
    OS << "const collc::rt::Seg " << Prefix << "_segs[] = {";
    for (const SegRec &G : Segs) {
      Line += " {" + std::to_string(G.Block) + "," +
              std::to_string(G.NumBlocks) + "," + std::to_string(G.ChunkLo) +
              "," + std::to_string(G.ChunkHi) + "," + std::to_string(G.Buf) +
              "," + std::to_string(G.Mode) + "},";
      Flush(false);
    }
    if (Segs.empty())
      Line = " {0, 0, 0, 0, 0, 0}, /* unused */";
    Flush(true);
    OS << "};\n";
  }

  int64_t scratchBlocks() const {
    int64_t Max = 0;
    for (int64_t N : ScratchCount)
      Max = std::max(Max, N);
    return Max;
  }
  bool needsCommutative() const { return NeedsCommutative; }
  size_t numOps() const {
    size_t N = 0;
    for (const auto &V : Ops)
      N += V.size();
    return N;
  }

private:
  /// Where rank \p R keeps block (origin \p O, dest \p D): a user buffer and
  /// block index, or a scratch block (assigned on first receipt).
  std::pair<uint8_t, int64_t> locate(int32_t R, int64_t O, int64_t D,
                                     bool Receiving) {
    switch (C) {
    case Collective::Bcast:
    case Collective::Multicast:
      return {RecvBuf, 0};
    case Collective::Allgather:
      return {RecvBuf, O};
    case Collective::Scatter:
      if (R == S.Root)
        return {SendBuf, D};
      if (D == R)
        return {RecvBuf, 0};
      break;
    case Collective::Gather:
      if (R == S.Root)
        return {RecvBuf, O};
      if (O == R)
        return {SendBuf, 0};
      break;
    case Collective::Alltoall:
      if (O == R)
        return {SendBuf, D};
      if (D == R)
        return {RecvBuf, O};
      break;
    default:
      break;
    }
    uint64_t Key = static_cast<uint64_t>(O) * P + D;
    auto It = Scratch[R].find(Key);
    if (It != Scratch[R].end())
      return {ScratchBuf, It->second};
    // The verifier guarantees a rank sends only what it holds; a block first
    // seen on the sending side is an invariant violation caught there.
    (void)Receiving;
    int64_t Slot = ScratchCount[R]++;
    Scratch[R].emplace(Key, Slot);
    return {ScratchBuf, Slot};
  }

  /// Appends \p G, merging it into the previous segment when it continues it.
  static void appendSeg(std::vector<SegRec> &V, SegRec G) {
    if (!V.empty()) {
      SegRec &L = V.back();
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
  void add(int32_t R, OpRec O, const std::vector<SegRec> &G) {
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
  const int64_t K;
  const Collective C;
  std::vector<std::vector<OpRec>> Ops;
  std::vector<SegRec> Segs;
  std::map<std::vector<SegRec>, int32_t> Interned;
  std::vector<std::unordered_map<uint64_t, int64_t>> Scratch;
  std::vector<int64_t> ScratchCount;
  /// Reductions: per value (0 the partial, 1 the result kept apart), rank
  /// and chunk, the contributors it holds.
  std::vector<RankSet> Acc[2];
  bool NeedsCommutative = false;
};

std::string functionName(Collective C, const std::string &Name) {
  return std::string("collc_") + collectiveName(entryOf(C)) + "_" + Name;
}

std::string bytesText(uint64_t B) {
  return B == UINT64_MAX ? std::string("UINT64_MAX") : std::to_string(B) + "u";
}

/// Collectives of \p Variants in the order they first appear.
std::vector<Collective> entryCollectives(ArrayRef<MpiVariant> Variants) {
  std::vector<Collective> Out;
  for (const MpiVariant &V : Variants)
    if (std::find(Out.begin(), Out.end(), entryOf(V.S->Coll)) == Out.end())
      Out.push_back(entryOf(V.S->Coll));
  return Out;
}

void declarations(raw_ostream &OS, ArrayRef<Collective> Colls,
                  const std::string &Name) {
  for (Collective C : Colls)
    OS << "int " << functionName(C, Name) << "(" << entry(C).Params << ");\n";
}

} // namespace

std::string defaultMpiName(const Schedule &S) {
  std::string Raw =
      S.MachineName.empty() ? S.Algorithm : S.MachineName + "_" + S.Algorithm;
  std::string Out;
  for (char Ch : Raw)
    Out += isAlnum(Ch) ? static_cast<char>(toLower(Ch)) : '_';
  if (Out.empty() || isDigit(Out[0]))
    Out = "s" + Out;
  return Out;
}

bool isValidMpiName(StringRef Name) {
  if (Name.empty())
    return false;
  for (char Ch : Name)
    if (!isAlnum(Ch) && Ch != '_')
      return false;
  return true;
}

Expected<std::vector<MpiVariant>> mpiSizeBands(ArrayRef<Schedule> Schedules,
                                               MpiSizes Sizes) {
  std::vector<MpiVariant> Out;
  for (const Schedule &S : Schedules) {
    // A reduction that needs a commutative operator and one that folds in
    // rank order serve different calls: they may share a size, and each
    // has its own size bands. (A table the backend cannot build is reported
    // by emitMpi.)
    bool NeedsCommutative = false;
    if (isReduction(S.Coll)) {
      TableBuilder T(S);
      if (Error E = T.build())
        consumeError(std::move(E));
      else
        NeedsCommutative = T.needsCommutative();
    }
    Out.push_back({&S, S.Bytes, S.Bytes, NeedsCommutative});
  }
  auto Key = [](const MpiVariant &V) {
    return std::make_tuple(static_cast<int>(entryOf(V.S->Coll)), V.S->size(),
                           isRooted(V.S->Coll) ? V.S->Root : 0,
                           V.NeedsCommutative);
  };
  std::stable_sort(
      Out.begin(), Out.end(), [&](const MpiVariant &A, const MpiVariant &B) {
        return std::make_tuple(Key(A), A.S->Bytes, !A.S->Commutative) <
               std::make_tuple(Key(B), B.S->Bytes, !B.S->Commutative);
      });
  // A reduction built for a non-commutative operator whose fold order is
  // that of the one built for a commutative operator and the same call
  // adds nothing: the latter serves every operator the former could.
  Out.erase(std::unique(Out.begin(), Out.end(),
                        [&](const MpiVariant &A, const MpiVariant &B) {
                          return Key(A) == Key(B) && A.S->Bytes == B.S->Bytes &&
                                 isReduction(A.S->Coll) && A.S->Commutative &&
                                 !B.S->Commutative;
                        }),
            Out.end());
  for (size_t I = 0; I < Out.size(); ++I) {
    bool First = I == 0 || Key(Out[I - 1]) != Key(Out[I]);
    bool Last = I + 1 == Out.size() || Key(Out[I + 1]) != Key(Out[I]);
    if (!First && Out[I - 1].S->Bytes == Out[I].S->Bytes)
      return createStringError(
          inconvertibleErrorCode(),
          "two %s schedules for %d ranks, root %d and %llu bytes ('%s' and "
          "'%s'%s): a call could "
          "not choose between them",
          collectiveName(Out[I].S->Coll), Out[I].S->size(), Out[I].S->Root,
          (unsigned long long)Out[I].S->Bytes, Out[I - 1].S->Algorithm.c_str(),
          Out[I].S->Algorithm.c_str(),
          !isReduction(Out[I].S->Coll) ? ""
          : Out[I].NeedsCommutative    ? ", both for commutative operators only"
                                       : ", both folding in rank order");
    if (Out[I].S->Coll == Collective::Barrier) {
      Out[I].MinBytes = 0;
      Out[I].MaxBytes = UINT64_MAX;
      continue;
    }
    if (Sizes != MpiSizes::Any)
      continue;
    if (First)
      Out[I].MinBytes = 0;
    if (Last)
      Out[I].MaxBytes = UINT64_MAX;
    else {
      // Split at the geometric mean of (bytes + 1): each size goes to the
      // variant whose size is nearer on a log scale.
      uint64_t A = Out[I].S->Bytes, B = Out[I + 1].S->Bytes;
      double G = std::sqrt((static_cast<double>(A) + 1) *
                           (static_cast<double>(B) + 1)) -
                 1;
      uint64_t Cut =
          std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(G)), A + 1, B);
      Out[I].MaxBytes = Cut - 1;
      Out[I + 1].MinBytes = Cut;
    }
  }
  return Out;
}

void emitMpiHeader(raw_ostream &OS, ArrayRef<MpiVariant> Variants,
                   const MpiOptions &Options) {
  std::string Guard = "COLLC_" + StringRef(Options.Name).upper() + "_H";
  OS << "// Generated by collc " COLLC_VERSION
        ": the entry points of the schedules \""
     << Options.Name << "\".\n";
  if (!Options.Command.empty())
    OS << "//   " << cComment(Options.Command) << "\n";
  OS << "#ifndef " << Guard << "\n#define " << Guard
     << "\n\n#include <mpi.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  declarations(OS, entryCollectives(Variants), Options.Name);
  OS << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

Error emitMpi(raw_ostream &OS, ArrayRef<MpiVariant> Variants,
              const MpiOptions &Options) {
  if (!isValidMpiName(Options.Name))
    return createStringError(
        inconvertibleErrorCode(),
        "--mpi-name: '%s' is not a C identifier suffix (letters, digits, _)",
        Options.Name.c_str());
  std::vector<Collective> Colls = entryCollectives(Variants);
  const bool Fallback = Options.Fallback || Options.Preload;
  const char *Lib = Options.Preload ? "PMPI_" : "MPI_";

  OS << "// Generated by collc " COLLC_VERSION
        ". Do not edit: regenerate it.\n";
  if (!Options.Command.empty())
    OS << "//   " << cComment(Options.Command) << "\n";
  OS << "//\n// Schedules (each runs for calls with its communicator size, "
        "root and\n"
        "// message size; bytes count one block: the broadcast buffer, the "
        "reduced\n"
        "// vector, one rank's block of a gather, scatter, allgather or "
        "alltoall):\n";
  for (const MpiVariant &V : Variants) {
    const Schedule &S = *V.S;
    OS << "//   " << collectiveName(S.Coll) << " " << cComment(S.Algorithm);
    if (!S.MachineName.empty())
      OS << " on " << cComment(S.MachineName);
    OS << ": " << S.size() << " ranks";
    if (isRooted(S.Coll))
      OS << ", root " << S.Root;
    OS << ", built for " << S.Bytes << " bytes";
    if (S.NumChunks > 1)
      OS << " in " << S.NumChunks << " chunks";
    if (S.Coll != Collective::Barrier) {
      if (V.MinBytes == V.MaxBytes)
        OS << ", serves exactly that size";
      else
        OS << ", serves " << V.MinBytes << ".."
           << (V.MaxBytes == UINT64_MAX ? std::string("")
                                        : std::to_string(V.MaxBytes))
           << " bytes";
    }
    OS << ", " << S.Steps.size() << " steps";
    if (!std::isnan(S.Makespan))
      OS << ", model time " << formatNumber(S.Makespan);
    OS << "\n";
  }
  OS << "//\n// Entry points (MPI's signatures; they return MPI error "
        "codes):\n";
  for (Collective C : Colls)
    OS << "//   int " << functionName(C, Options.Name) << "(" << entry(C).Params
       << ");\n";
  OS << "// When no schedule fits a call: "
     << (Fallback
             ? std::string("the MPI library's own collective (") + Lib +
                   "...) runs.\n"
             : std::string(
                   "the call raises MPI_ERR_COMM, MPI_ERR_ROOT, "
                   "MPI_ERR_COUNT,\n"
                   "// MPI_ERR_TYPE or MPI_ERR_OP through the communicator's "
                   "error handler;\n"
                   "// collc::rt::lastError() says why.\n"));
  if (Options.Preload)
    OS << "// PMPI interposers: MPI_<collective> runs the schedules above, "
          "PMPI_<collective>\n"
          "// otherwise. Build as a shared library and LD_PRELOAD it.\n";
  OS << "\n#include <collc/runtime.h>\n\n#include <cstdint>\n\n";

  std::string Prefix = "collc_" + Options.Name;
  OS << "namespace {\n\n";
  std::map<Collective, std::vector<std::string>> VariantsOf;
  for (size_t I = 0; I < Variants.size(); ++I) {
    const MpiVariant &V = Variants[I];
    const Schedule &S = *V.S;
    TableBuilder T(S);
    if (Error E = T.build())
      return E;
    std::string VP = Prefix + "_v" + std::to_string(I);
    OS << "// " << collectiveName(S.Coll) << " " << cComment(S.Algorithm)
       << ", " << S.size() << " ranks: " << T.numOps()
       << " operations. Per rank {step, peer, flags, segment, "
          "segments};\n// segments {block, blocks, first chunk, end chunk, "
          "buffer, mode}.\n";
    T.write(OS, VP);
    OS << "\n";
    VariantsOf[entryOf(S.Coll)].push_back(
        "  {" + cStringLiteral(S.Algorithm) + ", collc::rt::" + rtName(S.Coll) +
        ", " + std::to_string(S.size()) + ", " +
        std::to_string(isRooted(S.Coll) ? S.Root : 0) + ", " +
        bytesText(V.MinBytes) + ", " + bytesText(V.MaxBytes) + ", " +
        std::to_string(S.NumChunks) + ", " +
        (T.needsCommutative() ? "true" : "false") + ", " +
        std::to_string(T.scratchBlocks()) + ", " + VP + "_rank_ops, " + VP +
        "_ops, " + VP + "_segs},");
  }
  for (Collective C : Colls) {
    OS << "const collc::rt::Variant " << Prefix << "_" << collectiveName(C)
       << "_variants[] = {\n";
    for (const std::string &L : VariantsOf[C])
      OS << L << "\n";
    OS << "};\n\n";
  }
  OS << "} // namespace\n\n";

  for (Collective C : Colls) {
    const Entry &E = entry(C);
    std::string Table = Prefix + "_" + collectiveName(C) + "_variants";
    OS << "extern \"C\" int " << functionName(C, Options.Name) << "("
       << E.Params << ") {\n"
       << "  const collc::rt::Call Call = {collc::rt::" << rtName(C) << ", "
       << E.CallArgs << "};\n"
       << "  const int N = static_cast<int>(sizeof " << Table << " / sizeof "
       << Table << "[0]);\n"
       << "  int Code = MPI_SUCCESS;\n";
    if (Fallback)
      OS << "  if (collc::rt::serve(" << Table << ", N, Call, true, Code))\n"
         << "    return collc::rt::reportError(comm, Code);\n"
         << "  return " << Lib << E.Mpi << "(" << E.Args << ");\n";
    else
      OS << "  collc::rt::serve(" << Table << ", N, Call, false, Code);\n"
         << "  return collc::rt::reportError(comm, Code);\n";
    OS << "}\n\n";
  }
  if (Options.Preload) {
    OS << "// The interposers.\n";
    for (Collective C : Colls) {
      const Entry &E = entry(C);
      OS << "extern \"C\" int MPI_" << E.Mpi << "(" << E.Params
         << ") {\n  return " << functionName(C, Options.Name) << "(" << E.Args
         << ");\n}\n\n";
    }
  }
  return Error::success();
}

} // namespace collc
