// collc-platforms' draws (tools/PlatformDraw.h): deterministic from the seed
// and index, in the asked range, of the family asked for, and read by collc
// as the machine they describe, on hundreds of draws. (SMPI reads them too:
// tests/tools/platforms_smpi.sh.)
#include "tools/PlatformDraw.h"

#include "passes/Routes.h"
#include "readers/Spec.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace collc;

namespace {

Machine read(const DrawnPlatform &D) {
  auto M = parseMachine(llvm::MemoryBufferRef(D.Xml, D.Name + ".xml"));
  if (!M)
    FAIL(D.Name << ": " << llvm::toString(M.takeError()) << "\n" << D.Xml);
  return std::move(*M);
}

} // namespace

TEST_CASE("platforms: a draw depends on the seed and the index alone") {
  PlatformDrawOptions O;
  O.Seed = 2024;
  DrawnPlatform A = drawPlatform(O, 17), B = drawPlatform(O, 17);
  CHECK(A.Xml == B.Xml);
  CHECK(A.Name == "s2024-17-" + std::string(platformFamilyName(A.Family)));
  CHECK(drawPlatform(O, 18).Xml != A.Xml);
  O.Seed = 2025;
  CHECK(drawPlatform(O, 17).Xml != A.Xml);
  // Platform 17 is the same whatever is drawn before it and whatever the
  // count: drawPlatform takes no state.
  O.Seed = 2024;
  for (uint64_t I = 0; I < 17; ++I)
    (void)drawPlatform(O, I);
  CHECK(drawPlatform(O, 17).Xml == A.Xml);
}

