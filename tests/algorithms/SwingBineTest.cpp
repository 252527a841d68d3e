// The newest published families (issue 27): Swing allreduce (NSDI'24) and
// Bine trees (SC'25). Their arithmetic (rho, the butterflies, the tree
// positions) against the papers' definitions, and for rank counts drawn
// from 2..300 (powers of two, their neighbours and primes among them) and
// roots drawn for each, every one builds and verifies on a model machine and
// on a machine with a network; commutative-only, they refuse other
// operators; auto considers them where the network evaluator judges.
#include "algorithms/Bine.h"
#include "algorithms/Butterfly.h"
#include "algorithms/Registry.h"
#include "algorithms/Swing.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Verify.h"
#include "tests/Examples.h"
#include "tests/TestUtil.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace collc;

namespace {

/// 2..9, powers of two and their neighbours, primes, 300, and ten drawn
/// from 2..300.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps{2,  3,  4,   5,   6,   7,   8,   9,   31,  63, 64,
                       65, 97, 127, 128, 129, 211, 255, 256, 257, 300};
  Rng G(2024);
  while (Ps.size() < 31)
    Ps.insert(static_cast<int32_t>(G.uniform(2, 300)));
  return {Ps.begin(), Ps.end()};
}

/// Every root for small P; else 0, P - 1 and three drawn.
std::vector<int32_t> roots(int32_t P, Rng &G) {
  std::set<int32_t> Rs{0, P - 1};
  if (P <= 12)
    for (int32_t R = 0; R < P; ++R)
      Rs.insert(R);
  while (Rs.size() < std::min<size_t>(P, 5))
    Rs.insert(static_cast<int32_t>(G.uniform(0, P - 1)));
  return {Rs.begin(), Rs.end()};
}

int highBit(int64_t U) {
  int B = 0;
  while ((int64_t(2) << B) <= U)
    ++B;
  return B;
}

} // namespace

TEST_CASE("swing/bine: rho(s) = sum (-2)^i and Swing's partners pair up") {
  const int64_t Rho[] = {1, -1, 3, -5, 11, -21, 43, -85, 171};
  for (int S = 0; S < 9; ++S)
    CHECK(swingRho(S) == Rho[S]);
  for (int64_t N : {2, 4, 8, 64, 1024})
    for (int S = 0; (int64_t(1) << S) < N; ++S)
      for (int64_t C = 0; C < N; ++C) {
        const int64_t Q = swingPeer(C, S, N);
        CHECK(Q != C);
        CHECK(swingPeer(Q, S, N) == C);
      }
}

TEST_CASE("swing: the butterflies of rings and tori of powers of two lay every "
          "reach set out as one range of blocks") {
  for (std::vector<int64_t> Extents : {std::vector<int64_t>{2},
                                       {8},
                                       {256},
                                       {4096},
                                       {16, 16},
                                       {4, 4, 4},
                                       {2, 32},
                                       {8, 2, 4, 2}}) {
    Butterfly B = swingButterfly(Extents);
    int64_t N = 1;
    for (int64_t E : Extents)
      N *= E;
    REQUIRE(B.N == N);
    REQUIRE((int64_t(1) << B.steps()) == N);
    auto Blocks = butterflyBlocks(B);
    REQUIRE_MESSAGE(static_cast<bool>(Blocks),
                    llvm::toString(Blocks.takeError()));
    std::vector<int64_t> Pos = Blocks->Pos;
    std::sort(Pos.begin(), Pos.end());
    for (int64_t I = 0; I < N; ++I)
      CHECK(Pos[I] == I);
    // On a torus the steps go dimension by dimension, and the first step of
    // every dimension pairs neighbours there.
    int64_t Stride = 1;
    for (size_t J = 0; J < Extents.size(); ++J) {
      for (int64_t C = 0; C < N; ++C) {
        const int64_t X = C / Stride % Extents[J];
        const int64_t Y = B.Peer[J][C] / Stride % Extents[J];
        CHECK((B.Peer[J][C] - C) % Stride == 0);
        const int64_t D = (Y - X + Extents[J]) % Extents[J];
        CHECK((D == 1 || D == Extents[J] - 1));
      }
      Stride *= Extents[J];
    }
  }
  // Pairings that are not a butterfly are refused: partners +-1 twice.
  Butterfly Twice = swingButterfly({4});
  Twice.Peer[1] = Twice.Peer[0];
  auto Bad = butterflyBlocks(Twice);
  REQUIRE_FALSE(static_cast<bool>(Bad));
  CHECK(llvm::toString(Bad.takeError()).find("not a butterfly") !=
        std::string::npos);
}

