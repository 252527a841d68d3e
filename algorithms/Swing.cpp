#include "algorithms/Swing.h"

#include "algorithms/Butterfly.h"
#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"
#include "algorithms/TopologyReductions.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace collc {

namespace {

/// The cores of a Swing allreduce, their butterfly, and the ranks that fold
/// into them.
struct SwingLayout {
  Butterfly B;
  /// CoreRank[c]: the rank of core c.
  std::vector<int32_t> CoreRank;
  /// (rank, rank it folds into), level by level: a rank of level l folds
  /// into one that folds at a later level or is a core; the result goes back
  /// the other way, the last level first.
  std::vector<std::pair<int32_t, int32_t>> Folds;
  /// FoldLevel[i]: the level of Folds[i] (0 on a ring).
  std::vector<int> FoldLevel;
};

/// Position of core coordinate \p C on a line of \p Extent: the first
/// 2 (Extent - 2^d) positions pair up, the even one of each pair the core.
int64_t corePosition(int64_t C, int64_t Extent) {
  const int64_t Extra =
      Extent - static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(Extent)));
  return C < Extra ? 2 * C : C + Extra;
}

/// Swing on a torus or mesh of any extents (the paper's multi-dimensional
/// Swing on the largest power-of-two sub-grid): dimension by dimension, the
/// first 2 (L_j - 2^d_j) coordinates of dimension j fold pairwise (odd into
/// even) among the points whose earlier coordinates are core positions;
/// the cores are the points whose every coordinate is one, a grid of
/// 2^d_j per dimension on which the butterfly runs.
SwingLayout foldedGridLayout(const RingGrid &G) {
  SwingLayout L;
  const size_t D = G.Extents.size();
  std::vector<int64_t> Cores(D), Stride(D);
  int64_t Points = 1;
  for (size_t J = 0; J < D; ++J) {
    Cores[J] =
        static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(G.Extents[J])));
    Stride[J] = Points;
    Points *= G.Extents[J];
  }
  L.B = swingButterfly(Cores);
  auto Coord = [&](int64_t V, size_t J) {
    return V / Stride[J] % G.Extents[J];
  };
  auto IsCorePosition = [&](int64_t X, size_t J) {
    const int64_t Extra = G.Extents[J] - Cores[J];
    return X >= 2 * Extra || X % 2 == 0;
  };
  for (size_t J = 0; J < D; ++J)
    for (int64_t V = 0; V < Points; ++V) {
      bool Survivor = true;
      for (size_t I = 0; I < J; ++I)
        Survivor = Survivor && IsCorePosition(Coord(V, I), I);
      if (Survivor && !IsCorePosition(Coord(V, J), J)) {
        L.Folds.push_back({G.Order[V], G.Order[V - Stride[J]]});
        L.FoldLevel.push_back(static_cast<int>(J));
      }
    }
  L.CoreRank.resize(L.B.N);
  for (int64_t C = 0; C < L.B.N; ++C) {
    int64_t V = 0, Rest = C;
    for (size_t J = 0; J < D; ++J) {
      V += corePosition(Rest % Cores[J], G.Extents[J]) * Stride[J];
      Rest /= Cores[J];
    }
    L.CoreRank[C] = G.Order[V];
  }
  return L;
}

SwingLayout swingLayout(const Machine &M, const Request &R) {
  SwingLayout L;
  const int32_t P = R.size();
  RingGrid G = ringGrid(M, R, /*Fold=*/false);
  if (G.Physical && G.Extents.size() > 1)
    return foldedGridLayout(G);
  const int64_t Core = static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(P)));
  const int64_t Extra = P - Core;
  L.B = swingButterfly({Core});
  for (int64_t C = 0; C < Core; ++C)
    L.CoreRank.push_back(G.Order[corePosition(C, P)]);
  for (int64_t I = 0; I < Extra; ++I) {
    L.Folds.push_back({G.Order[2 * I + 1], G.Order[2 * I]});
    L.FoldLevel.push_back(0);
  }
  return L;
}

