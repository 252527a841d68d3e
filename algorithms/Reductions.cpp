#include "algorithms/Reductions.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"
#include "algorithms/SegmentedBcast.h"
#include "algorithms/TreePipeline.h"
#include "algorithms/Trees.h"
#include "passes/Routes.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "llvm/Support/MathExtras.h"

namespace collc {

namespace {

int64_t floorPow2(int64_t P) {
  int64_t X = 1;
  while (X * 2 <= P)
    X *= 2;
  return X;
}

uint64_t elementCount(const Request &R) {
  return R.Bytes / elementBytes(R.Datatype);
}

/// The segment count of the pipelined scan over \p Count elements of \p Unit
/// bytes: the k whose makespan under the model, (k + P - 3) 2 T_send(s) +
/// (P - 1) t_op s for a largest segment of s = ceil(Count / k) elements
/// (docs/collectives.md), is least within a factor 2 of the continuous
/// optimum \p Want; at most \p Max and Count, and 1 when Count is 0.
int64_t segmentsFor(uint64_t Count, uint64_t Unit, double Want, int64_t Max,
                    int64_t P, const Model &Mo) {
  if (Count == 0)
    return 1;
  const double Hi = std::min({2 * Want + 1, double(Count), double(Max)});
  const int64_t Lo = std::max<int64_t>(1, static_cast<int64_t>(Want / 2));
  int64_t Best = 1;
  double BestT = std::numeric_limits<double>::infinity();
  for (int64_t K = std::min<int64_t>(Lo, static_cast<int64_t>(Hi)); K <= Hi;
       ++K) {
    const uint64_t Seg = (Count + K - 1) / K * Unit;
    const double T =
        double(std::max<int64_t>(1, K + P - 3)) * 2 * Mo.tHold(Seg) +
        double(std::max<int64_t>(0, P - 1)) * Mo.OpPerByte * double(Seg);
    if (T < BestT) {
      Best = K;
      BestT = T;
    }
  }
  return Best;
}

} // namespace

namespace {

/// Transfers tagged with the step they run in, for a whole schedule or one
/// rank's part (algorithms/RankParts.h): with Only >= 0, those Only sends or
/// receives alone. Listed in the whole schedule's order within each step.
struct StepList {
  int32_t Only = -1;
  std::vector<std::pair<int64_t, Transfer>> Tagged;

  bool wants(int32_t Src, int32_t Dst) const {
    return Only < 0 || Src == Only || Dst == Only;
  }
  void add(int64_t Step, Transfer T) { Tagged.push_back({Step, std::move(T)}); }
  /// Fills \p S's \p NumSteps steps (a part's steps the rank has no
  /// transfer in stay empty).
  void place(Schedule &S, int64_t NumSteps) {
    std::stable_sort(
        Tagged.begin(), Tagged.end(),
        [](const auto &A, const auto &B) { return A.first < B.first; });
    S.Steps.assign(NumSteps, Step());
    for (auto &[At, T] : Tagged) {
      assert(At >= 0 && At < NumSteps && "a transfer beyond the last step");
      S.Steps[At].Transfers.push_back(std::move(T));
    }
  }
};

/// A reduction transfer of chunks \p Chunks of value 0 of \p Src into
/// \p Dst's value 0, carrying the contributors \p From (rank intervals, in
/// any order and not adjoining: one piece each, in increasing order, as the
/// reduction flow lists a value's contributors).
Transfer carry(const Schedule &S, int32_t Src, int32_t Dst, Interval Chunks,
               std::vector<Interval> From, TransferKind Kind) {
  std::sort(From.begin(), From.end(),
            [](const Interval &A, const Interval &B) { return A.Lo < B.Lo; });
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Kind = Kind;
  T.Bytes = S.chunkBytes(Chunks);
  for (const Interval &I : From)
    T.Pieces.push_back({I, {0, S.size()}, Chunks});
  return T;
}

/// The fully reduced value's chunks \p Chunks, copied from \p Src to \p Dst.
Transfer copyResult(const Schedule &S, int32_t Src, int32_t Dst,
                    Interval Chunks) {
  return carry(S, Src, Dst, Chunks, {{0, S.size()}}, TransferKind::Copy);
}

/// The step of relative rank \p I's send at mask \p Mask in the binomial
/// broadcast from relative rank 0 that follows a binomial reduce of
/// \p Levels steps over \p P ranks (masks from the largest power of two
/// below P down): rank 0 holds the result after step Levels - 1, and every
/// holder makes its sends one step after the other, from the step after it
/// received. O(log P): the path from 0 down to I.
int64_t binomialBcastStep(int64_t I, int64_t Mask, int64_t P, int64_t Levels) {
  int64_t T = Levels - 1, Node = 0;
  for (int64_t B = (int64_t(1) << Levels) / 2; B >= Mask; B >>= 1) {
    if (Node + B < P)
      ++T; // the current holder's send at mask B
    if (I & B)
      Node += B; // ... went to the next holder on the path
  }
  return T;
}

} // namespace

llvm::Expected<Schedule>
buildBinomialReducePart(const Machine &M, const Request &R, int32_t Only) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  StepList L{Only, {}};
  // Commutative operators reduce along a tree rooted at the root; otherwise
  // along the tree of ranks in order rooted at rank 0, whose subtrees are
  // adjacent rank ranges.
  const int32_t TreeRoot = R.Commutative ? S.Root : 0;
  auto Rel = [&](int64_t I) { return relRank(I, TreeRoot, P); };
  const int64_t Levels = int64_t(llvm::Log2_64_Ceil(P));
  // Level m (step log2 m): relative rank i, i mod 2m = m, folds its subtree
  // [i, i + m) into i - m, which has folded its own lower levels by then.
  for (int64_t Mask = 1, Lv = 0; Mask < P; Mask <<= 1, ++Lv)
    for (int64_t I = Mask; I < P; I += 2 * Mask)
      if (L.wants(Rel(I), Rel(I - Mask)))
        L.add(Lv, carry(S, Rel(I), Rel(I - Mask), {0, 1},
                        relIntervals(I, std::min<int64_t>(I + Mask, P),
                                     TreeRoot, P),
                        TransferKind::Combine));
  int64_t NumSteps = Levels;
  if (R.Coll == Collective::Reduce && TreeRoot != S.Root) {
    if (L.wants(TreeRoot, S.Root))
      L.add(Levels, copyResult(S, TreeRoot, S.Root, {0, 1}));
    ++NumSteps;
  }
  if (R.Coll == Collective::Allreduce && P > 1) {
    // Rank 0 sends at every mask: Levels more steps.
    NumSteps += Levels;
    for (int64_t Mask = (int64_t(1) << Levels) / 2; Mask >= 1; Mask >>= 1)
      for (int64_t I = 0; I + Mask < P; I += 2 * Mask)
        if (L.wants(Rel(I), Rel(I + Mask)))
          L.add(binomialBcastStep(I, Mask, P, Levels),
                copyResult(S, Rel(I), Rel(I + Mask), {0, 1}));
  }
  L.place(S, NumSteps);
  return S;
}

