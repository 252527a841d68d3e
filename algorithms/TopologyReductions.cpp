#include "algorithms/TopologyReductions.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"
#include "algorithms/Reductions.h"
#include "passes/Cost.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace collc {

namespace {

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

/// Allgather atoms of the grid indices \p Vs (their ranks through \p Order),
/// chunks \p Chunks, for every rank.
Transfer gridBlocks(const Schedule &S, const std::vector<int32_t> &Order,
                    int32_t Src, int32_t Dst, const std::vector<int64_t> &Vs,
                    Interval Chunks) {
  std::vector<int32_t> Ranks;
  for (int64_t V : Vs)
    Ranks.push_back(Order[V]);
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

/// How the ring algorithms cut the data: in lanes that run side by side,
/// each with its share of the chunks, its ring direction and its order of
/// the dimensions (two directions and two orders: four lanes, which keep
/// every link direction of a 2-D torus busy at once), and each lane's
/// pieces in Segments parts sent in consecutive steps.
struct RingCut {
  int64_t Directions = 1, Orders = 1, Segments = 1;
  int64_t lanes() const { return Directions * Orders; }
  int64_t parts() const { return lanes() * Segments; }
};

/// A lane: its ring direction (0 to the successor, 1 to the predecessor)
/// and the dimensions in the order it takes them.
struct Lane {
  int64_t Dir = 0;
  std::vector<size_t> Dims;
};

std::vector<Lane> lanesOf(const RingCut &Cut, size_t NumDims) {
  std::vector<Lane> Lanes;
  for (int64_t O = 0; O < Cut.Orders; ++O)
    for (int64_t D = 0; D < Cut.Directions; ++D) {
      Lane L{D, {}};
      for (size_t J = 0; J < NumDims; ++J)
        L.Dims.push_back(O ? NumDims - 1 - J : J);
      Lanes.push_back(std::move(L));
    }
  return Lanes;
}

int64_t mod(int64_t A, int64_t L) { return ((A % L) + L) % L; }

/// The part of ring position \p Q of \p Range cut in \p L equal parts (the
/// caller keeps the size a multiple of L x Segments), and of it segment
/// \p Seg of \p Segments.
Interval subRange(Interval Range, int64_t L, int64_t Q, int64_t Segments = 1,
                  int64_t Seg = 0) {
  const int64_t Len = Range.size() / L;
  const int64_t A = Range.Lo + Len * Q, Part = Len / Segments;
  return {A + Part * Seg, A + Part * (Seg + 1)};
}

/// The ring phases of the lanes of \p Cut over the grid, as batches of ring
/// steps. Phase T of lane l rings along dimension Lanes[l].Dims[T]; the
/// lanes' steps interleave (a batch holds as many lanes as the machine has
/// ports). \p Send(l, V, J, Step, Seg) lists grid index V's transfer.
class RingPhases {
public:
  RingPhases(const Machine &M, const RingGrid &G, const RingCut &Cut)
      : G(G), Cut(Cut), Lanes(lanesOf(Cut, G.Extents.size())),
        Ports(std::max<int64_t>(1, M.Ports)) {
    int64_t X = 1;
    for (int64_t L : G.Extents) {
      Stride.push_back(X);
      X *= L;
    }
  }

  int64_t extent(size_t J) const { return G.Extents[J]; }
  int64_t digit(int64_t V, size_t J) const {
    return V / Stride[J] % G.Extents[J];
  }
  /// The grid index of \p V with digit J set to \p Q (mod L_J).
  int64_t with(int64_t V, size_t J, int64_t Q) const {
    return V + (mod(Q, G.Extents[J]) - digit(V, J)) * Stride[J];
  }
  /// The rank after \p V on its ring of dimension J in direction \p Dir.
  int32_t next(int64_t V, size_t J, int64_t Dir) const {
    return G.Order[with(V, J, digit(V, J) + (Dir ? -1 : 1))];
  }

  /// Runs phase \p T of every lane: per step and segment, one batch per
  /// \p Ports lanes (\p Open and \p Close delimit a batch).
  template <typename SendFn, typename OpenFn, typename CloseFn>
  void phase(size_t T, SendFn Send, OpenFn Open, CloseFn Close) const {
    int64_t MaxL = 1;
    for (const Lane &Ln : Lanes)
      MaxL = std::max(MaxL, extent(Ln.Dims[T]));
    const int64_t P = int64_t(G.Order.size());
    for (int64_t Step = 0; Step + 1 < MaxL; ++Step)
      for (int64_t Seg = 0; Seg < Cut.Segments; ++Seg) {
        int64_t InBatch = 0;
        for (size_t L = 0; L < Lanes.size(); ++L) {
          const size_t J = Lanes[L].Dims[T];
          if (Step + 1 >= extent(J))
            continue;
          if (InBatch == 0)
            Open();
          for (int64_t V = 0; V < P; ++V)
            Send(L, V, J, Step, Seg);
          if (++InBatch == Ports) {
            Close();
            InBatch = 0;
          }
        }
        if (InBatch)
          Close();
      }
  }

  const RingGrid &G;
  const RingCut Cut;
  const std::vector<Lane> Lanes;
  const int64_t Ports;
  std::vector<int64_t> Stride;
};

/// Allreduce along the rings of \p G, cut as \p Cut, named \p Name.
Schedule ringAllreduce(const Machine &M, const Request &R, RingCut Cut,
                       RingGrid G, const char *Name) {
  Schedule S = scheduleSkeleton(M, R, Name);
  const int32_t P = S.size();
  if (!R.Commutative) {
    // Two-sided chains keep rank order only on ranks in order, one lane.
    std::iota(G.Order.begin(), G.Order.end(), 0);
    Cut.Directions = Cut.Orders = 1;
  }
  const RingPhases Ph(M, G, Cut);
  const size_t N = G.Extents.size(), NL = Ph.Lanes.size();
  S.NumChunks = std::max<int64_t>(1, int64_t(P) * Cut.parts());
  Reducer Rd(S);
  auto Open = [&] { Rd.begin(); };
  auto Close = [&] { Rd.end(); };
  // Range[l][v]: the chunks lane l of grid index v still reduces.
  const int64_t LaneLen = S.NumChunks / int64_t(NL);
  std::vector<std::vector<Interval>> Range;
  for (size_t L = 0; L < NL; ++L)
    Range.emplace_back(
        P, Interval{int64_t(L) * LaneLen, int64_t(L + 1) * LaneLen});
  std::vector<std::vector<std::vector<Interval>>> Parent(NL);
  for (size_t T = 0; T < N; ++T) {
    if (R.Commutative) {
      // Ring reduce-scatter: the piece of position b starts at b + 1 (the
      // other direction: b - 1) and ends at b, reduced over the ring.
      Ph.phase(
          T,
          [&](size_t L, int64_t V, size_t J, int64_t Step, int64_t Seg) {
            const int64_t Dir = Ph.Lanes[L].Dir, Q = Ph.digit(V, J);
            const int64_t B =
                mod(Dir ? Q + Step + 1 : Q - Step - 1, Ph.extent(J));
            Interval C =
                subRange(Range[L][V], Ph.extent(J), B, Cut.Segments, Seg);
            Rd.send(G.Order[V], Ph.next(V, J, Dir), C.Lo, C.Hi);
          },
          Open, Close);
    } else {
      // Two-sided chains: the piece of position b gathers positions 0..b-1
      // up a chain from 0 and positions b+1..L-1 down a chain from L-1;
      // position p sends its upward pieces farthest first from step p, its
      // downward ones from step L-1-p.
      RingCut Both = Cut;
      Both.Directions = 2;
      const RingPhases Chains(M, G, Both);
      Chains.phase(
          T,
          [&](size_t Dir, int64_t V, size_t J, int64_t Step, int64_t Seg) {
            const int64_t L = Ph.extent(J), Q = Ph.digit(V, J);
            const int64_t B = Dir ? Step - (L - 1 - Q) : L - 1 - (Step - Q);
            if (Dir ? (Step < L - 1 - Q || B >= Q) : (Step < Q || B <= Q))
              return;
            Interval C = subRange(Range[0][V], L, B, Cut.Segments, Seg);
            Rd.send(G.Order[V], Ph.G.Order[Ph.with(V, J, Q + (Dir ? -1 : 1))],
                    C.Lo, C.Hi);
          },
          Open, Close);
    }
    for (size_t L = 0; L < NL; ++L) {
      Parent[L].push_back(Range[L]);
      const size_t J = Ph.Lanes[L].Dims[T];
      for (int64_t V = 0; V < P; ++V)
        Range[L][V] = subRange(Range[L][V], Ph.extent(J), Ph.digit(V, J));
    }
  }
  // Allgather back, phase by phase in reverse: position q passes on the
  // piece of position q - s (the other direction: q + s).
  for (size_t T = N; T-- > 0;)
    Ph.phase(
        T,
        [&](size_t L, int64_t V, size_t J, int64_t Step, int64_t Seg) {
          const int64_t Dir = Ph.Lanes[L].Dir, Q = Ph.digit(V, J);
          const int64_t B = mod(Dir ? Q + Step : Q - Step, Ph.extent(J));
          Interval C =
              subRange(Parent[L][T][V], Ph.extent(J), B, Cut.Segments, Seg);
          Rd.send(G.Order[V], Ph.next(V, J, Dir), C.Lo, C.Hi,
                  TransferKind::Copy);
        },
        Open, Close);
  S.Steps = orderedRounds(std::move(Rd.Ts), P, &Rd.Groups);
  return S;
}

/// Allgather along the dimension rings: each block in Cut.parts() chunks,
/// Cut.Segments per lane.
Schedule ringAllgather(const Machine &M, const Request &R, RingCut Cut) {
  Schedule S = scheduleSkeleton(M, R, "dimension-rings");
  const RingGrid G = ringGrid(M, R, /*Fold=*/true);
  const RingPhases Ph(M, G, Cut);
  S.NumChunks = Cut.parts();
  for (size_t T = 0; T < G.Extents.size(); ++T)
    Ph.phase(
        T,
        [&](size_t L, int64_t V, size_t J, int64_t Step, int64_t Seg) {
          // Before phase T, v holds the blocks of the grid indices that
          // share its digits of the lane's dimensions T, T+1, ...: the group
          // of ring position b has digit J = b and any digits of the
          // dimensions the lane took before.
          const Lane &Ln = Ph.Lanes[L];
          const int64_t Q = Ph.digit(V, J);
          const int64_t B = mod(Ln.Dir ? Q + Step : Q - Step, Ph.extent(J));
          std::vector<int64_t> Group{Ph.with(V, J, B)};
          for (size_t Before = 0; Before < T; ++Before) {
            const size_t D = Ln.Dims[Before];
            std::vector<int64_t> Wider;
            for (int64_t W : Group)
              for (int64_t X = 0; X < Ph.extent(D); ++X)
                Wider.push_back(Ph.with(W, D, X));
            Group = std::move(Wider);
          }
          const int64_t Chunk = int64_t(L) * Cut.Segments + Seg;
          S.Steps.back().Transfers.push_back(
              gridBlocks(S, G.Order, G.Order[V], Ph.next(V, J, Ln.Dir), Group,
                         {Chunk, Chunk + 1}));
        },
        [&] { S.Steps.emplace_back(); }, [] {});
  return S;
}

/// Whether \p G lists the ranks in rank order.
bool ranksInOrder(const RingGrid &G) {
  for (size_t V = 0; V < G.Order.size(); ++V)
    if (G.Order[V] != int32_t(V))
      return false;
  return true;
}

/// The element count of a reduction, the byte count of anything else.
uint64_t units(const Request &R) { return R.Bytes / elementBytes(R.Datatype); }

/// The most transfers of one lane of rings auto builds (see onNetworkRings).
constexpr int64_t AutoRingTransfers = int64_t(1) << 18;

/// The transfers of the ring schedule of \p R along \p G cut as \p Cut:
/// every rank sends once per ring step, segment and lane (a non-commutative
/// allreduce's chains: in both directions), in the reduce-scatter and again
/// in the allgather.
double ringTransfers(const Request &R, const RingGrid &G, const RingCut &Cut) {
  const bool Gather = R.Coll == Collective::Allgather;
  double RingSteps = 0;
  for (int64_t L : G.Extents)
    RingSteps += double(L - 1);
  const double Lanes = Gather || R.Commutative ? double(Cut.lanes()) : 2.0;
  return (Gather ? 1.0 : 2.0) * double(R.size()) * RingSteps * Lanes *
         double(Cut.Segments);
}

/// Whether \p Cut gives every piece an element (or the message is empty) and
/// the schedule along the rings of \p G stays within the transfers a
/// schedule may hold (MaxTransfers); else why not. The allreduce cuts the
/// vector in P x parts (a non-commutative one: P x segments), the allgather
/// each block in parts.
bool cutFits(const Request &R, const RingGrid &G, const RingCut &Cut,
             std::string &Why) {
  const bool Gather = R.Coll == Collective::Allgather;
  const int64_t Parts = Gather || R.Commutative ? Cut.parts() : Cut.Segments;
  const uint64_t Count = units(R),
                 Need = uint64_t(Gather ? Parts : Parts * R.size());
  if (Count > 0 && Count < Need) {
    Why = "the " + std::string(Gather ? "byte" : "element") + " count (" +
          std::to_string(Count) + ") must be 0 or at least " +
          std::to_string(Need) + " (one per piece)";
    return false;
  }
  return transfersFit(ringTransfers(R, G, Cut), Why);
}

} // namespace

RingGrid flatRingGrid(const Request &R) {
  RingGrid G;
  const int32_t P = R.size();
  G.Order.resize(P);
  std::iota(G.Order.begin(), G.Order.end(), 0);
  std::stable_sort(G.Order.begin(), G.Order.end(), [&](int32_t A, int32_t B) {
    return R.Nodes[A] < R.Nodes[B];
  });
  if (P > 1)
    G.Extents.push_back(P);
  return G;
}

RingGrid ringGrid(const Machine &M, const Request &R, bool Fold) {
  // The ranks in node order, then laid on the topology's grid.
  RingGrid G = flatRingGrid(R);
  G.Extents.clear();
  const int32_t P = R.size();
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

bool ringAllreduceApplies(const Machine &, const Request &R, std::string &Why) {
  const RingGrid G = flatRingGrid(R);
  const RingCut Cut{1, 1, std::max<int64_t>(1, R.Segments)};
  if (cutFits(R, G, Cut, Why))
    return true;
  // Written directly (flatRingAllreduce): each half within the bound of the
  // direct exchanges when named.
  if (R.Algorithm == "auto" || !R.Commutative || !ranksInOrder(G) ||
      Why.find("transfers") == std::string::npos)
    return false;
  return writtenReductionFits(ringTransfers(R, G, Cut), "the ring allreduce",
                              Why);
}

namespace {

/// ringAllreduce's schedule on the flat ring of the ranks in rank order with
/// a commutative operator, written as it is instead of followed through a
/// Reducer (which holds a contributor set per rank and chunk, P^2 x
/// segments of them): each (ring step, segment) is one step in which every
/// rank sends once. Reduce-scatter step s, segment g: rank r folds what it
/// holds of block b = r - s - 1, the contributions of ranks r - s..r, into
/// r + 1's; allgather step s: r copies the reduced block r - s to r + 1.
/// Each of the P blocks is cut in \p Segments chunks, sent in consecutive
/// steps.
Schedule flatRingAllreduce(const Machine &M, const Request &R,
                           int64_t Segments) {
  Schedule S = scheduleSkeleton(M, R, "ring");
  const int32_t P = S.size();
  S.NumChunks = std::max<int64_t>(1, int64_t(P) * Segments);
  if (P < 2)
    return S;
  const Interval All{0, S.NumChunks};
  S.Steps.resize(size_t(2) * size_t(P - 1) * size_t(Segments));
  size_t Next = 0;
  for (int Gather = 0; Gather < 2; ++Gather)
    for (int64_t St = 0; St + 1 < P; ++St)
      for (int64_t Seg = 0; Seg < Segments; ++Seg) {
        std::vector<Transfer> &Ts = S.Steps[Next++].Transfers;
        Ts.reserve(P);
        for (int32_t V = 0; V < P; ++V) {
          const int64_t B = mod(Gather ? V - St : V - St - 1, P);
          const Interval C = subRange(All, P, B, Segments, Seg);
          Transfer &T = Ts.emplace_back();
          T.Src = V;
          T.Dst = (V + 1) % P;
          T.Kind = Gather ? TransferKind::Copy : TransferKind::Combine;
          T.Bytes = S.chunkBytes(C);
          if (Gather) {
            T.Pieces.push_back({{0, P}, {0, P}, C});
            continue;
          }
          llvm::SmallVector<Piece, 2> Ps;
          for (const Interval &I :
               IntervalSet::of(relIntervals(0, St + 1, V - St + P, P)))
            Ps.push_back({I, {0, P}, C});
          assignPieces(T.Pieces, Ps);
        }
      }
  return S;
}

} // namespace

Schedule ringAllreduceFollowed(const Machine &M, const Request &R) {
  return ringAllreduce(M, R, RingCut{1, 1, std::max<int64_t>(1, R.Segments)},
                       flatRingGrid(R), "ring");
}

llvm::Expected<Schedule> buildRingAllreduce(const Machine &M,
                                            const Request &R) {
  const int64_t Segments = std::max<int64_t>(1, R.Segments);
  if (R.Commutative && ranksInOrder(flatRingGrid(R)))
    return flatRingAllreduce(M, R, Segments);
  return ringAllreduceFollowed(M, R);
}

bool onNetworkFlatRing(const Machine &M, const Request &R, std::string &Why) {
  if (!onNetwork(M, R, Why))
    return false;
  const double Transfers = ringTransfers(R, flatRingGrid(R), RingCut{});
  if (Transfers > double(AutoRingTransfers)) {
    Why = "auto considers it only up to " + std::to_string(AutoRingTransfers) +
          " transfers (" + std::to_string(static_cast<long long>(Transfers)) +
          ")";
    return false;
  }
  return true;
}

bool onNetworkRings(const Machine &M, const Request &R, std::string &Why) {
  if (!onNetwork(M, R, Why))
    return false;
  switch (M.Topo.Kind) {
  case TopologyKind::Mesh:
  case TopologyKind::Torus:
  case TopologyKind::Hypercube:
    break;
  default:
    Why = "auto considers it only on a mesh, torus or hypercube with a "
          "network";
    return false;
  }
  // One lane of rings lists P x ring steps transfers each way, each carrying
  // its own pieces, which the reduction flow and the verifier follow one by
  // one: at 4,096 ranks on a 64x64 torus about a million, 37 s and 680 MB.
  const double Transfers = ringTransfers(R, ringGrid(M, R, false), RingCut{});
  if (Transfers > double(AutoRingTransfers)) {
    Why = "auto considers it only up to " + std::to_string(AutoRingTransfers) +
          " transfers (one lane: " +
          std::to_string(static_cast<long long>(Transfers)) + ")";
    return false;
  }
  return true;
}

bool nearestHalvingApplies(const Machine &M, const Request &R,
                           std::string &Why) {
  return reduceScatterApplies(M, R, Why);
}

llvm::Expected<Schedule> buildNearestHalving(const Machine &M,
                                             const Request &R) {
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
  S.Steps = orderedRounds(std::move(Rd.Ts), S.size(), &Rd.Groups);
  return S;
}

llvm::Expected<Schedule> buildNearestDoubling(const Machine &M,
                                              const Request &R) {
  const PowerCore PC(M, R);
  // Core x log2(Core) exchanges and the extra ranks' fold-in and copy-out,
  // each a transfer of the whole vector (one piece, as a plain copy's):
  // refused past MaxCopyTransfers before any is listed, where they and
  // their pricing would take more than 6 GB (2^20 ranks: 20 x 2^20).
  const double Transfers =
      double(PC.Core) * double(ceilLog2(PC.Core)) + 2.0 * double(PC.Extra);
  if (Transfers > double(MaxCopyTransfers))
    return notApplicable(
        "nearest-doubling",
        "it would list " + std::to_string(static_cast<long long>(Transfers)) +
            " transfers, more than the " + std::to_string(MaxCopyTransfers) +
            " a schedule of whole-vector transfers may hold");
  Schedule S = scheduleSkeleton(M, R, "nearest-doubling");
  Reducer Rd(S);
  PC.foldIn(Rd, 1);
  for (int64_t Mask = 1; Mask < PC.Core; Mask <<= 1) {
    Rd.begin();
    for (int64_t C = 0; C < PC.Core; ++C)
      Rd.send(PC.rank(C), PC.rank(C ^ Mask), 0, 1);
    Rd.end();
  }
  PC.copyOut(Rd, 1);
  S.Steps = orderedRounds(std::move(Rd.Ts), S.size(), &Rd.Groups);
  return S;
}

llvm::Expected<Schedule>
buildNearestDoublingPart(const Machine &M, const Request &R, int32_t Rank) {
  Schedule S = scheduleSkeleton(M, R, "nearest-doubling");
  const PowerCore PC(M, R);
  const std::vector<int32_t> &Order = PC.Order;
  const int64_t Extra = PC.Extra;
  // The ranks of cores [Lo, Hi): what a core of that block holds after the
  // exchanges below its block's size (with the extra ranks folded in).
  auto RanksOf = [&](int64_t Lo, int64_t Hi) {
    std::vector<int32_t> V;
    for (int64_t Y = Lo; Y < Hi; ++Y) {
      V.push_back(PC.rank(Y));
      if (Y < Extra)
        V.push_back(Order[2 * Y + 1]);
    }
    return V;
  };
  // The sender's value, its contributors as rank intervals in order (as
  // the reduction flow lists them), into the receiver's.
  auto Make = [&](int32_t Src, int32_t Dst, std::vector<int32_t> From,
                  TransferKind Kind) {
    std::sort(From.begin(), From.end());
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Kind = Kind;
    T.Bytes = S.chunkBytes({0, 1});
    for (size_t I = 0; I < From.size();) {
      size_t E = I + 1;
      while (E < From.size() && From[E] == From[E - 1] + 1)
        ++E;
      T.Pieces.push_back({{From[I], From[E - 1] + 1}, {0, S.size()}, {0, 1}});
      I = E;
    }
    return T;
  };
  const int64_t G = std::find(Order.begin(), Order.end(), Rank) - Order.begin();
  // Rank's core, or -1 for an extra rank (grid index 2c + 1, c < Extra).
  const int64_t C = G < 2 * Extra ? (G % 2 ? -1 : G / 2) : G - Extra;
  // Steps as orderedRounds places the whole: the fold-in, one per
  // exchange, the copy-out; each lists its transfers by core.
  if (Extra > 0) {
    S.Steps.emplace_back();
    if (G < 2 * Extra)
      S.Steps.back().Transfers.push_back(Make(
          Order[G | 1], Order[G & ~1], {Order[G | 1]}, TransferKind::Combine));
  }
  for (int64_t Mask = 1; Mask < PC.Core; Mask <<= 1) {
    S.Steps.emplace_back();
    if (C < 0)
      continue;
    for (int64_t Y : {std::min(C, C ^ Mask), std::max(C, C ^ Mask)}) {
      const int64_t Lo = Y & ~(Mask - 1);
      S.Steps.back().Transfers.push_back(Make(PC.rank(Y), PC.rank(Y ^ Mask),
                                              RanksOf(Lo, Lo + Mask),
                                              TransferKind::Combine));
    }
  }
  if (Extra > 0) {
    S.Steps.emplace_back();
    if (G < 2 * Extra)
      S.Steps.back().Transfers.push_back(Make(Order[G & ~1], Order[G | 1],
                                              RanksOf(0, PC.Core),
                                              TransferKind::Copy));
  }
  return S;
}

bool dimensionRingsApplies(const Machine &M, const Request &R,
                           std::string &Why) {
  return cutFits(R, ringGrid(M, R, /*Fold=*/false),
                 RingCut{1, 1, std::max<int64_t>(1, R.Segments)}, Why);
}

llvm::Expected<Schedule> buildDimensionRingsCut(const Machine &M,
                                                const Request &R,
                                                int64_t Directions,
                                                int64_t Orders) {
  std::string Why;
  const RingCut Cut{Directions, Orders, std::max<int64_t>(1, R.Segments)};
  if (Directions < 1 || Directions > 2 || Orders < 1 || Orders > 2)
    return notApplicable("dimension-rings", "directions and orders are 1 or 2");
  if (!cutFits(R, ringGrid(M, R, /*Fold=*/false), Cut, Why))
    return notApplicable("dimension-rings", Why);
  return R.Coll == Collective::Allgather
             ? ringAllgather(M, R, Cut)
             : ringAllreduce(M, R, Cut, ringGrid(M, R, /*Fold=*/R.Commutative),
                             "dimension-rings");
}

llvm::Expected<Schedule> buildDimensionRings(const Machine &M, const Request &R,
                                             Pipeline &P) {
  // One lane, both directions, or both directions in both orders of the
  // dimensions (a non-commutative allreduce's chains use both directions
  // anyway), whichever the machine's cost pass times faster; the request's
  // segments cut each piece further. (Searching the segments as well made
  // auto's choice several times slower and never won on the bundled
  // platforms: docs/network.md.)
  const bool Lanes =
      R.size() > 1 && (R.Commutative || R.Coll == Collective::Allgather);
  const size_t Dims = ringGrid(M, R, true).Extents.size();
  Cheapest Cuts(M, P, makespanJudge());
  for (std::pair<int64_t, int64_t> Variant :
       {std::pair<int64_t, int64_t>{1, 1}, {2, 1}, {2, 2}}) {
    // Named, not bound: clang 14 lets no lambda capture a structured binding.
    const int64_t Directions = Variant.first, Orders = Variant.second;
    if (Directions * Orders > 1 && !Lanes)
      break;
    if (Orders > 1 && Dims < 2)
      break;
    // More lanes only within the search's budget (a lane's transfers each
    // carry their own pieces, and the reduction flow follows them all).
    if (Directions * Orders > 1 &&
        ringTransfers(
            R, ringGrid(M, R, false),
            RingCut{Directions, Orders, std::max<int64_t>(1, R.Segments)}) >
            double(SegmentSearchBudget))
      break;
    if (!Cuts.consider(
            llvm::Twine(Directions) + " direction(s), " + llvm::Twine(Orders) +
                " order(s)",
            [&] { return buildDimensionRingsCut(M, R, Directions, Orders); }))
      break;
  }
  return Cuts.take();
}

} // namespace collc
