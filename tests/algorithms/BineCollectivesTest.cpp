// Bine trees (SC'25) for the personalized and gathering collectives (issue
// 27): gather and scatter down the Bine tree, allgather and reduce-scatter
// on the Bine butterfly. For every rank count from 2 to 40 and some drawn
// up to 300, several roots, they build and verify on a model machine and on
// a machine with a network; their partners sit at the negabinary distances
// rho(k) = 1, -1, 3, -5, 11, ... in the paper's order, each rank gets each
// block once, and the bytes they move times the ring distance they move
// them is below the binomial tree's and Bruck's.
#include "algorithms/Builder.h"
#include "algorithms/Butterfly.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/Random.h"
#include "passes/Verify.h"
#include "tests/Examples.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace collc;

namespace {

/// 2..40 and five drawn from 41..300.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps;
  for (int32_t P = 2; P <= 40; ++P)
    Ps.insert(P);
  Rng G(2725);
  while (Ps.size() < 44)
    Ps.insert(static_cast<int32_t>(G.uniform(41, 300)));
  return {Ps.begin(), Ps.end()};
}

/// 0, P - 1, P / 2 and one drawn.
std::vector<int32_t> roots(int32_t P, Rng &G) {
  std::set<int32_t> Rs{0, P - 1, P / 2,
                       static_cast<int32_t>(G.uniform(0, P - 1))};
  return {Rs.begin(), Rs.end()};
}

/// A model machine (one port) and a fat tree's network.
const Machine &model() {
  static const Machine M = test::exampleMachine("pc-cluster.yaml");
  return M;
}
const Machine &net() {
  static const Machine M = test::exampleMachine("fat-tree-256-net.yaml");
  return M;
}

const Collective Colls[] = {Collective::Gather, Collective::Scatter,
                            Collective::Allgather, Collective::ReduceScatter};

/// A reduce-scatter's vector is a block per rank (10 int32 elements each);
/// the others' message is one block of 1000 bytes.
uint64_t bytesFor(Collective C, int32_t P) {
  return C == Collective::ReduceScatter ? 40u * static_cast<uint64_t>(P)
                                        : 1000u;
}

Schedule build(const Machine &M, Collective C, int32_t P, int32_t Root,
               const char *Alg = "bine") {
  auto S = compile(M, test::request(C, P, Root, bytesFor(C, P), Alg));
  REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
  return std::move(*S);
}

uint64_t bytesMoved(const Schedule &S) {
  uint64_t Sum = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      Sum += T.Bytes;
  return Sum;
}

/// The bytes a schedule moves times the distance round a ring of its ranks
/// they travel: what the paper's locality argument counts.
uint64_t ringTraffic(const Schedule &S) {
  const int64_t P = S.size();
  uint64_t Sum = 0;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      const int64_t D = ((T.Dst - T.Src) % P + P) % P;
      Sum += T.Bytes * static_cast<uint64_t>(std::min(D, P - D));
    }
  return Sum;
}

} // namespace

TEST_CASE("bine: gather, scatter, allgather and reduce-scatter build and "
          "verify for every P from 2 to 40 and drawn larger P, several roots, "
          "on a model machine and on a network; every block moves once") {
  const Machine &Model = model(), &Net = net();
  Rng G(27);
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (Collective C : Colls) {
      const bool Rooted = C == Collective::Gather || C == Collective::Scatter;
      for (int32_t Root : Rooted ? roots(P, G) : std::vector<int32_t>{0}) {
        const std::string Coll = collectiveName(C);
        CAPTURE(Coll);
        CAPTURE(P);
        CAPTURE(Root);
        const Schedule S = build(Model, C, P, Root);
        CHECK(S.Algorithm == "bine");
        std::vector<std::string> Problems = verifySchedule(S, Model);
        CHECK_MESSAGE(Problems.empty(),
                      (Problems.empty() ? "" : Problems.front()));
        // The tree's ceil(log2 P) rounds and, for an even P, the
        // butterfly's; an odd P's butterfly goes round again while a rank
        // lacks a block: at most two more, and never more than folding a
        // rank into its neighbour (two more than P - 1's).
        const size_t Rounds = ceilLog2(P);
        const bool Odd = P % 2 == 1;
        if (Rooted || !Odd) {
          CHECK(S.Steps.size() == Rounds);
        } else {
          CHECK(S.Steps.size() <= Rounds + 2);
          CHECK(S.Steps.size() <= size_t(ceilLog2(P - 1) + 2));
        }
        // Each rank gets each block it lacks once: P (P - 1) blocks in all
        // for the allgather, and the reduce-scatter's reversed butterfly
        // folds a partial block along each of those edges; the tree's
        // P - 1 edges each carry a subtree of blocks.
        const uint64_t Block = C == Collective::ReduceScatter ? 40u : 1000u;
        const uint64_t PP = static_cast<uint64_t>(P);
        if (Rooted)
          CHECK(bytesMoved(S) >= Block * (PP - 1));
        else
          CHECK(bytesMoved(S) == Block * PP * (PP - 1));
        if (P <= 40 || P % 8 == 0) {
          const Schedule OnNet = build(Net, C, P, Root);
          CHECK(verifySchedule(OnNet, Net).empty());
          CHECK(OnNet.Makespan > 0);
        }
        ++Built;
      }
    }
  CHECK(Built > 300);
}

