//===- topology_bcast_bench: broadcasts laid onto the topology ------------===//
//
//   build/bin/bench-topology-bcast [--quick]
//
// The network evaluator's times of the broadcasts of
// compiler/algorithms/TopologyBcast.h (and, for comparison, the sequential,
// binomial and edge-disjoint trees) on examples/platforms/torus-16x16.xml
// and fat-tree-256.xml (SMPI 3.32's network model), 256 ranks, root 0, at
// 1 B, 1 KiB, 64 KiB and 1 MiB, under both posting rules of
// passes/NetworkCost.h:
//  - StepByStep: the schedule as its builder searched it with the machine's
//    cost pass (whose posting rule is the evaluator's default), timed so;
//  - AsDataArrives: the segment count searched here under that rule (1, 2,
//    4, ... while it improves, request `segments`), timed so.
// Prints per row the makespan and segments under each rule and the wall
// time of the builder's own search. --quick: 64 KiB and 1 MiB only.
//
//===----------------------------------------------------------------------===//

#include "compiler/Algorithms.h"
#include "passes/NetworkCost.h"
#include "passes/Verify.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <numeric>

using namespace collc;

namespace {

Request request(const char *Alg, uint64_t Bytes, int64_t Segments) {
  Request R;
  R.Coll = Collective::Bcast;
  R.Nodes.resize(256);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Bytes = Bytes;
  R.Algorithm = Alg;
  R.Segments = Segments;
  return R;
}

Schedule build(const Machine &M, const char *Alg, uint64_t Bytes,
               int64_t Segments) {
  Request R = request(Alg, Bytes, Segments);
  const AlgorithmInfo *A = llvm::cantFail(lookupAlgorithm(Alg, M, R));
  Schedule S = llvm::cantFail(A->Build(M, R));
  if (!verifySchedule(S, M).empty()) {
    llvm::errs() << Alg << " " << Bytes << ": does not verify\n";
    std::exit(3);
  }
  return S;
}

double timed(Schedule &S, const Machine &M, PostingRule Rule) {
  estimateNetworkCost(S, M, {Rule});
  return S.Makespan;
}

void row(const char *Platform, const Machine &M, const char *Alg,
         uint64_t Bytes) {
  auto T0 = std::chrono::steady_clock::now();
  Schedule Searched = build(M, Alg, Bytes, 0);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  const double Step = timed(Searched, M, PostingRule::StepByStep);
  const int64_t StepK = Searched.NumChunks;
  double Best = timed(Searched, M, PostingRule::AsDataArrives);
  int64_t BestK = 0, Since = 0;
  for (int64_t K = 1;
       K <= 1024 && K <= static_cast<int64_t>(Bytes) && Since < 2; K *= 2) {
    Schedule S = build(M, Alg, Bytes, K);
    double T = timed(S, M, PostingRule::AsDataArrives);
    ++Since;
    if (T < Best) {
      Best = T;
      BestK = S.NumChunks;
      Since = 0;
    }
  }
  if (BestK == 0)
    BestK = Searched.NumChunks;
  llvm::outs() << llvm::format("%-12s %-16s %8llu %10.1f %5lld %10.1f %5lld "
                               "%7.2f\n",
                               Platform, Alg, (unsigned long long)Bytes, Step,
                               (long long)StepK, Best, (long long)BestK, Secs);
}

} // namespace

int main(int Argc, char **Argv) {
  const bool Quick = Argc > 1 && !std::strcmp(Argv[1], "--quick");
  std::vector<uint64_t> Sizes = {1, 1024, 65536, 1 << 20};
  if (Quick)
    Sizes = {65536, 1 << 20};
  llvm::outs() << "platform     algorithm           bytes step-by-st  segs "
                  "as-arrives  segs build s\n";
  const Machine Torus = test::smpiTorus16x16();
  const Machine FatTree = test::smpiFatTree256();
  for (uint64_t B : Sizes)
    for (const char *A :
         {"ring-pipeline", "spanning-trees", "scatter-ring", "scatter-trees",
          "sequential", "binomial", "edge-disjoint"})
      row("torus-16x16", Torus, A, B);
  for (uint64_t B : Sizes)
    for (const char *A :
         {"kary-pipeline", "sequential", "binomial", "edge-disjoint"})
      row("fat-tree-256", FatTree, A, B);
  return 0;
}