TEST_CASE("platforms: every draw is read by collc as the machine it says") {
  std::map<PlatformFamily, std::set<unsigned>> PerNodeSeen;
  int Oversubscribed = 0, FatPipe = 0, Limiter = 0, Factors = 0;
  for (uint64_t Seed : {1, 77, 31337}) {
    PlatformDrawOptions O;
    O.Seed = Seed;
    REQUIRE(!checkDrawOptions(O));
    for (uint64_t I = 0; I < 140; ++I) {
      DrawnPlatform D = drawPlatform(O, I);
      INFO(D.Name << ": " << D.Description);
      CHECK(D.Family == allPlatformFamilies()[I % 7]);
      CHECK(D.ranks() >= 16);
      CHECK(D.ranks() <= 256);
      PerNodeSeen[D.Family].insert(D.ProcsPerNode);
      Machine M = read(D);
      CHECK(M.Name == D.Name);
      CHECK(M.Topo.Nodes == D.Nodes);
      REQUIRE(M.Net);
      CHECK(M.Net->ProcsPerNode == D.ProcsPerNode);
      CHECK(M.Net->IntraNode.Bandwidth > 0);
      for (const LinkClass &L : M.Net->Links) {
        if (L.Name == "backbone")
          continue;
        CHECK(L.Bandwidth >= 1000);
        CHECK(L.Bandwidth <= 100000);
        CHECK(L.Latency >= 0.1 - 1e-9);
        CHECK(L.Latency <= 5 + 1e-9);
      }
      switch (D.Family) {
      case PlatformFamily::Torus2D:
      case PlatformFamily::Torus3D: {
        REQUIRE(M.Topo.Kind == TopologyKind::Torus);
        CHECK(M.Topo.Dims.size() ==
              (D.Family == PlatformFamily::Torus2D ? 2u : 3u));
        std::set<int64_t> Extents(M.Topo.Dims.begin(), M.Topo.Dims.end());
        CHECK(Extents.size() > 1);
        break;
      }
      case PlatformFamily::FatTree2:
      case PlatformFamily::FatTree3:
        REQUIRE(M.Topo.Kind == TopologyKind::FatTree);
        CHECK(M.Topo.Levels == (D.Family == PlatformFamily::FatTree2 ? 2 : 3));
        for (int64_t L = 1; L < M.Topo.Levels; ++L)
          Oversubscribed += M.Topo.Down[L - 1] * M.Topo.Parallel[L - 1] >
                            M.Topo.Up[L] * M.Topo.Parallel[L];
        break;
      case PlatformFamily::ClusterFlat:
        REQUIRE(M.Topo.Kind == TopologyKind::Cluster);
        CHECK(!M.Topo.Backbone);
        break;
      case PlatformFamily::ClusterThin:
      case PlatformFamily::ClusterFat: {
        REQUIRE(M.Topo.Kind == TopologyKind::Cluster);
        REQUIRE(M.Topo.Backbone);
        const LinkClass &Bb = M.Net->Links[1], &Own = M.Net->Links[0];
        if (D.Family == PlatformFamily::ClusterThin) {
          CHECK(!Bb.FatPipe);
          CHECK(Bb.Bandwidth <=
                Own.Bandwidth * std::max<double>(1, D.Nodes / 2.0) + 1);
        } else if (Bb.FatPipe) {
          ++FatPipe;
        } else {
          CHECK(Bb.Bandwidth >= Own.Bandwidth * D.Nodes - 1);
        }
        break;
      }
      }
      Limiter += M.Net->InjectionBandwidth > 0;
      Factors += D.Xml.find("<config>") != std::string::npos;
      // Every rank has a node and every route is known.
      RequestFields F;
      F.Coll = Collective::Bcast;
      F.Bytes = 8;
      auto R = makeRequest(F, M);
      REQUIRE(R);
      CHECK(static_cast<int64_t>(R->size()) == D.ranks());
      CHECK(R->Nodes.back() == D.Nodes - 1);
      auto Route = route(M.Topo, 0, D.Nodes - 1);
      CHECK(static_cast<bool>(Route));
      if (!Route)
        llvm::consumeError(Route.takeError());
      // The hostfile names each host once per rank, in order.
      std::string Hosts = D.hostfile();
      CHECK(std::count(Hosts.begin(), Hosts.end(), '\n') == D.ranks());
      CHECK(Hosts.rfind("node-" + std::to_string(D.Nodes - 1) + "\n") ==
            Hosts.size() -
                ("node-" + std::to_string(D.Nodes - 1) + "\n").size());
    }
  }
  // The variations all occur.
  for (auto &Entry : PerNodeSeen) {
    const auto F = Entry.first;
    const auto &Seen = Entry.second;
    INFO(platformFamilyName(F));
    CHECK(Seen.count(1));
    CHECK(Seen.size() >= 3);
  }
  CHECK(Oversubscribed > 10);
  CHECK(FatPipe > 5);
  CHECK(Limiter > 10);
  CHECK(Factors > 10);
}

TEST_CASE("platforms: the options are checked") {
  PlatformDrawOptions O;
  O.MinRanks = 300;
  O.MaxRanks = 200;
  CHECK(llvm::toString(checkDrawOptions(O)) ==
        "expected ranks from 2 to 65536 with the least at most the most, got "
        "300 to 200");
  // 17 ranks: a prime, so no torus (extents >= 2) with one rank per host.
  O.MinRanks = O.MaxRanks = 17;
  O.MaxProcsPerNode = 1;
  O.Families = {PlatformFamily::ClusterFlat, PlatformFamily::Torus2D};
  CHECK(llvm::toString(checkDrawOptions(O)) ==
        "no torus-2d platform has 17 to 17 ranks");
  O.Families = {PlatformFamily::ClusterThin};
  CHECK(!checkDrawOptions(O));
  CHECK(drawPlatform(O, 3).ranks() == 17);
  auto Bad = parsePlatformFamilies("torus-2d,mesh");
  REQUIRE(!Bad);
  CHECK(llvm::toString(Bad.takeError()) ==
        "unknown family 'mesh'; expected 'all' or a list of: torus-2d, "
        "torus-3d, fat-tree-2, fat-tree-3, cluster-flat, cluster-thin, "
        "cluster-fat");
  auto Two = parsePlatformFamilies("cluster-fat, torus-3d,cluster-fat");
  REQUIRE(Two);
  CHECK(*Two == std::vector<PlatformFamily>{PlatformFamily::ClusterFat,
                                            PlatformFamily::Torus3D});
}
