// Paper 000 section 4.2, Figures 11-14, on the wormhole simulator: a reduced
// sweep (a few points, 4 placements each; `collc-sim` runs the full one)
// asserting the paper's findings: OPT-mesh is never slower than OPT-tree and
// always faster than U-mesh, and the times are linear in the message size.
#include "tools/WormholeExperiments.h"

#include <doctest/doctest.h>

#include <map>

using namespace collc;

namespace {

std::vector<SweepPoint> run(const char *Id) {
  for (const FigureSpec &F : paperFigures(/*Reduced=*/true))
    if (F.Id == Id) {
      auto P = runFigure(paperMesh(), F, 4);
      REQUIRE(P);
      return *P;
    }
  FAIL("no figure " << Id);
  return {};
}

/// Mean makespan per (x, algorithm).
std::map<int64_t, std::map<std::string, SweepPoint>>
byX(const std::vector<SweepPoint> &Points, bool OverBytes) {
  std::map<int64_t, std::map<std::string, SweepPoint>> M;
  for (const SweepPoint &P : Points)
    M[OverBytes ? static_cast<int64_t>(P.Bytes) : P.Ranks][P.Algorithm] = P;
  return M;
}

void checkOrdering(const std::vector<SweepPoint> &Points, bool OverBytes) {
  for (auto &[Key, Row] : byX(Points, OverBytes)) {
    // CAPTURE takes its argument into a lambda: a structured binding cannot
    // be captured before C++20's P1091 (clang 16), so capture a copy.
    int64_t X = Key;
    CAPTURE(X);
    CHECK(Row["opt-mesh"].Mean <= Row["opt-tree"].Mean);
    CHECK(Row["opt-mesh"].Mean < Row["u-mesh"].Mean);
    // OPT-mesh and U-mesh are contention-free: simulated = modelled.
    CHECK(Row["opt-mesh"].MeanBlocked == 0);
    CHECK(Row["u-mesh"].MeanBlocked == 0);
    CHECK(Row["opt-mesh"].Mean == Row["opt-mesh"].MeanModel);
  }
}

/// Every algorithm's mean time lies within 2% of the straight line through
/// its first and last points.
void checkLinear(const std::vector<SweepPoint> &Points) {
  for (const std::string &A : paperAlgorithms()) {
    std::vector<const SweepPoint *> Line;
    for (const SweepPoint &P : Points)
      if (P.Algorithm == A)
        Line.push_back(&P);
    REQUIRE(Line.size() >= 3);
    const SweepPoint &F = *Line.front(), &L = *Line.back();
    double Slope = (L.Mean - F.Mean) / static_cast<double>(L.Bytes - F.Bytes);
    CHECK(Slope > 0);
    for (const SweepPoint *P : Line) {
      CAPTURE(A);
      CAPTURE(P->Bytes);
      double Want = F.Mean + Slope * static_cast<double>(P->Bytes - F.Bytes);
      CHECK(std::abs(P->Mean - Want) <= 0.02 * Want);
    }
  }
}

} // namespace

TEST_CASE("paper000.Figure11: 32-node multicast, OPT-mesh <= OPT-tree and "
          "< U-mesh at every size, linear in the size") {
  auto P = run("fig11");
  checkOrdering(P, true);
  checkLinear(P);
}

TEST_CASE("paper000.Figure12: 128-node multicast, OPT-mesh <= OPT-tree and "
          "< U-mesh at every size, linear in the size") {
  auto P = run("fig12");
  checkOrdering(P, true);
  checkLinear(P);
  // At 128 nodes OPT-tree's random tree meets contention: it is strictly
  // slower than OPT-mesh and its worms are blocked.
  for (auto &[X, Row] : byX(P, true)) {
    CHECK(Row["opt-mesh"].Mean < Row["opt-tree"].Mean);
    CHECK(Row["opt-tree"].MeanBlocked > 0);
  }
}

TEST_CASE("paper000.Figure13: 4 KB multicast over group sizes, OPT-mesh "
          "fastest, U-mesh slowest") {
  auto P = run("fig13");
  checkOrdering(P, false);
  for (auto &[X, Row] : byX(P, false))
    CHECK(Row["opt-tree"].Mean < Row["u-mesh"].Mean);
}

TEST_CASE("paper000.Figure14: 64 KB multicast over group sizes, OPT-mesh "
          "fastest, U-mesh slowest") {
  auto P = run("fig14");
  checkOrdering(P, false);
  for (auto &[X, Row] : byX(P, false))
    CHECK(Row["opt-tree"].Mean < Row["u-mesh"].Mean);
}
