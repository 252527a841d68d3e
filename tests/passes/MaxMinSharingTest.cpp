// The max-min sharing solver alone: hand-computed shares (equal, weighted by
// penalty and by use, bounded, bottlenecked elsewhere), what an incremental
// solve reaches and reports, and on random systems the two properties that
// define the weighted max-min allocation, with incremental solves agreeing
// with solves from scratch.
#include "passes/MaxMinSharing.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace collc;

namespace {

using Use = MaxMinSharing::Use;

/// Solves and returns the rates of flows 0..N-1, with what was reported.
std::vector<double> solveAll(MaxMinSharing &S, uint32_t N,
                             std::map<uint32_t, double> *Changed = nullptr) {
  S.solve([&](uint32_t Id, double Old, double New) {
    CHECK(Old != New);
    CHECK(S.rate(Id) == New);
    if (Changed)
      (*Changed)[Id] = New;
  });
  std::vector<double> Rates;
  for (uint32_t I = 0; I < N; ++I)
    Rates.push_back(S.rate(I));
  return Rates;
}

} // namespace

TEST_CASE("max-min sharing: two flows on one link get half each") {
  MaxMinSharing S;
  uint32_t L = S.addResource(10);
  uint32_t A = S.addFlow({{L, 1}}, 1), B = S.addFlow({{L, 1}}, 1);
  S.start(A);
  CHECK(S.pending());
  CHECK(solveAll(S, 2) == std::vector<double>{10, 0});
  CHECK_FALSE(S.pending());
  S.start(B);
  CHECK(solveAll(S, 2) == std::vector<double>{5, 5});
  S.stop(A);
  CHECK(solveAll(S, 2)[1] == 10);
}

TEST_CASE("max-min sharing: a flow bottlenecked elsewhere leaves its share") {
  // A crosses L1 (10) and L2 (2); B uses L1 only, C uses L2 only. L2 fills
  // first at 1 each; B takes what A leaves of L1.
  MaxMinSharing S;
  uint32_t L1 = S.addResource(10), L2 = S.addResource(2);
  uint32_t A = S.addFlow({{L1, 1}, {L2, 1}}, 1);
  uint32_t B = S.addFlow({{L1, 1}}, 1), C = S.addFlow({{L2, 1}}, 1);
  for (uint32_t F : {A, B, C})
    S.start(F);
  CHECK(solveAll(S, 3) == std::vector<double>{1, 9, 1});
}

TEST_CASE("max-min sharing: penalties, weights and bounds") {
  SUBCASE("a flow of penalty 3 gets a third of one of penalty 1's rate") {
    MaxMinSharing S;
    uint32_t L = S.addResource(8);
    S.start(S.addFlow({{L, 1}}, 1));
    S.start(S.addFlow({{L, 1}}, 3));
    CHECK(solveAll(S, 2) == std::vector<double>{6, 2});
  }
  SUBCASE("a flow loading a link twice over takes twice its rate of it") {
    MaxMinSharing S;
    uint32_t L = S.addResource(9);
    S.start(S.addFlow({{L, 2}}, 1));
    S.start(S.addFlow({{L, 1}}, 1));
    CHECK(solveAll(S, 2) == std::vector<double>{3, 3});
  }
  SUBCASE("a bounded flow stops at its bound, the other takes the rest") {
    MaxMinSharing S;
    uint32_t L = S.addResource(10);
    S.start(S.addFlow({{L, 1}}, 1, 1.5));
    S.start(S.addFlow({{L, 1}}, 1));
    CHECK(solveAll(S, 2) == std::vector<double>{1.5, 8.5});
  }
  SUBCASE("a flow using nothing is reported as such and never re-solved") {
    MaxMinSharing S;
    uint32_t F = S.addFlow({}, 1, 4);
    CHECK(S.usesNothing(F));
    CHECK(S.bound(F) == 4);
    S.start(F);
    CHECK_FALSE(S.pending());
  }
}

