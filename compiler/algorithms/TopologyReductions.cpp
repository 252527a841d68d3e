#include "compiler/algorithms/TopologyReductions.h"

#include "compiler/algorithms/Placement.h"
#include "compiler/algorithms/Reducer.h"
#include "compiler/algorithms/Reductions.h"
#include "passes/Cost.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace collc {

namespace {

llvm::Error failure(const char *Algorithm, const std::string &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                 Algorithm, Why.c_str());
}

/// The divisor of \p N (at least 2) nearest to \p Want on a log scale.
int64_t divisorNear(int64_t N, double Want) {
  int64_t Best = N;
  double BestGap = std::abs(std::log(double(N) / Want));
  for (int64_t D = 2; D < N; ++D)
    if (N % D == 0) {
      double Gap = std::abs(std::log(double(D) / Want));
      if (Gap < BestGap) {
        Best = D;
        BestGap = Gap;
      }
    }
  return Best;
}

/// Ring positions of coordinates 0..L-1: in order, or on a mesh with \p Fold
/// the even ones up and the odd ones down.
std::vector<int64_t> ringSequence(int64_t L, bool Fold) {
  std::vector<int64_t> Seq;
  for (int64_t C = 0; C < L; C += Fold ? 2 : 1)
    Seq.push_back(C);
  if (Fold)
    for (int64_t C = (L - 1) % 2 ? L - 1 : L - 2; C > 0; C -= 2)
      Seq.push_back(C);
  return Seq;
}

/// Grid index arithmetic of a RingGrid.
struct GridIndex {
  std::vector<int64_t> Stride; // Stride[j] = prod_{i<j} L_i
  explicit GridIndex(const std::vector<int64_t> &Ext) {
    int64_t X = 1;
    for (int64_t L : Ext) {
      Stride.push_back(X);
      X *= L;
    }
  }
  int64_t digit(int64_t V, size_t J, int64_t L) const {
    return V / Stride[J] % L;
  }
  /// The grid index of \p V with digit J set to \p Q.
  int64_t with(int64_t V, size_t J, int64_t L, int64_t Q) const {
    return V + (Q - digit(V, J, L)) * Stride[J];
  }
};

/// The core of recursive halving and doubling: 2^d grid indices; with P
/// not a power of two, core c < Extra stands for grid indices 2c and 2c + 1
/// (MPICH's fold), the others for c + Extra.
struct PowerCore {
  std::vector<int32_t> Order;
  int64_t Core = 1, Extra = 0;

  PowerCore(const Machine &M, const Request &R) {
    const int32_t P = R.size();
    if (R.Commutative) {
      Order = ringGrid(M, R, /*Fold=*/false).Order;
    } else {
      // Adjacent rank ranges need the ranks in order.
      Order.resize(P);
      std::iota(Order.begin(), Order.end(), 0);
    }
    while (Core * 2 <= P)
      Core *= 2;
    Extra = P - Core;
  }
  int32_t rank(int64_t C) const { return Order[C < Extra ? 2 * C : C + Extra]; }
  /// Grid index 2c + 1 folds its chunks [0, K) into 2c, for c < Extra.
  void foldIn(Reducer &Rd, int64_t K) const {
    for (int64_t C = 0; C < Extra; ++C)
      Rd.send(Order[2 * C + 1], Order[2 * C], 0, K);
  }
  /// 2c copies the result back to 2c + 1.
  void copyOut(Reducer &Rd, int64_t K) const {
    for (int64_t C = 0; C < Extra; ++C)
      Rd.send(Order[2 * C], Order[2 * C + 1], 0, K, TransferKind::Copy);
  }
};

/// Allgather atoms of grid indices [V0, V1) (their ranks through \p Order),
/// chunks \p Chunks, for every rank.
Transfer gridBlocks(const Schedule &S, const std::vector<int32_t> &Order,
                    int32_t Src, int32_t Dst, int64_t V0, int64_t V1,
                    Interval Chunks) {
  std::vector<int32_t> Ranks(Order.begin() + V0, Order.begin() + V1);
  std::sort(Ranks.begin(), Ranks.end());
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  const uint64_t PerOrigin = S.chunkBytes(Chunks);
  for (size_t I = 0; I < Ranks.size();) {
    size_t E = I + 1;
    while (E < Ranks.size() && Ranks[E] == Ranks[E - 1] + 1)
      ++E;
    T.Pieces.push_back({{Ranks[I], Ranks[E - 1] + 1}, {0, S.size()}, Chunks});
    T.Bytes += PerOrigin * (E - I);
    I = E;
  }
  return T;
}

