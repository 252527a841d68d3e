#include "passes/Dependencies.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <limits>
#include <map>

namespace collc {

namespace {

constexpr uint32_t None = std::numeric_limits<uint32_t>::max();

/// Whether the pieces are sorted by origin interval, the intervals of
/// different pieces equal or disjoint (what builders that emit origins x
/// dests products produce).
bool sortedByOrigin(const PieceList &V) {
  for (size_t I = 1; I < V.size(); ++I)
    if (!(V[I].Origins == V[I - 1].Origins) &&
        V[I - 1].Origins.Hi > V[I].Origins.Lo)
      return false;
  return true;
}

/// Whether \p Sent carries something \p Got brought: the rule of the header.
/// \p SentSorted and \p GotSorted: sortedByOrigin of their pieces, worked
/// out once per transfer by the caller (a reduction's sends and arrivals
/// carry hundreds of contributor intervals at 65,536 ranks, and every
/// arrival meets the send, so that a scan of the list per pair cost more
/// than the binary search that finds the first meeting piece).
bool meets(const Transfer &Sent, bool SentSorted, const Transfer &Got,
           bool GotSorted) {
  if (Sent.Kind == TransferKind::Signal || Got.Kind == TransferKind::Signal)
    return true;
  // Many pieces on both sides (large personalized exchanges): look up each
  // piece of the shorter list among the longer list's pieces with an
  // overlapping origin interval, found by binary search.
  const bool SentBig = Sent.Pieces.size() >= Got.Pieces.size();
  const PieceList &Big = SentBig ? Sent.Pieces : Got.Pieces;
  const PieceList &Small = SentBig ? Got.Pieces : Sent.Pieces;
  if (Small.size() * Big.size() > 64 && (SentBig ? SentSorted : GotSorted)) {
    for (const Piece &X : Small) {
      auto It =
          std::partition_point(Big.begin(), Big.end(), [&](const Piece &Y) {
            return Y.Origins.Hi <= X.Origins.Lo;
          });
      for (; It != Big.end() && It->Origins.Lo < X.Origins.Hi; ++It)
        if (It->intersects(X))
          return true;
    }
    return false;
  }
  if (Small.size() * Big.size() > 64) {
    // Out of origin order (Bruck's all-to-all lists its blocks by distance):
    // the longer list's pieces sorted by origin start, and for each piece of
    // the other those whose origins can reach it (no longer than the
    // longest).
    std::vector<const Piece *> ByLo;
    ByLo.reserve(Big.size());
    int64_t MaxLen = 0;
    for (const Piece &Y : Big) {
      ByLo.push_back(&Y);
      MaxLen = std::max(MaxLen, Y.Origins.size());
    }
    std::sort(ByLo.begin(), ByLo.end(), [](const Piece *A, const Piece *B) {
      return A->Origins.Lo < B->Origins.Lo;
    });
    for (const Piece &X : Small) {
      auto It =
          std::partition_point(ByLo.begin(), ByLo.end(), [&](const Piece *Y) {
            return Y->Origins.Lo <= X.Origins.Lo - MaxLen;
          });
      for (; It != ByLo.end() && (*It)->Origins.Lo < X.Origins.Hi; ++It)
        if ((*It)->intersects(X))
          return true;
    }
    return false;
  }
  for (const Piece &A : Sent.Pieces)
    for (const Piece &B : Got.Pieces)
      if (A.intersects(B))
        return true;
  return false;
}

/// The span of a transfer's pieces along axis \p Axis (&Piece::Chunks or
/// &Piece::Origins), from the first to the last.
Interval hull(const Transfer &T, Interval Piece::*Axis) {
  Interval H = T.Pieces.empty() ? Interval{} : T.Pieces.front().*Axis;
  for (const Piece &Pc : T.Pieces) {
    H.Lo = std::min(H.Lo, (Pc.*Axis).Lo);
    H.Hi = std::max(H.Hi, (Pc.*Axis).Hi);
  }
  return H;
}

/// A rank with at most this many data arrivals keeps only a list, scanned
/// whole; past it its arrivals are also indexed by chunk.
constexpr uint32_t ListLimit = 32;

} // namespace

TransferIds::TransferIds(const Schedule &S) {
  assert(S.numTransfers() < None && "transfer ids are 32-bit");
  StepBegin.reserve(S.Steps.size() + 1);
  uint32_t Next = 0;
  for (const Step &St : S.Steps) {
    StepBegin.push_back(Next);
    Next += static_cast<uint32_t>(St.Transfers.size());
  }
  StepBegin.push_back(Next);
}

TransferRef TransferIds::ref(uint32_t Id) const {
  assert(Id < size());
  // The last step that begins at or before Id (empty steps begin where the
  // next one does).
  auto It = std::upper_bound(StepBegin.begin(), StepBegin.end(), Id) - 1;
  return {static_cast<uint32_t>(It - StepBegin.begin()), Id - *It};
}

/// Arrivals indexed by the start of their hull along one axis, chunks or
/// origins, so that a send looks only at arrivals whose chunks (or origins)
/// can meet its own: chunks for pipelines, whose segments share origins,
/// origins for exchanges of whole blocks (a ring allgather's arrivals all
/// span every chunk). The axis is the narrower one over the arrivals that
/// made the index (a rank's first ListLimit + 1); any axis finds every
/// arrival that meets, a narrow one visits fewer that do not.
///
/// Where the axis's extent is known and the index budget allows it, hull
/// starts are buckets of an array (a list of arrivals each): an insert is
/// O(1) and a visit scans the buckets that can hold a meeting hull, or the
/// rank's entries when there are fewer of them (wide hulls over a long
/// axis). Else, or for a hull that starts outside the extent, an ordered
/// map. (At 4,096
/// ranks a P^2 exchange indexes 16.8 M arrivals: 16 bytes each in buckets,
/// about 48 and a cache miss per tree level in the map.)
struct ArrivalIndex::ChunkIndex {
  Interval Piece::*Axis = &Piece::Chunks;
  int64_t MaxLen = 0; ///< The longest hull.
  /// Buckets: per hull start in [0, Head.size()), the newest entry.
  std::vector<uint32_t> Head;
  /// 12 bytes: a bucketed hull start is below Head.size(), which the
  /// bucket budget (twice the transfers, ids of 32 bits) keeps within 32
  /// bits.
  struct Entry {
    uint32_t Arrival;
    uint32_t Prev; ///< The previous entry of its bucket, or None.
    uint32_t Lo;   ///< Its hull start.
  };
  std::vector<Entry> Entries;
  /// Unbucketed hulls: (hull start, arrival) sorted by start, a flat
  /// array that a hull starting at or after the last one joins at its end
  /// and an earlier one by moving those after it while it is short; past
  /// that, an ordered map takes the earlier ones.
  std::vector<std::pair<int64_t, uint32_t>> FlatLo;
  std::multimap<int64_t, uint32_t> ByLo; ///< Hull start -> arrival.
  /// The entries that FlatLo takes out of order.
  static constexpr size_t FlatMoveLimit = 512;

