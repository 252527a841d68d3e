// Routes: dimension-ordered routing on meshes, tori and hypercubes, the
// crossbar's private links, and agreement with Topology::distance.
#include "passes/Routes.h"

#include <doctest/doctest.h>

#include <set>

using namespace collc;

namespace {

Topology grid(TopologyKind K, std::vector<int64_t> Dims) {
  Topology T;
  T.Kind = K;
  T.Dims = Dims;
  T.Nodes = 1;
  for (int64_t D : Dims)
    T.Nodes *= D;
  return T;
}

std::string path(const Topology &T, int64_t A, int64_t B, uint8_t TieDown = 0) {
  auto R = route(T, A, B, TieDown);
  REQUIRE(static_cast<bool>(R));
  std::string S = nodeName(T, A);
  for (const Channel &C : *R)
    S += " " + nodeName(T, C.To);
  return S;
}

} // namespace

TEST_CASE("routes: mesh resolves the first written coordinate first") {
  Topology T = grid(TopologyKind::Mesh, {6, 6});
  // (4,4) -> (5,1): sigma_1 first, then sigma_0 (the digest's example).
  CHECK(path(T, T.nodeOf({4, 4}), T.nodeOf({5, 1})) ==
        "(4,4) (5,4) (5,3) (5,2) (5,1)");
  CHECK(path(T, T.nodeOf({3, 2}), T.nodeOf({1, 5})) ==
        "(3,2) (2,2) (1,2) (1,3) (1,4) (1,5)");
  CHECK(path(T, 7, 7) == "(1,1)");
}

TEST_CASE("routes: torus goes the shorter way, increasing on a tie") {
  Topology T = grid(TopologyKind::Torus, {4, 5});
  CHECK(path(T, T.nodeOf({0, 0}), T.nodeOf({3, 4})) == "(0,0) (3,0) (3,4)");
  // Offset 2 of extent 4: a tie, resolved upwards.
  CHECK(path(T, T.nodeOf({3, 1}), T.nodeOf({1, 1})) == "(3,1) (0,1) (1,1)");
  CHECK(path(T, T.nodeOf({1, 1}), T.nodeOf({3, 1})) == "(1,1) (2,1) (3,1)");
}

TEST_CASE("routes: a transfer's TieDown bit turns a torus tie downwards, and "
          "nothing else") {
  Topology T = grid(TopologyKind::Torus, {4, 4});
  // Written dimension 0 (the first coordinate): bit 0.
  CHECK(path(T, T.nodeOf({1, 1}), T.nodeOf({3, 1}), 1) == "(1,1) (0,1) (3,1)");
  CHECK(path(T, T.nodeOf({1, 1}), T.nodeOf({3, 1}), 2) == "(1,1) (2,1) (3,1)");
  // Dimension 1: bit 1; both ties at once.
  CHECK(path(T, T.nodeOf({0, 0}), T.nodeOf({2, 2}), 2) ==
        "(0,0) (1,0) (2,0) (2,3) (2,2)");
  CHECK(path(T, T.nodeOf({0, 0}), T.nodeOf({2, 2}), 3) ==
        "(0,0) (3,0) (2,0) (2,3) (2,2)");
  // Not a tie: the shorter way whatever the bits say.
  CHECK(path(T, T.nodeOf({0, 0}), T.nodeOf({1, 3}), 3) == "(0,0) (1,0) (1,3)");
  // Meshes have no ties.
  Topology Mesh = grid(TopologyKind::Mesh, {4, 4});
  CHECK(path(Mesh, Mesh.nodeOf({0, 0}), Mesh.nodeOf({2, 0}), 1) ==
        "(0,0) (1,0) (2,0)");
}

TEST_CASE("routes: hypercube is e-cube in written order") {
  Topology T = grid(TopologyKind::Hypercube, {2, 2, 2});
  CHECK(path(T, 0, 7) == "(0,0,0) (1,0,0) (1,1,0) (1,1,1)");
  CHECK(path(T, 5, 2) == "(1,0,1) (0,0,1) (0,1,1) (0,1,0)");
}

TEST_CASE("routes: full topology has a private link per ordered pair") {
  Topology T;
  T.Kind = TopologyKind::Full;
  auto R = route(T, 3, 9);
  REQUIRE(static_cast<bool>(R));
  REQUIRE(R->size() == 1);
  CHECK((*R)[0] == Channel{3, 9});
}

TEST_CASE("routes: unrouted topologies give an error, not a route") {
  Topology T;
  T.Kind = TopologyKind::Star;
  T.StarK = 4;
  T.Nodes = 24;
  if (!isRouted(T)) {
    auto R = route(T, 0, 1);
    CHECK(!R);
    llvm::consumeError(R.takeError());
  }
}

TEST_CASE("routes: every route is a walk of adjacent nodes as long as "
          "distance") {
  for (auto [K, Dims] :
       std::vector<std::pair<TopologyKind, std::vector<int64_t>>>{
           {TopologyKind::Mesh, {3, 4}},
           {TopologyKind::Mesh, {2, 3, 4}},
           {TopologyKind::Torus, {4, 5}},
           {TopologyKind::Torus, {3, 2, 4}},
           {TopologyKind::Hypercube, {2, 2, 2, 2}}}) {
    Topology T = grid(K, Dims);
    for (int64_t A = 0; A < T.Nodes; ++A)
      for (int64_t B = 0; B < T.Nodes; ++B) {
        auto R = route(T, A, B);
        REQUIRE(static_cast<bool>(R));
        CHECK(R->size() == T.distance(A, B));
        int64_t Cur = A;
        std::set<std::pair<int64_t, int64_t>> Seen;
        for (const Channel &C : *R) {
          CHECK(C.From == Cur);
          CHECK(T.distance(C.From, C.To) == 1);
          CHECK(Seen.insert({C.From, C.To}).second);
          Cur = C.To;
        }
        CHECK(Cur == B);
      }
  }
}
