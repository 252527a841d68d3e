// Benchmark of the foundation: the OPT-tree DP (Algorithm 1) for k = 10^3 ..
// 10^7, and a full compile (build + cost + verify + JSON) of a broadcast for
// k = 10^3 .. 10^6. Each size runs in a child process so that its peak
// memory (max RSS) is its own. Times are medians of several runs.
//
//   build/bin/bench-compile [--max-dp K] [--max-compile K] [--runs N]

#include "algorithms/OptTree.h"
#include "algorithms/Registry.h"
#include "bench/Args.h"
#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "ir/ScheduleJson.h"
#include "passes/Cost.h"
#include "passes/Verify.h"

#include "llvm/Support/raw_ostream.h"

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

Request bcast(const Machine &M, int64_t K) {
  return mustRequest(onFirstNodes(Collective::Bcast, K, 1024, "opt-tree"), M);
}

struct Row {
  double Build = 0, Cost = 0, Verify = 0, Json = 0, Total = 0;
  long MaxRssKiB = 0;
};

/// Runs \p F in a child process; the child writes its result through a pipe.
template <typename T, typename F> T inChild(F &&Fn) {
  int Fd[2];
  if (pipe(Fd) != 0)
    std::abort();
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fd[0]);
    T Result = Fn();
    struct rusage U;
    getrusage(RUSAGE_SELF, &U);
    if constexpr (requires { Result.MaxRssKiB; })
      Result.MaxRssKiB = U.ru_maxrss;
    if (write(Fd[1], &Result, sizeof(T)) != sizeof(T))
      _exit(1);
    _exit(0);
  }
  close(Fd[1]);
  T Result{};
  if (read(Fd[0], &Result, sizeof(T)) != sizeof(T)) {
    fprintf(stderr, "bench: child failed\n");
    std::exit(1);
  }
  close(Fd[0]);
  int Status;
  waitpid(Pid, &Status, 0);
  return Result;
}

Row compileOnce(int64_t K) {
  Machine M = ibmSP();
  Request R = bcast(M, K);
  Row Out;
  auto T0 = Clock::now();
  auto S = findAlgorithm("opt-tree")->Build(M, R);
  auto T1 = Clock::now();
  estimateCost(*S, M);
  auto T2 = Clock::now();
  auto Problems = verifySchedule(*S, M);
  auto T3 = Clock::now();
  if (!Problems.empty()) {
    fprintf(stderr, "bench: verification failed: %s\n", Problems[0].c_str());
    std::exit(1);
  }
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS("/dev/null", EC);
    writeScheduleJson(OS, *S, &M);
  }
  auto T4 = Clock::now();
  Out.Build = seconds(T0, T1);
  Out.Cost = seconds(T1, T2);
  Out.Verify = seconds(T2, T3);
  Out.Json = seconds(T3, T4);
  Out.Total = seconds(T0, T4);
  return Out;
}

} // namespace

int main(int argc, char **argv) {
  int64_t MaxDp = 10000000, MaxCompile = 1000000;
  int Runs = 5;
  if (!readOptions(argc, argv,
                   {{"--max-dp", &MaxDp},
                    {"--max-compile", &MaxCompile},
                    {"--runs", &Runs}},
                   "bench-compile [--max-dp K] [--max-compile K] [--runs N]"))
    return 1;

  printf("OPT-tree DP (Algorithm 1, O(k)), t_hold = 40.48, t_end = 126.68 "
         "(IBM SP, 1 KiB); median of %d runs\n\n",
         Runs);
  printf("%10s  %12s  %12s\n", "k", "seconds", "ns per node");
  for (int64_t K = 1000; K <= MaxDp; K *= 10) {
    std::vector<double> T;
    double Sink = 0;
    for (int R = 0; R < Runs; ++R) {
      auto A = Clock::now();
      OptTreeTable Table = optTreeSplits(K, 40.48, 126.68);
      auto B = Clock::now();
      Sink += Table.T[K];
      T.push_back(seconds(A, B));
    }
    double M = median(T);
    printf("%10lld  %12.6f  %12.2f%s\n", static_cast<long long>(K), M,
           M / K * 1e9, Sink < 0 ? "!" : "");
  }

  printf(
      "\nFull compile of an opt-tree broadcast (build + cost + verify + JSON "
      "to /dev/null); median of %d runs, peak memory of one run\n\n",
      Runs);
  printf("%10s  %9s  %9s  %9s  %9s  %9s  %10s\n", "k", "build s", "cost s",
         "verify s", "json s", "total s", "peak MiB");
  for (int64_t K = 1000; K <= MaxCompile; K *= 10) {
    std::vector<Row> Rows;
    for (int R = 0; R < Runs; ++R)
      Rows.push_back(inChild<Row>([K] { return compileOnce(K); }));
    auto Med = [&](double Row::*F) {
      std::vector<double> V;
      for (const Row &X : Rows)
        V.push_back(X.*F);
      return median(V);
    };
    long Rss = 0;
    for (const Row &X : Rows)
      Rss = std::max(Rss, X.MaxRssKiB);
    printf("%10lld  %9.4f  %9.4f  %9.4f  %9.4f  %9.4f  %10.1f\n",
           static_cast<long long>(K), Med(&Row::Build), Med(&Row::Cost),
           Med(&Row::Verify), Med(&Row::Json), Med(&Row::Total), Rss / 1024.0);
  }
  return 0;
}