/// How the pieces of a ring step are cut: in Directions halves (one per
/// ring direction), each in Segments parts sent in consecutive steps.
struct RingCut {
  int64_t Directions = 1, Segments = 1;
  int64_t parts() const { return Directions * Segments; }
};

/// The sub-range of ring position \p Q of a range [Lo, Hi) cut in \p L
/// equal parts (the caller keeps Hi - Lo a multiple of L x Cut.parts()), and
/// of it the part of direction \p Dir and segment \p Seg.
Interval subRange(int64_t Lo, int64_t Hi, int64_t L, int64_t Q,
                  const RingCut &Cut = {}, int64_t Dir = 0, int64_t Seg = 0) {
  const int64_t Len = (Hi - Lo) / L;
  const int64_t A = Lo + Len * Q, Part = Len / Cut.parts();
  const int64_t I = Dir * Cut.Segments + Seg;
  return {A + Part * I, A + Part * (I + 1)};
}

int64_t mod(int64_t A, int64_t L) { return ((A % L) + L) % L; }

/// One ring step of every ring of a dimension: per segment, per grid index
/// v, \p Send(v, Dir, Seg) lists its transfer in direction Dir (0 to the
/// ring successor, 1 to the predecessor). Both directions of a segment
/// share a batch (one step) when the machine has two ports, else each
/// direction gets its own.
template <typename SendFn>
void ringStep(Reducer &Rd, const Machine &M, int64_t P, int64_t Directions,
              int64_t Segments, SendFn Send) {
  for (int64_t Seg = 0; Seg < Segments; ++Seg)
    for (int64_t Dir = 0; Dir < Directions; ++Dir) {
      if (Dir == 0 || M.Ports < 2)
        Rd.begin();
      for (int64_t V = 0; V < P; ++V)
        Send(V, Dir, Seg);
      if (Dir + 1 == Directions || M.Ports < 2)
        Rd.end();
    }
}