  /// Chooses the axis from the arrivals \p Ts. A reduction's sends carry
  /// what their ranks have folded so far, origins that widen to every rank
  /// (reduce-scatter-direct's owner sends its reduced block to each other
  /// rank), so combined arrivals are indexed by chunks.
  void chooseAxis(const std::vector<const Transfer *> &Ts) {
    for (const Transfer *T : Ts)
      if (T->Kind == TransferKind::Combine) {
        Axis = &Piece::Chunks;
        return;
      }
    double Width[2];
    int I = 0;
    for (Interval Piece::*Ax : {&Piece::Chunks, &Piece::Origins}) {
      int64_t Lo = INT64_MAX, Hi = INT64_MIN, Len = 0;
      for (const Transfer *T : Ts) {
        const Interval H = hull(*T, Ax);
        Lo = std::min(Lo, H.Lo);
        Hi = std::max(Hi, H.Hi);
        Len = std::max(Len, H.size());
      }
      Width[I++] = Hi > Lo ? double(Len) / double(Hi - Lo) : 1.0;
    }
    Axis = Width[1] < Width[0] ? &Piece::Origins : &Piece::Chunks;
  }
  void insert(const Transfer &T, uint32_t A) {
    const Interval H = hull(T, Axis);
    MaxLen = std::max(MaxLen, H.size());
    if (H.Lo >= 0 && H.Lo < static_cast<int64_t>(Head.size())) {
      const uint32_t E = static_cast<uint32_t>(Entries.size());
      Entries.push_back({A, Head[H.Lo], static_cast<uint32_t>(H.Lo)});
      Head[H.Lo] = E;
      return;
    }
    if (FlatLo.empty() || FlatLo.back().first <= H.Lo) {
      FlatLo.emplace_back(H.Lo, A);
    } else if (FlatLo.size() < FlatMoveLimit) {
      auto At = std::upper_bound(
          FlatLo.begin(), FlatLo.end(), H.Lo,
          [](int64_t Lo, const std::pair<int64_t, uint32_t> &E) {
            return Lo < E.first;
          });
      FlatLo.insert(At, {H.Lo, A});
    } else {
      ByLo.emplace(H.Lo, A);
    }
  }
  template <typename F> void visit(const Transfer &T, F &&Fn) const {
    const Interval H = hull(T, Axis);
    // A hull that starts at or before H.Lo - MaxLen ends before H.Lo.
    const int64_t From = H.Lo - MaxLen + 1;
    const int64_t To = std::min<int64_t>(H.Hi, Head.size());
    if (To - From > static_cast<int64_t>(Entries.size())) {
      for (const Entry &E : Entries)
        if (int64_t(E.Lo) >= From && int64_t(E.Lo) < To)
          Fn(E.Arrival);
    } else {
      for (int64_t B = std::max<int64_t>(From, 0); B < To; ++B)
        for (uint32_t E = Head[B]; E != None; E = Entries[E].Prev)
          Fn(Entries[E].Arrival);
    }
    for (auto It =
             std::partition_point(FlatLo.begin(), FlatLo.end(),
                                  [&](const std::pair<int64_t, uint32_t> &E) {
                                    return E.first < From;
                                  });
         It != FlatLo.end() && It->first < H.Hi; ++It)
      Fn(It->second);
    if (!ByLo.empty())
      for (auto It = ByLo.lower_bound(From);
           It != ByLo.end() && It->first < H.Hi; ++It)
        Fn(It->second);
  }
};

ArrivalIndex::ArrivalIndex(int32_t Ranks, uint64_t Expected, int64_t Chunks)
    : Ranks(Ranks), Chunks(Chunks),
      BucketBudget(std::max<uint64_t>(uint64_t(1) << 16, 2 * Expected)),
      DataHead(static_cast<size_t>(Ranks), None),
      SignalHead(static_cast<size_t>(Ranks), None),
      Asked(static_cast<size_t>(Ranks)),
      DataCount(static_cast<size_t>(Ranks), 0),
      AllEnd(static_cast<size_t>(Ranks), 0.0),
      SignalEnd(static_cast<size_t>(Ranks), 0.0) {
  Prev.reserve(Expected);
  Sorted.reserve(Expected);
  ArrivalEnd.reserve(Expected);
}

ArrivalIndex::~ArrivalIndex() = default;

LLVM_ATTRIBUTE_ALWAYS_INLINE void ArrivalIndex::add(const Transfer &T) {
  AllEnd[T.Dst] = std::max(AllEnd[T.Dst], T.End);
  const uint32_t A = static_cast<uint32_t>(Prev.size());
  Sorted.push_back(T.Kind != TransferKind::Signal && sortedByOrigin(T.Pieces));
  ArrivalEnd.push_back(T.End);
  if (T.Kind == TransferKind::Signal) {
    SignalEnd[T.Dst] = std::max(SignalEnd[T.Dst], T.End);
    Prev.push_back(SignalHead[T.Dst]);
    SignalHead[T.Dst] = A;
    return;
  }
  Prev.push_back(DataHead[T.Dst]);
  DataHead[T.Dst] = A;
  if (++DataCount[T.Dst] <= ListLimit)
    return;
  auto &Ix = Index[T.Dst];
  if (Ix) {
    Ix->insert(T, A);
    return;
  }
  Ix = std::make_unique<ChunkIndex>();
  std::vector<const Transfer *> First;
  for (uint32_t I = A; I != None; I = Prev[I])
    First.push_back(&transferOf(I));
  Ix->chooseAxis(First);
  const int64_t Extent = Ix->Axis == &Piece::Origins ? Ranks : Chunks;
  if (Extent > 0 &&
      BucketCells + static_cast<uint64_t>(Extent) <= BucketBudget) {
    BucketCells += static_cast<uint64_t>(Extent);
    Ix->Head.assign(static_cast<size_t>(Extent), None);
  }
  for (uint32_t I = A; I != None; I = Prev[I])
    Ix->insert(transferOf(I), I);
}

void ArrivalIndex::addStep(const Step &St, uint32_t FirstId) {
  if (St.Transfers.empty())
    return;
  Recorded.push_back(
      {static_cast<uint32_t>(Prev.size()), FirstId, St.Transfers.data()});
  for (const Transfer &T : St.Transfers)
    add(T);
}

const ArrivalIndex::StepRecord &ArrivalIndex::recordOf(uint32_t A) const {
  // Most arrivals asked about are of the latest steps.
  if (A >= Recorded.back().FirstArrival)
    return Recorded.back();
  return *(std::upper_bound(Recorded.begin(), Recorded.end(), A,
                            [](uint32_t X, const StepRecord &R) {
                              return X < R.FirstArrival;
                            }) -
           1);
}

const Transfer &ArrivalIndex::transferOf(uint32_t A) const {
  const StepRecord &R = recordOf(A);
  return R.Transfers[A - R.FirstArrival];
}

uint32_t ArrivalIndex::idOf(uint32_t A) const {
  const StepRecord &R = recordOf(A);
  return R.FirstId + (A - R.FirstArrival);
}

/// Calls \p Fn with every data arrival at \p T's sender that can meet \p T
/// (all of them, or those the rank's chunk index finds).
template <typename F>
LLVM_ATTRIBUTE_ALWAYS_INLINE void
ArrivalIndex::visitCandidates(const Transfer &T, F &&Fn) const {
  if (LLVM_UNLIKELY(DataCount[T.Src] > ListLimit)) {
    Index.at(T.Src)->visit(T, Fn);
    return;
  }
  for (uint32_t A = DataHead[T.Src]; A != None; A = Prev[A])
    Fn(A);
}

/// Calls \p Fn with every data arrival at \p T's sender that \p T meets.
template <typename F>
LLVM_ATTRIBUTE_ALWAYS_INLINE void ArrivalIndex::visitMeeting(const Transfer &T,
                                                             F &&Fn) const {
  const bool TSorted = DataHead[T.Src] != None && sortedByOrigin(T.Pieces);
  visitCandidates(T, [&](uint32_t A) {
    const Transfer &In = transferOf(A);
    if (meets(T, TSorted, In, Sorted[A]))
      Fn(A, In);
  });
}

LLVM_ATTRIBUTE_ALWAYS_INLINE double
ArrivalIndex::latestEnd(const Transfer &T) const {
  if (T.Kind == TransferKind::Signal)
    return AllEnd[T.Src];
  // Only the latest End counts: an arrival that ends no later than the
  // latest met so far is not looked at (a reduction's partial results meet
  // every arrival before them, and the newest, visited first, ends last).
  double Met = 0;
  int TSorted = -1; // sortedByOrigin(T.Pieces), once needed
  auto Consider = [&](uint32_t A) {
    if (!(ArrivalEnd[A] > Met))
      return;
    if (TSorted < 0)
      TSorted = sortedByOrigin(T.Pieces);
    if (meets(T, TSorted, transferOf(A), Sorted[A]))
      Met = ArrivalEnd[A];
  };
  // The arrivals T meets are those an earlier send of the same pieces met,
  // and those since that meet T (ends are final once recorded).
  LastAsked &L = Asked[T.Src];
  if (L.T && L.T->Pieces == T.Pieces) {
    Met = L.Ready;
    for (uint32_t A = DataHead[T.Src]; A != None && A != L.Head; A = Prev[A])
      Consider(A);
  } else {
    visitCandidates(T, Consider);
  }
  L.T = &T;
  L.Head = DataHead[T.Src];
  L.Ready = Met;
  return std::max(SignalEnd[T.Src], Met);
}

void ArrivalIndex::latestEnds(const Step &St, std::vector<double> &Ends) const {
  Ends.resize(St.Transfers.size());
  for (size_t I = 0; I < St.Transfers.size(); ++I)
    Ends[I] = latestEnd(St.Transfers[I]);
}

void ArrivalIndex::forEachDependency(
    const Transfer &T, llvm::function_ref<void(uint32_t)> Fn) const {
  for (uint32_t A = SignalHead[T.Src]; A != None; A = Prev[A])
    Fn(idOf(A));
  if (T.Kind == TransferKind::Signal) {
    for (uint32_t A = DataHead[T.Src]; A != None; A = Prev[A])
      Fn(idOf(A));
    return;
  }
  visitMeeting(T, [&](uint32_t A, const Transfer &) { Fn(idOf(A)); });
}

TransferDependencies transferDependencies(const Schedule &S) {
  TransferDependencies D{TransferIds(S), {}, {}};
  const uint32_t N = D.Ids.size();
  D.Begin.reserve(static_cast<size_t>(N) + 1);
  D.Begin.push_back(0);
  ArrivalIndex Got(S.size(), N, S.NumChunks);
  std::vector<uint32_t> Mine;
  for (uint32_t St = 0; St < S.Steps.size(); ++St) {
    const std::vector<Transfer> &Ts = S.Steps[St].Transfers;
    for (const Transfer &T : Ts) {
      Mine.clear();
      Got.forEachDependency(T, [&](uint32_t W) { Mine.push_back(W); });
      std::sort(Mine.begin(), Mine.end());
      D.Deps.insert(D.Deps.end(), Mine.begin(), Mine.end());
      D.Begin.push_back(D.Deps.size());
    }
    Got.addStep(S.Steps[St], D.Ids.stepBegin(St));
  }
  return D;
}

} // namespace collc