bool reduceScatterApplies(const Machine &, const Request &R, std::string &Why) {
  int64_t Core = floorPow2(std::max(1, R.size()));
  const uint64_t Count = elementCount(R);
  // A reduce-scatter's segments are the P blocks, of any count.
  if (R.Coll != Collective::ReduceScatter && Count > 0 &&
      Count < static_cast<uint64_t>(Core)) {
    Why = "the element count (" + std::to_string(Count) +
          ") must be 0 or at least " + std::to_string(Core) +
          " (one element per segment; the segments are the largest power of "
          "two <= the process count)";
    return false;
  }
  // log2(Core) exchanges of Core transfers each way, and the fold in and out
  // of the ranks beyond the core.
  return transfersFit(2.0 * double(Core) * std::log2(double(Core)) +
                          2.0 * double(R.size() - Core),
                      Why);
}

namespace {

/// Reduce-scatter + allgather, whole or rank \p Only's part (the reduce's
/// binomial gather whole only: \p Only < 0).
Schedule reduceScatterAllgather(const Machine &M, const Request &R,
                                int32_t Only) {
  const bool Scatter = R.Coll == Collective::ReduceScatter;
  Schedule S = scheduleSkeleton(
      M, R, Scatter ? "recursive-halving" : "reduce-scatter-allgather");
  const int32_t P = S.size();
  const int64_t Core = floorPow2(P), Extra = P - Core;
  // An allreduce's segments are the cores' (Core of them); a reduce-scatter's
  // the ranks' blocks, core c's window of cores [a, b) being the blocks of
  // its ranks, chunks [First(a), First(b)).
  S.NumChunks = Scatter ? P : Core;
  StepList L{Only, {}};
  // Halving from the nearest partner (core c ends with segment rev(c), its
  // bits reversed): every combine joins adjacent ranges of core ranks, so
  // that every value's contributors stay one range of relative ranks (two
  // rank intervals at most) and every window one range of chunks, and a
  // transfer carries one or two pieces whatever P. A commutative operator:
  // the ranks relative to the root. A non-commutative one (MPICH's order):
  // ranks as they are, so that the lower ranks' value stays the left
  // operand; a reduce then gathers to rank 0 and copies the result to the
  // root.
  const bool InOrder = !R.Commutative;
  const int32_t Base = InOrder ? 0 : S.Root;
  auto Rel = [&](int64_t I) { return relRank(I, Base, P); };
  // Core index c: relative rank 2c for c < Extra (its odd neighbour folds
  // into it), c + Extra after. Cores [a, b) hold the contributions of the
  // relative ranks [First(a), First(b)).
  auto First = [&](int64_t C) { return C < Extra ? 2 * C : C + Extra; };
  auto Chunks = [&](Interval W) {
    return Scatter ? Interval{First(W.Lo), First(W.Hi)} : W;
  };
  auto CoreRank = [&](int64_t C) { return Rel(First(C)); };
  auto Cores = [&](int64_t A, int64_t B) {
    return relIntervals(First(A), First(B), Base, P);
  };
  // The extra ranks' steps: one before the core's and one after.
  const int64_t Pre = Extra > 0 ? 1 : 0;
  int64_t D = 0; // log2(Core)
  while ((int64_t(1) << D) < Core)
    ++D;
  // The cores whose transfers a round lists: all, or Only's and its
  // partner's (Only's own core index, -1 for an extra rank or none).
  const int64_t MeRel = Only < 0 ? -1 : (int64_t(Only) - Base + P) % P;
  const int64_t MyCore = MeRel < 0           ? -1
                         : MeRel < 2 * Extra ? (MeRel % 2 == 0 ? MeRel / 2 : -1)
                                             : MeRel - Extra;
  auto RoundCores = [&](int64_t Mask) {
    std::vector<int64_t> V;
    if (Only < 0) {
      for (int64_t C = 0; C < Core; ++C)
        V.push_back(C);
    } else if (MyCore >= 0) {
      V = {std::min(MyCore, MyCore ^ Mask), std::max(MyCore, MyCore ^ Mask)};
    }
    return V;
  };
  // Core c's chunks after the first K halving rounds (partners 1, 2, ...,
  // 2^(K-1)): it keeps the half on its side of each partner's bit.
  auto Window = [&](int64_t C, int64_t K) {
    Interval W{0, Core};
    for (int64_t J = 0; J < K; ++J) {
      const int64_t Mid = (W.Lo + W.Hi) / 2;
      (C >> J & 1 ? W.Lo : W.Hi) = Mid;
    }
    return W;
  };
  for (int64_t I = 0; I < Extra; ++I)
    if (L.wants(Rel(2 * I + 1), Rel(2 * I)))
      L.add(0, carry(S, Rel(2 * I + 1), Rel(2 * I), {0, S.NumChunks},
                     {{Rel(2 * I + 1), Rel(2 * I + 1) + 1}},
                     TransferKind::Combine));
  // Recursive halving, round K (partner bit m = 2^K): core c sends the half
  // of its window on the other side of bit m to c ^ m, which folds it; by
  // then c holds the contributions of the m cores that share its bits above
  // m's.
  for (int64_t K = 0; K < D; ++K) {
    const int64_t Mask = int64_t(1) << K;
    for (int64_t C : RoundCores(Mask)) {
      const Interval W = Window(C, K);
      const int64_t Mid = (W.Lo + W.Hi) / 2;
      const int64_t Block = C & ~(Mask - 1);
      L.add(Pre + K,
            carry(S, CoreRank(C), CoreRank(C ^ Mask),
                  Chunks(C & Mask ? Interval{W.Lo, Mid} : Interval{Mid, W.Hi}),
                  Cores(Block, Block + Mask), TransferKind::Combine));
    }
  }
  if (Scatter) {
    // Core c ends with window rev(c) (its bits reversed), the blocks of
    // core rev(c)'s ranks: it hands each on to its owner, one a step.
    int64_t Last = Pre + D;
    assert(Only < 0 && "the reduce-scatter has no rank parts");
    for (int64_t C = 0; C < Core; ++C) {
      const Interval W = Chunks(Window(C, D));
      int64_t At = Pre + D;
      for (int64_t B = W.Lo; B < W.Hi; ++B)
        if (B != CoreRank(C) && L.wants(CoreRank(C), int32_t(B))) {
          L.add(At, copyResult(S, CoreRank(C), int32_t(B), {B, B + 1}));
          Last = std::max(Last, ++At);
        }
    }
    L.place(S, Last);
    return S;
  }
  if (R.Coll == Collective::Allreduce) {
    // Recursive doubling, partners in reverse: before the round of bit
    // 2^K, core c holds the reduced window of K + 1 halving rounds, and
    // c ^ 2^K the adjacent one.
    for (int64_t K = D - 1; K >= 0; --K) {
      const int64_t Mask = int64_t(1) << K;
      for (int64_t C : RoundCores(Mask))
        L.add(Pre + D + (D - 1 - K),
              copyResult(S, CoreRank(C), CoreRank(C ^ Mask), Window(C, K + 1)));
    }
    for (int64_t I = 0; I < Extra; ++I)
      if (L.wants(Rel(2 * I), Rel(2 * I + 1)))
        L.add(Pre + 2 * D,
              copyResult(S, Rel(2 * I), Rel(2 * I + 1), {0, Core}));
    L.place(S, 2 * Pre + 2 * D);
    return S;
  }
  assert(Only < 0 && "the reduce's gather has no rank parts");
  // Binomial gather to core 0: at partner m (the last halving partner
  // first), every core with bit m set that has not sent yet sends all it
  // holds to c - m, in the first step after its own and c - m's last
  // transfers (orderedRounds' rule: a receive may share a step with the
  // receiver's send).
  std::vector<Interval> Held(Core);
  for (int64_t C = 0; C < Core; ++C)
    Held[C] = Window(C, D);
  std::vector<int64_t> LastSend(P, -1), LastRecv(P, -1);
  for (int64_t I = 0; I < Extra; ++I)
    LastSend[Rel(2 * I + 1)] = LastRecv[Rel(2 * I)] = 0;
  if (D > 0)
    for (int64_t C = 0; C < Core; ++C)
      LastSend[CoreRank(C)] = LastRecv[CoreRank(C)] = Pre + D - 1;
  int64_t Last = Pre + D - 1;
  auto Gather = [&](int32_t Src, int32_t Dst, Interval Chunks) {
    const int64_t At = std::max({LastRecv[Src] + 1, LastSend[Src] + 1,
                                 LastRecv[Dst] + 1, LastSend[Dst]});
    L.add(At, copyResult(S, Src, Dst, Chunks));
    LastSend[Src] = LastRecv[Dst] = At;
    Last = std::max(Last, At);
  };
  int64_t Sent = 0;
  for (int64_t Mask = Core / 2; Mask >= 1; Mask >>= 1) {
    for (int64_t C = Mask; C < Core; ++C)
      if ((C & Mask) && !(C & Sent)) {
        Gather(CoreRank(C), CoreRank(C - Mask), Held[C]);
        Held[C - Mask] = {std::min(Held[C - Mask].Lo, Held[C].Lo),
                          std::max(Held[C - Mask].Hi, Held[C].Hi)};
      }
    Sent |= Mask;
  }
  if (Base != S.Root)
    Gather(Base, S.Root, {0, Core});
  L.place(S, Last + 1);
  return S;
}

} // namespace