llvm::Expected<Schedule> swingSchedule(const Machine &M, const Request &R,
                                       const SwingLayout &L, bool Bandwidth) {
  Schedule S = scheduleSkeleton(M, R, "swing");
  const int32_t P = S.size();
  const int64_t N = L.B.N;
  const int Steps = L.B.steps();
  const uint64_t Count = R.Bytes / elementBytes(R.Datatype);
  if (Bandwidth && Count > 0 && Count < static_cast<uint64_t>(N))
    return notApplicable("swing", "the bandwidth form needs 0 or at least " +
                                      std::to_string(N) + " elements, not " +
                                      std::to_string(Count));
  S.NumChunks = Bandwidth ? N : 1;
  Reducer Rd(S);
  for (auto [From, Into] : L.Folds)
    Rd.send(From, Into, 0, S.NumChunks);
  auto Exchange = [&](int St, auto Chunks, TransferKind Kind) {
    Rd.begin();
    for (int64_t C = 0; C < N; ++C) {
      const int64_t Q = L.B.Peer[St][C];
      auto [Lo, Hi] = Chunks(C, Q);
      Rd.send(L.CoreRank[C], L.CoreRank[Q], Lo, Hi, Kind);
    }
    Rd.end();
  };
  if (!Bandwidth) {
    for (int St = 0; St < Steps; ++St)
      Exchange(
          St,
          [](int64_t, int64_t) { return std::pair<int64_t, int64_t>(0, 1); },
          TransferKind::Combine);
  } else {
    auto Blocks = butterflyBlocks(L.B);
    if (!Blocks)
      return Blocks.takeError();
    // Reduce-scatter: the partner gets the blocks of its next reach set;
    // allgather: the partner gets what this core has gathered so far.
    for (int St = 0; St < Steps; ++St)
      Exchange(
          St,
          [&](int64_t, int64_t Q) {
            const int64_t Lo = Blocks->Lo[St + 1][Q];
            return std::pair<int64_t, int64_t>(
                Lo, Lo + Blocks->span(St + 1, Steps));
          },
          TransferKind::Combine);
    for (int St = Steps - 1; St >= 0; --St)
      Exchange(
          St,
          [&](int64_t C, int64_t) {
            const int64_t Lo = Blocks->Lo[St + 1][C];
            return std::pair<int64_t, int64_t>(
                Lo, Lo + Blocks->span(St + 1, Steps));
          },
          TransferKind::Copy);
  }
  const int Levels =
      L.FoldLevel.empty()
          ? 0
          : *std::max_element(L.FoldLevel.begin(), L.FoldLevel.end()) + 1;
  for (int Level = Levels - 1; Level >= 0; --Level)
    for (size_t I = 0; I < L.Folds.size(); ++I)
      if (L.FoldLevel[I] == Level)
        Rd.send(L.Folds[I].second, L.Folds[I].first, 0, S.NumChunks,
                TransferKind::Copy);
  S.Steps = orderedRounds(std::move(Rd.Ts), P, &Rd.Groups);
  return S;
}

} // namespace

bool swingApplies(const Machine &, const Request &R, std::string &Why) {
  if (!commutativeOperator(R,
                           "its partners combine out of rank order: "
                           "commutative operators only",
                           Why))
    return false;
  // The bandwidth form: two exchanges of every core per step, and the folds.
  const double P = std::max(2, R.size());
  return transfersFit(2 * P * std::ceil(std::log2(P)) + 2 * P, Why);
}

llvm::Expected<Schedule> buildSwingForm(const Machine &M, const Request &R,
                                        bool Bandwidth) {
  std::string Why;
  if (!swingApplies(M, R, Why))
    return notApplicable("swing", Why);
  return swingSchedule(M, R, swingLayout(M, R), Bandwidth);
}

llvm::Expected<Schedule> buildSwing(const Machine &M, const Request &R,
                                    Pipeline &P) {
  const SwingLayout L = swingLayout(M, R);
  Cheapest Search(M, P, makespanJudge());
  for (bool Bandwidth : {false, true})
    Search.consider(Bandwidth ? "form=bandwidth" : "form=latency",
                    [&]() -> llvm::Expected<Schedule> {
                      return swingSchedule(M, R, L, Bandwidth);
                    });
  return Search.take();
}

} // namespace collc
