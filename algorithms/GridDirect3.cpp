#include "algorithms/GridDirect3.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"
#include "passes/StepCost.h"

#include <algorithm>

namespace collc {

std::vector<std::array<int32_t, 3>> grid3Shapes(int32_t P) {
  std::vector<std::array<int32_t, 3>> Sorted; // a <= b <= c
  for (int32_t A = 2; int64_t(A) * A * A <= P; ++A) {
    if (P % A)
      continue;
    const int32_t Q = P / A;
    for (int32_t B = A; int64_t(B) * B <= Q; ++B)
      if (Q % B == 0)
        Sorted.push_back({A, B, Q / B});
  }
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto &X, const auto &Y) {
                     return X[0] + X[1] + X[2] < Y[0] + Y[1] + Y[2];
                   });
  if (Sorted.size() > 3)
    Sorted.resize(3);
  std::vector<std::array<int32_t, 3>> Out;
  for (std::array<int32_t, 3> S : Sorted)
    do
      Out.push_back(S);
    while (std::next_permutation(S.begin(), S.end()));
  return Out;
}

bool grid3DirectApplies(const Machine &, const Request &R, std::string &Why) {
  const std::vector<std::array<int32_t, 3>> Shapes = grid3Shapes(R.size());
  if (Shapes.empty()) {
    Why = "needs a rank count with a factoring a x b x c, every factor at "
          "least 2";
    return false;
  }
  int64_t Fewest = R.size();
  for (const auto &S : Shapes)
    Fewest = std::min<int64_t>(Fewest, S[0] + S[1] + S[2] - 3);
  return transfersFit(double(R.size()) * double(Fewest), Why);
}

bool grid3DirectInAuto(const Machine &M, const Request &R, std::string &Why) {
  return onFlowPricedNetwork(
      M, R,
      "auto leaves it out where the step pricing judges (more than " +
          std::to_string(StepPricingRanks) + " ranks)",
      Why);
}

Schedule grid3DirectAllgather(const Machine &M, const Request &R,
                              const std::array<int32_t, 3> &Shape) {
  Schedule S = scheduleSkeleton(M, R, "grid-direct-3d");
  const int32_t P = S.size();
  std::vector<Transfer> Ts;
  std::vector<int64_t> Phases;
  // Phase D: a rank holds the interval of the ranks that share its
  // coordinates from D on (Span of them: the product of the extents before
  // D) and sends it to the others along dimension D (Stride apart).
  int32_t Span = 1;
  for (int D = 0; D < 3; ++D) {
    const int32_t Extent = Shape[D], Stride = Span;
    for (int32_t Rk = 0; Rk < P; ++Rk) {
      const int32_t First = Rk / Span * Span;
      const int32_t Coord = Rk / Stride % Extent;
      const int32_t Base = Rk - Coord * Stride;
      for (int32_t K = 1; K < Extent; ++K) {
        // Peers in turn from the next coordinate on, so that the ranks of
        // a row do not all send to one at once.
        const int32_t Peer = Base + (Coord + K) % Extent * Stride;
        Ts.push_back(allgatherBlocks(S, Rk, Peer, {{First, First + Span}}));
        Phases.push_back(D);
      }
    }
    Span *= Extent;
  }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Phases));
  return S;
}

llvm::Expected<Schedule>
buildGrid3DirectAllgather(const Machine &M, const Request &R, Pipeline &P) {
  Cheapest Search(M, P, makespanJudge());
  for (const std::array<int32_t, 3> &Shape : grid3Shapes(R.size()))
    Search.consider(llvm::Twine(Shape[0]) + "x" + llvm::Twine(Shape[1]) + "x" +
                        llvm::Twine(Shape[2]),
                    [&]() -> llvm::Expected<Schedule> {
                      return grid3DirectAllgather(M, R, Shape);
                    });
  return Search.take();
}

} // namespace collc