llvm::Expected<Schedule> buildReduceScatterAllgather(const Machine &M,
                                                     const Request &R) {
  return reduceScatterAllgather(M, R, -1);
}

llvm::Expected<Schedule> buildReduceScatterAllgatherPart(const Machine &M,
                                                         const Request &R,
                                                         int32_t Rank) {
  std::string Why;
  if (R.Coll != Collective::Allreduce || !reduceScatterApplies(M, R, Why))
    return notApplicable("reduce-scatter-allgather",
                         Why.empty() ? "rank parts are for the allreduce"
                                     : Why);
  return reduceScatterAllgather(M, R, Rank);
}

namespace {

/// The ranks whose contributions \p Owner folds, in the order that keeps
/// any operator's operands in rank order: the ranks after it (each appended
/// on the right), then the ones before it, nearest first (each prepended).
std::vector<int32_t> foldOrder(int32_t Owner, int32_t P) {
  std::vector<int32_t> Order;
  for (int32_t X = Owner + 1; X < P; ++X)
    Order.push_back(X);
  for (int32_t X = Owner - 1; X >= 0; --X)
    Order.push_back(X);
  return Order;
}

/// Reducer tags: the group each transfer runs in (groupedRounds).
constexpr int64_t Gather = 1;

/// How reduce-scatter-direct's allreduce gathers the reduced blocks.
enum class BlockAllgather { Direct, Ring };

Schedule reduceScatterDirect(const Machine &M, const Request &R,
                             BlockAllgather How) {
  const bool Scatter = R.Coll == Collective::ReduceScatter;
  Schedule S =
      scheduleSkeleton(M, R, Scatter ? "direct" : "reduce-scatter-direct");
  const int32_t P = S.size();
  // A reduce-scatter's blocks are the ranks' (P of them, of any count).
  const int64_t K =
      Scatter ? P
              : std::clamp<int64_t>(static_cast<int64_t>(
                                        std::min<uint64_t>(elementCount(R), P)),
                                    1, P);
  S.NumChunks = K;
  Reducer Rd(S);
  // One all-to-all: owner b folds block b of every other rank.
  for (int32_t B = 0; B < K; ++B)
    for (int32_t X : foldOrder(B, P))
      Rd.send(X, B, B, B + 1, TransferKind::Combine, 0, 1, /*Tag=*/0);
  if (Scatter) {
    // Done: owner b holds block b.
  } else if (R.Coll == Collective::Reduce) {
    for (int32_t B = 0; B < K; ++B)
      if (B != S.Root)
        Rd.send(B, S.Root, B, B + 1, TransferKind::Copy, 0, 1, Gather);
  } else if (How == BlockAllgather::Direct) {
    for (int32_t B = 0; B < K; ++B)
      for (int32_t D = 1; D < P; ++D)
        Rd.send(B, (B + D) % P, B, B + 1, TransferKind::Copy, 0, 1, Gather);
  } else {
    // Step s: rank r passes block r - s (reduced) on to r + 1.
    for (int32_t St = 0; St + 1 < P; ++St)
      for (int32_t Rk = 0; Rk < P; ++Rk) {
        const int32_t B = ((Rk - St) % P + P) % P;
        if (B < K)
          Rd.send(Rk, (Rk + 1) % P, B, B + 1, TransferKind::Copy, 0, 1,
                  Gather + St);
      }
  }
  S.Steps = groupedRounds(M, std::move(Rd.Ts), P, Rd.Tags);
  return S;
}

/// groupedRounds(M, the transfers \p Emit lists, P, their groups) without
/// holding the list: \p Emit(Fn) calls Fn(Transfer, Group) for every
/// transfer in order (groups contiguous, -1 for none), and is called three
/// times: to find which groups fit the ports, to place each transfer by its
/// sender and receiver (a uint32 step a transfer), and to move each into its
/// step. Transfers are written once, into steps reserved to their size.
template <typename EmitFn>
std::vector<Step> placeEmitted(const Machine &M, int32_t P, EmitFn Emit) {
  const uint64_t Ports = portsPerStep(M);
  // Pass 1: which groups fit (as groupedRounds).
  std::vector<bool> Fits;
  {
    std::vector<uint64_t> Sends(P, 0), Recvs(P, 0);
    std::vector<int32_t> Touched;
    int64_t Group = -1;
    bool Fit = true;
    auto Close = [&] {
      if (Group >= 0) {
        if (Fits.size() <= size_t(Group))
          Fits.resize(size_t(Group) + 1, false);
        Fits[size_t(Group)] = Fit;
      }
      for (int32_t R : Touched)
        Sends[R] = Recvs[R] = 0;
      Touched.clear();
      Fit = true;
    };
    Emit([&](const Transfer &T, int64_t G) {
      if (G != Group || G < 0)
        Close();
      Group = G;
      if (G < 0)
        return;
      Touched.push_back(T.Src);
      Touched.push_back(T.Dst);
      Fit &= ++Sends[T.Src] <= Ports && ++Recvs[T.Dst] <= Ports;
    });
    Close();
  }
  // Pass 2: each transfer's step (as orderedRounds), a group in the step
  // after every one of its ranks' last.
  std::vector<uint32_t> Tags;
  std::vector<int64_t> LastRecv(P, -1), LastSend(P, -1);
  {
    std::vector<std::pair<int32_t, int32_t>> Pending;
    int64_t Group = -1;
    auto Flush = [&] {
      int64_t S = 0;
      for (auto [Src, Dst] : Pending)
        S = std::max({S, LastRecv[Src] + 1, LastSend[Src] + 1,
                      LastRecv[Dst] + 1, LastSend[Dst]});
      for (auto [Src, Dst] : Pending) {
        LastSend[Src] = S;
        LastRecv[Dst] = S;
        Tags.push_back(static_cast<uint32_t>(S));
      }
      Pending.clear();
    };
    Emit([&](const Transfer &T, int64_t G) {
      const bool Grouped = G >= 0 && Fits[size_t(G)];
      if (!Grouped || G != Group)
        Flush();
      Group = Grouped ? G : -1;
      Pending.push_back({T.Src, T.Dst});
      if (!Grouped)
        Flush();
    });
    Flush();
  }
  // Pass 3: into the steps, gaps dropped (as placeByTags).
  uint32_t Max = 0;
  for (uint32_t T : Tags)
    Max = std::max(Max, T);
  std::vector<size_t> Count(Tags.empty() ? 0 : size_t(Max) + 1, 0);
  for (uint32_t T : Tags)
    ++Count[T];
  std::vector<Step> Steps;
  std::vector<size_t> At(Count.size(), 0);
  for (size_t T = 0; T < Count.size(); ++T)
    if (Count[T]) {
      At[T] = Steps.size();
      Steps.emplace_back().Transfers.reserve(Count[T]);
    }
  size_t I = 0;
  Emit([&](Transfer &&T, int64_t) {
    Steps[At[Tags[I++]]].Transfers.push_back(std::move(T));
  });
  return Steps;
}

/// reduceScatterDirect's allreduce with the ring allgather, written as it
/// is: owner b folds the contributions of the other ranks (each its own,
/// one rank), in foldOrder, then ring step s passes the reduced block
/// r - s (every rank's) from r to r + 1; placed in steps as groupedRounds
/// would place the Reducer's list. The same schedule, without the
/// Reducer's P x K contributor sets or the list held beside the steps.
Schedule reduceScatterDirectRing(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "reduce-scatter-direct");
  const int32_t P = S.size();
  const int64_t K = std::clamp<int64_t>(
      static_cast<int64_t>(std::min<uint64_t>(elementCount(R), P)), 1, P);
  S.NumChunks = K;
  auto Emit = [&](auto &&Fn) {
    for (int32_t B = 0; B < K; ++B)
      for (int32_t X : foldOrder(B, P))
        Fn(carry(S, X, B, {B, B + 1}, {{X, X + 1}}, TransferKind::Combine), 0);
    for (int32_t St = 0; St + 1 < P; ++St)
      for (int32_t Rk = 0; Rk < P; ++Rk) {
        const int32_t B = ((Rk - St) % P + P) % P;
        if (B < K)
          Fn(copyResult(S, Rk, (Rk + 1) % P, {B, B + 1}), Gather + St);
      }
  };
  S.Steps = placeEmitted(M, P, Emit);
  return S;
}

} // namespace

