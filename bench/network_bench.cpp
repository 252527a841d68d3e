//===- network_bench: the network evaluator at scale ----------------------===//
//
//   build/bin/bench-network [FILTER]
//
// Times passes/NetworkCost on the 16x16 torus of
// examples/platforms/torus-16x16.xml (SMPI's network model, SimGrid's
// routing): the 65,280 transfers of a 256-rank pairwise all-to-all, and
// 256-rank broadcasts in 64 segments (pipelined down a chain; k-segment), at
// several sizes. Targets: the all-to-all in under 2 s, a broadcast in under
// 0.2 s. Prints one row
// per schedule: transfers, moments (event times), solves of the sharing,
// messages re-rated, the makespan, the wall time and the process's CPU time
// (on a loaded machine the wall time is the larger; the target is on it).
// FILTER: only the rows whose schedule and bytes ("alltoall pairwise 1024")
// contain it.
//
//===----------------------------------------------------------------------===//

#include "algorithms/Registry.h"
#include "bench/Inputs.h"
#include "passes/NetworkCost.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <numeric>
#include <string>

using namespace collc;
using namespace collc::bench;

namespace {

Schedule build(const Machine &M, Collective C, const char *Alg, uint64_t Bytes,
               int64_t Segments = 0) {
  RequestFields F = onFirstNodes(C, 256, Bytes, Alg);
  if (Segments)
    F.Segments = Segments;
  Request R = mustRequest(F, M);
  auto A = lookupAlgorithm(Alg, M, R);
  return llvm::cantFail((*llvm::cantFail(std::move(A))).Build(M, R));
}

const char *Filter = nullptr;

bool wanted(const char *Name, uint64_t Bytes) {
  return !Filter ||
         (std::string(Name) + " " + std::to_string(Bytes)).find(Filter) !=
             std::string::npos;
}

void row(const char *Name, uint64_t Bytes, Schedule S, const Machine &M,
         double Target) {
  auto T0 = std::chrono::steady_clock::now();
  const std::clock_t C0 = std::clock();
  NetworkCostStats St = estimateNetworkCost(S, M);
  const double Cpu = double(std::clock() - C0) / CLOCKS_PER_SEC;
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  llvm::outs() << llvm::format(
      "%-24s %8llu %9llu %8llu %8llu %11llu "
      "%12.1f %8.3f %8.3f %6s\n",
      Name, (unsigned long long)Bytes, (unsigned long long)St.Transfers,
      (unsigned long long)St.Moments, (unsigned long long)St.Solves,
      (unsigned long long)St.Rerated, S.Makespan, Secs, Cpu,
      Secs < Target ? "ok" : "SLOW");
}

} // namespace

int main(int argc, char **argv) {
  Filter = argc > 1 ? argv[1] : nullptr;
  const Machine M = test::smpiTorus16x16();
  llvm::outs()
      << "schedule                    bytes transfers  moments "
         "  solves    re-rated  makespan µs        s    cpu s target\n";
  for (uint64_t B : {1ull, 1024ull, 65536ull, 1048576ull})
    if (wanted("alltoall pairwise", B))
      row("alltoall pairwise", B, build(M, Collective::Alltoall, "pairwise", B),
          M, 2.0);
  // Every pair at once (SMPI's basic_linear; the first step of
  // reduce-scatter-direct): one step of 65,280 flows sharing the torus.
  for (uint64_t B : {1024ull, 65536ull})
    if (wanted("alltoall direct", B))
      row("alltoall direct", B, build(M, Collective::Alltoall, "direct", B), M,
          2.0);
  for (uint64_t B : {65536ull, 1048576ull, 16777216ull}) {
    if (wanted("bcast pipeline k=64", B))
      row("bcast pipeline k=64", B,
          build(M, Collective::Bcast, "pipeline", B, 64), M, 0.2);
    if (wanted("bcast k-segment k=64", B))
      row("bcast k-segment k=64", B,
          build(M, Collective::Bcast, "k-segment", B, 64), M, 0.2);
  }
  return 0;
}
