// The physical bound (passes/LowerBound.h): the shared resources it counts
// (a backbone, a half-duplex link, an oversubscribed fat tree's uplinks, a
// torus's links into a node), each against the arithmetic of its term, and
// on drawn platforms of every family never above the evaluator's makespan
// of auto's schedules (what SMPI's, the evaluator's model, gives; the
// check against SMPI itself is tests/bench/bound_holds.sh).
#include "passes/LowerBound.h"

#include "compiler/Driver.h"
#include "passes/Cost.h"
#include "readers/Spec.h"
#include "tools/PlatformDraw.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Machine platform(const std::string &Cluster, const char *Name = "p.xml") {
  std::string Text = "<?xml version='1.0'?>\n<platform version='4.1'>\n"
                     "<cluster id='c' prefix='node-' suffix='' speed='1Gf' " +
                     Cluster + "/>\n</platform>\n";
  auto M = parseMachine(llvm::MemoryBufferRef(Text, Name));
  if (!M)
    FAIL(llvm::toString(M.takeError()));
  return std::move(*M);
}

LowerBound bound(const Machine &M, Collective C, uint64_t Bytes,
                 int64_t Ranks = 0, int64_t Root = 0) {
  auto B = PhysicalBound::analyse(
      M, Ranks ? Ranks : M.Topo.Nodes * M.Net->ProcsPerNode);
  if (!B)
    FAIL(llvm::toString(B.takeError()));
  auto L = B->of(C, Bytes, Root);
  if (!L)
    FAIL(llvm::toString(L.takeError()));
  return *L;
}

constexpr double MiB = 1048576;

} // namespace

TEST_CASE("bound: a broadcast crosses a thin backbone once per node") {
  // Issue 27's example: 64 nodes, 1 MiB, a 20 GB/s backbone. 63 MiB cross
  // it; the best bandwidth factor of SMPI's bands is 1.08739.
  Machine M = platform("radical='0-63' bw='12.5GBps' lat='1us' "
                       "bb_bw='20GBps' bb_lat='0.5us'");
  LowerBound L = bound(M, Collective::Bcast, 1 << 20);
  CHECK(L.Where == "backbone");
  CHECK(L.BandwidthFactor == doctest::Approx(1.08739));
  CHECK(L.Transfer == doctest::Approx(63 * MiB / (20000 * 1.08739)));
  // Every route crosses two private links and the backbone: 2.5 us, at
  // the best latency factor of the bands up to 1 MiB (1.61075).
  CHECK(L.Latency == doctest::Approx(2.5 * 1.61075));
  CHECK(L.Time > 3000); // was 85 us before the backbone counted
  // An allreduce: one-way gossip among 64 nodes, 126 messages per element.
  LowerBound A = bound(M, Collective::Allreduce, 1 << 20);
  CHECK(A.Where == "backbone");
  CHECK(A.Transfer == doctest::Approx(126 * MiB / (20000 * 1.08739)));
  // A reduce to rank 0: 63 nodes each send the whole vector (or what they
  // combined) across the backbone.
  LowerBound R = bound(M, Collective::Reduce, 1 << 20);
  CHECK(R.Where == "backbone");
  CHECK(R.Transfer == doctest::Approx(63 * MiB / (20000 * 1.08739)));
  // An allgather or all-to-all of 64 KiB blocks: 64 x 63 blocks go from one
  // node to another, each across the backbone. Their messages may carry
  // every block at once, so the factors are the best of all bands.
  LowerBound G = bound(M, Collective::Allgather, 65536);
  CHECK(G.Where == "backbone");
  CHECK(G.Transfer ==
        doctest::Approx(64.0 * 63 * 65536 / (20000 * G.BandwidthFactor)));
  LowerBound T = bound(M, Collective::Alltoall, 65536);
  CHECK(T.Where == "backbone");
  CHECK(T.Transfer ==
        doctest::Approx(64.0 * 63 * 65536 / (20000 * T.BandwidthFactor)));
  // Two ranks per node, 128 ranks: an allgather's node needs the 126
  // blocks of the other nodes once (its two ranks share them over the
  // loopback, which is free); an all-to-all's 128 x 126 blocks between
  // ranks of different nodes each cross the backbone.
  Machine Two = platform("radical='0-63' bw='12.5GBps' lat='1us' core='2' "
                         "bb_bw='20GBps' bb_lat='0.5us'");
  LowerBound G2 = bound(Two, Collective::Allgather, 65536);
  CHECK(G2.Where == "backbone");
  CHECK(G2.Transfer ==
        doctest::Approx(64.0 * 126 * 65536 / (20000 * G2.BandwidthFactor)));
  LowerBound T2 = bound(Two, Collective::Alltoall, 65536);
  CHECK(T2.Transfer ==
        doctest::Approx(128.0 * 126 * 65536 / (20000 * T2.BandwidthFactor)));
  // A broadcast still sends the vector to each other node once.
  LowerBound B2 = bound(Two, Collective::Bcast, 1 << 20);
  CHECK(B2.Transfer == doctest::Approx(63 * MiB / (20000 * 1.08739)));
  // A FATPIPE backbone never fills: the nodes' own links bound it.
  Machine Fat = platform("radical='0-63' bw='12.5GBps' lat='1us' "
                         "bb_bw='20GBps' bb_lat='0.5us' "
                         "bb_sharing_policy='FATPIPE'");
  LowerBound F = bound(Fat, Collective::Bcast, 1 << 20);
  CHECK(F.Where != "backbone");
  CHECK(F.Transfer == doctest::Approx(MiB / (12500 * 1.08739)));
}

