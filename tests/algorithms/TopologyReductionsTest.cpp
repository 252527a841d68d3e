// Allreduce and allgather laid onto the topology (issue 16): every builder
// verifies on random meshes and tori (rectangular and 3-D, full or partial),
// fat trees and clusters, at 0, 1, odd and 1 MiB counts, with commutative
// and non-commutative operators; the ring grid puts ring neighbours on
// physical neighbours; and on the bundled 16x16 torus the largest pieces
// travel one hop.
#include "algorithms/TopologyReductions.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/Verify.h"
#include "readers/MachineSpec.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace collc;

namespace {

const char *const Builders[] = {"nearest-halving", "nearest-doubling",
                                "dimension-rings", "ring"};

Machine grid(TopologyKind Kind, std::vector<int64_t> Dims, unsigned Ports) {
  Machine M;
  M.Name = "grid";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {2, 1e-4};
  M.M.OpPerByte = 1e-5;
  M.Ports = Ports;
  M.Topo.Kind = Kind;
  M.Topo.Dims = std::move(Dims);
  M.Topo.Nodes = 1;
  for (int64_t D : M.Topo.Dims)
    M.Topo.Nodes *= D;
  return M;
}

Machine platform(const char *Name) {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) + "/examples/platforms/" +
                       Name);
  REQUIRE(static_cast<bool>(M));
  return *M;
}

Request request(Collective C, int32_t P, uint64_t Count, bool Commutative,
                const char *Alg) {
  return test::request(C, P, 0, C == Collective::Allreduce ? Count * 4 : Count,
                       Alg, Commutative);
}

/// Compiles (builds, costs, verifies) \p R with \p Alg on \p M, or checks
/// that the algorithm declines with a reason. Returns whether it compiled.
bool compiles(const Machine &M, const Request &R) {
  const AlgorithmInfo *A = findAlgorithm(R.Algorithm, R.Coll);
  REQUIRE(A);
  std::string Why;
  if (!A->applies(M, R, Why)) {
    CHECK(!Why.empty());
    // Only the count stops them, never the operator.
    CHECK(Why.find("commutative") == std::string::npos);
    return false;
  }
  auto S = compile(M, R);
  if (!S) {
    std::string Msg = llvm::toString(S.takeError());
    CAPTURE(Msg);
    CHECK(false);
    return false;
  }
  CHECK(S->Algorithm == R.Algorithm);
  return true;
}

} // namespace

TEST_CASE("topology reductions: every builder verifies on random meshes and "
          "tori, full and partial, at 0, 1, odd and large counts") {
  Rng G(16);
  size_t Compiled = 0, Declined = 0;
  for (int Trial = 0; Trial < 40; ++Trial) {
    const size_t N = size_t(G.uniform(1, 3));
    std::vector<int64_t> Dims;
    for (size_t I = 0; I < N; ++I)
      Dims.push_back(G.uniform(1, N == 3 ? 4 : 7));
    const TopologyKind Kind =
        G.uniform(0, 1) ? TopologyKind::Torus : TopologyKind::Mesh;
    const Machine M = grid(Kind, Dims, unsigned(G.uniform(1, 2)));
    // Every node, or the first few in node order.
    const int32_t P =
        G.uniform(0, 2)
            ? int32_t(M.Topo.Nodes)
            : int32_t(G.uniform(1, std::max<int64_t>(1, M.Topo.Nodes)));
    const uint64_t Odd = uint64_t(2 * G.uniform(0, 40) + 1);
    for (uint64_t Count : {uint64_t(0), uint64_t(1), Odd, uint64_t(1) << 18})
      for (bool Comm : {true, false})
        for (const char *Alg : Builders) {
          CAPTURE(Trial);
          CAPTURE(Dims.size());
          CAPTURE(P);
          CAPTURE(Count);
          CAPTURE(Comm);
          CAPTURE(Alg);
          (compiles(M, request(Collective::Allreduce, P, Count, Comm, Alg))
               ? Compiled
               : Declined)++;
        }
    for (uint64_t Bytes : {uint64_t(0), uint64_t(1), Odd, uint64_t(1) << 12}) {
      CAPTURE(P);
      CAPTURE(Bytes);
      CHECK(compiles(M, request(Collective::Allgather, P, Bytes, true,
                                "dimension-rings")));
    }
  }
  MESSAGE(Compiled << " compiled, " << Declined << " declined");
  CHECK(Compiled > 3 * Declined);
}

