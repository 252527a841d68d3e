// Routes of the network topologies: SimGrid's fat tree and flat cluster,
// SimGrid's torus routing order, link classes and agreement with
// Topology::distance.
#include "ir/FatTree.h"
#include "passes/Contention.h"
#include "passes/Routes.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Topology fatTree(std::vector<int64_t> Down, std::vector<int64_t> Up,
                 std::vector<int64_t> Parallel) {
  Topology T;
  T.Kind = TopologyKind::FatTree;
  T.Levels = static_cast<int64_t>(Down.size());
  T.Down = Down;
  T.Up = Up;
  T.Parallel = Parallel;
  T.Nodes = 1;
  for (int64_t D : Down)
    T.Nodes *= D;
  return T;
}

std::string path(const Topology &T, int64_t A, int64_t B) {
  auto R = route(T, A, B);
  REQUIRE(static_cast<bool>(R));
  std::string S;
  for (const Channel &C : *R)
    S += (S.empty() ? "" : " ") + channelName(T, C) + "/" +
         std::to_string(C.Class);
  return S;
}

/// SimGrid's TorusZone::get_local_route, transcribed: the next node of each
/// hop, dimension 0 (stride 1) first.
std::vector<int64_t> simgridTorusRoute(const std::vector<int64_t> &Dims,
                                       int64_t Src, int64_t Dst) {
  std::vector<int64_t> My(Dims.size()), Target(Dims.size());
  int64_t Prod = 1;
  for (size_t I = 0; I < Dims.size(); ++I) {
    My[I] = (Src / Prod) % Dims[I];
    Target[I] = (Dst / Prod) % Dims[I];
    Prod *= Dims[I];
  }
  std::vector<int64_t> Out;
  int64_t Cur = Src;
  while (Cur != Dst) {
    int64_t Next = 0, P = 1;
    for (size_t J = 0; J < Dims.size(); ++J) {
      int64_t D = Dims[J];
      if ((Cur / P) % D != (Dst / P) % D) {
        if ((Target[J] > My[J] && Target[J] <= My[J] + D / 2) ||
            (My[J] > D / 2 && (My[J] + D / 2) % D >= Target[J]))
          Next = (Cur / P) % D == D - 1 ? Cur + P - P * D : Cur + P;
        else
          Next = (Cur / P) % D == 0 ? Cur - P + P * D : Cur - P;
        break;
      }
      P *= D;
    }
    Out.push_back(Next);
    Cur = Next;
  }
  return Out;
}

} // namespace

TEST_CASE("network routes: fat tree 2;4,4;1,2;1,2 as SimGrid routes it") {
  // 16 nodes, four level-1 switches (vertices 16..19, one per group of four
  // nodes), two level-2 switches (20, 21) joined to every level-1 switch by
  // two parallel links.
  Topology T = fatTree({4, 4}, {1, 2}, {1, 2});
  FatTreeNetwork Net(T);
  CHECK(Net.nodes() == 16);
  CHECK(Net.verticesAt(1) == 4);
  CHECK(Net.verticesAt(2) == 2);
  CHECK(Net.numSwitches() == 6);
  CHECK(linkClassNames(T) == std::vector<std::string>{"level-1", "level-2"});
  // Up by d-mod-k: parent (5 mod 4) = 1 of switch (1,0) is sw(2,1) on its
  // first link; down on link 0 mod 2 = 0.
  CHECK(path(T, 0, 5) ==
        "0->sw(1,0)/0 sw(1,0)->sw(2,1)/1 sw(2,1)->sw(1,1)/1 sw(1,1)->5/0");
  // From node 1, down on parallel link 1 mod 2 = 1.
  CHECK(path(T, 1, 5) == "1->sw(1,0)/0 sw(1,0)->sw(2,1)/1 "
                         "sw(2,1)->sw(1,1)#1/1 sw(1,1)->5/0");
  // Parent 3 mod 4 = 3: switch 1 of level 2 on its second link.
  CHECK(path(T, 6, 3) == "6->sw(1,1)/0 sw(1,1)->sw(2,1)#1/1 "
                         "sw(2,1)->sw(1,0)/1 sw(1,0)->3/0");
  // Within a group of four: up one level and down.
  CHECK(path(T, 4, 7) == "4->sw(1,1)/0 sw(1,1)->7/0");
  CHECK(path(T, 9, 9).empty());
  CHECK(T.distance(0, 5) == 4);
  CHECK(T.distance(4, 7) == 2);
  CHECK(T.distance(9, 9) == 0);
}

TEST_CASE("network routes: fat tree routes agree with distance, channels "
          "join adjacent vertices") {
  for (Topology T : {fatTree({4, 4}, {1, 2}, {1, 2}),
                     fatTree({2, 3, 2}, {2, 2, 1}, {1, 2, 3}),
                     fatTree({16, 16}, {1, 4}, {1, 2})}) {
    FatTreeNetwork Net(T);
    for (int64_t A = 0; A < T.Nodes; A += 3)
      for (int64_t B = 0; B < T.Nodes; ++B) {
        auto R = route(T, A, B);
        REQUIRE(static_cast<bool>(R));
        REQUIRE(R->size() == T.distance(A, B));
        int64_t At = A;
        for (size_t I = 0; I < R->size(); ++I) {
          const Channel &C = (*R)[I];
          CHECK(C.From == At);
          FatTreeVertex F = Net.vertexOf(C.From), To = Net.vertexOf(C.To);
          CHECK(std::abs(F.Level - To.Level) == 1);
          CHECK(C.Class == std::min(F.Level, To.Level));
          CHECK(C.Lane < T.Parallel[C.Class]);
          // Up, then down.
          CHECK((To.Level > F.Level) == (I < R->size() / 2));
          At = C.To;
        }
        CHECK(At == B);
      }
  }
}

