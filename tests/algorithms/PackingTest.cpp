// Spanning-tree packing (issue 27, after ForestColl): the packing's rate
// against the cut bound on platforms whose bound is known by hand, the bytes
// a broadcast moves across a thin backbone, and on drawn platforms of every
// family the broadcast and the allgather build and verify, the broadcast with
// a feasible packing.
#include "algorithms/Packing.h"
#include "compiler/Driver.h"
#include "passes/Routes.h"
#include "readers/MachineSpec.h"
#include "readers/RequestSpec.h"
#include "tests/Examples.h"
#include "tools/PlatformDraw.h"

#include <doctest/doctest.h>

#include <string>

using namespace collc;

namespace {

Machine platform(const std::string &Cluster) {
  const std::string Xml =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n" +
      Cluster + "\n</platform>\n";
  auto M = parseMachine(llvm::MemoryBufferRef(Xml, "packing.xml"));
  REQUIRE_MESSAGE(static_cast<bool>(M), llvm::toString(M.takeError()));
  return *M;
}

/// A broadcast of \p Bytes from rank \p Root among all the ranks of \p M
/// (its processes per node, placed as its network says).
Request bcast(const Machine &M, int32_t Root, uint64_t Bytes) {
  RequestFields F;
  F.Coll = Collective::Bcast;
  F.RootRank = Root;
  F.Bytes = Bytes;
  F.Algorithm = "packing";
  llvm::Expected<Request> R = makeRequest(F, M);
  REQUIRE_MESSAGE(static_cast<bool>(R), llvm::toString(R.takeError()));
  return std::move(*R);
}

/// The packing of \p R on \p M, said with \p Name when named; its rate
/// never above the cut bound.
TreePacking pack(const Machine &M, const Request &R, const char *Name = "") {
  llvm::Expected<TreePacking> Pk = packBroadcast(M, R);
  REQUIRE_MESSAGE(static_cast<bool>(Pk), llvm::toString(Pk.takeError()));
  REQUIRE(!Pk->Trees.empty());
  if (*Name)
    MESSAGE(Name << ": " << Pk->Trees.size() << " trees, rate " << Pk->Rate
                 << " of the bound " << Pk->CutBound);
  CHECK(Pk->Rate > 0);
  CHECK(Pk->Rate <= Pk->CutBound * (1 + 1e-9));
  return std::move(*Pk);
}

} // namespace

TEST_CASE("packing: on a thin-backbone cluster the rate is the backbone's "
          "share and a broadcast crosses it once per node") {
  // 16 hosts of 2 ranks, 10 GB/s private links, a shared 20 GB/s backbone:
  // every route crosses the backbone and switches copy nothing, so each of
  // the 15 other nodes takes the message across it: 20000 / 15 bytes/us.
  const Machine M = platform(
      "<cluster id=\"c\" prefix=\"node-\" radical=\"0-15\" suffix=\"\" "
      "speed=\"1Gf\" core=\"2\" bw=\"10GBps\" lat=\"1us\" bb_bw=\"20GBps\" "
      "bb_lat=\"1us\" bb_sharing_policy=\"SHARED\"/>");
  const uint64_t Bytes = 1 << 20;
  for (int32_t Root : {0, 7, 31}) {
    CAPTURE(Root);
    const Request R = bcast(M, Root, Bytes);
    const TreePacking Pk = pack(M, R);
    CHECK(Pk.CutBound == doctest::Approx(20000.0 / 15));
    CHECK(Pk.Rate == doctest::Approx(Pk.CutBound));
    llvm::Expected<Schedule> S = compile(M, R);
    REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
    uint64_t Across = 0;
    for (const Step &St : S->Steps)
      for (const Transfer &T : St.Transfers)
        if (S->Participants[T.Src].Node != S->Participants[T.Dst].Node)
          Across += T.Bytes;
    CHECK(Across == 15 * Bytes);
  }
}

