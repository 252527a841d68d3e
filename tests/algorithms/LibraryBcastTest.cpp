// The MPI libraries' broadcasts (algorithms/LibraryBcast.h): the
// k-nomial tree's shape, both builders verified on random process counts
// 1..300, roots and sizes, with several ranks per node and on the SMPI
// platforms; and on the fat tree, auto against schedules the test builds.

#include "algorithms/LibraryBcast.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "passes/Cost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>

using namespace collc;
using namespace collc::test;

namespace {

const char *const LibraryBuilders[] = {"knomial", "scatter-rdb-allgather"};

/// \p R with algorithm \p Name through the driver's road (build, cost,
/// verify: a schedule that fails verification is an error).
Schedule buildChecked(const Machine &M, Request R, const std::string &Name) {
  R.Algorithm = Name;
  llvm::Expected<Schedule> S = compile(M, R);
  INFO(Name << " on " << M.Name << ", " << R.size() << " ranks, root " << R.Root
            << ", " << R.Bytes << " bytes");
  REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
  CHECK(S->Algorithm == Name);
  return std::move(*S);
}

/// Transfers into each rank.
std::vector<int64_t> receives(const Schedule &S) {
  std::vector<int64_t> In(S.size(), 0);
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      ++In[T.Dst];
  return In;
}

} // namespace

TEST_CASE("knomial: every index but 0 is the child of its parent, served "
          "largest subtrees first") {
  for (int64_t K : {2, 3, 4, 5, 8, 16})
    for (int64_t P : {1, 2, 3, 7, 16, 17, 64, 100, 255, 256, 300}) {
      std::vector<int64_t> ParentOf(P, -2);
      for (int64_t I = 0; I < P; ++I) {
        std::vector<int64_t> Kids = knomialChildren(I, K, P);
        for (size_t J = 0; J < Kids.size(); ++J) {
          CHECK(Kids[J] > I);
          CHECK(Kids[J] < P);
          CHECK(ParentOf[Kids[J]] == -2);
          ParentOf[Kids[J]] = I;
          // Distance to the child never grows by more than the radix
          // allows within a digit position, and falls between positions.
          if (J > 0 && (Kids[J] - I) < (Kids[J - 1] - I))
            CHECK((Kids[J - 1] - I) % (Kids[J] - I) == 0);
        }
      }
      for (int64_t I = 1; I < P; ++I) {
        INFO("K " << K << " P " << P << " index " << I);
        CHECK(ParentOf[I] == knomialParent(I, K));
      }
      CHECK(knomialParent(0, K) == -1);
    }
  // Radix 4 over 64: the root serves 16, 32, 48, then 4, 8, 12, then 1, 2, 3
  // (MVAPICH2's order).
  CHECK(knomialChildren(0, 4, 64) ==
        std::vector<int64_t>{16, 32, 48, 4, 8, 12, 1, 2, 3});
  CHECK(knomialChildren(20, 4, 64) == std::vector<int64_t>{21, 22, 23});
  CHECK(knomialChildren(16, 4, 30) ==
        std::vector<int64_t>{20, 24, 28, 17, 18, 19});
}

TEST_CASE("library broadcasts: random process counts 1..300, roots and "
          "sizes, verified") {
  std::mt19937 Rng(16);
  Machine M = parameterized(1, 2, 0.001, 0.001);
  M.Name = "parameterized";
  for (int Trial = 0; Trial < 60; ++Trial) {
    const int32_t P = std::uniform_int_distribution<int32_t>(1, 300)(Rng);
    const int32_t Root = std::uniform_int_distribution<int32_t>(0, P - 1)(Rng);
    const uint64_t Sizes[] = {
        0, 1, static_cast<uint64_t>(P) - 1, static_cast<uint64_t>(P) + 3,
        std::uniform_int_distribution<uint64_t>(1, 1 << 20)(Rng)};
    for (uint64_t Bytes : Sizes)
      for (const char *Name : LibraryBuilders)
        buildChecked(M, bcast(P, Root, Bytes, Name), Name);
  }
}

TEST_CASE("scatter-rdb-allgather: every process count 1..40, each rank "
          "receives each block once") {
  Machine M = parameterized(1, 2, 0.001, 0.001);
  M.Name = "parameterized";
  for (int32_t P = 1; P <= 40; ++P)
    for (int32_t Root : {0, P / 2, P - 1}) {
      Schedule S =
          buildChecked(M, bcast(P, Root, 1000 * P + 7, "scatter-rdb-allgather"),
                       "scatter-rdb-allgather");
      CHECK(S.NumChunks == P);
      std::vector<std::vector<int>> Got(P, std::vector<int>(P, 0));
      for (const Step &St : S.Steps)
        for (const Transfer &T : St.Transfers)
          for (const Piece &Pc : T.Pieces)
            for (int64_t C = Pc.Chunks.Lo; C < Pc.Chunks.Hi; ++C)
              ++Got[T.Dst][C];
      for (int32_t R = 0; R < P; ++R)
        for (int32_t C = 0; C < P; ++C) {
          INFO("P " << P << " root " << Root << " rank " << R << " block "
                    << C);
          CHECK(Got[R][C] == (R == Root ? 0 : 1));
        }
      // A power of two: P - 1 scatter messages, then log2 P exchange rounds
      // of P messages less those a lower partner got in the scatter (P - 1
      // in all).
      if (P > 1 && (P & (P - 1)) == 0) {
        int64_t Log = 0, Total = 0;
        while ((int64_t(1) << Log) < P)
          ++Log;
        for (const Step &St : S.Steps)
          Total += static_cast<int64_t>(St.Transfers.size());
        CHECK(Total == Log * P);
      }
    }
}