/// Allreduce along the dimension rings, pieces cut as \p Cut.
Schedule ringAllreduce(const Machine &M, const Request &R, RingCut Cut) {
  Schedule S = scheduleSkeleton(M, R, "dimension-rings");
  const int32_t P = S.size();
  RingGrid G = ringGrid(M, R, /*Fold=*/R.Commutative);
  if (!R.Commutative) {
    // Two-sided chains keep rank order only on ranks in order.
    std::iota(G.Order.begin(), G.Order.end(), 0);
    Cut.Directions = 1;
  }
  const GridIndex Ix(G.Extents);
  S.NumChunks = std::max<int64_t>(1, int64_t(P) * Cut.parts());
  Reducer Rd(S);
  std::vector<Interval> Range(P, Interval{0, S.NumChunks});
  std::vector<std::vector<Interval>> Parent;
  for (size_t J = 0; J < G.Extents.size(); ++J) {
    const int64_t L = G.Extents[J];
    auto Next = [&](int64_t V, int64_t Dir) {
      const int64_t Q = Ix.digit(V, J, L);
      return G.Order[Ix.with(V, J, L, mod(Q + (Dir ? -1 : 1), L))];
    };
    for (int64_t Step = 0; Step + 1 < L; ++Step) {
      if (R.Commutative) {
        // Ring reduce-scatter: the piece of position b starts at b + 1 (the
        // other direction: b - 1) and ends at b, reduced over the ring.
        ringStep(Rd, M, P, Cut.Directions, Cut.Segments,
                 [&](int64_t V, int64_t Dir, int64_t Seg) {
                   const int64_t Q = Ix.digit(V, J, L);
                   const int64_t B = mod(Dir ? Q + Step + 1 : Q - Step - 1, L);
                   Interval C =
                       subRange(Range[V].Lo, Range[V].Hi, L, B, Cut, Dir, Seg);
                   Rd.send(G.Order[V], Next(V, Dir), C.Lo, C.Hi);
                 });
        continue;
      }
      // Two-sided chains: the piece of position b gathers positions 0..b-1
      // up a chain from 0 and positions b+1..L-1 down a chain from L-1;
      // position p sends its upward pieces farthest first from step p, its
      // downward ones from step L-1-p.
      ringStep(
          Rd, M, P, 2, Cut.Segments, [&](int64_t V, int64_t Dir, int64_t Seg) {
            const int64_t Q = Ix.digit(V, J, L);
            const int64_t B = Dir ? Step - (L - 1 - Q) : L - 1 - (Step - Q);
            if (Dir ? (Step < L - 1 - Q || B >= Q) : (Step < Q || B <= Q))
              return;
            Interval C = subRange(Range[V].Lo, Range[V].Hi, L, B, Cut, 0, Seg);
            Rd.send(G.Order[V], Next(V, Dir), C.Lo, C.Hi);
          });
    }
    Parent.push_back(Range);
    for (int64_t V = 0; V < P; ++V)
      Range[V] = subRange(Range[V].Lo, Range[V].Hi, L, Ix.digit(V, J, L));
  }
  // Allgather back, dimension by dimension in reverse: position q passes on
  // the piece of position q - s (the other direction: q + s).
  for (size_t J = G.Extents.size(); J-- > 0;) {
    const int64_t L = G.Extents[J];
    const std::vector<Interval> &Whole = Parent[J];
    for (int64_t Step = 0; Step + 1 < L; ++Step)
      ringStep(
          Rd, M, P, Cut.Directions, Cut.Segments,
          [&](int64_t V, int64_t Dir, int64_t Seg) {
            const int64_t Q = Ix.digit(V, J, L);
            const int64_t B = mod(Dir ? Q + Step : Q - Step, L);
            Interval C =
                subRange(Whole[V].Lo, Whole[V].Hi, L, B, Cut, Dir, Seg);
            const int64_t To = Ix.with(V, J, L, mod(Q + (Dir ? -1 : 1), L));
            Rd.send(G.Order[V], G.Order[To], C.Lo, C.Hi, TransferKind::Copy);
          });
  }
  S.Steps = orderedRounds(Rd.Ts, P, &Rd.Groups);
  return S;
}

/// Allgather along the dimension rings: each block in Cut.parts() chunks,
/// Cut.Segments per direction.
Schedule ringAllgather(const Machine &M, const Request &R, RingCut Cut) {
  Schedule S = scheduleSkeleton(M, R, "dimension-rings");
  const int32_t P = S.size();
  const RingGrid G = ringGrid(M, R, /*Fold=*/true);
  const GridIndex Ix(G.Extents);
  S.NumChunks = Cut.parts();
  for (size_t J = 0; J < G.Extents.size(); ++J) {
    const int64_t L = G.Extents[J], W = Ix.Stride[J];
    // After dimensions < J, grid index v holds the blocks of the indices
    // that share its digits >= J: the group of position b is [Base + bW,
    // Base + (b+1)W), Base = v with digits <= J cleared.
    for (int64_t Step = 0; Step + 1 < L; ++Step)
      for (int64_t Seg = 0; Seg < Cut.Segments; ++Seg)
        for (int64_t Dir = 0; Dir < Cut.Directions; ++Dir) {
          if (Dir == 0 || M.Ports < 2)
            S.Steps.emplace_back();
          const int64_t Chunk = Dir * Cut.Segments + Seg;
          for (int64_t V = 0; V < P; ++V) {
            const int64_t Q = Ix.digit(V, J, L);
            const int64_t B = mod(Dir ? Q + Step : Q - Step, L);
            const int64_t Base = V - V % (W * L);
            const int64_t To = Ix.with(V, J, L, mod(Q + (Dir ? -1 : 1), L));
            S.Steps.back().Transfers.push_back(
                gridBlocks(S, G.Order, G.Order[V], G.Order[To], Base + B * W,
                           Base + (B + 1) * W, {Chunk, Chunk + 1}));
          }
        }
  }
  return S;
}

/// The element count of a reduction, the byte count of anything else.
uint64_t units(const Request &R) { return R.Bytes / elementBytes(R.Datatype); }

