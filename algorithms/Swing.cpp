#include "algorithms/Swing.h"

#include "algorithms/Butterfly.h"
#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/Reducer.h"
#include "algorithms/TopologyReductions.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace collc {

namespace {

/// The cores of a Swing allreduce, their butterfly, and the ranks that fold
/// into them.
struct SwingLayout {
  Butterfly B;
  /// CoreRank[c]: the rank of core c.
  std::vector<int32_t> CoreRank;
  /// (rank, core rank it folds into) for P not a power of two.
  std::vector<std::pair<int32_t, int32_t>> Folds;
};

SwingLayout swingLayout(const Machine &M, const Request &R) {
  SwingLayout L;
  const int32_t P = R.size();
  RingGrid G = ringGrid(M, R, /*Fold=*/false);
  bool Torus = G.Physical && G.Extents.size() > 1;
  for (int64_t E : G.Extents)
    Torus = Torus && llvm::isPowerOf2_64(uint64_t(E));
  if (Torus) {
    L.B = swingButterfly(G.Extents);
    L.CoreRank = G.Order;
    return L;
  }
  const int64_t Core = static_cast<int64_t>(llvm::PowerOf2Floor(uint64_t(P)));
  const int64_t Extra = P - Core;
  L.B = swingButterfly({Core});
  for (int64_t C = 0; C < Core; ++C)
    L.CoreRank.push_back(G.Order[C < Extra ? 2 * C : C + Extra]);
  for (int64_t I = 0; I < Extra; ++I)
    L.Folds.push_back({G.Order[2 * I + 1], G.Order[2 * I]});
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
  for (auto [To, From] : L.Folds)
    Rd.send(From, To, 0, S.NumChunks, TransferKind::Copy);
  S.Steps = orderedRounds(Rd.Ts, P, &Rd.Groups);
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