TEST_CASE("bound: a half-duplex link carries a node's sends and receives") {
  Machine M = platform("radical='0-15' bw='10GBps' lat='1us' "
                       "sharing_policy='SHARED'");
  LowerBound A = bound(M, Collective::Allreduce, 1 << 20);
  CHECK(A.Transfer == doctest::Approx(2 * MiB / (10000 * 1.08739)));
  // An allgather of 64 KiB blocks: 15 blocks in, its own out.
  LowerBound G = bound(M, Collective::Allgather, 65536);
  CHECK(G.Transfer == doctest::Approx(16 * 65536 / (10000 * 1.08739)));
  Machine Split = platform("radical='0-15' bw='10GBps' lat='1us'");
  LowerBound S = bound(Split, Collective::Allgather, 65536);
  CHECK(S.Transfer == doctest::Approx(15 * 65536 / (10000 * 1.08739)));
}

TEST_CASE("bound: an oversubscribed fat tree limits an all-to-all") {
  // 16 leaves of 16 nodes, 4 x 2 uplinks each: 2:1. Into a leaf's 16 nodes
  // come 16 x 240 blocks over 8 links; into one node 255 over one.
  Machine M = platform("radical='0-255' bw='12.5GBps' lat='1us' "
                       "loopback_bw='12.5GBps' loopback_lat='0us' "
                       "topology='FAT_TREE' topo_parameters='2;16,16;1,4;1,2'");
  LowerBound L = bound(M, Collective::Alltoall, 65536);
  CHECK(L.Where.find("level-1 group") != std::string::npos);
  const double Bf = L.BandwidthFactor;
  CHECK(L.Transfer == doctest::Approx(16.0 * 240 * 65536 / (8 * 12500 * Bf)));
  // A broadcast is bound by a node's own link, after the farthest route.
  LowerBound B = bound(M, Collective::Bcast, 1 << 20);
  CHECK(B.Transfer == doctest::Approx(MiB / (12500 * 1.08739)));
  CHECK(B.Latency == doctest::Approx(4 * 1.61075));
}