TEST_CASE("topology reductions: every rank count 1..33 on a cluster, every "
          "builder, both operators") {
  Machine M = test::parameterized(2, 3, 1e-3, 1e-3);
  M.M.OpPerByte = 1e-4;
  for (int32_t P = 1; P <= 33; ++P)
    for (uint64_t Count : {uint64_t(0), uint64_t(P), uint64_t(3 * P + 1)})
      for (bool Comm : {true, false})
        for (const char *Alg : Builders) {
          CAPTURE(P);
          CAPTURE(Count);
          CAPTURE(Comm);
          CAPTURE(Alg);
          CHECK(
              compiles(M, request(Collective::Allreduce, P, Count, Comm, Alg)));
        }
}

TEST_CASE("ringGrid: on a full torus ring successors are neighbours; on a "
          "mesh, folded rings hop at most two links and use each link "
          "direction once per step") {
  for (TopologyKind Kind : {TopologyKind::Torus, TopologyKind::Mesh})
    for (std::vector<int64_t> Dims :
         {std::vector<int64_t>{16, 16}, std::vector<int64_t>{3, 5, 4},
          std::vector<int64_t>{2, 9}}) {
      const Machine M = grid(Kind, Dims, 1);
      const Request R = request(Collective::Allgather, int32_t(M.Topo.Nodes), 8,
                                true, "dimension-rings");
      const RingGrid G = ringGrid(M, R, /*Fold=*/true);
      REQUIRE(G.Physical);
      REQUIRE(G.Order.size() == size_t(M.Topo.Nodes));
      std::vector<int32_t> Sorted = G.Order;
      std::sort(Sorted.begin(), Sorted.end());
      for (int32_t I = 0; I < int32_t(Sorted.size()); ++I)
        REQUIRE(Sorted[I] == I);
      int64_t Stride = 1;
      for (int64_t L : G.Extents) {
        for (int64_t V = 0; V < int64_t(G.Order.size()); ++V) {
          const int64_t Q = V / Stride % L;
          const int64_t Next = V + (((Q + 1) % L) - Q) * Stride;
          const unsigned D =
              M.Topo.distance(R.Nodes[G.Order[V]], R.Nodes[G.Order[Next]]);
          CAPTURE(V);
          CAPTURE(L);
          if (Kind == TopologyKind::Torus)
            CHECK(D == 1);
          else
            CHECK((D >= 1 && D <= 2));
        }
        Stride *= L;
      }
    }
}

TEST_CASE("ringGrid: partial tori, fat trees and clusters cut the ranks into "
          "groups whose extents multiply to P") {
  const Machine Torus = grid(TopologyKind::Torus, {16, 16}, 1);
  const Machine Fat = platform("fat-tree-256.xml");
  const Machine Cluster = platform("cluster-256.xml");
  for (const Machine *M : {&Torus, &Fat, &Cluster})
    for (int32_t P : {1, 2, 7, 48, 200, 255}) {
      const RingGrid G = ringGrid(
          *M, request(Collective::Allgather, P, 8, true, "dimension-rings"),
          true);
      int64_t Product = 1;
      for (int64_t L : G.Extents) {
        CHECK(L >= 2);
        Product *= L;
      }
      CAPTURE(P);
      CHECK(Product == P);
      CHECK(G.Order.size() == size_t(P));
    }
  // 48 ranks of a 16x16 torus: three rows of 16.
  const RingGrid G = ringGrid(
      Torus, request(Collective::Allgather, 48, 8, true, "dimension-rings"),
      true);
  CHECK(G.Extents == std::vector<int64_t>{16, 3});
}

TEST_CASE("nearest-halving on the 16x16 torus: the halves of the first step "
          "cross one link, the farthest exchange carries 1/256 of the "
          "message") {
  const Machine M = platform("torus-16x16.xml");
  const Request R =
      request(Collective::Allreduce, 256, 1 << 18, true, "nearest-halving");
  auto S = compile(M, R);
  REQUIRE(static_cast<bool>(S));
  REQUIRE(S->Steps.size() == 16);
  for (const Transfer &T : S->Steps.front().Transfers) {
    CHECK(M.Topo.distance(T.Src, T.Dst) == 1);
    CHECK(T.Bytes == R.Bytes / 2);
  }
  // The eighth exchange: partner 128 grid indices away, 4 KiB.
  for (const Transfer &T : S->Steps[7].Transfers)
    CHECK(T.Bytes == R.Bytes / 256);
}

