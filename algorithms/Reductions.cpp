#include "algorithms/Reductions.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

/// The binomial reduce of ranks Rank(0..N-1) to Rank(0): at level m, the
/// relative rank i with i mod 2m = m combines its subtree into i - m.
template <typename RankFn>
void binomialReduceTree(Reducer &Rd, int64_t N, RankFn Rank) {
  for (int64_t Mask = 1; Mask < N; Mask <<= 1)
    for (int64_t I = Mask; I < N; I += 2 * Mask)
      Rd.send(Rank(I), Rank(I - Mask), 0, 1);
}

} // namespace

llvm::Expected<Schedule> buildBinomialReduce(const Machine &M,
                                             const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  Reducer Rd(S);
  // Commutative operators reduce along a tree rooted at the root; otherwise
  // along the tree of ranks in order rooted at rank 0, whose subtrees are
  // adjacent rank ranges.
  int32_t TreeRoot = R.Commutative ? S.Root : 0;
  binomialReduceTree(Rd, P, [&](int64_t I) { return relRank(I, TreeRoot, P); });
  if (R.Coll == Collective::Reduce && TreeRoot != S.Root)
    Rd.send(TreeRoot, S.Root, 0, 1, TransferKind::Copy);
  if (R.Coll == Collective::Allreduce) {
    int64_t Top = 1;
    while (Top < P)
      Top <<= 1;
    for (int64_t Mask = Top / 2; Mask >= 1; Mask >>= 1)
      for (int64_t I = 0; I + Mask < P; I += 2 * Mask)
        Rd.send(relRank(I, TreeRoot, P), relRank(I + Mask, TreeRoot, P), 0, 1,
                TransferKind::Copy);
  }
  S.Steps = orderedRounds(Rd.Ts, P);
  return S;
}

