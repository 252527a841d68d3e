#include "algorithms/GridAlltoall.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>

namespace collc {

namespace {

/// Row-major coordinates on a grid: digit 0 varies fastest; the last digit
/// is not bounded (a partial last row or layer).
struct GridCoords {
  std::vector<int64_t> Extents, Strides;
  explicit GridCoords(const std::vector<int64_t> &E) : Extents(E) {
    int64_t Stride = 1;
    for (int64_t X : E) {
      Strides.push_back(Stride);
      Stride *= X;
    }
  }
  size_t dims() const { return Extents.size(); }
  int64_t digit(int64_t R, size_t I) const {
    const int64_t Q = R / Strides[I];
    return I + 1 == dims() ? Q : Q % Extents[I];
  }
  /// \p R with digit \p I taken from \p B.
  int64_t takeDigit(int64_t R, size_t I, int64_t B) const {
    return R + (digit(B, I) - digit(R, I)) * Strides[I];
  }
};

/// The ranks block (A, B) visits: A, then with B's digits taken one
/// dimension after another (last to first with \p Reverse), ending at B;
/// one entry per dimension after A. False when one of them is absent.
bool route(const GridCoords &G, int64_t P, int64_t A, int64_t B, bool Reverse,
           std::vector<int64_t> &Way) {
  Way.clear();
  int64_t At = A;
  for (size_t K = 0; K < G.dims(); ++K) {
    At = G.takeDigit(At, Reverse ? G.dims() - 1 - K : K, B);
    if (At >= P)
      return false;
    Way.push_back(At);
  }
  return true;
}

/// One block on one hop: phase's sender, receiver, origin, destination.
using Hop = std::array<int32_t, 4>;

/// The transfer of the blocks of \p Hops (one sender and receiver, sorted by
/// origin then destination): per origin its destinations as intervals, runs
/// of origins with the same intervals as one piece each.
Transfer hopTransfer(const Schedule &S, llvm::ArrayRef<Hop> Hops) {
  Transfer T;
  T.Src = Hops.front()[0];
  T.Dst = Hops.front()[1];
  T.Bytes = S.Bytes * Hops.size();
  std::vector<Interval> Prev;
  Interval Origins{0, 0};
  auto Flush = [&]() {
    for (const Interval &D : Prev)
      T.Pieces.push_back({Origins, D, {0, S.NumChunks}});
  };
  for (size_t I = 0; I < Hops.size();) {
    const int32_t A = Hops[I][2];
    std::vector<Interval> Dests;
    for (; I < Hops.size() && Hops[I][2] == A; ++I) {
      const int32_t B = Hops[I][3];
      if (!Dests.empty() && Dests.back().Hi == B)
        ++Dests.back().Hi;
      else
        Dests.push_back({B, B + 1});
    }
    if (Origins.Hi == A && Dests == Prev) {
      ++Origins.Hi;
      continue;
    }
    Flush();
    Origins = {A, A + 1};
    Prev = std::move(Dests);
  }
  Flush();
  return T;
}

} // namespace

llvm::Expected<Schedule>
buildGridExchangeOn(const Machine &M, const Request &R,
                    const std::vector<int64_t> &Extents) {
  Schedule S = scheduleSkeleton(M, R, "grid-exchange");
  const int32_t P = S.size();
  const GridCoords G(Extents);
  std::vector<std::vector<Hop>> Phases(G.dims());
  std::vector<int64_t> Way;
  for (int32_t A = 0; A < P; ++A)
    for (int32_t B = 0; B < P; ++B) {
      if (A == B)
        continue;
      if (!route(G, P, A, B, false, Way) && !route(G, P, A, B, true, Way))
        return notApplicable("grid-exchange",
                             "no route through the grid for block (" +
                                 llvm::Twine(A) + ", " + llvm::Twine(B) + ")");
      int64_t At = A;
      for (size_t K = 0; K < Way.size(); ++K) {
        if (Way[K] != At)
          Phases[K].push_back(
              {static_cast<int32_t>(At), static_cast<int32_t>(Way[K]), A, B});
        At = Way[K];
      }
    }
  std::vector<Transfer> Ts;
  std::vector<int64_t> Groups;
  for (size_t K = 0; K < Phases.size(); ++K) {
    std::vector<Hop> &Hops = Phases[K];
    std::sort(Hops.begin(), Hops.end());
    for (size_t I = 0; I < Hops.size();) {
      size_t J = I;
      while (J < Hops.size() && Hops[J][0] == Hops[I][0] &&
             Hops[J][1] == Hops[I][1])
        ++J;
      Ts.push_back(hopTransfer(S, llvm::ArrayRef<Hop>(Hops).slice(I, J - I)));
      Groups.push_back(static_cast<int64_t>(K));
      I = J;
    }
  }
  S.Steps = groupedRounds(M, std::move(Ts), P, std::move(Groups));
  return S;
}

std::vector<std::vector<int64_t>> gridExchangeShapes(int64_t P) {
  std::set<std::vector<int64_t>> Shapes;
  auto Rows = [&](int64_t Cols) { return (P + Cols - 1) / Cols; };
  if (P < 4)
    return {{std::max<int64_t>(P, 1)}};
  // Two dimensions: the divisors nearest sqrt(P) within a factor 2, else
  // sqrt(P) rounded (a partial last row). Partial grids only where no exact
  // one is near: their unequal messages never end together, which the
  // evaluator times ten times slower (10x10x11 for 1,024 ranks: 43 s).
  const double Root = std::sqrt(double(P));
  const auto [Below, Above] = divisorsNearSqrt(P);
  const int64_t Side = std::max<int64_t>(2, std::llround(Root));
  for (int64_t C : Below || Above ? std::vector<int64_t>{Below, Above}
                                  : std::vector<int64_t>{Side})
    if (C && Rows(C) >= 2)
      Shapes.insert({C, Rows(C)});
  // Three dimensions: the exact factorisation x <= y <= z nearest a cube,
  // else the cube root rounded (a partial last layer).
  if (P >= 8) {
    std::vector<int64_t> Best;
    for (int64_t X = 2; X * X * X <= P; ++X)
      for (int64_t Y = X; X * Y * Y <= P; ++Y)
        if (P % (X * Y) == 0) {
          const int64_t Z = P / (X * Y);
          if (Best.empty() || double(Z) / X < double(Best[2]) / Best[0])
            Best = {X, Y, Z};
        }
    const int64_t C = std::max<int64_t>(2, std::llround(std::cbrt(double(P))));
    if (!Best.empty())
      Shapes.insert(Best);
    else if ((P + C * C - 1) / (C * C) >= 2)
      Shapes.insert({C, C, (P + C * C - 1) / (C * C)});
  }
  return {Shapes.begin(), Shapes.end()};
}

llvm::Expected<Schedule> buildGridExchange(const Machine &M, const Request &R,
                                           Pipeline &P) {
  Cheapest Search(M, P, makespanJudge());
  for (const std::vector<int64_t> &Shape : gridExchangeShapes(R.size())) {
    std::string Name;
    for (int64_t X : Shape)
      Name += (Name.empty() ? "" : "x") + std::to_string(X);
    Search.consider(Name + " grid", [&]() -> llvm::Expected<Schedule> {
      return buildGridExchangeOn(M, R, Shape);
    });
  }
  return Search.take();
}

} // namespace collc
