// OPT-tree (paper 000, section 2): Table 1, Figure 6, and Algorithm 1 against
// the plain dynamic program.
#include "algorithms/OptTree.h"
#include "compiler/Driver.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>
#include <random>

using namespace collc;

TEST_CASE("paper000.Table1: t[i] and j_i for k = 9, t_hold = 20, t_end = 55") {
  OptTreeTable T = optTreeSplits(9, 20, 55);
  const double WantT[] = {0, 0, 55, 75, 95, 110, 115, 130, 130, 135};
  const int WantJ[] = {0, 0, 1, 2, 3, 3, 4, 5, 5, 6};
  for (int I = 1; I <= 9; ++I) {
    CAPTURE(I);
    CHECK(T.T[I] == WantT[I]);
    if (I >= 2)
      CHECK(T.J[I] == WantJ[I]);
  }
  // The j of the table is one optimum among ties; the times are unique.
  OptTreeTable Q = optTreeQuadratic(9, 20, 55);
  for (int I = 1; I <= 9; ++I)
    CHECK(Q.T[I] == WantT[I]);
}

TEST_CASE(
    "paper000.Table1: the opt-tree schedule of 9 ranks has makespan 135") {
  Machine M = test::parameterized(20, 55);
  auto S = compile(M, test::bcast(9, 0, 0, "opt-tree"));
  REQUIRE(S);
  CHECK(S->Makespan == 135);
  // The root's sends follow Algorithm 1: subtrees of 3, 2, 1, 1, 1 at 0, 20,
  // ...
  std::vector<double> RootSends;
  for (const Step &St : S->Steps)
    for (const Transfer &T : St.Transfers)
      if (T.Src == 0)
        RootSends.push_back(T.Start);
  CHECK(RootSends == std::vector<double>{0, 20, 40, 60, 80});
}

TEST_CASE("paper000.Figure6: 7 nodes, t_hold 10, t_end 40: OPT-tree 80, "
          "binomial 120") {
  Machine M = test::parameterized(10, 40);
  auto Opt = compile(M, test::bcast(7, 0, 0, "opt-tree"));
  auto Bin = compile(M, test::bcast(7, 0, 0, "binomial"));
  REQUIRE(Opt);
  REQUIRE(Bin);
  CHECK(Opt->Makespan == 80);
  CHECK(Bin->Makespan == 120);
  CHECK(optTreeSplits(7, 10, 40).T[7] == 80);
}

TEST_CASE("paper000.Figure6: with t_hold = t_end = 20 the optimal tree is the "
          "binomial tree") {
  Machine M = test::parameterized(20, 20);
  auto Opt7 = compile(M, test::bcast(7, 0, 0, "opt-tree"));
  auto Bin7 = compile(M, test::bcast(7, 0, 0, "binomial"));
  REQUIRE(Opt7);
  REQUIRE(Bin7);
  CHECK(Opt7->Makespan == 60);
  CHECK(Bin7->Makespan == 60);
  // On a full binomial tree (8 nodes) the shapes coincide: every rank has
  // the same number of children in both. (With 7 nodes ties let the DP keep
  // 4 where the truncated binomial tree keeps 3; both take 3 steps.)
  auto Opt = compile(M, test::bcast(8, 0, 0, "opt-tree"));
  auto Bin = compile(M, test::bcast(8, 0, 0, "binomial"));
  REQUIRE(Opt);
  REQUIRE(Bin);
  CHECK(Opt->Makespan == 60);
  auto Children = [](const Schedule &S) {
    std::vector<int> C(S.size(), 0);
    for (const Step &St : S.Steps)
      for (const Transfer &T : St.Transfers)
        ++C[T.Src];
    std::sort(C.begin(), C.end());
    return C;
  };
  CHECK(Children(*Opt) == Children(*Bin));
}

TEST_CASE("paper000.Theorem2.1: Algorithm 1 equals the O(k^2) DP for every k "
          "<= 2000") {
  std::mt19937_64 Rng(20261122);
  std::uniform_real_distribution<double> U(0, 100);
  struct Params {
    double Hold, End;
  };
  std::vector<Params> Cases = {{20, 55}, {10, 40}, {20, 20}, {0, 30},
                               {0, 0},   {55, 20}, {100, 1}, {1, 100}};
  for (int I = 0; I < 12; ++I)
    Cases.push_back({U(Rng), U(Rng)}); // includes t_hold > t_end
  Cases.push_back({std::floor(U(Rng)), std::floor(U(Rng))});
  for (const Params &P : Cases) {
    CAPTURE(P.Hold);
    CAPTURE(P.End);
    OptTreeTable Fast = optTreeSplits(2000, P.Hold, P.End);
    OptTreeTable Slow = optTreeQuadratic(2000, P.Hold, P.End);
    int Mismatch = 0;
    for (int K = 1; K <= 2000; ++K)
      if (std::fabs(Fast.T[K] - Slow.T[K]) > 1e-9 * std::max(1.0, Slow.T[K]))
        ++Mismatch;
    CHECK(Mismatch == 0);
  }
}

TEST_CASE(
    "opt-tree schedules cost what the DP predicts, for any root and size") {
  std::mt19937_64 Rng(7);
  for (int Trial = 0; Trial < 60; ++Trial) {
    double Hold = std::uniform_real_distribution<double>(0, 50)(Rng);
    double End = std::uniform_real_distribution<double>(0, 100)(Rng);
    int32_t K = std::uniform_int_distribution<int32_t>(1, 300)(Rng);
    int32_t Root = std::uniform_int_distribution<int32_t>(0, K - 1)(Rng);
    Machine M = test::parameterized(Hold, End);
    auto S = compile(M, test::bcast(K, Root, 0, "opt-tree"));
    REQUIRE(S);
    CAPTURE(K);
    CAPTURE(Hold);
    CAPTURE(End);
    CHECK(S->Makespan == doctest::Approx(optTreeSplits(K, Hold, End).T[K]));
  }
}

TEST_CASE("auto picks the cheapest tree under the model") {
  // t_hold much smaller than t_end: separate addressing wins for small groups.
  Machine Cheap = test::parameterized(1, 100);
  auto S = compile(Cheap, test::bcast(5));
  REQUIRE(S);
  CHECK(S->Makespan == 103);
  // The IBM SP: OPT-tree is optimal; auto finds the same makespan.
  Machine SP = test::parameterized(20, 55, 0.02, 0.07);
  for (int K : {2, 9, 100, 1000}) {
    auto A = compile(SP, test::bcast(K, 0, 1024));
    REQUIRE(A);
    CHECK(A->Makespan ==
          doctest::Approx(
              optTreeSplits(K, 20 + 0.02 * 1024, 55 + 0.07 * 1024).T[K]));
  }
}