bool reduceScatterApplies(const Machine &, const Request &R, std::string &Why) {
  int64_t Core = floorPow2(std::max(1, R.size()));
  const uint64_t Count = elementCount(R);
  if (Count > 0 && Count < static_cast<uint64_t>(Core)) {
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

llvm::Expected<Schedule> buildReduceScatterAllgather(const Machine &M,
                                                     const Request &R) {
  std::string Why;
  if (!reduceScatterApplies(M, R, Why))
    return notApplicable("reduce-scatter-allgather", Why);
  Schedule S = scheduleSkeleton(M, R, "reduce-scatter-allgather");
  const int32_t P = S.size();
  const int64_t Core = floorPow2(P), Extra = P - Core;
  S.NumChunks = Core;
  Reducer Rd(S);
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
  // into it), c + Extra after.
  auto CoreRank = [&](int64_t C) { return Rel(C < Extra ? 2 * C : C + Extra); };
  for (int64_t I = 0; I < Extra; ++I)
    Rd.send(Rel(2 * I + 1), Rel(2 * I), 0, Core);
  std::vector<int64_t> Masks; // the reduce-scatter's partners, in order
  for (int64_t Mask = 1; Mask < Core; Mask <<= 1)
    Masks.push_back(Mask);
  // Recursive halving: core c keeps the half of its range on its side of
  // bit m and sends the other half to c ^ m, which combines it.
  std::vector<int64_t> Lo(Core, 0), Hi(Core, Core);
  for (int64_t Mask : Masks) {
    Rd.begin();
    for (int64_t C = 0; C < Core; ++C) {
      int64_t Mid = (Lo[C] + Hi[C]) / 2;
      if (C & Mask)
        Rd.send(CoreRank(C), CoreRank(C ^ Mask), Lo[C], Mid);
      else
        Rd.send(CoreRank(C), CoreRank(C ^ Mask), Mid, Hi[C]);
    }
    Rd.end();
    for (int64_t C = 0; C < Core; ++C) {
      int64_t Mid = (Lo[C] + Hi[C]) / 2;
      (C & Mask ? Lo[C] : Hi[C]) = Mid;
    }
  }
  // Core c now holds its segments reduced over every rank. The way back
  // takes the partners in reverse: c and c ^ m hold adjacent ranges.
  std::reverse(Masks.begin(), Masks.end());
  auto Join = [&](int64_t C, int64_t D) {
    Lo[C] = std::min(Lo[C], Lo[D]);
    Hi[C] = std::max(Hi[C], Hi[D]);
  };
  if (R.Coll == Collective::Allreduce) {
    for (int64_t Mask : Masks) {
      Rd.begin();
      for (int64_t C = 0; C < Core; ++C)
        Rd.send(CoreRank(C), CoreRank(C ^ Mask), Lo[C], Hi[C],
                TransferKind::Copy);
      Rd.end();
      std::vector<int64_t> Lo0 = Lo, Hi0 = Hi;
      for (int64_t C = 0; C < Core; ++C) {
        Lo[C] = std::min(Lo0[C], Lo0[C ^ Mask]);
        Hi[C] = std::max(Hi0[C], Hi0[C ^ Mask]);
      }
    }
    for (int64_t I = 0; I < Extra; ++I)
      Rd.send(Rel(2 * I), Rel(2 * I + 1), 0, Core, TransferKind::Copy);
  } else {
    // Binomial gather to core 0: at partner m, every core with bit m set
    // that has not sent yet sends all it holds to c - m.
    int64_t Sent = 0; // the partners already taken
    for (int64_t Mask : Masks) {
      for (int64_t C = Mask; C < Core; ++C)
        if ((C & Mask) && !(C & Sent)) {
          Rd.send(CoreRank(C), CoreRank(C - Mask), Lo[C], Hi[C],
                  TransferKind::Copy);
          Join(C - Mask, C);
        }
      Sent |= Mask;
    }
    if (Base != S.Root)
      Rd.send(Base, S.Root, 0, Core, TransferKind::Copy);
  }
  S.Steps = orderedRounds(Rd.Ts, P, &Rd.Groups);
  return S;
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
  Schedule S = scheduleSkeleton(M, R, "reduce-scatter-direct");
  const int32_t P = S.size();
  const int64_t K = std::clamp<int64_t>(
      static_cast<int64_t>(std::min<uint64_t>(elementCount(R), P)), 1, P);
  S.NumChunks = K;
  Reducer Rd(S);
  // One all-to-all: owner b folds block b of every other rank.
  for (int32_t B = 0; B < K; ++B)
    for (int32_t X : foldOrder(B, P))
      Rd.send(X, B, B, B + 1, TransferKind::Combine, 0, 1, /*Tag=*/0);
  if (R.Coll == Collective::Reduce) {
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
  S.Steps = groupedRounds(M, Rd.Ts, P, Rd.Tags);
  return S;
}

} // namespace

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
  S.Steps = groupedRounds(M, Rd.Ts, P, Rd.Tags);
  return S;
}

bool reduceScatterDirectApplies(const Machine &, const Request &R,
                                std::string &Why) {
  // An all-to-all of blocks, then an allgather: P (P - 1) transfers each.
  const double P = R.size();
  return transfersFit(2 * P * (P - 1), Why);
}

llvm::Expected<Schedule>
buildReduceScatterDirect(const Machine &M, const Request &R, Pipeline &P) {
  if (R.Coll == Collective::Reduce)
    return reduceScatterDirect(M, R, BlockAllgather::Direct);
  Cheapest Search(M, P, makespanJudge());
  Search.consider("allgather=direct", [&]() -> llvm::Expected<Schedule> {
    return reduceScatterDirect(M, R, BlockAllgather::Direct);
  });
  Search.consider("allgather=ring", [&]() -> llvm::Expected<Schedule> {
    return reduceScatterDirect(M, R, BlockAllgather::Ring);
  });
  return Search.take();
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
  std::string Why;
  if (!scanApplies(M, R, Why))
    return notApplicable("pipelined", Why);
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
  S.Steps = orderedRounds(Rd.Ts, P);
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
  S.Steps = orderedRounds(Rd.Ts, P);
  return S;
}

} // namespace collc
