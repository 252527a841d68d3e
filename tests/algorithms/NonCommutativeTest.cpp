// Non-commutative operators: every reduction collective, every rank count
// 1..9, every root and every algorithm (and auto) gives a schedule that
// verifies with commutative: false (every combine joins adjacent rank ranges)
// and whose MPI table says it does not need a commutative operator.
#include "algorithms/Registry.h"
#include "backends/Mpi.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"
#include "readers/Spec.h"
#include "tests/Requests.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace collc;

namespace {

Machine pcCluster() {
  auto M = loadMachine(std::string(COLLC_SOURCE_DIR) +
                       "/examples/machines/pc-cluster.yaml");
  REQUIRE(M);
  return *M;
}

/// The "needs a commutative operator" field of the schedule's MPI variant.
std::string needsCommutative(const Schedule &S) {
  const std::vector<Schedule> Ss{S}; // the bands point into it
  auto V = mpiSizeBands(Ss, MpiSizes::Exact);
  REQUIRE(static_cast<bool>(V));
  MpiOptions O;
  O.Name = "t";
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::Error E = emitMpi(OS, *V, O);
  REQUIRE(!E);
  OS.flush();
  // {"name", collc::rt::Kind, ranks, root, min, max, chunks, needs, ...}
  size_t At = Text.find("\", collc::rt::");
  REQUIRE(At != std::string::npos);
  for (int Field = 0; Field < 7; ++Field)
    At = Text.find(", ", At) + 2;
  return Text.substr(At, Text.find(',', At) - At);
}

} // namespace

TEST_CASE("non-commutative: every reduction, rank count, root and algorithm "
          "folds in rank order") {
  Machine M = pcCluster();
  size_t Checked = 0;
  for (Collective C : {Collective::Reduce, Collective::Allreduce,
                       Collective::Scan, Collective::Exscan})
    for (int32_t P = 1; P <= 9; ++P)
      for (int32_t Root = 0; Root < (C == Collective::Reduce ? P : 1); ++Root)
        // 65536 bytes: where auto prefers the reduce-scatter on pc-cluster.
        for (uint64_t Bytes : {64u, 65536u}) {
          std::vector<const char *> Algs{"auto"};
          for (const AlgorithmInfo &A : algorithms())
            if (A.supports(C))
              Algs.push_back(A.Name);
          for (const char *Alg : Algs) {
            // The request collc accepts; whether the algorithm applies is
            // what this test asks of it.
            Request R = test::request(M, C, P, Root, Bytes, "auto", false);
            R.Algorithm = Alg;
            if (const AlgorithmInfo *A = findAlgorithm(Alg, C)) {
              std::string Why;
              // Only sizes may stop an algorithm, never the operator; but
              // the published families whose partners are commutative by
              // definition (Swing, Bine trees) refuse every such operator,
              // and so do the reduces whose trees are rooted at the root
              // and fold segments as they arrive (the pipelines, k-nomial),
              // and the two-level ones (a node's ranks fold into their
              // leader whatever their ranks); binomial, direct and
              // reduce-scatter-direct serve it.
              const std::string Name = Alg;
              const bool CommutativeOnly =
                  Name == "swing" || Name == "bine" || Name == "pipeline" ||
                  Name == "pipelined-binary" || Name == "knomial" ||
                  Name == "two-level";
              if (!A->applies(M, R, Why)) {
                CHECK((Why.find("commutative") != std::string::npos) ==
                      CommutativeOnly);
                continue;
              }
              CHECK_FALSE(CommutativeOnly);
            }
            std::string Coll = collectiveName(C), Name = Alg;
            CAPTURE(Coll);
            CAPTURE(P);
            CAPTURE(Root);
            CAPTURE(Bytes);
            CAPTURE(Name);
            auto S = compile(M, R);
            if (!S) {
              CHECK(llvm::toString(S.takeError()) == "");
              continue;
            }
            CHECK_FALSE(S->Commutative);
            CHECK(needsCommutative(*S) == "false");
            ++Checked;
          }
        }
  CHECK(Checked > 500);
  // auto takes the rank-ordered reduce-scatter where it is the cheapest.
  auto S = compile(
      M, test::request(M, Collective::Allreduce, 8, 0, 65536, "auto", false));
  REQUIRE(S);
  CHECK(S->Algorithm == "reduce-scatter-allgather");
}

TEST_CASE("non-commutative: the verifier refuses a reduce-scatter out of "
          "rank order") {
  Machine M = pcCluster();
  // The commutative form takes the ranks relative to the root: with root 5,
  // rank 7 combines rank 0's contribution first (relative ranks 2 and 3),
  // which is not adjacent to its own.
  Request R = test::request(M, Collective::Reduce, 8, 5, 64,
                            "reduce-scatter-allgather");
  auto S = compile(M, R);
  REQUIRE(S);
  CHECK(needsCommutative(*S) == "true");
  Schedule NonComm = *S;
  NonComm.Commutative = false;
  auto Problems = verifySchedule(NonComm, M);
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0].find("a non-commutative operator needs adjacent ranges") !=
        std::string::npos);
}
