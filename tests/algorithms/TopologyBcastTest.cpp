// Broadcasts laid onto the topology (algorithms/TopologyBcast.h):
// every builder verified on random meshes and tori, 2-D and 3-D, odd and
// even extents, every root of the small shapes, and sizes from 0 B to 1 MiB;
// the spanning trees' links checked disjoint; contention checked where the
// builders claim none.

#include "algorithms/TopologyBcast.h"
#include "algorithms/Registry.h"
#include "algorithms/SwitchBcast.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/NetworkCost.h"
#include "passes/Routes.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>
#include <string>

using namespace collc;
using namespace collc::test;

namespace {

Machine grid(TopologyKind Kind, std::vector<int64_t> Dims) {
  Machine M;
  M.Name = "grid";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {2, 0.001};
  M.Topo.Kind = Kind;
  M.Topo.Dims = Dims;
  M.Topo.Nodes = 1;
  for (int64_t D : Dims)
    M.Topo.Nodes *= D;
  return M;
}

std::string shapeName(const Machine &M) {
  std::string Out = M.Topo.Kind == TopologyKind::Torus ? "torus " : "mesh ";
  for (size_t I = 0; I < M.Topo.Dims.size(); ++I)
    Out += (I ? "x" : "") + std::to_string(M.Topo.Dims[I]);
  return Out;
}

Schedule buildChecked(const Machine &M, const Request &R,
                      const std::string &Name) {
  const AlgorithmInfo *A = findAlgorithm(Name, Collective::Bcast);
  REQUIRE(A);
  llvm::Expected<Schedule> S = A->Build(M, R);
  REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
  estimateCost(*S, M);
  std::vector<std::string> Problems = verifySchedule(*S, M);
  INFO(Name << " on " << shapeName(M) << " root " << R.Root << " bytes "
            << R.Bytes);
  CHECK(Problems.empty());
  for (const std::string &P : Problems)
    MESSAGE(P);
  return std::move(*S);
}

const char *const GridBuilders[] = {"ring-pipeline", "spanning-trees",
                                    "scatter-ring", "scatter-trees"};

} // namespace

TEST_CASE("topology broadcasts: every root of small meshes and tori, "
          "verified") {
  const std::vector<std::pair<TopologyKind, std::vector<int64_t>>> Shapes = {
      {TopologyKind::Torus, {3, 3}},    {TopologyKind::Torus, {4, 4}},
      {TopologyKind::Torus, {2, 5}},    {TopologyKind::Torus, {3, 4}},
      {TopologyKind::Torus, {5}},       {TopologyKind::Torus, {2, 3, 3}},
      {TopologyKind::Torus, {3, 3, 3}}, {TopologyKind::Mesh, {3, 4}},
      {TopologyKind::Mesh, {1, 5}},     {TopologyKind::Mesh, {2, 2, 3}},
  };
  for (const auto &[Kind, Dims] : Shapes) {
    Machine M = grid(Kind, Dims);
    for (int32_t Root = 0; Root < M.Topo.Nodes; ++Root)
      for (uint64_t Bytes : {0, 1, 777})
        for (const char *Name : GridBuilders)
          buildChecked(
              M, bcast(static_cast<int32_t>(M.Topo.Nodes), Root, Bytes, Name),
              Name);
  }
}

TEST_CASE("topology broadcasts: random shapes and sizes up to 1 MiB, "
          "verified") {
  std::mt19937 Rng(16);
  for (int Case = 0; Case < 24; ++Case) {
    const bool Torus = Rng() % 2;
    const size_t D = 2 + Rng() % 2;
    std::vector<int64_t> Dims;
    for (size_t I = 0; I < D; ++I)
      Dims.push_back(2 + Rng() % (D == 2 ? 6 : 3));
    Machine M = grid(Torus ? TopologyKind::Torus : TopologyKind::Mesh, Dims);
    const int32_t P = static_cast<int32_t>(M.Topo.Nodes);
    const int32_t Root = static_cast<int32_t>(Rng() % P);
    const uint64_t Sizes[] = {0, 1, 1 + 2 * (Rng() % 5000), 1 << 20};
    for (uint64_t Bytes : Sizes)
      for (const char *Name : GridBuilders)
        buildChecked(M, bcast(P, Root, Bytes, Name), Name);
  }
}

