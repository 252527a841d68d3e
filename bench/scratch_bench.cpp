// Scratch memory of collc's MPI runtime per rank (passes/Posting.h): every
// relayed block in its own slot and every staged message in its own area
// (before lifetimes) against slots and staging reused by lifetime, for the
// all-to-alls that relay blocks on a torus (by default the 16x16 torus of
// the SMPI benchmark, bench/mpi/torus-16x16.yaml: 256 ranks), at 1, 16 and
// 64 KiB blocks, with the busiest rank and the whole job (all ranks).
//
//   build/bin/bench-scratch [machine.yaml]   (from the source directory)

#include "algorithms/Registry.h"
#include "bench/Inputs.h"
#include "passes/Posting.h"
#include "readers/MachineSpec.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

using namespace collc;
using namespace collc::bench;

namespace {

std::string mib(uint64_t B) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%.2f", static_cast<double>(B) / (1 << 20));
  return Buf;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    fprintf(stderr, "usage: bench-scratch [machine.yaml]\n");
    return 1;
  }
  auto M = loadMachine(argc == 2 ? argv[1] : "bench/mpi/torus-16x16.yaml");
  if (!M) {
    fprintf(stderr, "bench-scratch: %s\n", toString(M.takeError()).c_str());
    return 1;
  }
  const int64_t P = M->Topo.Nodes;
  printf("all-to-all on %s (%lld ranks): scratch per rank, MiB\n",
         M->Name.c_str(), (long long)P);
  printf("%-17s %7s | %12s %12s | %12s %12s %7s | %10s %10s\n", "algorithm",
         "block", "apart: peak", "all ranks", "reuse: peak", "all ranks",
         "rank", "slots", "lookahead");
  for (const char *Alg : {"sem", "torus-row-column", "bruck"}) {
    const AlgorithmInfo *A = findAlgorithm(Alg, Collective::Alltoall);
    if (!A) {
      fprintf(stderr, "no algorithm %s\n", Alg);
      return 1;
    }
    for (uint64_t KiB : {1, 16, 64}) {
      const Request R = mustRequest(
          onFirstNodes(Collective::Alltoall, P, KiB * 1024, Alg), *M);
      auto S = A->Build(*M, R);
      if (!S) {
        fprintf(stderr, "%s: %s\n", Alg, toString(S.takeError()).c_str());
        return 1;
      }
      auto Plan = planPosting(*S);
      if (!Plan) {
        fprintf(stderr, "%s: %s\n", Alg, toString(Plan.takeError()).c_str());
        return 1;
      }
      const uint64_t Unit = S->chunkBytes({0, 1});
      uint64_t SumApart = 0, Sum = 0;
      for (const RankPlan &RP : Plan->Ranks) {
        SumApart += scratchBytes(RP, S->Bytes, Unit, true);
        Sum += scratchBytes(RP, S->Bytes, Unit);
      }
      auto [RankApart, PeakApart] = peakScratch(*Plan, *S, true);
      (void)RankApart;
      auto [Rank, Peak] = peakScratch(*Plan, *S);
      const RankPlan &RP = Plan->Ranks[static_cast<size_t>(Rank)];
      printf("%-17s %4llu KiB | %12s %12s | %12s %12s %7d | %10lld %10lld\n",
             Alg, (unsigned long long)KiB, mib(PeakApart).c_str(),
             mib(SumApart).c_str(), mib(Peak).c_str(), mib(Sum).c_str(), Rank,
             (long long)RP.ScratchSlots, (long long)RP.Lookahead);
    }
  }
  return 0;
}
