// Benchmark of the mesh passes (paper 000 section 3 at scale):
//  1. OPT-mesh for a 65,536-node group on a 256x256 mesh: build, cost,
//     contention check and verification, each timed separately;
//  2. the contention checker's cost as the number of transfers grows
//     (random multicast groups on 256x256, OPT-mesh and the naive
//     placement), to show it grows with channel uses, not with pairs.
// Times are medians of several runs.
//
//   build/bin/bench-mesh [--runs N]

#include "bench/Args.h"
#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/MergeSteps.h"
#include "passes/Verify.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace collc;
using namespace collc::bench;

namespace {

Machine mesh256() {
  Machine M = ibmSP();
  M.Name = "mesh-256x256";
  M.Topo.Kind = TopologyKind::Mesh;
  M.Topo.Dims = {256, 256};
  M.Topo.Nodes = 256 * 256;
  return M;
}

/// A multicast from a random node to K-1 other random nodes, by
/// \p Algorithm.
Request group(const Machine &M, int64_t K, uint64_t Seed,
              const char *Algorithm = "auto") {
  std::mt19937_64 Rng(Seed);
  std::vector<int64_t> All(M.Topo.Nodes);
  std::iota(All.begin(), All.end(), 0);
  std::shuffle(All.begin(), All.end(), Rng);
  RequestFields F;
  F.Coll = Collective::Multicast;
  F.Root = All[0];
  F.Destinations.emplace(All.begin() + 1, All.begin() + K);
  F.Bytes = 4096;
  F.Algorithm = Algorithm;
  return mustRequest(F, M);
}

template <typename F> double timed(int Runs, F &&Fn) {
  std::vector<double> T;
  for (int I = 0; I < Runs; ++I) {
    auto A = Clock::now();
    Fn();
    T.push_back(seconds(A, Clock::now()));
  }
  return median(T);
}

} // namespace

int main(int argc, char **argv) {
  int Runs = 5;
  if (!readOptions(argc, argv, {{"--runs", &Runs}},
                   (std::string(argv[0]) + " [--runs N]").c_str()))
    return 1;
  Runs = std::max(1, Runs);
  Machine M = mesh256();
  llvm::outs() << "OPT-mesh, 65536-node multicast on a 256x256 mesh, 4 KiB "
                  "(median of "
               << Runs << " runs)\n";
  llvm::outs() << llvm::format("%-28s %10s\n", (const char *)"phase",
                               (const char *)"seconds");
  Request R = group(M, 65536, 1, "opt-mesh");
  std::optional<Schedule> S;
  double Build = timed(Runs, [&] {
    auto B = buildAndCost(M, R, "opt-mesh");
    if (!B) {
      llvm::errs() << llvm::toString(B.takeError()) << "\n";
      std::exit(1);
    }
    S = std::move(*B);
  });
  ContentionReport CR;
  double Check = timed(Runs, [&] { CR = checkContention(*S, M); });
  double Ver = timed(Runs, [&] {
    if (!verifySchedule(*S, M).empty())
      std::exit(1);
  });
  double Total = timed(Runs, [&] {
    auto C = compile(M, R);
    if (!C)
      std::exit(1);
    checkContention(*C, M);
  });
  llvm::outs() << llvm::format("%-28s %10.3f\n", (const char *)"build + cost",
                               Build)
               << llvm::format("%-28s %10.3f\n",
                               (const char *)"contention check", Check)
               << llvm::format("%-28s %10.3f\n", (const char *)"verify", Ver)
               << llvm::format("%-28s %10.3f\n",
                               (const char *)"compile + check (total)", Total);
  llvm::outs() << "transfers " << CR.Transfers << ", channel uses "
               << CR.ChannelUses << ", conflicts " << CR.NumConflicts
               << ", makespan " << llvm::format("%.2f", S->Makespan) << "\n\n";

  llvm::outs() << "Contention checker vs group size on 256x256 (median of "
               << Runs << " runs)\n";
  llvm::outs() << "placement     group  transfers   chan. uses  conflicts"
                  "         ms       ns/use\n";
  for (const char *Alg : {"opt-mesh", "opt-tree"})
    for (int64_t K : {1024, 4096, 16384, 65536}) {
      // The naive placement of 65536 nodes has millions of conflicting
      // pairs; reporting them all takes tens of seconds, so stop at 16384.
      if (K > 16384 && !std::strcmp(Alg, "opt-tree"))
        continue;
      Request G = group(M, K, 7 + K);
      auto B = buildAndCost(M, G, Alg);
      if (!B)
        return 1;
      ContentionReport C;
      double T = timed(Runs, [&] { C = checkContention(*B, M); });
      llvm::outs() << llvm::format(
          "%-10s %8lld %10llu %12llu %10llu %10.2f %12.1f\n",
          std::strcmp(Alg, "opt-tree") ? Alg : (const char *)"naive",
          (long long)K, (unsigned long long)C.Transfers,
          (unsigned long long)C.ChannelUses, (unsigned long long)C.NumConflicts,
          T * 1e3, C.ChannelUses ? T * 1e9 / C.ChannelUses : 0.0);
    }
  return 0;
}