/// The pieces per rank a cut needs: the allreduce cuts the vector in P x
/// parts, the allgather each block in parts.
int64_t piecesPerRank(const Request &R, const RingCut &Cut) {
  const int64_t Parts = R.Commutative || R.Coll == Collective::Allgather
                            ? Cut.parts()
                            : Cut.Segments;
  return R.Coll == Collective::Allgather ? Parts : Parts * R.size();
}

/// Whether \p Cut gives every piece an element (or the message is empty) and
/// stays within the (rank, segment) pairs a schedule may have; else why not.
bool cutFits(const Request &R, const RingCut &Cut, std::string &Why) {
  const uint64_t Count = units(R), Need = uint64_t(piecesPerRank(R, Cut));
  if (Count > 0 && Count < Need) {
    Why = "the " +
          std::string(R.Coll == Collective::Allgather ? "byte" : "element") +
          " count (" + std::to_string(Count) + ") must be 0 or at least " +
          std::to_string(Need) + " (one per piece)";
    return false;
  }
  if (int64_t(Need) > maxSegmentsFor(R.size())) {
    Why = std::to_string(R.size()) + " ranks x " + std::to_string(Need) +
          " pieces exceed the " + std::to_string(MaxRankSegments) +
          " (rank, segment) pairs a schedule may have";
    return false;
  }
  return true;
}

} // namespace

RingGrid ringGrid(const Machine &M, const Request &R, bool Fold) {
  RingGrid G;
  const int32_t P = R.size();
  G.Order.resize(P);
  std::iota(G.Order.begin(), G.Order.end(), 0);
  std::stable_sort(G.Order.begin(), G.Order.end(), [&](int32_t A, int32_t B) {
    return R.Nodes[A] < R.Nodes[B];
  });
  const Topology &T = M.Topo;
  bool Full = T.hasCoordinates() && T.Nodes == P;
  for (int32_t I = 0; Full && I < P; ++I)
    Full = R.Nodes[G.Order[I]] == I;
  if (Full) {
    // Dimension 0 is the stride-1 dimension, the last written one.
    const size_t N = T.Dims.size();
    std::vector<std::vector<int64_t>> Seq;
    std::vector<size_t> Written;
    for (size_t J = 0; J < N; ++J) {
      const size_t W = N - 1 - J;
      if (T.Dims[W] < 2)
        continue;
      G.Extents.push_back(T.Dims[W]);
      Seq.push_back(
          ringSequence(T.Dims[W], Fold && T.Kind == TopologyKind::Mesh));
      Written.push_back(W);
    }
    std::vector<int32_t> ByNode = G.Order;
    std::vector<int64_t> Coord(N, 0);
    for (int64_t V = 0; V < P; ++V) {
      int64_t X = V;
      for (size_t J = 0; J < Seq.size(); ++J) {
        Coord[Written[J]] = Seq[J][X % G.Extents[J]];
        X /= G.Extents[J];
      }
      G.Order[V] = ByNode[T.nodeOf(Coord)];
    }
    G.Physical = true;
    return G;
  }
  // Groups of consecutive ranks in node order, near the natural group sizes.
  std::vector<int64_t> Natural;
  if (T.hasCoordinates())
    Natural.assign(T.Dims.rbegin(), T.Dims.rend());
  else if (T.Kind == TopologyKind::FatTree)
    Natural = T.Down;
  for (int64_t Rest = P, I = 0; Rest > 1; ++I) {
    double Want = size_t(I) < Natural.size() ? double(Natural[I])
                  : I == 0                   ? std::sqrt(double(Rest))
                                             : double(Rest);
    int64_t L = divisorNear(Rest, std::max(2.0, Want));
    G.Extents.push_back(L);
    Rest /= L;
  }
  return G;
}

bool onNetwork(const Machine &M, const Request &, std::string &Why) {
  if (M.Net)
    return true;
  Why = "auto considers it only on a machine with a network";
  return false;
}

bool nearestHalvingApplies(const Machine &M, const Request &R,
                           std::string &Why) {
  return reduceScatterApplies(M, R, Why);
}

