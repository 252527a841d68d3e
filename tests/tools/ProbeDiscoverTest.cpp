// collc-probe finding leaf switches from concurrent flows
// (tools/probe/Discover.h): rounds of flows on simulated two-level trees of
// random shapes, rated by the uplinks they share, give back the leaves.
#include "tools/probe/Discover.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace collc::probe;

namespace {

/// A two-level tree: leaves of \p K nodes (node i on leaf i / K), each leaf's
/// uplinks carrying \p Capacity flows at the full rate \p Rate. A flow
/// between leaves runs at the share of the busier of the two uplinks it
/// crosses (its leaf's way up, the other's way down).
struct Tree {
  int N, K;
  double Capacity, Rate = 12.5;

  std::vector<FlowSample> round(int Round, const std::vector<int> &To) const {
    std::vector<int> Out(static_cast<size_t>(N / K + 1)),
        In(static_cast<size_t>(N / K + 1));
    for (int I = 0; I < N; ++I)
      if (I / K != To[static_cast<size_t>(I)] / K) {
        ++Out[static_cast<size_t>(I / K)];
        ++In[static_cast<size_t>(To[static_cast<size_t>(I)] / K)];
      }
    std::vector<FlowSample> S;
    for (int I = 0; I < N; ++I) {
      const int J = To[static_cast<size_t>(I)];
      double Share = 1;
      if (I / K != J / K) {
        int Busy = std::max(Out[static_cast<size_t>(I / K)],
                            In[static_cast<size_t>(J / K)]);
        Share = std::min(1.0, Capacity / Busy);
      }
      S.push_back({Round, I, J, Rate * Share});
    }
    return S;
  }

  /// What discover() finds on this tree.
  Discovery discovered(uint64_t Seed) const {
    std::vector<FlowSample> All;
    return discover(
        N, Seed, 2, 16 * N, Rate,
        [&](int R, const std::vector<int> &To) { return round(R, To); }, All);
  }
};

} // namespace

TEST_CASE("probe discover: a derangement sends no node to itself and "
          "reaches every node once") {
  for (int N = 2; N < 12; ++N) {
    std::set<int> Shifts;
    for (int R = 0; R < N - 1; ++R) {
      std::vector<int> To = roundTargets(N, R, 1);
      CHECK(To[0] != 0);
      Shifts.insert(To[0]);
      for (int I = 0; I < N; ++I)
        CHECK(To[static_cast<size_t>(I)] == (I + To[0]) % N);
    }
    CHECK(Shifts.size() == static_cast<size_t>(N - 1)); // every shift once
  }
  for (int N = 2; N < 40; ++N) {
    std::vector<int> To = derangement(N, 7u * N);
    std::vector<int> Seen(static_cast<size_t>(N));
    for (int I = 0; I < N; ++I) {
      CHECK(To[static_cast<size_t>(I)] != I);
      ++Seen[static_cast<size_t>(To[static_cast<size_t>(I)])];
    }
    CHECK(std::all_of(Seen.begin(), Seen.end(), [](int C) { return C == 1; }));
    CHECK(derangement(N, 7u * N) == To);
  }
}

TEST_CASE("probe discover: random oversubscribed two-level trees give back "
          "their leaves and uplink capacity") {
  std::mt19937 Rng(2611);
  for (int Draw = 0; Draw < 40; ++Draw) {
    const int K = std::uniform_int_distribution<int>(2, 8)(Rng);
    const int Leaves = std::uniform_int_distribution<int>(2, 6)(Rng);
    // Uplinks of 1 to K / 2 flows: oversubscribed 2:1 or more.
    const int Up = std::uniform_int_distribution<int>(1, K / 2)(Rng);
    Tree T{K * Leaves, K, static_cast<double>(Up)};
    CAPTURE(K);
    CAPTURE(Leaves);
    CAPTURE(Up);
    Discovery D = T.discovered(1000u * Draw);
    REQUIRE(D.Result == Discovery::Leaves);
    REQUIRE(D.Groups.size() == static_cast<size_t>(Leaves));
    CHECK(contiguousLeaves(D));
    for (int L = 0; L < Leaves; ++L)
      CHECK(D.Groups[static_cast<size_t>(L)].front() == L * K);
    CHECK(D.Capacity == doctest::Approx(Up));
    CHECK(D.FullRate == T.Rate);
  }
}

TEST_CASE("probe discover: uplinks as fast as the nodes behind them are one "
          "switch") {
  for (int K : {2, 3, 4}) {
    Tree T{4 * K, K, static_cast<double>(K)};
    Discovery D = T.discovered(5);
    CHECK(D.Result == Discovery::OneSwitch);
    REQUIRE(D.Groups.size() == 1);
    CHECK(D.Groups.front().size() == static_cast<size_t>(T.N));
  }
}

TEST_CASE("probe discover: flows that no tree explains are unclear") {
  Tree T{8, 4, 1};
  std::vector<FlowSample> S;
  for (int R = 0; R < 40; ++R) {
    std::vector<FlowSample> One = T.round(R, roundTargets(T.N, R, 9));
    S.insert(S.end(), One.begin(), One.end());
  }
  REQUIRE(inferLeaves(T.N, S).Result == Discovery::Leaves);
  // A flow inside a leaf slowed (noise, or another shape).
  S.push_back({999, 0, 1, 1.0});
  Discovery D = inferLeaves(T.N, S);
  CHECK(D.Result == Discovery::Unclear);
  CHECK(D.Why.find("were slowed, yet flows put them on one switch") !=
        std::string::npos);
  // One link every flow shares: every pair slowed.
  std::vector<FlowSample> Backbone;
  for (int R = 0; R < 20; ++R)
    for (int I = 0; I < 6; ++I)
      Backbone.push_back({R, I, roundTargets(6, R, 3)[static_cast<size_t>(I)],
                          R == 0 && I == 0 ? 10.0 : 2.0});
  D = inferLeaves(6, Backbone);
  CHECK(D.Result == Discovery::Unclear);
  // ... and when every flow is slowed alike, the lone flow's rate tells.
  for (FlowSample &F : Backbone)
    F.Rate = 2;
  CHECK(inferLeaves(6, Backbone).Result == Discovery::OneSwitch);
  D = inferLeaves(6, Backbone, 10);
  CHECK(D.Result == Discovery::Unclear);
  CHECK(D.FullRate == 10);
  CHECK(D.Why.find("backbone") != std::string::npos);
  // Leaves of unequal size are found, but are not a fat tree's.
  Discovery Odd;
  Odd.Result = Discovery::Leaves;
  Odd.Groups = {{0, 1, 2}, {3, 4}};
  CHECK(!contiguousLeaves(Odd));
  Odd.Groups = {{0, 2}, {1, 3}};
  CHECK(!contiguousLeaves(Odd));
  Odd.Groups = {{0, 1}, {2, 3}};
  CHECK(contiguousLeaves(Odd));
}