Schedule reduceScatterDirectRingAllreduce(const Machine &M, const Request &R) {
  return reduceScatterDirectRing(M, R);
}

Schedule reduceScatterDirectRingFollowed(const Machine &M, const Request &R) {
  return reduceScatterDirect(M, R, BlockAllgather::Ring);
}

llvm::Expected<Schedule> buildDirectReduce(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "direct");
  const int32_t P = S.size();
  Reducer Rd(S);
  for (int32_t X : foldOrder(S.Root, P))
    Rd.send(X, S.Root, 0, 1, TransferKind::Combine, 0, 1, /*Tag=*/0);
  if (R.Coll == Collective::Allreduce)
    for (int32_t D = 1; D < P; ++D)
      Rd.send(S.Root, relRank(D, S.Root, P), 0, 1, TransferKind::Copy, 0, 1,
              Gather);
  S.Steps = groupedRounds(M, std::move(Rd.Ts), P, Rd.Tags);
  return S;
}

namespace {

/// The time the step pricing cannot end `direct`'s vectors into the root
/// before on a mesh, torus or hypercube of one booked class (0 elsewhere):
/// rootLinkShareTime of the links they enter the root by.
double rootEntryShare(const Machine &M, const Schedule &S) {
  // Every vector in one step: as many ports as ranks but the root.
  if (!oneBookedClass(M) || uint64_t(portsPerStep(M)) < uint64_t(S.size() - 1))
    return 0;
  return rootLinkShareTime(M, S, rootLinks(M, S, RootEnd::Entering));
}

/// Elsewhere (a fat tree, a cluster, a MIN: routes of a few hops), the
/// time the step pricing cannot end `direct`'s vectors into the root before
/// by the link they enter it by: every message books each link of its route
/// one after the other (occupy()'s FreeAt), from the first's data phase, no
/// earlier than one overhead and a link's least latency past the start, so
/// the last link shared by the most of them (of all but fat pipes) is busy
/// for all their bytes at its bandwidth (the band's factor included) past
/// that. 0 on a mesh, torus or hypercube (rootEntryShare) and unrouted
/// topologies.
double rootLastLinkLoad(const Machine &M, const Schedule &S) {
  const Topology &T = M.Topo;
  const Network &N = *M.Net;
  if (T.hasCoordinates() || !isRouted(T) || N.Links.empty())
    return 0;
  const int64_t RootNode = S.Participants[S.Root].Node;
  // Per node, its route's last link (a key, or ~0: a fat pipe); per link,
  // the messages entering by it.
  llvm::DenseMap<int64_t, uint64_t> LastOf;
  llvm::DenseMap<uint64_t, int64_t> Entering;
  llvm::DenseMap<uint64_t, double> BandwidthOf;
  std::vector<Channel> Route;
  for (const Participant &Pt : S.Participants) {
    if (Pt.Node == RootNode)
      continue;
    auto [It, New] = LastOf.try_emplace(Pt.Node, ~uint64_t(0));
    if (New) {
      Route.clear();
      llvm::cantFail(appendRoute(T, Pt.Node, RootNode, Route));
      const Channel &C = Route.back();
      const LinkClass &Class = N.Links[C.Class];
      if (!Class.FatPipe && Class.Bandwidth > 0) {
        It->second = (uint64_t(C.From) << 40) ^ (uint64_t(C.To) << 16) ^
                     uint64_t(C.Lane);
        BandwidthOf[It->second] = Class.Bandwidth;
      }
    }
    if (It->second != ~uint64_t(0))
      ++Entering[It->second];
  }
  const uint64_t Bytes = S.Bytes + N.EnvelopeBytes;
  const ProtocolBand &Band = N.band(Bytes);
  double Busiest = 0;
  for (const auto &[Link, Count] : Entering)
    Busiest = std::max(Busiest, double(Count) * double(Bytes) /
                                    (BandwidthOf[Link] * Band.BandwidthFactor));
  if (Busiest == 0)
    return 0;
  double Least = std::numeric_limits<double>::infinity();
  for (const LinkClass &L : N.Links)
    Least = std::min(Least, L.Latency);
  // Below the pricing's own arithmetic by a rounding's margin.
  return (N.SendOverhead + Least * Band.LatencyFactor + Busiest) * (1 - 1e-9);
}

} // namespace

