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

/// A tree of 2 to \p MaxLeaves leaves of 2 to 8 nodes, uplinks of 1 to K / 2
/// flows: oversubscribed 2:1 or more.
Tree drawTree(std::mt19937 &Rng, int MaxLeaves) {
  const int K = std::uniform_int_distribution<int>(2, 8)(Rng);
  const int Leaves = std::uniform_int_distribution<int>(2, MaxLeaves)(Rng);
  const int Up = std::uniform_int_distribution<int>(1, K / 2)(Rng);
  return Tree{K * Leaves, K, static_cast<double>(Up)};
}

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
    const Tree T = drawTree(Rng, 6);
    const int K = T.K, Leaves = T.N / T.K;
    CAPTURE(T.N);
    CAPTURE(K);
    CAPTURE(T.Capacity);
    Discovery D = T.discovered(1000u * Draw);
    REQUIRE(D.Result == Discovery::Leaves);
    REQUIRE(D.Groups.size() == static_cast<size_t>(Leaves));
    CHECK(contiguousLeaves(D));
    for (int L = 0; L < Leaves; ++L)
      CHECK(D.Groups[static_cast<size_t>(L)].front() == L * K);
    CHECK(D.Capacity == doctest::Approx(T.Capacity));
    CHECK(D.FullRate == T.Rate);
  }
}

TEST_CASE("probe discover: noise (flows now and then timed slow) does not "
          "hide leaves the flows show without it") {
  std::mt19937 Rng(2612);
  unsigned Found = 0;
  for (int Draw = 0; Draw < 20; ++Draw) {
    const Tree T = drawTree(Rng, 4);
    const int Leaves = T.N / T.K;
    CAPTURE(T.N);
    CAPTURE(T.K);
    CAPTURE(T.Capacity);
    const uint64_t Seed = 77u * Draw;
    if (T.discovered(Seed).Result != Discovery::Leaves)
      continue; // the rounds of this seed do not show them even without noise
    ++Found;
    // One flow in fifty timed at a third of its rate, wherever it runs.
    std::mt19937 Noise(static_cast<unsigned>(Draw));
    std::vector<FlowSample> All;
    unsigned Hit = 0;
    Discovery D = discover(
        T.N, Seed, 2, 16 * T.N, T.Rate,
        [&](int R, const std::vector<int> &To) {
          std::vector<FlowSample> S = T.round(R, To);
          for (FlowSample &F : S)
            if (std::uniform_int_distribution<int>(0, 49)(Noise) == 0) {
              F.Rate /= 3;
              ++Hit;
            }
          return S;
        },
        All);
    CAPTURE(D.Why);
    REQUIRE(D.Result == Discovery::Leaves);
    REQUIRE(D.Groups.size() == static_cast<size_t>(Leaves));
    CHECK(contiguousLeaves(D));
    CHECK(D.Noise <= Hit);
  }
  CHECK(Found >= 15);
  // One switch: noise alone is still one switch.
  Tree Flat{8, 8, 8};
  std::vector<FlowSample> S;
  for (int R = 0; R < 20; ++R) {
    std::vector<FlowSample> One = Flat.round(R, roundTargets(8, R, 4));
    S.insert(S.end(), One.begin(), One.end());
  }
  S[5].Rate /= 3;
  Discovery D = inferLeaves(8, S, Flat.Rate);
  CHECK(D.Result == Discovery::OneSwitch);
  CHECK(D.Noise == 1);
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
  // One flow inside a leaf slowed among many fast ones: noise.
  S.push_back({999, 0, 1, 1.0});
  Discovery D = inferLeaves(T.N, S);
  CHECK(D.Result == Discovery::Leaves);
  CHECK(D.Noise == 1);
  CHECK(D.Groups.size() == 2);
  // Node 7 seen slowed once with each node of its leaf: "never slowed"
  // splits it off (leaves of 4, 3 and 1), pairs slowed now and then put it
  // back.
  std::vector<FlowSample> Split = S;
  for (int Mate : {4, 5, 6})
    Split.push_back({1500, Mate, 7, 1.0});
  D = inferLeaves(T.N, Split);
  CHECK(D.Result == Discovery::Leaves);
  CHECK(contiguousLeaves(D));
  CHECK(D.Groups.size() == 2);
  CHECK(D.Noise == 4);
  // A pair inside a leaf slowed as often as not: another shape.
  for (int R = 0; R < 12; ++R)
    S.push_back({1000 + R, 0, 1, 1.0});
  D = inferLeaves(T.N, S);
  CHECK(D.Result == Discovery::Unclear);
  CHECK(D.Why.find("yet flows put them on one switch") != std::string::npos);
  // Half the pairs inside each leaf slowed three times (each pair, in at
  // most one in four of its flows, could be noise; together they are more
  // than one flow in ten inside the leaves).
  std::vector<FlowSample> Many;
  for (int R = 0; R < 40; ++R) {
    std::vector<FlowSample> One = T.round(R, roundTargets(T.N, R, 9));
    Many.insert(Many.end(), One.begin(), One.end());
  }
  for (int Leaf : {0, 4})
    for (std::pair<int, int> P : {std::pair{0, 2}, {0, 3}, {1, 3}})
      for (int R = 0; R < 3; ++R)
        Many.push_back({2000 + R, Leaf + P.first, Leaf + P.second, 1.0});
  D = inferLeaves(T.N, Many);
  CAPTURE(D.Why);
  CHECK(D.Result == Discovery::Unclear);
  CHECK(D.Why.find("more than noise") != std::string::npos);
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
