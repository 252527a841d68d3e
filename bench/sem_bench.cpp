// Benchmark of complete exchange on wormhole 2D tori (paper 004).
//
// Table 1: compile (build + cost) and block-exact verification of SEM for
// N x N tori up to 64x64 (4096 ranks, 16.7M blocks). Each size runs in a
// child process so that its peak memory (max RSS) is its own; times are
// medians of --runs runs (CPU time of the child, so that a busy machine
// does not inflate them; wall time beside it).
//
// Table 2: model time (makespan under the machine's wormhole timing) of SEM
// against the torus baselines on 16x16 across block sizes, as ratios.
//
//   build/bin/bench-sem [--max-n N] [--runs R]

#include "algorithms/Registry.h"
#include "bench/Args.h"
#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/Verify.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace collc;
using namespace collc::bench;

namespace {

Machine torus(int64_t N) {
  Machine M;
  M.Name = "torus-" + std::to_string(N) + "x" + std::to_string(N);
  M.M.Kind = ModelKind::Wormhole;
  // examples/machines/torus-16x16.yaml's timing (µs).
  M.M.Worm = {5, 0.001, 0.0001, 5, 0.001, 1};
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {N, N};
  M.Topo.Nodes = N * N;
  return M;
}

Request alltoall(const Machine &M, int64_t N, const char *Algorithm,
                 uint64_t Bytes) {
  return mustRequest(
      onFirstNodes(Collective::Alltoall, N * N, Bytes, Algorithm), M);
}

struct Result {
  double Build = 0, Cost = 0, Verify = 0, Wall = 0;
  uint64_t Pieces = 0, Transfers = 0, Steps = 0, Problems = 0, Conflicts = 0;
};

/// One compile + verify of SEM on N x N, in this process.
Result runOnce(int64_t N) {
  Result Rs;
  Machine M = torus(N);
  const Request R = alltoall(M, N, "sem", 64);
  auto W0 = Clock::now();
  double C0 = cpuSeconds();
  auto S = findAlgorithm("sem", Collective::Alltoall)->Build(M, R);
  if (!S) {
    fprintf(stderr, "build failed\n");
    exit(1);
  }
  double C1 = cpuSeconds();
  estimateCost(*S, M);
  double C2 = cpuSeconds();
  Rs.Problems = verifySchedule(*S, M).size();
  double C3 = cpuSeconds();
  Rs.Wall = std::chrono::duration<double>(Clock::now() - W0).count();
  Rs.Build = C1 - C0;
  Rs.Cost = C2 - C1;
  Rs.Verify = C3 - C2;
  Rs.Steps = S->Steps.size();
  for (const Step &St : S->Steps)
    for (const Transfer &T : St.Transfers) {
      ++Rs.Transfers;
      Rs.Pieces += T.Pieces.size();
    }
  Rs.Conflicts = checkContention(*S, M).NumConflicts;
  return Rs;
}

/// Runs runOnce in a child; returns its result and peak RSS (KiB).
Result inChild(int64_t N, long &MaxRssKiB) {
  int Fd[2];
  if (pipe(Fd) != 0)
    exit(1);
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fd[0]);
    Result R = runOnce(N);
    if (write(Fd[1], &R, sizeof R) != sizeof R)
      _exit(1);
    _exit(0);
  }
  close(Fd[1]);
  Result R;
  if (read(Fd[0], &R, sizeof R) != sizeof R)
    exit(1);
  close(Fd[0]);
  int Status = 0;
  rusage U;
  wait4(Pid, &Status, 0, &U);
  MaxRssKiB = U.ru_maxrss;
  return R;
}

} // namespace

int main(int argc, char **argv) {
  int64_t MaxN = 64;
  int Runs = 3;
  if (!readOptions(argc, argv, {{"--max-n", &MaxN}, {"--runs", &Runs}},
                   "bench-sem [--max-n N] [--runs R]"))
    return 1;
  printf("SEM: build + cost + block-exact verify (CPU s, median of %d; peak "
         "RSS of one run)\n\n",
         Runs);
  printf("%6s %8s %12s %6s %10s %10s %8s %8s %8s %8s %8s %9s %9s %8s\n", "N",
         "ranks", "blocks", "steps", "transfers", "pieces", "build", "cost",
         "verify", "total", "wall", "max RSS", "conflicts", "problems");
  for (int64_t N = 8; N <= MaxN; N *= 2) {
    std::vector<double> B, C, V, T, W;
    Result R;
    long Rss = 0;
    for (int K = 0; K < Runs; ++K) {
      long X = 0;
      R = inChild(N, X);
      Rss = std::max(Rss, X);
      B.push_back(R.Build);
      C.push_back(R.Cost);
      V.push_back(R.Verify);
      T.push_back(R.Build + R.Cost + R.Verify);
      W.push_back(R.Wall);
    }
    printf("%6lld %8lld %12llu %6llu %10llu %10llu %8.3f %8.3f %8.3f %8.3f "
           "%8.3f %6.0f MiB %9llu %8llu\n",
           (long long)N, (long long)(N * N),
           (unsigned long long)(N * N) * (N * N), (unsigned long long)R.Steps,
           (unsigned long long)R.Transfers, (unsigned long long)R.Pieces,
           median(B), median(C), median(V), median(T), median(W), Rss / 1024.0,
           (unsigned long long)R.Conflicts, (unsigned long long)R.Problems);
  }

  printf("\nModel time on a 16x16 torus (µs, wormhole timing of "
         "examples/machines/torus-16x16.yaml) and ratios to sem\n\n");
  printf("%10s %12s %18s %8s %14s %8s\n", "block (B)", "sem",
         "torus-row-column", "ratio", "torus-direct", "ratio");
  for (uint64_t Bytes : {8ull, 64ull, 512ull, 4096ull, 32768ull}) {
    double Ms[3];
    const char *Names[3] = {"sem", "torus-row-column", "torus-direct"};
    for (int A = 0; A < 3; ++A) {
      const Machine M = torus(16);
      auto S = buildAndCost(M, alltoall(M, 16, Names[A], Bytes), Names[A]);
      if (!S) {
        fprintf(stderr, "%s failed\n", Names[A]);
        return 1;
      }
      Ms[A] = S->Makespan;
    }
    printf("%10llu %12.1f %18.1f %8.2f %14.1f %8.2f\n",
           (unsigned long long)Bytes, Ms[0], Ms[1], Ms[1] / Ms[0], Ms[2],
           Ms[2] / Ms[0]);
  }
  return 0;
}