double directReduceBound(const Machine &M, const Request &R) {
  if (R.size() < 2 || !M.Net)
    return 0;
  const Network &N = *M.Net;
  const Schedule S = scheduleSkeleton(M, R, "");
  const int64_t RootNode = S.Participants[S.Root].Node;
  const auto OffRoot =
      std::count_if(S.Participants.begin(), S.Participants.end(),
                    [&](const Participant &Pt) { return Pt.Node != RootNode; });
  // The vectors into the root: the last arrives at least a transfer's least
  // time after the start (between nodes, where a rank is on another node
  // than the root's); where the network limits a node's ejection, each
  // from another node crosses the root node's limit (the last node of its
  // route, SimGrid's shared limiter too), busy for its bytes one message
  // after the other from the first's data phase, past one overhead; and on
  // a mesh, torus or hypercube rootEntryShare, elsewhere rootLastLinkLoad.
  double Reduced = leastTransferTime(N, R.Bytes, /*NodesShared=*/OffRoot == 0);
  if (OffRoot > 0 && std::isfinite(N.injectionLimit())) {
    const uint64_t Bytes = R.Bytes + N.EnvelopeBytes;
    Reduced =
        std::max(Reduced, N.SendOverhead + double(OffRoot) * double(Bytes) /
                                               (N.injectionLimit() *
                                                N.band(Bytes).BandwidthFactor));
  }
  Reduced = std::max({Reduced, rootEntryShare(M, S), rootLastLinkLoad(M, S)});
  if (R.Coll != Collective::Allreduce)
    return Reduced;
  // Then the root's sends of the result, each no earlier than the last
  // vector's arrival (the result carries them all): `direct`'s broadcast
  // bound (directBound) from there.
  return Reduced + directBound(M, R);
}