TEST_CASE("bine: the tree's positions are a permutation; for powers of two "
          "parent and child are rho(k) apart, even senders forward") {
  for (int64_t P = 1; P <= 300; ++P) {
    std::vector<int32_t> Off = bineTreeOffsets(P);
    CAPTURE(P);
    REQUIRE(Off.size() == size_t(P));
    CHECK(Off[0] == 0);
    std::vector<int32_t> Sorted = Off;
    std::sort(Sorted.begin(), Sorted.end());
    for (int64_t I = 0; I < P; ++I)
      CHECK(Sorted[I] == I);
    if (P & (P - 1))
      continue;
    const int Bits = highBit(P);
    for (int64_t U = 1; U < P; ++U) {
      const int64_t Parent = U - (int64_t(1) << highBit(U));
      const int K = Bits - 1 - highBit(U);
      const int64_t From = Off[Parent];
      const int64_t Want =
          ((From % 2 == 0 ? From + swingRho(K) : From - swingRho(K)) % P + P) %
          P;
      CHECK(Off[U] == Want);
    }
  }
}

TEST_CASE("swing/bine: every rank count, root and operator builds and "
          "verifies on a model machine and on a network") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  struct Case {
    Collective Coll;
    const char *Alg;
  };
  const Case Cases[] = {{Collective::Allreduce, "swing"},
                        {Collective::Bcast, "bine"},
                        {Collective::Reduce, "bine"},
                        {Collective::Allreduce, "bine"}};
  Rng G(27);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (const Case &C : Cases) {
      const bool Rooted = C.Coll != Collective::Allreduce;
      for (int32_t Root : Rooted ? roots(P, G) : std::vector<int32_t>{0})
        // 4 elements (fewer than the cores: swing's latency form only) and
        // 1000.
        for (uint64_t Bytes : {16u, 4000u}) {
          Request R = test::request(C.Coll, P, Root, Bytes, C.Alg);
          std::string Coll = collectiveName(C.Coll), Alg = C.Alg;
          CAPTURE(Coll);
          CAPTURE(Alg);
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(Bytes);
          auto OnModel = compile(Model, R);
          REQUIRE_MESSAGE(static_cast<bool>(OnModel),
                          llvm::toString(OnModel.takeError()));
          CHECK(OnModel->Algorithm == C.Alg);
          // ceil(log2 P) rounds of the tree (one chunk), or of the
          // butterfly (and the folds, the allgather, the way back down).
          const size_t Rounds = ceilLog2(P);
          if (OnModel->NumChunks == 1 && C.Coll != Collective::Allreduce)
            CHECK(OnModel->Steps.size() == Rounds);
          else
            CHECK(OnModel->Steps.size() <= 2 * Rounds + 2);
          if (P <= 70 || P % 64 == 0) {
            auto OnNet = compile(Net, R);
            REQUIRE_MESSAGE(static_cast<bool>(OnNet),
                            llvm::toString(OnNet.takeError()));
            CHECK(OnNet->Makespan > 0);
          }
          ++Built;
        }
    }
  CHECK(Built > 300);
}