llvm::Expected<Schedule> buildNearestHalving(const Machine &M,
                                             const Request &R) {
  std::string Why;
  if (!nearestHalvingApplies(M, R, Why))
    return failure("nearest-halving", Why);
  Schedule S = scheduleSkeleton(M, R, "nearest-halving");
  const PowerCore PC(M, R);
  const int64_t Core = PC.Core;
  S.NumChunks = Core;
  Reducer Rd(S);
  PC.foldIn(Rd, Core);
  // Halving, nearest partner first: core c keeps the half of its range on
  // its side of bit m and sends the other half to c ^ m, which combines it.
  std::vector<Interval> Range(Core, Interval{0, Core});
  for (int64_t Mask = 1; Mask < Core; Mask <<= 1) {
    Rd.begin();
    for (int64_t C = 0; C < Core; ++C) {
      const int64_t Mid = (Range[C].Lo + Range[C].Hi) / 2;
      const bool Upper = C & Mask;
      Rd.send(PC.rank(C), PC.rank(C ^ Mask), Upper ? Range[C].Lo : Mid,
              Upper ? Mid : Range[C].Hi);
    }
    Rd.end();
    for (int64_t C = 0; C < Core; ++C) {
      const int64_t Mid = (Range[C].Lo + Range[C].Hi) / 2;
      (C & Mask ? Range[C].Lo : Range[C].Hi) = Mid;
    }
  }
  // Doubling back, farthest partner first: c and c ^ m hold adjacent ranges.
  for (int64_t Mask = Core / 2; Mask >= 1; Mask >>= 1) {
    Rd.begin();
    for (int64_t C = 0; C < Core; ++C)
      Rd.send(PC.rank(C), PC.rank(C ^ Mask), Range[C].Lo, Range[C].Hi,
              TransferKind::Copy);
    Rd.end();
    std::vector<Interval> Before = Range;
    for (int64_t C = 0; C < Core; ++C)
      Range[C] = {std::min(Before[C].Lo, Before[C ^ Mask].Lo),
                  std::max(Before[C].Hi, Before[C ^ Mask].Hi)};
  }
  PC.copyOut(Rd, Core);
  S.Steps = orderedRounds(Rd.Ts, S.size(), &Rd.Groups);
  return S;
}

llvm::Expected<Schedule> buildNearestDoubling(const Machine &M,
                                              const Request &R) {
  Schedule S = scheduleSkeleton(M, R, "nearest-doubling");
  const PowerCore PC(M, R);
  Reducer Rd(S);
  PC.foldIn(Rd, 1);
  for (int64_t Mask = 1; Mask < PC.Core; Mask <<= 1) {
    Rd.begin();
    for (int64_t C = 0; C < PC.Core; ++C)
      Rd.send(PC.rank(C), PC.rank(C ^ Mask), 0, 1);
    Rd.end();
  }
  PC.copyOut(Rd, 1);
  S.Steps = orderedRounds(Rd.Ts, S.size(), &Rd.Groups);
  return S;
}

bool dimensionRingsApplies(const Machine &, const Request &R,
                           std::string &Why) {
  return cutFits(R, RingCut{1, std::max<int64_t>(1, R.Segments)}, Why);
}

llvm::Expected<Schedule> buildDimensionRings(const Machine &M,
                                             const Request &R) {
  std::string Why;
  if (!dimensionRingsApplies(M, R, Why))
    return failure("dimension-rings", Why);
  auto Build = [&](RingCut Cut) {
    return R.Coll == Collective::Allgather ? ringAllgather(M, R, Cut)
                                           : ringAllreduce(M, R, Cut);
  };
  // One direction or both (a non-commutative allreduce's chains use both
  // anyway), whichever the machine's cost pass times faster; the request's
  // segments cut each piece further. (Searching the segments as well made
  // auto's choice several times slower and never won on the bundled
  // platforms: docs/network.md.)
  const int64_t Segments = std::max<int64_t>(1, R.Segments);
  std::optional<Schedule> Best;
  for (int64_t D = 1; D <= 2; ++D) {
    if (D == 2 && (R.size() < 2 || !cutFits(R, RingCut{2, Segments}, Why) ||
                   (!R.Commutative && R.Coll == Collective::Allreduce)))
      break;
    Schedule S = Build(RingCut{D, Segments});
    estimateCost(S, M);
    if (!Best || S.Makespan < Best->Makespan)
      Best = std::move(S);
  }
  return std::move(*Best);
}

} // namespace collc