TEST_CASE("library broadcasts: several ranks per node, the root not first, "
          "on the SMPI platforms") {
  for (Machine M : {smpiFatTree256(), smpiCluster256(), smpiTorus16x16()}) {
    // 300 ranks, two to a node on the first 44 nodes, root on a shared node.
    Request R = bcast(300, 257, 4099);
    for (int32_t I = 0; I < 300; ++I)
      R.Nodes[I] = I < 88 ? I / 2 : I - 44;
    for (const char *Name : LibraryBuilders) {
      R.Algorithm = Name;
      Schedule S = buildChecked(M, R, Name);
      // Every rank but the root receives (no rank is served twice by the
      // tree).
      if (std::string(Name) == "knomial" && S.NumChunks == 1) {
        std::vector<int64_t> In = receives(S);
        for (int32_t I = 0; I < 300; ++I)
          CHECK(In[I] == (I == 257 ? 0 : 1));
      }
    }
  }
  // Ranks in node order from the root: the root, then the ranks of the
  // following nodes, wrapping round.
  Machine Fat = smpiFatTree256();
  Request R = bcast(6, 3, 10, "knomial");
  R.Nodes = {5, 4, 3, 2, 1, 0};
  Schedule Skel = scheduleSkeleton(Fat, R, "knomial");
  CHECK(nodeOrderFromRoot(Skel) == std::vector<int32_t>{3, 2, 1, 0, 5, 4});
}

TEST_CASE("library broadcasts: fat tree and cluster at 0 B .. 1 MiB, "
          "verified") {
  for (Machine M : {smpiFatTree256(), smpiCluster256()})
    for (uint64_t Bytes : {0, 1, 1024, 4099, 1 << 20})
      for (const char *Name : LibraryBuilders)
        buildChecked(M, bcast(256, 201, Bytes, Name), Name);
}

TEST_CASE("fat tree: auto at 1 KiB no slower than a radix-4 k-nomial tree "
          "and faster than the binomial tree; at 1 MiB no slower than "
          "scatter-rdb-allgather") {
  Machine M = smpiFatTree256();
  auto Time = [&](const Request &R, const char *Algorithm) {
    Request Q = R;
    Q.Algorithm = Algorithm;
    llvm::Expected<Schedule> S = compile(M, Q);
    REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
    return S->Makespan;
  };
  Request Small = bcast(256, 0, 1024);
  // MVAPICH2's k-nomial broadcast (radix 4, one message), what SMPI's
  // Open MPI selector runs for 256 ranks at 1 KiB.
  llvm::Expected<Schedule> Four = buildKnomialRadix(M, Small, 4, 1);
  REQUIRE(static_cast<bool>(Four));
  estimateCost(*Four, M);
  const double Auto = Time(Small, "auto");
  const double Binomial = Time(Small, "binomial");
  MESSAGE("1 KiB: auto " << Auto << ", k-nomial radix 4 " << Four->Makespan
                         << ", binomial " << Binomial);
  CHECK(Auto <= Four->Makespan);
  CHECK(Auto < Binomial);
  CHECK(Four->Makespan < Binomial);

  Request Large = bcast(256, 0, 1 << 20);
  const double AutoLarge = Time(Large, "auto");
  const double Rdb = Time(Large, "scatter-rdb-allgather");
  MESSAGE("1 MiB: auto " << AutoLarge << ", scatter-rdb-allgather " << Rdb);
  CHECK(AutoLarge <= Rdb);
}

TEST_CASE("library broadcasts: auto considers them only with a network") {
  auto Names = [](const Machine &M, const Request &R) {
    std::set<std::string> Out;
    for (const AlgorithmInfo *A : autoCandidates(M, R))
      Out.insert(A->Name);
    return Out;
  };
  for (const char *Name : LibraryBuilders) {
    CHECK(Names(parameterized(1, 2), bcast(16, 0, 4096)).count(Name) == 0);
    CHECK(Names(smpiFatTree256(), bcast(256, 0, 4096)).count(Name) == 1);
    CHECK(Names(smpiCluster256(), bcast(256, 0, 4096)).count(Name) == 1);
    CHECK(Names(smpiTorus16x16(), bcast(256, 0, 4096)).count(Name) == 1);
  }
}