TEST_CASE("swing: both forms, not only the one the search keeps, verify for "
          "every rank count, on a ring in node order and on tori") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Torus = test::exampleMachine("torus-16x16-net.yaml");
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (bool Bandwidth : {false, true})
      for (uint64_t Bytes : {0u, 4u * 300, 4u * 1001}) {
        CAPTURE(P);
        CAPTURE(Bandwidth);
        CAPTURE(Bytes);
        for (const Machine *M : {&Model, &Torus}) {
          if (M == &Torus && P > 256)
            continue;
          Request R =
              test::request(Collective::Allreduce, P, 0, Bytes, "swing");
          auto S = buildSwingForm(*M, R, Bandwidth);
          REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
          // The bandwidth form has a block per core.
          CHECK(S->NumChunks ==
                (Bandwidth ? int64_t(1) << (ceilLog2(P + 1) - 1) : 1));
          std::vector<std::string> Problems = verifySchedule(*S, *M);
          CHECK_MESSAGE(Problems.empty(),
                        (Problems.empty() ? "" : Problems.front()));
          ++Built;
        }
      }
  CHECK(Built > 150);
  // Fewer elements than cores: the bandwidth form refuses, the search takes
  // the latency form.
  auto Few = buildSwingForm(
      Model, test::request(Collective::Allreduce, 64, 0, 16, "swing"), true);
  REQUIRE_FALSE(static_cast<bool>(Few));
  CHECK(llvm::toString(Few.takeError()).find("at least 64 elements") !=
        std::string::npos);
}

TEST_CASE("bine: both broadcast forms verify for every rank count and drawn "
          "roots; the scatter-allgather form sends each block once to each "
          "rank") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  Rng G(2025);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (int32_t Root : roots(P, G))
      for (bool Large : {false, true})
        for (uint64_t Bytes : {uint64_t(P), uint64_t(4000)}) {
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(Large);
          CAPTURE(Bytes);
          for (const Machine *M : {&Model, &Net}) {
            if (M == &Net && P > 256)
              continue;
            Request R =
                test::request(Collective::Bcast, P, Root, Bytes, "bine");
            auto S = buildBineBcastForm(*M, R, Large);
            REQUIRE_MESSAGE(static_cast<bool>(S),
                            llvm::toString(S.takeError()));
            std::vector<std::string> Problems = verifySchedule(*S, *M);
            CHECK_MESSAGE(Problems.empty(),
                          (Problems.empty() ? "" : Problems.front()));
            // No rank receives a byte twice: P - 1 copies of the message.
            uint64_t Moved = 0;
            for (const Step &St : S->Steps)
              for (const Transfer &T : St.Transfers)
                Moved += T.Bytes;
            CHECK(Moved == Bytes * uint64_t(P - 1));
            ++Built;
          }
        }
  CHECK(Built > 300);
  // Fewer bytes than blocks: the scatter-allgather form refuses.
  auto Few = buildBineBcastForm(
      Model, test::request(Collective::Bcast, 64, 0, 63, "bine"), true);
  REQUIRE_FALSE(static_cast<bool>(Few));
  CHECK(llvm::toString(Few.takeError()).find("a byte per core (64)") !=
        std::string::npos);
}

TEST_CASE("swing: on a torus of powers of two its first exchange is between "
          "neighbours; on one of other extents it folds and still verifies") {
  const Machine Torus = test::exampleMachine("torus-16x16-net.yaml");
  auto S = compile(
      Torus, test::request(Collective::Allreduce, 256, 0, 1 << 20, "swing"));
  REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
  REQUIRE(!S->Steps.empty());
  // Ranks are nodes (x + 16 y): the first step's partners are one hop
  // apart round dimension 0.
  for (const Transfer &T : S->Steps[0].Transfers) {
    const int32_t DX = (T.Dst % 16 - T.Src % 16 + 16) % 16;
    CHECK(T.Dst / 16 == T.Src / 16);
    CHECK((DX == 1 || DX == 15));
  }
  // 200 of the 256 nodes: not the torus's grid.
  auto Part = compile(
      Torus, test::request(Collective::Allreduce, 200, 0, 4000, "swing"));
  REQUIRE_MESSAGE(static_cast<bool>(Part), llvm::toString(Part.takeError()));
}