TEST_CASE("topology broadcasts: several ranks per node, the root not first "
          "on its node") {
  Machine M = grid(TopologyKind::Torus, {3, 4});
  Request R = bcast(24, 7, 1000, "spanning-trees");
  for (int32_t I = 0; I < 24; ++I)
    R.Nodes[I] = I / 2;
  for (const char *Name : GridBuilders) {
    R.Algorithm = Name;
    buildChecked(M, R, Name);
  }
  // A node without a rank: declined with the reason.
  R.Nodes.resize(20);
  std::string Why;
  CHECK_FALSE(topologyBcastApplies(M, R, Why));
  CHECK(Why == "needs a rank on every node of the topology (10 of 12 nodes "
               "have one)");
  Machine Ft = smpiFatTree256();
  CHECK_FALSE(topologyBcastApplies(Ft, bcast(256), Why));
  CHECK(Why == "needs a mesh, torus or hypercube topology, not 'fat-tree'");
}

TEST_CASE("spanning-trees: the trees use pairwise disjoint directed links, "
          "and are as deep as claimed") {
  std::mt19937 Rng(7);
  for (int Case = 0; Case < 30; ++Case) {
    const bool Torus = Case % 3 != 0;
    const size_t D = 1 + Rng() % 3;
    std::vector<int64_t> Dims;
    for (size_t I = 0; I < D; ++I)
      Dims.push_back(2 + Rng() % 6);
    Machine M = grid(Torus ? TopologyKind::Torus : TopologyKind::Mesh, Dims);
    const int64_t Root = Rng() % M.Topo.Nodes;
    // Families: one-direction, shortest-path, half-space.
    for (int Family : {0, 1, 2}) {
      const bool Uni = Family == 0, Half = Family == 2;
      std::vector<ParentArray> Trees = Half
                                           ? halfSpaceTreesOf(M.Topo, Root)
                                           : spanningTreesOf(M.Topo, Root, Uni);
      bool AllThree = std::all_of(Dims.begin(), Dims.end(),
                                  [](int64_t X) { return X >= 3; });
      INFO(shapeName(M) << " root " << Root
                        << (Uni    ? " one-way"
                            : Half ? " half-space"
                                   : " shortest"));
      if ((Uni || Half) && !(Torus && AllThree)) {
        CHECK(Trees.empty());
        continue;
      }
      CHECK(Trees.size() == (Family == 1 ? 1 : 2) * D);
      // The half-space trees' claimed depth: the long way round one
      // dimension, the shorter way in the others.
      int64_t HalfDepth = 0;
      for (size_t K = 0; K < D; ++K) {
        int64_t Around = Dims[K] - 1;
        for (size_t J = 0; J < D; ++J)
          Around += J == K ? 0 : Dims[J] / 2;
        HalfDepth = std::max(HalfDepth, Around);
      }
      std::map<std::pair<int64_t, int64_t>, size_t> Owner;
      int64_t SumExt = 0, Ecc = 0;
      for (int64_t V = 0; V < M.Topo.Nodes; ++V)
        Ecc = std::max<int64_t>(Ecc, M.Topo.distance(Root, V));
      for (int64_t X : Dims)
        SumExt += X - 1;
      for (size_t T = 0; T < Trees.size(); ++T)
        for (int64_t V = 0; V < M.Topo.Nodes; ++V) {
          const int64_t Par = Trees[T][V];
          if (V == Root) {
            CHECK(Par == -1);
            continue;
          }
          // A neighbour, over a link no other tree uses.
          REQUIRE(Par >= 0);
          CHECK(M.Topo.distance(Par, V) == 1);
          auto Emplaced = Owner.try_emplace({Par, V}, T);
          auto It = Emplaced.first;
          const bool New = Emplaced.second;
          CHECK_MESSAGE(New, "link " << Par << "->" << V << " in trees "
                                     << It->second << " and " << T);
          // Reaches the root within the claimed depth.
          int64_t Depth = 0;
          for (int64_t X = V; X != Root && Depth <= M.Topo.Nodes; ++Depth)
            X = Trees[T][X];
          CHECK(Depth <= (Uni ? SumExt + 1 : Half ? HalfDepth : Ecc + 2));
        }
      // The half-space trees use every in-link of every node but the root.
      if (Half)
        CHECK(Owner.size() == static_cast<size_t>(2 * D * (M.Topo.Nodes - 1)));
    }
  }
}