TEST_CASE("reduce-scatter-allgather pairs nearest first: on the bundled "
          "torus and fat tree, ranks in node order, it times as "
          "nearest-halving, and both beat the binomial tree at 1 MiB") {
  for (const char *Name : {"torus-16x16.xml", "fat-tree-256.xml"}) {
    const Machine M = platform(Name);
    auto Time = [&](const char *Alg) {
      auto S =
          compile(M, request(Collective::Allreduce, 256, 1 << 18, true, Alg));
      REQUIRE(static_cast<bool>(S));
      return S->Makespan;
    };
    const std::string Platform = Name;
    CAPTURE(Platform);
    const double Halving = Time("nearest-halving");
    CHECK(Time("reduce-scatter-allgather") == doctest::Approx(Halving));
    CHECK(Halving < Time("binomial"));
  }
}

TEST_CASE("dimension-rings on the 16x16 wormhole torus: no two transfers "
          "share a channel") {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) +
                       "/examples/machines/torus-16x16.yaml");
  REQUIRE(static_cast<bool>(M));
  for (Collective C : {Collective::Allreduce, Collective::Allgather}) {
    auto S = compile(*M, request(C, 256, 1 << 14, true, "dimension-rings"));
    REQUIRE(static_cast<bool>(S));
    CAPTURE(collectiveName(C));
    CHECK(checkContention(*S, *M).clean());
  }
}

TEST_CASE("ring allreduce: on two leaves of four under one uplink, one flow "
          "crosses it each way per step, and auto takes it at 4 MiB") {
  // What collc-probe found on an emulated two-level tree (8 nodes, 2 leaves
  // of 4, one uplink each, every link the same rate): recursive halving
  // sends four flows across an uplink at once, dimension-rings groups the
  // ranks by leaf and exchanges across it, the flat ring one flow each way.
  const std::string Text =
      "name: two-leaves\n"
      "topology: {kind: fat-tree, levels: 2, down: [4, 2], up: [1, 1], "
      "parallel: [1, 1]}\n"
      "network:\n"
      "  links:\n"
      "    - {class: level-1, latency: 23.4, bandwidth: 12.3, duplex: full}\n"
      "    - {class: level-2, latency: 23.4, bandwidth: 12.3, duplex: full}\n"
      "  injection: {links: 0, bandwidth: 0}\n"
      "  protocol:\n"
      "    send_overhead: 21.3\n"
      "    bands:\n"
      "      - {from: 0, latency_factor: 1.4, bandwidth_factor: 0.94}\n"
      "  nodes: {processes: 1, placement: block}\n";
  auto M = parseMachine(llvm::MemoryBufferRef(Text, "two-leaves.yaml"));
  REQUIRE(static_cast<bool>(M));
  const uint64_t Count = uint64_t(1) << 20; // 4 MiB of int32
  auto Ring =
      compile(*M, request(Collective::Allreduce, 8, Count, true, "ring"));
  REQUIRE(static_cast<bool>(Ring));
  CHECK(Ring->Algorithm == "ring");
  // 7 reduce-scatter and 7 allgather steps, each rank sending one block of
  // 1/8 of the vector to the next in node order.
  size_t Steps = 0;
  for (const Step &St : Ring->Steps) {
    if (St.Transfers.empty())
      continue;
    ++Steps;
    int Up = 0, Down = 0;
    for (const Transfer &T : St.Transfers) {
      CHECK(T.Dst == (T.Src + 1) % 8);
      const bool SrcLeft = T.Src < 4, DstLeft = T.Dst < 4;
      Up += SrcLeft && !DstLeft;
      Down += !SrcLeft && DstLeft;
    }
    CHECK(Up <= 1);
    CHECK(Down <= 1);
  }
  CHECK(Steps == 14);
  auto Halving = compile(*M, request(Collective::Allreduce, 8, Count, true,
                                     "reduce-scatter-allgather"));
  REQUIRE(static_cast<bool>(Halving));
  CHECK(Ring->Makespan < 0.8 * Halving->Makespan);
  auto Auto =
      compile(*M, request(Collective::Allreduce, 8, Count, true, "auto"));
  REQUIRE(static_cast<bool>(Auto));
  CHECK(Auto->Algorithm == "ring");
  // A non-commutative operator: two chains in rank order, still verified.
  auto Chains =
      compile(*M, request(Collective::Allreduce, 8, Count, false, "ring"));
  REQUIRE(static_cast<bool>(Chains));
  CHECK(Chains->Algorithm == "ring");
}