TEST_CASE("packing: on a torus the trees reach the root's links' bound, on "
          "a fat tree a node link's") {
  // 4x4 torus of 12.5 GB/s links: the root has 4 out-links, every node 4
  // in-links; the cut bound is 4 x 12500 bytes/us.
  const Machine Torus = platform(
      "<cluster id=\"t\" prefix=\"node-\" radical=\"0-15\" suffix=\"\" "
      "speed=\"1Gf\" bw=\"12.5GBps\" lat=\"1us\" topology=\"TORUS\" "
      "topo_parameters=\"4,4\"/>");
  const TreePacking T = pack(Torus, bcast(Torus, 5, 1 << 20), "4x4 torus");
  CHECK(T.CutBound == doctest::Approx(50000));
  // The known gap: the greedy packing reaches 10/11 of the bound here (4
  // trees, 45454.5 bytes/us); 4 link-disjoint trees (spanning-trees'
  // half-space trees) reach it.
  CHECK(T.Rate >= 0.9 * T.CutBound);
  // A two-level fat tree of 16 leaves of 16 nodes, 4 uplinks each of 2
  // parallel links (examples/platforms/fat-tree-256.xml): nothing narrower
  // than a node's own link.
  const Machine Fat = platform(
      "<cluster id=\"f\" prefix=\"node-\" radical=\"0-63\" suffix=\"\" "
      "speed=\"1Gf\" bw=\"12.5GBps\" lat=\"1us\" topology=\"FAT_TREE\" "
      "topo_parameters=\"2;8,8;1,4;1,2\"/>");
  const TreePacking F = pack(Fat, bcast(Fat, 0, 1 << 20), "fat tree");
  CHECK(F.CutBound == doctest::Approx(12500));
  CHECK(F.Rate == doctest::Approx(F.CutBound));
}

TEST_CASE("packing: on drawn platforms of every family the broadcast builds, "
          "verifies, and its packing stays within the cut bound") {
  PlatformDrawOptions O;
  O.Seed = 0x9ac1;
  O.MinRanks = 12;
  O.MaxRanks = 48;
  for (uint64_t I = 0; I < 7; ++I) {
    DrawnPlatform D = drawPlatform(O, I);
    CAPTURE(D.Name);
    CAPTURE(D.Description);
    auto M = parseMachine(llvm::MemoryBufferRef(D.Xml, D.Name + ".xml"));
    REQUIRE(static_cast<bool>(M));
    const int32_t P = static_cast<int32_t>(D.ranks());
    for (int32_t Root : {0, P / 2 + 1})
      for (uint64_t Bytes : {uint64_t(3), uint64_t(65536)}) {
        CAPTURE(Root);
        CAPTURE(Bytes);
        const Request R = bcast(*M, Root, Bytes);
        const TreePacking Pk = pack(*M, R);
        for (const ParentArray &T : Pk.Trees) {
          // Spanning, rooted at the root, no cycles: every rank reaches it.
          for (int32_t V = 0; V < P; ++V) {
            int32_t U = V, Hops = 0;
            while (U != Root && Hops <= P) {
              U = static_cast<int32_t>(T[U]);
              ++Hops;
            }
            CHECK(U == Root);
          }
        }
        llvm::Expected<Schedule> S = compile(*M, R);
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        CHECK(S->Algorithm == "packing");
        CHECK(S->Makespan > 0);
      }
    // The allgather's trees, one per origin: every block reaches every
    // rank (the verifier), each rank receiving each other origin's once.
    for (uint64_t Bytes : {uint64_t(1), uint64_t(4096)}) {
      CAPTURE(Bytes);
      RequestFields F;
      F.Coll = Collective::Allgather;
      F.Bytes = Bytes;
      F.Algorithm = "packing";
      llvm::Expected<Request> R = makeRequest(F, *M);
      REQUIRE(static_cast<bool>(R));
      llvm::Expected<Schedule> S = compile(*M, *R);
      REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
      CHECK(S->Algorithm == "packing");
      CHECK(S->numTransfers() == uint64_t(P) * (P - 1));
    }
  }
}