TEST_CASE("max-min sharing: a solve reaches only what a change can affect") {
  MaxMinSharing S;
  uint32_t L1 = S.addResource(10), L2 = S.addResource(6);
  uint32_t A = S.addFlow({{L1, 1}}, 1), B = S.addFlow({{L1, 1}}, 1);
  uint32_t X = S.addFlow({{L2, 1}}, 1), Y = S.addFlow({{L2, 1}}, 1);
  for (uint32_t F : {A, B, X, Y})
    S.start(F);
  CHECK(S.solve([](uint32_t, double, double) {}) == 4);
  S.stop(B);
  std::map<uint32_t, double> Changed;
  CHECK(S.solve([&](uint32_t Id, double, double New) { Changed[Id] = New; }) ==
        1);
  CHECK(Changed == std::map<uint32_t, double>{{A, 10}});
  CHECK(S.rate(X) == 3);
  CHECK(S.rate(Y) == 3);
}

TEST_CASE("max-min sharing: random systems are max-min fair, incrementally") {
  std::mt19937_64 Rng(20261126);
  for (int Trial = 0; Trial < 200; ++Trial) {
    std::uniform_int_distribution<int> NumRes(1, 8), NumFlows(1, 24);
    std::uniform_real_distribution<double> Cap(0.5, 100), Pen(0.01, 5),
        Wt(0.25, 2), Coin(0, 1);
    const int R = NumRes(Rng), F = NumFlows(Rng);
    struct Spec {
      std::vector<Use> Uses;
      double Penalty, Bound;
    };
    std::vector<double> Caps;
    std::vector<Spec> Specs;
    for (int I = 0; I < R; ++I)
      Caps.push_back(Cap(Rng));
    for (int I = 0; I < F; ++I) {
      Spec Sp;
      for (int J = 0; J < R; ++J)
        if (Coin(Rng) < 0.4 || (J == R - 1 && Sp.Uses.empty()))
          Sp.Uses.push_back({static_cast<uint32_t>(J), Wt(Rng)});
      Sp.Penalty = Pen(Rng);
      Sp.Bound = Coin(Rng) < 0.3 ? Cap(Rng) / 4 : MaxMinSharing::Unbounded;
      Specs.push_back(Sp);
    }
    auto make = [&](MaxMinSharing &S) {
      for (double C : Caps)
        S.addResource(C);
      for (const Spec &Sp : Specs)
        S.addFlow(Sp.Uses, Sp.Penalty, Sp.Bound);
    };
    MaxMinSharing Inc;
    make(Inc);
    std::set<uint32_t> On;
    for (int Change = 0; Change < 12; ++Change) {
      // Start or stop a few flows, then solve.
      for (int K = 0; K < 3; ++K) {
        uint32_t Id = static_cast<uint32_t>(Rng() % F);
        if (On.count(Id)) {
          Inc.stop(Id);
          On.erase(Id);
        } else {
          Inc.start(Id);
          On.insert(Id);
        }
      }
      Inc.solve([](uint32_t, double, double) {});
      MaxMinSharing Fresh;
      make(Fresh);
      for (uint32_t Id : On)
        Fresh.start(Id);
      Fresh.solve([](uint32_t, double, double) {});
      std::vector<double> Load(R, 0);
      for (uint32_t Id : On) {
        CAPTURE(Trial);
        CAPTURE(Id);
        const double Rate = Inc.rate(Id);
        CHECK(Rate == doctest::Approx(Fresh.rate(Id)).epsilon(1e-12));
        CHECK(Rate > 0);
        CHECK(Rate <= Specs[Id].Bound);
        for (const Use &U : Specs[Id].Uses)
          Load[U.Resource] += U.Weight * Rate;
      }
      // Feasible: no resource over its capacity.
      for (int J = 0; J < R; ++J)
        CHECK(Load[J] <= Caps[J] * (1 + 1e-12));
      // Fair: a flow below its bound uses a full resource on which no
      // other user has a higher level (rate x penalty).
      for (uint32_t Id : On) {
        const double Level = Inc.rate(Id) * Specs[Id].Penalty;
        if (Inc.rate(Id) >= Specs[Id].Bound * (1 - 1e-12))
          continue;
        bool Blocked = false;
        for (const Use &U : Specs[Id].Uses) {
          if (Load[U.Resource] < Caps[U.Resource] * (1 - 1e-9))
            continue;
          bool Highest = true;
          for (uint32_t Other : On)
            for (const Use &V : Specs[Other].Uses)
              if (V.Resource == U.Resource &&
                  Inc.rate(Other) * Specs[Other].Penalty > Level * (1 + 1e-9))
                Highest = false;
          Blocked |= Highest;
        }
        CAPTURE(Trial);
        CAPTURE(Id);
        CHECK(Blocked);
      }
    }
  }
}