TEST_CASE("spanning-trees and ring-pipeline: contention-free on the routes, "
          "one segment per tree and segmented") {
  for (auto Dims : std::vector<std::vector<int64_t>>{{4, 4}, {3, 5}, {3, 3, 4}})
    for (TopologyKind Kind : {TopologyKind::Torus, TopologyKind::Mesh}) {
      Machine M = parameterized(1, 1);
      M.Topo = grid(Kind, Dims).Topo;
      const int32_t P = static_cast<int32_t>(M.Topo.Nodes);
      for (int64_t Segments : {1, 4})
        for (const char *Name : {"spanning-trees", "ring-pipeline"}) {
          Request R = bcast(P, P / 3, 4096, Name);
          R.Segments = Segments;
          Schedule S = buildChecked(M, R, Name);
          INFO(Name << " on " << shapeName(M) << " segments " << Segments);
          ContentionReport C = checkContention(S, M);
          CHECK(C.Checked);
          CHECK(C.clean());
        }
    }
}

TEST_CASE("topology broadcasts on the 16x16 SMPI torus: searched, verified, "
          "and under half the binomial tree's time from 64 KiB under "
          "AsDataArrives") {
  Machine M = smpiTorus16x16();
  for (uint64_t Bytes : {uint64_t(65536), uint64_t(1) << 20}) {
    Schedule Trees = buildChecked(M, bcast(256, 37, Bytes, "spanning-trees"),
                                  "spanning-trees");
    Schedule Bin =
        buildChecked(M, bcast(256, 37, Bytes, "binomial"), "binomial");
    for (Schedule *S : {&Trees, &Bin}) {
      estimateNetworkCost(*S, M, {PostingRule::AsDataArrives});
      CHECK(verifySchedule(*S, M).empty());
    }
    INFO("bytes " << Bytes << ": spanning-trees " << Trees.Makespan
                  << ", binomial " << Bin.Makespan);
    CHECK(Trees.Makespan < Bin.Makespan / 2);
    if (Bytes < (uint64_t(1) << 20))
      continue;
    // At 1 MiB the half-space trees win, their segments behind a short lead
    // (106.4 us; 130.8 without the lead, 159.6 with the shortest-path trees).
    CHECK(Trees.Makespan < 110);
    uint64_t Least = Bytes, Most = 0;
    for (const Step &St : Trees.Steps)
      for (const Transfer &T : St.Transfers) {
        Least = std::min(Least, T.Bytes);
        Most = std::max(Most, T.Bytes);
      }
    CHECK(Least * 2 < Most);
  }
}

TEST_CASE("kary-pipeline: fat tree and cluster, every size, verified") {
  for (Machine M : {smpiFatTree256(), smpiCluster256()})
    for (uint64_t Bytes : {0, 1, 4099, 1 << 20})
      buildChecked(M, bcast(256, 201, Bytes, "kary-pipeline"), "kary-pipeline");
  Machine Small = parameterized(1, 1);
  for (int32_t Root = 0; Root < 7; ++Root)
    buildChecked(Small, bcast(7, Root, 100, "kary-pipeline"), "kary-pipeline");
  std::string Why;
  CHECK_FALSE(switchBcastApplies(smpiTorus16x16(), bcast(256), Why));
}

TEST_CASE("topology broadcasts: auto considers them only with a network") {
  Machine Plain = grid(TopologyKind::Torus, {4, 4});
  Machine Net = smpiTorus16x16();
  auto Names = [](const Machine &M, const Request &R) {
    std::set<std::string> Out;
    for (const AlgorithmInfo *A : autoCandidates(M, R))
      Out.insert(A->Name);
    return Out;
  };
  CHECK(Names(Plain, bcast(16, 0, 4096)).count("spanning-trees") == 0);
  CHECK(Names(Net, bcast(256, 0, 4096)).count("spanning-trees") == 1);
  CHECK(Names(smpiFatTree256(), bcast(256, 0, 4096)).count("kary-pipeline") ==
        0);
}