bool writtenReductionFits(double Transfers, const std::string &What,
                          std::string &Why) {
  if (Transfers <= 2.0 * double(MaxCopyTransfers))
    return true;
  Why = "it would list " + std::to_string(static_cast<long long>(Transfers)) +
        " transfers, more than the " + std::to_string(2 * MaxCopyTransfers) +
        " a schedule may hold (" + What + ", named)";
  return false;
}

bool reduceScatterDirectApplies(const Machine &, const Request &R,
                                std::string &Why) {
  // An all-to-all of blocks, P (P - 1) transfers; then a gather to the root
  // (P - 1), or an allgather (as many again, and two of them built to pick
  // the cheaper: kept to MaxTransfers).
  const double P = R.size();
  if (R.Coll == Collective::Allreduce) {
    const double Transfers = 2 * P * (P - 1);
    if (R.Algorithm == "auto" || Transfers <= double(MaxTransfers))
      return transfersFit(Transfers, Why);
    // Named: the ring allgather alone, written as it is
    // (reduceScatterDirectRing).
    return writtenReductionFits(Transfers, "reduce-scatter-direct's allreduce",
                                Why);
  }
  return copyTransfersFit(
      R, P * (P - 1) + (R.Coll == Collective::Reduce ? P - 1 : 0), Why);
}

llvm::Expected<Schedule>
buildReduceScatterDirect(const Machine &M, const Request &R, Pipeline &P) {
  if (R.Coll == Collective::Reduce || R.Coll == Collective::ReduceScatter)
    return reduceScatterDirect(M, R, BlockAllgather::Direct);
  // Past MaxTransfers (named): the ring allgather alone, written as it is;
  // two candidates of 2 P (P - 1) transfers would not fit in memory.
  const double Ranks = R.size();
  if (2 * Ranks * (Ranks - 1) > double(MaxTransfers))
    return reduceScatterDirectRing(M, R);
  Cheapest Search(M, P, makespanJudge());
  Search.consider("allgather=direct", [&]() -> llvm::Expected<Schedule> {
    return reduceScatterDirect(M, R, BlockAllgather::Direct);
  });
  Search.consider("allgather=ring", [&]() -> llvm::Expected<Schedule> {
    return reduceScatterDirect(M, R, BlockAllgather::Ring);
  });
  return Search.take();
}

bool ringReduceScatterApplies(const Machine &, const Request &R,
                              std::string &Why) {
  // Block b's value travels b + 1, ..., P - 1, 0, ..., b - 1: past rank
  // P - 1 it would join ranks that are not adjacent.
  if (!commutativeOperator(R,
                           "the blocks travel round the ring past rank P - 1 "
                           "to rank 0, which a non-commutative operator does "
                           "not allow",
                           Why))
    return false;
  // P - 1 steps of P transfers.
  const double P = R.size();
  return copyTransfersFit(R, P * (P - 1), Why);
}

llvm::Expected<Schedule> buildRingReduceScatter(const Machine &M,
                                                const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "ring");
  const int32_t P = S.size();
  S.NumChunks = P;
  // Step s: rank r folds block r - s - 1 into what it holds of it and passes
  // it on to r + 1; block b starts at rank b + 1 and ends at rank b. What r
  // sends then holds the contributions of ranks r - s, ..., r (cyclically),
  // so the pieces are written as they are (a Reducer, following every
  // rank's P blocks, would hold P^2 contributor sets) and each step is one
  // round: every rank sends and receives once.
  S.Steps.resize(P > 1 ? P - 1 : 0);
  for (int32_t St = 0; St + 1 < P; ++St) {
    std::vector<Transfer> &Ts = S.Steps[St].Transfers;
    Ts.reserve(P);
    for (int32_t Rk = 0; Rk < P; ++Rk) {
      const int32_t B = ((Rk - St - 1) % P + P) % P;
      Transfer &T = Ts.emplace_back();
      T.Src = Rk;
      T.Dst = (Rk + 1) % P;
      T.Kind = TransferKind::Combine;
      T.Bytes = S.chunkBytes({B, B + 1});
      const IntervalSet From =
          IntervalSet::of(relIntervals(0, St + 1, B + 1, P));
      llvm::SmallVector<Piece, 2> Ps;
      for (const Interval &I : From)
        Ps.push_back({I, {0, P}, {B, B + 1}});
      assignPieces(T.Pieces, Ps);
    }
  }
  return S;
}

bool pipelineReduceApplies(const Machine &, const Request &R,
                           std::string &Why) {
  if (!commutativeOperator(R,
                           "its segments fold in the order they arrive: a "
                           "commutative operator (binomial and direct fold in "
                           "rank order)",
                           Why))
    return false;
  // One transfer per segment and tree edge, at least one segment.
  return transfersFit(double(std::max<int64_t>(1, R.Segments)) * R.size(), Why);
}