TEST_CASE("bine: the butterfly's partners are rho(k) apart, the farthest "
          "first in the allgather and the nearest first in the "
          "reduce-scatter, and for P a power of two the blocks double") {
  const Machine &Model = model();
  for (int32_t P :
       {2, 4, 8, 16, 32, 64, 128, 6, 10, 24, 40, 96, 3, 13, 63, 101}) {
    CAPTURE(P);
    // An odd P: the partners of a ring of P + 1, the one whose partner
    // would be rank P waiting, and the steps round again from the farthest.
    const int64_t N = P + P % 2;
    const int L = ceilLog2(N);
    const bool Pow2 = (P & (P - 1)) == 0;
    const Schedule AG = build(Model, Collective::Allgather, P, 0);
    const Schedule RS = build(Model, Collective::ReduceScatter, P, 0);
    const int Steps = static_cast<int>(AG.Steps.size());
    REQUIRE(RS.Steps.size() == size_t(Steps));
    if (P % 2 == 0)
      REQUIRE(Steps == L);
    for (int T = 0; T < Steps; ++T) {
      CAPTURE(T);
      const int K = L - 1 - T % L;
      const size_t Pairs = P % 2 == 0 ? size_t(P) : size_t(P - 1);
      CHECK(AG.Steps[T].Transfers.size() <= Pairs);
      if (P % 2 == 0)
        CHECK(AG.Steps[T].Transfers.size() == Pairs);
      for (const Transfer &X : AG.Steps[T].Transfers) {
        CHECK(X.Dst == swingPeer(X.Src, K, N));
        if (Pow2)
          CHECK(X.Bytes == (uint64_t(1000) << T));
      }
      // The reduce-scatter's step T mirrors the allgather's Steps - 1 - T.
      const int KR = L - 1 - (Steps - 1 - T) % L;
      for (const Transfer &X : RS.Steps[T].Transfers) {
        CHECK(X.Dst == swingPeer(X.Src, KR, N));
        if (Pow2)
          CHECK(X.Bytes == uint64_t(40) * uint64_t(P >> (T + 1)));
      }
    }
  }
  // The first step of the reduce-scatter (half the vector) goes to a
  // neighbour round the ring; Bruck's allgather sends its last half P / 2
  // ranks away, Bine's one away.
  const Schedule RS = build(Model, Collective::ReduceScatter, 64, 0);
  for (const Transfer &X : RS.Steps[0].Transfers)
    CHECK(std::abs(X.Dst - X.Src) == 1);
}

TEST_CASE("bine: gather and scatter send each subtree's blocks as one range "
          "of ranks, parent and child rho(k) apart for P a power of two") {
  const Machine &Model = model();
  Rng G(31);
  for (int32_t P : {2, 3, 7, 8, 16, 33, 64, 100, 256})
    for (int32_t Root : roots(P, G)) {
      CAPTURE(P);
      CAPTURE(Root);
      const int L = ceilLog2(P);
      for (Collective C : {Collective::Gather, Collective::Scatter}) {
        const Schedule S = build(Model, C, P, Root);
        for (size_t St = 0; St < S.Steps.size(); ++St)
          for (const Transfer &T : S.Steps[St].Transfers) {
            // One range round the ring: one piece, or two that wrap.
            REQUIRE(!T.Pieces.empty());
            CHECK(T.Pieces.size() <= 2);
            if (T.Pieces.size() == 2) {
              const auto &A = T.Pieces[0], &B = T.Pieces[1];
              const Interval X = C == Collective::Gather ? A.Origins : A.Dests;
              const Interval Y = C == Collective::Gather ? B.Origins : B.Dests;
              CHECK(X.Hi == P);
              CHECK(Y.Lo == 0);
            }
            if ((P & (P - 1)) != 0)
              continue;
            // The scatter's step s is the tree's distance rho(L - 1 - s)
            // (the farthest first), the gather's the reverse.
            const int K = C == Collective::Scatter ? L - 1 - int(St) : int(St);
            const int64_t Parent = C == Collective::Scatter ? T.Src : T.Dst;
            const int64_t Child = C == Collective::Scatter ? T.Dst : T.Src;
            const int64_t From = ((Parent - Root) % P + P) % P;
            const int64_t To = ((Child - Root) % P + P) % P;
            CHECK(
                To ==
                ((From % 2 == 0 ? From + swingRho(K) : From - swingRho(K)) % P +
                 P) %
                    P);
          }
      }
    }
}

TEST_CASE("bine: its bytes travel fewer ring hops than the binomial tree's "
          "and Bruck's") {
  const Machine &Model = model();
  for (int32_t P : {16, 64, 256, 100}) {
    CAPTURE(P);
    for (Collective C : {Collective::Gather, Collective::Scatter})
      CHECK(ringTraffic(build(Model, C, P, 0)) <
            ringTraffic(build(Model, C, P, 0, "binomial")));
    CHECK(ringTraffic(build(Model, Collective::Allgather, P, 0)) <
          ringTraffic(build(Model, Collective::Allgather, P, 0, "bruck")));
  }
}

TEST_CASE("bine: auto considers it for the four on a network, a "
          "non-commutative reduce-scatter is refused") {
  const Machine &Model = model(), &Net = net();
  for (Collective C : Colls) {
    const std::string Coll = collectiveName(C);
    CAPTURE(Coll);
    auto Has = [&](const Machine &M) {
      for (const AlgorithmInfo *A :
           autoCandidates(M, test::request(C, 24, 0, bytesFor(C, 24), "auto")))
        if (std::string(A->Name) == "bine")
          return true;
      return false;
    };
    CHECK(Has(Net));
    CHECK_FALSE(Has(Model));
  }
  auto S = compile(
      Net, test::request(Collective::ReduceScatter, 16, 0, 640, "bine", false));
  REQUIRE_FALSE(static_cast<bool>(S));
  CHECK(llvm::toString(S.takeError()).find("commutative operators only") !=
        std::string::npos);
}
