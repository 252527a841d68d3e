// The MIN topology: structure and turnaround routing
// (ir/MultistageNetwork.h).
#include "ir/MultistageNetwork.h"
#include "ir/Machine.h"

#include <doctest/doctest.h>
#include <map>
#include <set>

using namespace collc;

namespace {

/// The two ends of a directed channel, as switch ids (processors as -1 - p).
std::pair<int64_t, int64_t> ends(const MinNetwork &Net, const MinChannel &C) {
  int64_t Lo, Hi;
  if (C.Level == 0) {
    Lo = -1 - C.Lower;
    Hi = Net.switchId({0, C.Lower / Net.radix()});
  } else {
    MinSwitch Below{C.Level - 1, C.Lower};
    Lo = Net.switchId(Below);
    Hi = Net.switchId(Net.up(Below, C.Port));
  }
  return C.Upward ? std::make_pair(Lo, Hi) : std::make_pair(Hi, Lo);
}

void checkNetwork(int64_t Nodes, int64_t Radix, int32_t Stages) {
  MinNetwork Net(Nodes, Radix);
  CHECK(Net.stages() == Stages);
  for (int64_t A = 0; A < Nodes; ++A)
    for (int64_t B = 0; B < Nodes; ++B) {
      auto Route = Net.route(A, B);
      CHECK(Route.size() == Net.distance(A, B));
      if (A == B) {
        CHECK(Route.empty());
        continue;
      }
      // A connected path from processor A to processor B, up then down,
      // turning at level h + 1 channels.
      CHECK(ends(Net, Route.front()).first == -1 - A);
      CHECK(ends(Net, Route.back()).second == -1 - B);
      for (size_t I = 1; I < Route.size(); ++I)
        CHECK(ends(Net, Route[I - 1]).second == ends(Net, Route[I]).first);
      int32_t H = Net.turnLevel(A, B);
      CHECK(Route.size() == static_cast<size_t>(2 * (H + 1)));
      for (size_t I = 0; I < Route.size(); ++I)
        CHECK(Route[I].Upward == (I <= static_cast<size_t>(H)));
      auto Sw = Net.switchesOnRoute(A, B);
      CHECK(Sw.size() == static_cast<size_t>(2 * H + 1));
    }
}

} // namespace

TEST_CASE("min: 64 nodes of 8x8 switches are two stages of eight switches") {
  MinNetwork Net(64, 8);
  CHECK(Net.stages() == 2);
  CHECK(Net.numSwitches() == 16); // the paper's 4-bit switch address
  // Every level-0 switch reaches every level-1 switch, one up port each.
  for (int64_t S = 0; S < 8; ++S) {
    std::set<int64_t> Up;
    for (int64_t J = 0; J < 8; ++J) {
      MinSwitch U = Net.up({0, S}, J);
      CHECK(U.Level == 1);
      Up.insert(U.Index);
      // ... and the down port back leads to where we came from.
      MinSwitch D = Net.down(U, S);
      CHECK(D == MinSwitch{0, S});
    }
    CHECK(Up.size() == 8);
  }
  CHECK(Net.distance(0, 7) == 2);
  CHECK(Net.distance(0, 8) == 4);
  CHECK(Net.distance(63, 0) == 4);
}

TEST_CASE(
    "min: routes are connected paths of 2(h+1) channels on several networks") {
  checkNetwork(64, 8, 2);
  checkNetwork(64, 4, 3);
  checkNetwork(27, 3, 3);
  checkNetwork(16, 2, 4);
  checkNetwork(8, 8, 1);
}

TEST_CASE("min: routes towards one destination form a tree (the barrier's "
          "combining tree)") {
  for (auto [N, K] : {std::pair<int64_t, int64_t>{64, 8}, {64, 4}, {32, 2}}) {
    MinNetwork Net(N, K);
    for (int64_t Dst : {int64_t(0), N / 3, N - 1}) {
      // Every channel has one successor towards Dst, whoever sent.
      std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> Next;
      for (int64_t Src = 0; Src < N; ++Src) {
        auto Route = Net.route(Src, Dst);
        for (size_t I = 1; I < Route.size(); ++I) {
          auto [It, New] =
              Next.try_emplace(ends(Net, Route[I - 1]), ends(Net, Route[I]));
          CHECK(It->second == ends(Net, Route[I]));
        }
      }
    }
  }
}

TEST_CASE("min: Topology::distance on a min machine uses the route length") {
  Topology T;
  T.Kind = TopologyKind::Min;
  T.Nodes = 64;
  T.SwitchRadix = 8;
  CHECK(T.distance(3, 3) == 0);
  CHECK(T.distance(3, 5) == 2);
  CHECK(T.distance(3, 50) == 4);
}
