// OPT-mesh and U-mesh (paper 000 section 3): the 6x6 worked example,
// Theorem 3.1 by brute force, and random groups on 16x16 and 8x8x8 meshes.
#include "algorithms/Mesh.h"
#include "algorithms/OptTree.h"
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Routes.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <set>

using namespace collc;

namespace {

Machine meshMachine(std::vector<int64_t> Dims, double THold = 20,
                    double TEnd = 55, double HoldPerByte = 0.02,
                    double EndPerByte = 0.07) {
  Machine M = test::parameterized(THold, TEnd, HoldPerByte, EndPerByte);
  M.Topo.Kind = TopologyKind::Mesh;
  M.Topo.Dims = Dims;
  M.Topo.Nodes = 1;
  for (int64_t D : Dims)
    M.Topo.Nodes *= D;
  return M;
}

Request multicast(const Machine &M, std::vector<std::vector<int64_t>> Coords,
                  uint64_t Bytes = 0) {
  Request R;
  R.Coll = Collective::Multicast;
  for (auto &C : Coords)
    R.Nodes.push_back(M.Topo.nodeOf(C));
  R.Root = 0;
  R.Bytes = Bytes;
  return R;
}

Schedule built(const Machine &M, const Request &R, const char *Alg) {
  auto S = buildAndCost(M, R, Alg);
  REQUIRE(static_cast<bool>(S));
  auto Problems = verifySchedule(*S, M);
  CHECK(Problems.empty());
  return std::move(*S);
}

/// The paper's example: source (3,2) and seven destinations on a 6x6 mesh.
Request workedExample(const Machine &M) {
  return multicast(
      M, {{3, 2}, {1, 5}, {2, 1}, {3, 4}, {4, 3}, {4, 4}, {5, 1}, {5, 4}});
}

std::string coord(const Machine &M, const Schedule &S, int32_t Rank) {
  return nodeName(M.Topo, S.Participants[Rank].Node);
}

} // namespace

TEST_CASE("paper000.Section3.WorkedExample: OPT-mesh takes 130 with the "
          "digest's sends, contention-free") {
  Machine M = meshMachine({6, 6});
  Schedule S = built(M, workedExample(M), "opt-mesh");
  CHECK(S.Makespan == doctest::Approx(130));
  std::set<std::string> Sends;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      Sends.insert(coord(M, S, T.Src) + "->" + coord(M, S, T.Dst) + "@" +
                   std::to_string(static_cast<int>(T.Start)));
  std::set<std::string> Paper = {"(3,2)->(4,4)@0",  "(3,2)->(3,4)@20",
                                 "(3,2)->(1,5)@40", "(3,2)->(2,1)@60",
                                 "(4,4)->(5,4)@55", "(4,4)->(5,1)@75",
                                 "(3,4)->(4,3)@75"};
  CHECK(Sends == Paper);
  ContentionReport C = checkContention(S, M);
  CHECK(C.Checked);
  CHECK(C.clean());
}

TEST_CASE("paper000.Section3.WorkedExample: U-mesh takes 165, "
          "contention-free") {
  Machine M = meshMachine({6, 6});
  Schedule S = built(M, workedExample(M), "u-mesh");
  CHECK(S.Makespan == doctest::Approx(165));
  CHECK(checkContention(S, M).clean());
}

TEST_CASE("paper000.Section3.WorkedExample: the arc (4,4)->(5,4) carries two "
          "sends t_hold apart, which is not contention") {
  Machine M = meshMachine({6, 6});
  Schedule S = built(M, workedExample(M), "opt-mesh");
  Channel Arc{M.Topo.nodeOf({4, 4}), M.Topo.nodeOf({5, 4})};
  std::vector<Transfer *> Users;
  for (Step &St : S.Steps)
    for (Transfer &T : St.Transfers) {
      auto R =
          route(M.Topo, S.Participants[T.Src].Node, S.Participants[T.Dst].Node);
      REQUIRE(static_cast<bool>(R));
      if (std::find(R->begin(), R->end(), Arc) != R->end())
        Users.push_back(&T);
    }
  REQUIRE(Users.size() == 2);
  CHECK(std::abs(Users[0]->Start - Users[1]->Start) == doctest::Approx(20));
  CHECK(checkContention(S, M).clean());
  // Less than t_hold apart, the same two sends would collide on that arc.
  Transfer *Later = Users[0]->Start > Users[1]->Start ? Users[0] : Users[1];
  Later->Start -= 10;
  Later->End -= 10;
  ContentionReport C = checkContention(S, M);
  REQUIRE(C.NumConflicts == 1);
  CHECK(C.Conflicts[0].Shared == Arc);
}

TEST_CASE("paper000.Theorem3.1: routes of ordered node pairs share no arc "
          "(exhaustive on small meshes)") {
  for (std::vector<int64_t> Dims :
       std::vector<std::vector<int64_t>>{{4, 4}, {3, 5}, {2, 3, 3}}) {
    Machine M = meshMachine(Dims);
    const Topology &T = M.Topo;
    int64_t N = T.Nodes;
    std::vector<std::vector<std::set<std::pair<int64_t, int64_t>>>> Arcs(
        N, std::vector<std::set<std::pair<int64_t, int64_t>>>(N));
    for (int64_t A = 0; A < N; ++A)
      for (int64_t B = 0; B < N; ++B) {
        auto R = route(T, A, B);
        REQUIRE(static_cast<bool>(R));
        for (const Channel &C : *R)
          Arcs[A][B].insert({C.From, C.To});
      }
    auto Disjoint = [&](int64_t A, int64_t B, int64_t C, int64_t D) {
      for (auto &Arc : Arcs[A][B])
        if (Arcs[C][D].count(Arc))
          return false;
      return true;
    };
    int64_t Quadruples = 0, Violations = 0;
    // Node numbers are in <_d order, so u < v < x < y is u <_d v <_d x <_d y.
    for (int64_t U = 0; U < N; ++U)
      for (int64_t V = U + 1; V < N; ++V)
        for (int64_t X = V + 1; X < N; ++X)
          for (int64_t Y = X + 1; Y < N; ++Y) {
            ++Quadruples;
            if (!Disjoint(U, V, X, Y) || !Disjoint(Y, X, V, U) ||
                !Disjoint(V, U, X, Y))
              ++Violations;
          }
    CHECK(Quadruples > 0);
    CHECK(Violations == 0);
  }
}