namespace {

/// The tree of a pipelined reduce over \p S's ranks in node order from the
/// root (relative index i, algorithms/Builder.h): relative index i's parent
/// is i - 1 (a chain) or (i - 1) / 2 (a binary tree); -1 at the root.
ParentArray reduceTree(const Schedule &S, bool Binary) {
  const std::vector<int32_t> Order = nodeOrderFromRoot(S);
  ParentArray Parent(S.size(), -1);
  for (size_t I = 1; I < Order.size(); ++I)
    Parent[Order[I]] = Order[Binary ? (I - 1) / 2 : I - 1];
  return Parent;
}

/// K segments folded up the tree \p Parent (over ranks; -1 at the root):
/// segment c leaves a rank of height h (the longest way down to a leaf) in
/// step c + h (of as many sub-steps as a rank has children), after its
/// children's segment c (their heights are lower).
Schedule treeReduce(const Machine &M, const Request &R, llvm::StringRef Name,
                    const ParentArray &Parent, int64_t K, bool Open) {
  Schedule S = scheduleSkeleton(M, R, Name);
  const int32_t P = S.size();
  S.NumChunks = K;
  // Open: several segments' receives out at once (the search judges).
  if (Open)
    openWindow(S);
  // Heights: a child's is below its parent's, so relaxing parents in
  // decreasing order of depth settles them.
  const std::vector<int64_t> Depth = depths(Parent);
  std::vector<int64_t> Height(P, 0);
  std::vector<int32_t> ByDepth;
  for (int32_t V = 0; V < P; ++V)
    if (Parent[V] >= 0)
      ByDepth.push_back(V);
  std::stable_sort(ByDepth.begin(), ByDepth.end(),
                   [&](int32_t A, int32_t B) { return Depth[A] > Depth[B]; });
  for (int32_t V : ByDepth)
    Height[Parent[V]] = std::max(Height[Parent[V]], Height[V] + 1);
  // Listed child before parent for every segment, as the values flow.
  std::vector<int32_t> Senders = ByDepth;
  std::stable_sort(Senders.begin(), Senders.end(),
                   [&](int32_t A, int32_t B) { return Height[A] < Height[B]; });
  // Siblings send one after the other (one port receives one message a
  // step): the i-th child of a rank sends in the i-th half of the step.
  std::vector<int64_t> Sibling(P, 0), Children(P, 0);
  for (int32_t V : Senders)
    Sibling[V] = Children[Parent[V]]++;
  const int64_t Fan =
      std::max<int64_t>(1, *std::max_element(Children.begin(), Children.end()));
  Reducer Rd(S);
  for (int64_t C = 0; C < K; ++C)
    for (int32_t V : Senders)
      Rd.send(V, static_cast<int32_t>(Parent[V]), C, C + 1,
              TransferKind::Combine, 0, 1, (C + Height[V]) * Fan + Sibling[V]);
  std::vector<std::pair<int64_t, Transfer>> Tagged;
  for (size_t I = 0; I < Rd.Ts.size(); ++I)
    Tagged.push_back({Rd.Tags[I], std::move(Rd.Ts[I])});
  S.Steps = placeInSteps(std::move(Tagged));
  return S;
}

llvm::Expected<Schedule> pipelinedReduce(const Machine &M, const Request &R,
                                         Pipeline &Pl, llvm::StringRef Name,
                                         bool Binary) {
  const Schedule Skel = scheduleSkeleton(M, R, Name);
  const ParentArray Parent = reduceTree(Skel, Binary);
  const int64_t P = R.size();
  // A segment of at least one element; a candidate within what a search
  // affords (one transfer per segment and edge).
  const int64_t Units =
      std::max<int64_t>(1, static_cast<int64_t>(elementCount(R)));
  const int64_t Budget =
      std::max<int64_t>(1, MaxSearchTransfers / std::max<int64_t>(1, P - 1));
  const int64_t Hops = Binary ? 2 * ceilLog2(P) : P;
  const double Hint = pipelineOptimalSegments(M, Hops, R.Bytes);
  // The segment count searched with the posting rule's window and with an
  // open one; the cheaper wins.
  return searchWindows(M, Pl, [&](bool Open) {
    return searchSegments(
        M, R, Pl, Hint, std::min(Units, Budget),
        [&](int64_t K) { return treeReduce(M, R, Name, Parent, K, Open); });
  });
}

} // namespace

llvm::Expected<Schedule> buildPipelineReduce(const Machine &M, const Request &R,
                                             Pipeline &P) {
  return pipelinedReduce(M, R, P, "pipeline", false);
}

llvm::Expected<Schedule>
buildBinaryPipelineReduce(const Machine &M, const Request &R, Pipeline &P) {
  return pipelinedReduce(M, R, P, "pipelined-binary", true);
}

namespace {

/// The k-nomial reduce of radix \p K to the root: at level L (m = K^L),
/// relative rank i with i mod Km = 0 folds in its children i + jm, j = 1 ..
/// K - 1, each bringing its subtree [i + jm, i + (j + 1)m), one after the
/// other (one port receives one message a step).
Schedule knomialReduce(const Machine &M, const Request &R, int64_t K) {
  Schedule S = scheduleSkeleton(M, R, "knomial");
  const int32_t P = S.size();
  std::vector<std::pair<int64_t, Transfer>> Tagged;
  // On a machine with a network a rank receives its children's messages of
  // a level at once (one step); on a model one port takes one a step.
  const bool AtOnce = M.Net.has_value();
  int64_t Step = 0;
  for (int64_t Mm = 1; Mm < P; Mm *= K) {
    for (int64_t J = 1; J < K; ++J, Step += AtOnce ? 0 : 1)
      for (int64_t I = 0; I + J * Mm < P; I += K * Mm) {
        const int64_t Child = I + J * Mm;
        Tagged.push_back(
            {Step,
             carry(S, relRank(Child, S.Root, P), relRank(I, S.Root, P), {0, 1},
                   relIntervals(Child, std::min<int64_t>(Child + Mm, P), S.Root,
                                P),
                   TransferKind::Combine)});
      }
    Step += AtOnce ? 1 : 0;
    if (Mm > P / K)
      break;
  }
  S.Steps = placeInSteps(std::move(Tagged));
  return S;
}

} // namespace

