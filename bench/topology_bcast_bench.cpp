//===- topology_bcast_bench: broadcasts laid onto the topology ------------===//
//
//   build/bin/bench-topology-bcast [--quick]
//
// The network evaluator's times of the broadcasts of
// algorithms/TopologyBcast.h (and, for comparison, the sequential,
// binomial and edge-disjoint trees) on examples/platforms/torus-16x16.xml
// and fat-tree-256.xml (SMPI 3.32's network model), 256 ranks, root 0, at
// 1 B, 1 KiB, 64 KiB and 1 MiB. Each schedule is built as `--algorithm`
// builds it (its segments, trees or blocks searched with the machine's cost
// pass, whose posting rule is the evaluator's default, printed on the first
// line), timed under that rule, then re-timed under the other rule of
// passes/NetworkCost.h with the same segments. Per row: the makespan under
// each rule, the segments, and the wall time of the build and its search.
// --quick: 64 KiB and 1 MiB only.
//
//===----------------------------------------------------------------------===//

#include "algorithms/Registry.h"
#include "bench/Inputs.h"
#include "passes/NetworkCost.h"
#include "passes/Verify.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <numeric>

using namespace collc;
using namespace collc::bench;

namespace {

Schedule build(const Machine &M, const char *Alg, uint64_t Bytes) {
  Request R = mustRequest(onFirstNodes(Collective::Bcast, 256, Bytes, Alg), M);
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

const char *ruleName(PostingRule P) {
  return P == PostingRule::StepByStep ? "step-by-step" : "as-data-arrives";
}

void row(const char *Platform, const Machine &M, const char *Alg,
         uint64_t Bytes) {
  const PostingRule Default = NetworkCostOptions{}.Posting;
  const PostingRule Other = Default == PostingRule::StepByStep
                                ? PostingRule::AsDataArrives
                                : PostingRule::StepByStep;
  auto T0 = std::chrono::steady_clock::now();
  Schedule S = build(M, Alg, Bytes);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  const double Searched = timed(S, M, Default);
  const double Retimed = timed(S, M, Other);
  llvm::outs() << llvm::format("%-12s %-15s %8llu %15.1f %15.1f %5lld %7.2f\n",
                               Platform, Alg, (unsigned long long)Bytes,
                               Searched, Retimed, (long long)S.NumChunks, Secs);
}

} // namespace

int main(int Argc, char **Argv) {
  const bool Quick = Argc > 1 && !std::strcmp(Argv[1], "--quick");
  std::vector<uint64_t> Sizes = {1, 1024, 65536, 1 << 20};
  if (Quick)
    Sizes = {65536, 1 << 20};
  const PostingRule Default = NetworkCostOptions{}.Posting;
  llvm::outs() << "searched under the evaluator's default rule, "
               << ruleName(Default) << "\n";
  const PostingRule Other = Default == PostingRule::StepByStep
                                ? PostingRule::AsDataArrives
                                : PostingRule::StepByStep;
  llvm::outs() << "platform     algorithm          bytes "
               << llvm::format("%15s %15s", ruleName(Default), ruleName(Other))
               << "  segs build s\n";
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