TEST_CASE("swing/bine: non-commutative operators are refused, and auto "
          "considers them only where the network evaluator judges") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (auto [Coll, Alg] : {std::pair{Collective::Allreduce, "swing"},
                           {Collective::Reduce, "bine"},
                           {Collective::Allreduce, "bine"}}) {
    auto S = compile(Net, test::request(Coll, 16, 0, 4000, Alg, false));
    REQUIRE_FALSE(static_cast<bool>(S));
    CHECK(llvm::toString(S.takeError()).find("commutative operators only") !=
          std::string::npos);
  }
  // A broadcast does not combine: any operator field is irrelevant.
  CHECK(static_cast<bool>(compile(
      Net, test::request(Collective::Bcast, 16, 3, 4000, "bine", false))));
  auto Names = [](const Machine &M, Collective C, bool Commutative) {
    std::set<std::string> Out;
    for (const AlgorithmInfo *A :
         autoCandidates(M, test::request(C, 32, 0, 4000, "auto", Commutative)))
      Out.insert(A->Name);
    return Out;
  };
  CHECK(Names(Net, Collective::Allreduce, true).count("swing"));
  CHECK(Names(Net, Collective::Allreduce, true).count("bine"));
  CHECK(Names(Net, Collective::Bcast, true).count("bine"));
  CHECK_FALSE(Names(Net, Collective::Allreduce, false).count("swing"));
  CHECK_FALSE(Names(Model, Collective::Allreduce, true).count("swing"));
  CHECK_FALSE(Names(Model, Collective::Bcast, true).count("bine"));
  // Auto is never slower than the candidate it could have taken.
  for (uint64_t Bytes : {8u, 65536u, 1048576u}) {
    CAPTURE(Bytes);
    auto Swing = compile(
        Net, test::request(Collective::Allreduce, 64, 0, Bytes, "swing"));
    auto Auto = compile(
        Net, test::request(Collective::Allreduce, 64, 0, Bytes, "auto"));
    REQUIRE(Swing);
    REQUIRE(Auto);
    CHECK(Auto->Makespan <= Swing->Makespan * (1 + 1e-9));
  }
}

TEST_CASE("swing: on drawn tori and meshes of unequal extents both forms "
          "verify, fold within each dimension and exchange along one "
          "dimension at a time") {
  Rng G(0x5a17);
  size_t Built = 0;
  for (int Draw = 0; Draw < 24; ++Draw) {
    Machine M = test::linearTorus(4);
    M.Topo.Kind = Draw % 2 ? TopologyKind::Mesh : TopologyKind::Torus;
    const int Dims = 2 + Draw % 3 / 2;
    M.Topo.Dims.clear();
    int64_t P = 1, Cores = 1;
    bool AllPowers = true;
    for (int D = 0; D < Dims; ++D) {
      const int64_t E = G.uniform(2, Dims == 2 ? 11 : 6);
      M.Topo.Dims.push_back(E);
      P *= E;
      Cores *= int64_t(1) << (ceilLog2(E + 1) - 1);
      AllPowers = AllPowers && (E & (E - 1)) == 0;
    }
    if (AllPowers)
      continue;
    M.Topo.Nodes = P;
    for (bool Bandwidth : {false, true})
      for (uint64_t Bytes : {uint64_t(4), uint64_t(4 * 1001)}) {
        CAPTURE(topologyKindName(M.Topo.Kind));
        CAPTURE(llvm::join(
            llvm::map_range(M.Topo.Dims,
                            [](int64_t E) { return std::to_string(E); }),
            "x"));
        CAPTURE(Bandwidth);
        CAPTURE(Bytes);
        const Request R =
            test::request(Collective::Allreduce, int32_t(P), 0, Bytes, "swing");
        auto S = buildSwingForm(M, R, Bandwidth);
        if (Bandwidth && Bytes / 4 < uint64_t(Cores)) {
          CHECK_FALSE(static_cast<bool>(S));
          llvm::consumeError(S.takeError());
          continue;
        }
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        // The bandwidth form has a block per core: the product of each
        // extent's largest power of two.
        CHECK(S->NumChunks == (Bandwidth ? Cores : 1));
        std::vector<std::string> Problems = verifySchedule(*S, M);
        CHECK_MESSAGE(Problems.empty(),
                      (Problems.empty() ? "" : Problems.front()));
        // Every transfer (folds, exchanges, results going back) joins two
        // nodes that differ in one coordinate.
        for (const Step &St : S->Steps)
          for (const Transfer &T : St.Transfers) {
            const std::vector<int64_t> A = M.Topo.coordOf(
                                           S->Participants[T.Src].Node),
                                       B = M.Topo.coordOf(
                                           S->Participants[T.Dst].Node);
            int Differ = 0;
            for (size_t D = 0; D < A.size(); ++D)
              Differ += A[D] != B[D];
            CHECK(Differ == 1);
          }
        ++Built;
      }
  }
  CHECK(Built > 40);
}