bool knomialReduceApplies(const Machine &, const Request &R, std::string &Why) {
  return commutativeOperator(R,
                             "its subtrees fold round the root: a commutative "
                             "operator (binomial and direct fold in rank "
                             "order)",
                             Why);
}

llvm::Expected<Schedule> buildKnomialReduce(const Machine &M, const Request &R,
                                            Pipeline &Pl) {
  // The radix: MVAPICH2's 4, and its neighbours, by the cost pass.
  Cheapest Radix(M, Pl, makespanJudge());
  for (int64_t K : {3, 4, 8}) {
    CandidateHooks Hooks;
    Hooks.TieKey = K == 4 ? 0 : K;
    Radix.consider(
        "k=" + llvm::Twine(K), [&] { return knomialReduce(M, R, K); }, Hooks);
  }
  return Radix.take();
}

bool scanApplies(const Machine &, const Request &R, std::string &Why) {
  // A chain of P - 1 transfers per segment, and the exscan's shift.
  return transfersFit(
      double(std::max<int64_t>(1, R.Segments)) * R.size() + R.size(), Why);
}

namespace {

/// Exscan by an inclusive scan over ranks 0..P-2 followed by one shift:
/// rank r copies its prefix into rank r+1's result.
void shiftIntoResult(Reducer &Rd, int32_t P, int64_t K) {
  for (int32_t Rk = 0; Rk + 1 < P; ++Rk)
    Rd.send(Rk, Rk + 1, 0, K, TransferKind::Copy, 0, 2);
}

Schedule chainScan(const Machine &M, const Request &R, llvm::StringRef Name,
                   int64_t K) {
  Schedule S = scheduleSkeleton(M, R, Name);
  const int32_t P = S.size();
  S.NumChunks = K;
  Reducer Rd(S);
  // Exscan: the value passed on also becomes the receiver's result.
  uint8_t Into = R.Coll == Collective::Exscan ? 3 : 1;
  for (int64_t C = 0; C < K; ++C)
    for (int32_t I = 0; I + 1 < P; ++I)
      Rd.send(I, I + 1, C, C + 1, TransferKind::Combine, 0, Into, I + C);
  std::vector<std::pair<int64_t, Transfer>> Tagged;
  for (size_t I = 0; I < Rd.Ts.size(); ++I)
    Tagged.push_back({Rd.Tags[I], std::move(Rd.Ts[I])});
  S.Steps = placeInSteps(std::move(Tagged));
  return S;
}

} // namespace

llvm::Expected<Schedule> buildLinearScan(const Machine &M, const Request &R) {
  return chainScan(M, R, "linear", 1);
}

llvm::Expected<Schedule> buildPipelinedScan(const Machine &M,
                                            const Request &R) {
  uint64_t Count = elementCount(R);
  int64_t K;
  if (R.Segments > 0) {
    K = Count ? R.Segments : 1;
  } else {
    // (k + P)(2 T_send(M/k) + t_op M/k) is least at
    // k = sqrt(P M (2/B + t_op) / (2 t_s)).
    Affine Hold = M.M.holdAffine();
    double Ts = Hold.Base;
    double PerByte = 2 * Hold.PerByte + M.M.OpPerByte;
    double Want = Ts > 0 ? std::sqrt(R.size() * static_cast<double>(R.Bytes) *
                                     PerByte / (2 * Ts))
                         : static_cast<double>(Count);
    K = segmentsFor(Count, elementBytes(R.Datatype), Want,
                    maxSegmentsFor(R.size()), R.size(), M.M);
  }
  return chainScan(M, R, "pipelined", K);
}

llvm::Expected<Schedule> buildBrentKungScan(const Machine &M,
                                            const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "brent-kung");
  const int32_t P = S.size();
  Reducer Rd(S);
  bool Ex = R.Coll == Collective::Exscan;
  const int64_t N = Ex ? P - 1 : P;
  std::vector<int64_t> Levels;
  for (int64_t D = 1; D < N; D *= 2) {
    Levels.push_back(D);
    for (int64_t I = 2 * D - 1; I < N; I += 2 * D)
      Rd.send(static_cast<int32_t>(I - D), static_cast<int32_t>(I), 0, 1);
  }
  for (auto It = Levels.rbegin(); It != Levels.rend(); ++It) {
    int64_t D = *It;
    for (int64_t I = 2 * D - 1; I + D < N; I += 2 * D)
      Rd.send(static_cast<int32_t>(I), static_cast<int32_t>(I + D), 0, 1);
  }
  if (Ex)
    shiftIntoResult(Rd, P, 1);
  S.Steps = orderedRounds(std::move(Rd.Ts), P);
  return S;
}

llvm::Expected<Schedule> buildRootPScan(const Machine &M, const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "rootp");
  const int32_t P = S.size();
  Reducer Rd(S);
  bool Ex = R.Coll == Collective::Exscan;
  const int32_t N = Ex ? P - 1 : P;
  // Blocks of 1, 2, 3, ... ranks; the last one is cut at N.
  std::vector<int32_t> First{0};
  for (int32_t Size = 1; First.back() < N; ++Size)
    First.push_back(std::min(N, First.back() + Size));
  const size_t Blocks = First.size() - 1;
  // Local scans along each block.
  for (size_t B = 0; B < Blocks; ++B)
    for (int32_t I = First[B] + 1; I < First[B + 1]; ++I)
      Rd.send(I - 1, I, 0, 1);
  // The end of block b-1 holds the prefix through it: it passes it first to
  // the end of block b (the chain of block totals), then to block b's
  // other ranks.
  for (size_t B = 1; B < Blocks; ++B) {
    int32_t From = First[B] - 1, Last = First[B + 1] - 1;
    Rd.send(From, Last, 0, 1);
    for (int32_t I = First[B]; I < Last; ++I)
      Rd.send(From, I, 0, 1);
  }
  if (Ex)
    shiftIntoResult(Rd, P, 1);
  S.Steps = orderedRounds(std::move(Rd.Ts), P);
  return S;
}

} // namespace collc
