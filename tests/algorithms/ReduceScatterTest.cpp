// Reduce-scatter (MPI_Reduce_scatter_block): `recursive-halving`, `ring` and
// `direct` for rank counts drawn from 2..64 (and the powers of two and odd
// counts among them), commutative and not, build and verify on a model
// machine and on a machine with a network; `ring` refuses a non-commutative
// operator; auto picks one of them; the verifier rejects a schedule that
// leaves a rank with another rank's block, or cuts the vector otherwise.
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

/// Rank counts: 1, 2, 3, 5, 8, 16, 64, and six drawn from 2..64.
std::vector<int32_t> rankCounts() {
  std::set<int32_t> Ps{1, 2, 3, 5, 8, 16, 64};
  Rng G(2028);
  while (Ps.size() < 13)
    Ps.insert(static_cast<int32_t>(G.uniform(2, 64)));
  return {Ps.begin(), Ps.end()};
}

int32_t ceilLog2(int32_t P) {
  int32_t D = 0;
  while ((int32_t(1) << D) < P)
    ++D;
  return D;
}

/// A Combine transfer of chunk \p Chunk of \p Src's own contribution.
Transfer fold(int32_t Src, int32_t Dst, int64_t Chunk, int32_t P) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Kind = TransferKind::Combine;
  T.Bytes = 4;
  T.Pieces.push_back({{Src, Src + 1}, {0, P}, {Chunk, Chunk + 1}});
  return T;
}

} // namespace

TEST_CASE("reduce-scatter: every algorithm, rank count and operator builds "
          "and verifies, or the ring refuses a non-commutative operator") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  size_t Built = 0;
  for (int32_t P : rankCounts())
    for (const char *Alg : {"recursive-halving", "ring", "direct"})
      for (bool Commutative : {true, false})
        // Blocks of 0, 1 and 250 int32 elements.
        for (uint64_t Count : {0u, 1u, 250u}) {
          const uint64_t Bytes = Count * 4 * static_cast<uint64_t>(P);
          Request R = test::request(Collective::ReduceScatter, P, 0, Bytes, Alg,
                                    Commutative);
          const std::string A = Alg;
          CAPTURE(A);
          CAPTURE(P);
          CAPTURE(Commutative);
          CAPTURE(Bytes);
          for (const Machine *M : {&Model, &Net}) {
            auto S = compile(*M, R);
            if (A == "ring" && !Commutative) {
              REQUIRE_FALSE(static_cast<bool>(S));
              const std::string Why = llvm::toString(S.takeError());
              CHECK(Why.find("non-commutative") != std::string::npos);
              continue;
            }
            REQUIRE_MESSAGE(static_cast<bool>(S),
                            llvm::toString(S.takeError()));
            CHECK(S->Algorithm == A);
            CHECK(S->NumChunks == P);
            CHECK(verifySchedule(*S, *M).empty());
            // Every rank's block is Count elements.
            for (int64_t B = 0; B < P; ++B)
              CHECK(S->chunkBytes({B, B + 1}) == Count * 4);
            // Steps on the network: halving's log2 P rounds (and the fold
            // of the ranks beyond the power of two, and the hand-over);
            // the ring's P - 1; one all-to-all.
            if (M == &Net && P > 1) {
              if (A == "ring")
                CHECK(S->Steps.size() == size_t(P - 1));
              else if (A == "direct")
                CHECK(S->Steps.size() == 1);
              else
                CHECK(S->Steps.size() <= size_t(ceilLog2(P) + 3));
            }
            ++Built;
          }
        }
  CHECK(Built > 150);
}

TEST_CASE("reduce-scatter: auto chooses among the three and bine, commutative "
          "or not") {
  const Machine Net = test::exampleMachine("fat-tree-256-net.yaml");
  for (int32_t P : {4, 7, 16})
    for (bool Commutative : {true, false})
      for (uint64_t Count : {1u, 65536u}) {
        Request R = test::request(Collective::ReduceScatter, P, 0,
                                  Count * 4 * static_cast<uint64_t>(P), "auto",
                                  Commutative);
        auto S = compile(Net, R);
        REQUIRE_MESSAGE(static_cast<bool>(S), llvm::toString(S.takeError()));
        CAPTURE(P);
        CAPTURE(Commutative);
        CAPTURE(Count);
        CHECK((S->Algorithm == "recursive-halving" || S->Algorithm == "ring" ||
               S->Algorithm == "direct" || S->Algorithm == "bine"));
        if (!Commutative) {
          CHECK(S->Algorithm != "ring");
          CHECK(S->Algorithm != "bine");
        }
        CHECK(verifySchedule(*S, Net).empty());
      }
}

TEST_CASE("reduce-scatter: the verifier wants block r reduced at rank r") {
  const Machine Model = test::exampleMachine("pc-cluster.yaml");
  auto R = compile(
      Model, test::request(Collective::ReduceScatter, 2, 0, 8, "direct", true));
  REQUIRE(R);
  Schedule S = *R;
  // Right: rank 0 folds rank 1's block 0, rank 1 rank 0's block 1.
  S.Steps = {Step{{fold(1, 0, 0, 2)}}, Step{{fold(0, 1, 1, 2)}}};
  CHECK(verifySchedule(S, Model).empty());
  // Wrong: each gets the other's block.
  S.Steps = {Step{{fold(1, 0, 1, 2)}}, Step{{fold(0, 1, 0, 2)}}};
  std::vector<std::string> Problems = verifySchedule(S, Model);
  REQUIRE(Problems.size() == 2);
  CHECK(Problems[0] ==
        "at the end rank 0 holds chunk 0 combined over {0}, expected {0..1}");
  // Only one block folded: rank 1 lacks rank 0's part of block 1.
  S.Steps = {Step{{fold(1, 0, 0, 2)}}};
  Problems = verifySchedule(S, Model);
  REQUIRE(Problems.size() == 1);
  CHECK(Problems[0] ==
        "at the end rank 1 holds chunk 1 combined over {1}, expected {0..1}");
  // The vector in other than one chunk per rank.
  S.NumChunks = 4;
  Problems = verifySchedule(S, Model);
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0] ==
        "a reduce-scatter's message is in one chunk per rank (2), not 4");
}