TEST_CASE("bound: a torus node receives through all its links") {
  Machine M = platform("radical='0-255' bw='12.5GBps' lat='1us' "
                       "loopback_bw='12.5GBps' loopback_lat='0us' "
                       "topology='TORUS' topo_parameters='16,16'");
  // The farthest node, 16 hops, then 1 MiB over four links.
  LowerBound B = bound(M, Collective::Bcast, 1 << 20);
  CHECK(B.Time == doctest::Approx(16 * 1.61075 + MiB / (4 * 12500 * 1.08739)));
  // An all-to-all of 1 KiB blocks: the bisection (half the torus along a
  // dimension, 2 x 16 links each way) carries 128 x 128 blocks.
  LowerBound A = bound(M, Collective::Alltoall, 1024);
  CHECK(A.Where.find("half of written dimension") != std::string::npos);
  CHECK(A.Transfer ==
        doctest::Approx(128.0 * 128 * 1024 / (32 * 12500 * A.BandwidthFactor)));
  // Several ranks per node share the node's links.
  Machine Four = platform("radical='0-15' bw='12.5GBps' lat='1us' core='4' "
                          "loopback_bw='50GBps' loopback_lat='0.1us' "
                          "topology='TORUS' topo_parameters='4,4'");
  LowerBound G = bound(Four, Collective::Allgather, 65536);
  CHECK(G.Transfer ==
        doctest::Approx(60.0 * 65536 / (4 * 12500 * G.BandwidthFactor)));
}

TEST_CASE("bound: errors name what was expected") {
  Machine M = platform("radical='0-3' bw='1GBps' lat='1us'");
  auto B = PhysicalBound::analyse(M, 5);
  REQUIRE(!B);
  CHECK(llvm::toString(B.takeError()) == "expected 1 to 4 ranks, got 5");
  auto Ok = PhysicalBound::analyse(M, 4);
  REQUIRE(Ok);
  auto Scan = Ok->of(Collective::Scan, 8, 0);
  REQUIRE(!Scan);
  CHECK(llvm::toString(Scan.takeError()) ==
        "the bound covers bcast, reduce, allreduce, allgather and alltoall, "
        "not scan");
  auto Root = Ok->of(Collective::Bcast, 8, 4);
  REQUIRE(!Root);
  CHECK(llvm::toString(Root.takeError()) ==
        "expected a root from 0 to 3, got 4");
}

TEST_CASE("bound: never above the evaluator's makespan on drawn platforms") {
  // Auto's schedule of every collective at four sizes on one small drawn
  // platform of each family, timed by the evaluator (SMPI's model).
  PlatformDrawOptions O;
  O.Seed = 4711;
  O.MinRanks = 12;
  O.MaxRanks = 24;
  int Checked = 0;
  for (uint64_t I = 0; I < 7; ++I) {
    DrawnPlatform D = drawPlatform(O, I);
    auto M = parseMachine(llvm::MemoryBufferRef(D.Xml, D.Name + ".xml"));
    REQUIRE(M);
    auto B = PhysicalBound::analyse(*M, D.ranks());
    REQUIRE(B);
    for (Collective C :
         {Collective::Bcast, Collective::Reduce, Collective::Allreduce,
          Collective::Allgather, Collective::Alltoall})
      for (uint64_t Bytes : {4, 1024, 65536, 1048576}) {
        RequestFields F;
        F.Coll = C;
        F.Bytes = Bytes;
        auto R = makeRequest(F, *M);
        REQUIRE(R);
        auto S = compile(*M, *R);
        if (!S) {
          FAIL_CHECK(D.Name << " " << collectiveName(C) << " " << Bytes << ": "
                            << llvm::toString(S.takeError()));
          continue;
        }
        auto L = B->of(C, Bytes, 0);
        REQUIRE(L);
        INFO(D.Name << " (" << D.Description << ") " << collectiveName(C) << " "
                    << Bytes << " B: bound " << L->Time << " (" << L->Where
                    << "), " << S->Algorithm << " " << S->Makespan);
        CHECK(L->Time <= S->Makespan * (1 + 1e-9));
        CHECK(L->Time > 0);
        ++Checked;
      }
  }
  CHECK(Checked == 7 * 5 * 4);
}