TEST_CASE("network routes: cluster with and without a backbone") {
  Topology T;
  T.Kind = TopologyKind::Cluster;
  T.Nodes = 4;
  CHECK(linkClassNames(T) == std::vector<std::string>{"private"});
  CHECK(path(T, 0, 3) == "0->switch/0 switch->3/0");
  CHECK(T.distance(0, 3) == 2);
  T.Backbone = true;
  CHECK(linkClassNames(T) == std::vector<std::string>{"private", "backbone"});
  CHECK(path(T, 0, 3) == "0->switch/0 backbone/1 switch->3/0");
  CHECK(path(T, 3, 0) == "3->switch/0 backbone/1 switch->0/0");
  CHECK(T.distance(0, 3) == 3);
  CHECK(T.distance(2, 2) == 0);
  CHECK(path(T, 2, 2).empty());
}

TEST_CASE("network routes: SimGrid's torus order, last written dimension "
          "first, ties as TorusZone breaks them") {
  for (std::vector<int64_t> Dims :
       std::vector<std::vector<int64_t>>{{4, 6}, {5, 4}, {16, 16}, {3, 4, 2}}) {
    Topology T;
    T.Kind = TopologyKind::Torus;
    T.Dims = Dims;
    T.Nodes = 1;
    for (int64_t D : Dims)
      T.Nodes *= D;
    T.Routing = DimensionRouting::SimGrid;
    // SimGrid's dimension 0 is the last written one.
    std::vector<int64_t> SgDims(Dims.rbegin(), Dims.rend());
    for (int64_t A = 0; A < T.Nodes; ++A)
      for (int64_t B = 0; B < T.Nodes; ++B) {
        auto R = route(T, A, B, /*TieDown=*/0xff);
        REQUIRE(static_cast<bool>(R));
        std::vector<int64_t> Got;
        for (const Channel &C : *R)
          Got.push_back(C.To);
        REQUIRE(Got == simgridTorusRoute(SgDims, A, B));
        CHECK(R->size() == T.distance(A, B));
      }
  }
  // On a 16x16 torus node 0 -> node 17 goes along the row first.
  Topology T;
  T.Kind = TopologyKind::Torus;
  T.Dims = {16, 16};
  T.Nodes = 256;
  T.Routing = DimensionRouting::SimGrid;
  CHECK(path(T, 0, 17) == "(0,0)->(0,1)/0 (0,1)->(1,1)/0");
  // A tie from coordinate 8 goes the decreasing way, from elsewhere up.
  CHECK(path(T, 8, 0) == "(0,8)->(0,7)/0 (0,7)->(0,6)/0 (0,6)->(0,5)/0 "
                         "(0,5)->(0,4)/0 (0,4)->(0,3)/0 (0,3)->(0,2)/0 "
                         "(0,2)->(0,1)/0 (0,1)->(0,0)/0");
  CHECK(route(T, 9, 1)->front().To == 10);
  T.Routing = DimensionRouting::FirstWritten;
  CHECK(path(T, 0, 17) == "(0,0)->(1,0)/0 (1,0)->(1,1)/0");
}

TEST_CASE("network routes: the contention checker tells parallel links "
          "apart") {
  Machine M;
  M.Topo = fatTree({4, 4}, {1, 2}, {1, 2});
  auto Check = [&](int32_t A, int32_t B, int32_t C, int32_t D) {
    Schedule S;
    S.Participants.resize(16);
    for (int32_t R = 0; R < 16; ++R)
      S.Participants[R].Node = R;
    Step St;
    for (auto [Src, Dst] : {std::pair{A, B}, std::pair{C, D}}) {
      Transfer T;
      T.Src = Src;
      T.Dst = Dst;
      St.Transfers.push_back(T);
    }
    S.Steps.push_back(St);
    return checkContention(S, M);
  };
  // 0 -> 5 and 1 -> 13 climb the same link to sw(2,1) (5 mod 4 = 13 mod
  // 4).
  ContentionReport R = Check(0, 5, 1, 13);
  REQUIRE(R.NumConflicts == 1);
  CHECK(channelName(M.Topo, R.Conflicts[0].Shared) == "sw(1,0)->sw(2,1)");
  // Two routes over the same two switches on different parallel links.
  bool Found = false;
  for (int32_t A = 0; A < 16 && !Found; ++A)
    for (int32_t B = 0; B < 16 && !Found; ++B)
      for (int32_t C = 0; C < 16 && !Found; ++C)
        for (int32_t D = 0; D < 16 && !Found; ++D) {
          if (A == B || C == D || A == C || B == D)
            continue;
          auto X = *route(M.Topo, A, B), Y = *route(M.Topo, C, D);
          bool Same = false, Parallel = false;
          for (const Channel &P : X)
            for (const Channel &Q : Y) {
              Same |= P == Q;
              Parallel |= P.From == Q.From && P.To == Q.To && P.Lane != Q.Lane;
            }
          if (Same || !Parallel)
            continue;
          Found = true;
          CHECK(Check(A, B, C, D).clean());
        }
  CHECK(Found);
}