TEST_CASE("paper000.Theorem3.1: resolving the last written coordinate first "
          "breaks it") {
  // Route on a 3x3 mesh the other way round, sigma_0 first, and look for a
  // quadruple u <_d v <_d x <_d y whose routes share an arc.
  Machine M = meshMachine({3, 3});
  const Topology &T = M.Topo;
  auto Other = [&](int64_t A, int64_t B) {
    std::set<std::pair<int64_t, int64_t>> S;
    auto CA = T.coordOf(A), CB = T.coordOf(B);
    auto Cur = CA;
    for (size_t I = CA.size(); I-- > 0;)
      while (Cur[I] != CB[I]) {
        auto Next = Cur;
        Next[I] += CB[I] > Cur[I] ? 1 : -1;
        S.insert({T.nodeOf(Cur), T.nodeOf(Next)});
        Cur = Next;
      }
    return S;
  };
  auto Shares = [&](int64_t A, int64_t B, int64_t C, int64_t D) {
    auto X = Other(A, B), Y = Other(C, D);
    for (auto &Arc : X)
      if (Y.count(Arc))
        return true;
    return false;
  };
  int64_t Violations = 0;
  for (int64_t U = 0; U < 9; ++U)
    for (int64_t V = U + 1; V < 9; ++V)
      for (int64_t X = V + 1; X < 9; ++X)
        for (int64_t Y = X + 1; Y < 9; ++Y)
          Violations +=
              Shares(U, V, X, Y) || Shares(Y, X, V, U) || Shares(V, U, X, Y);
  CHECK(Violations > 0);
}

TEST_CASE("paper000.Section3.RandomGroups: OPT-mesh and U-mesh are "
          "contention-free on 16x16 and 8x8x8, OPT-mesh is optimal, naive "
          "placement collides") {
  std::mt19937_64 Rng(20260101);
  for (std::vector<int64_t> Dims :
       std::vector<std::vector<int64_t>>{{16, 16}, {8, 8, 8}}) {
    Machine M = meshMachine(Dims);
    std::vector<int64_t> All(M.Topo.Nodes);
    std::iota(All.begin(), All.end(), 0);
    const int Groups = 1000;
    int NaiveOptTree = 0, NaiveBinomial = 0, Bad = 0;
    for (int G = 0; G < Groups; ++G) {
      int64_t K = std::uniform_int_distribution<int64_t>(2, 256)(Rng);
      std::shuffle(All.begin(), All.end(), Rng);
      Request R;
      R.Coll = Collective::Multicast;
      R.Nodes.assign(All.begin(), All.begin() + K);
      R.Bytes = std::array<uint64_t, 3>{0, 1024, 4096}[G % 3];
      auto Opt = buildAndCost(M, R, "opt-mesh");
      auto U = buildAndCost(M, R, "u-mesh");
      auto Naive = buildAndCost(M, R, "opt-tree");
      auto NaiveB = buildAndCost(M, R, "binomial");
      REQUIRE((Opt && U && Naive && NaiveB));
      OptTreeTable Table =
          optTreeSplits(K, M.M.tHold(R.Bytes), M.M.tEnd(R.Bytes));
      if (!checkContention(*Opt, M).clean() ||
          !checkContention(*U, M).clean() ||
          Opt->Makespan != doctest::Approx(Table.T[K]) ||
          !verifySchedule(*Opt, M).empty() || !verifySchedule(*U, M).empty())
        ++Bad;
      NaiveOptTree += !checkContention(*Naive, M).clean();
      NaiveBinomial += !checkContention(*NaiveB, M).clean();
    }
    CHECK(Bad == 0);
    // Naive placement collides on most random groups (see docs/mesh.md).
    CHECK(NaiveOptTree > 0);
    MESSAGE("mesh " << M.Topo.Nodes << " nodes: naive opt-tree collides on "
                    << NaiveOptTree << "/" << Groups
                    << " groups, naive binomial on " << NaiveBinomial << "/"
                    << Groups);
  }
}

TEST_CASE("mesh: auto prefers a contention-free optimum") {
  Machine M = meshMachine({6, 6});
  Request R = multicast(
      M, {{3, 2}, {1, 3}, {4, 1}, {0, 3}, {0, 4}, {4, 2}, {2, 5}, {5, 2}});
  auto Naive = buildAndCost(M, R, "opt-tree");
  REQUIRE(static_cast<bool>(Naive));
  CHECK(!checkContention(*Naive, M).clean());
  auto S = compile(M, R);
  REQUIRE(static_cast<bool>(S));
  CHECK(checkContention(*S, M).clean());
  CHECK(S->Makespan == doctest::Approx(Naive->Makespan));
}

TEST_CASE("mesh: builders reject topologies without dimension order") {
  Machine M = test::parameterized(20, 55);
  Request R = test::bcast(5, 0, 0, "opt-mesh");
  std::string Why;
  CHECK(!meshApplies(M, R, Why));
  CHECK(Why.find("mesh") != std::string::npos);
}
