// The drop-in library's first call of a kind in one process, at 1,024 to
// 65,536 ranks (issue 26): the engine (dropin/Engine.h) as one rank of a
// program plays it, building that rank's part where the algorithm has a
// rank-part form (algorithms/RankParts.h) and the whole schedule elsewhere.
// Each case runs in a child process of its own, so that its peak memory is
// its own: the table gives the first call's wall time, the growth of the
// process's peak resident memory during it, and the bytes the engine keeps.
//
//   build/bin/bench-rank-part [RANKS...]     (default 1024 4096 65536)
//
// The machine is a 2-D torus of the rank count's size (linear model); the
// rank is the middle one. "part" says what was built: "rank" (the rank's
// part of a named algorithm, or of auto's choice among whole candidates),
// "priced" (the rank's part of auto's choice by price, no whole build), or
// "whole" (the whole schedule). "rsag" is reduce-scatter-allgather.
#include "bench/Timing.h"
#include "dropin/Engine.h"
#include "tests/TestUtil.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace collc;
using namespace collc::dropin;

namespace {

struct Case {
  int Coll;
  const char *Algorithm; ///< "auto" or a name.
  uint64_t Bytes;
  int32_t MaxRanks; ///< Beyond it the case is not run (the whole build).
};

long peakKiB() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

struct Result {
  double Ms = 0;
  double PeakMiB = 0, KeptMiB = 0;
  int32_t Rank = -1;
  char Algorithm[32] = {};
  bool Priced = false;
  char Error[96] = {};
};

/// One rank's first call of kind \p C on \p P ranks, in this process.
Result play(const Case &C, int32_t P) {
  Result Out;
  Config Cfg;
  Cfg.Algorithm[C.Coll] = C.Algorithm;
  Engine E(test::linearTorus(P), Cfg);
  std::vector<int64_t> Nodes(static_cast<size_t>(P));
  for (int32_t I = 0; I < P; ++I)
    Nodes[size_t(I)] = I;
  Key K;
  K.Coll = C.Coll;
  K.Layout = E.layout(Nodes);
  K.Band = powerOfTwoBand(C.Bytes);
  const long Before = peakKiB();
  auto T0 = bench::Clock::now();
  const Entry &En = E.get(K, P / 2);
  Out.Ms = bench::seconds(T0, bench::Clock::now()) * 1e3;
  Out.PeakMiB = double(peakKiB() - Before) / 1024;
  Out.KeptMiB = double(E.memoryBytes()) / (1 << 20);
  Out.Rank = En.Rank;
  Out.Priced = En.Priced;
  std::snprintf(Out.Algorithm, sizeof Out.Algorithm, "%s",
                En.Algorithm.c_str());
  std::snprintf(Out.Error, sizeof Out.Error, "%s", En.Error.c_str());
  return Out;
}

/// play() in a child process.
bool playApart(const Case &C, int32_t P, Result &R) {
  int Fd[2];
  if (pipe(Fd))
    return false;
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Fd[0]);
    Result X = play(C, P);
    ssize_t N = write(Fd[1], &X, sizeof X);
    _exit(N == ssize_t(sizeof X) ? 0 : 1);
  }
  close(Fd[1]);
  ssize_t N = read(Fd[0], &R, sizeof R);
  close(Fd[0]);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  return N == ssize_t(sizeof R) && WIFEXITED(Status) &&
         WEXITSTATUS(Status) == 0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<int32_t> Ranks;
  for (int I = 1; I < Argc; ++I)
    Ranks.push_back(int32_t(std::atoi(Argv[I])));
  if (Ranks.empty())
    Ranks = {1024, 4096, 65536};
  const Case Cases[] = {
      {rt::Allgather, "ring", 1, INT32_MAX},
      {rt::Allgather, "ring", 1 << 20, INT32_MAX},
      {rt::Allgather, "bruck", 1, INT32_MAX},
      {rt::Alltoall, "pairwise", 1, INT32_MAX},
      {rt::Alltoall, "bruck", 1, INT32_MAX},
      {rt::Bcast, "binomial", 1, INT32_MAX},
      {rt::Bcast, "binomial", 1 << 20, INT32_MAX},
      {rt::Reduce, "binomial", 4, INT32_MAX},
      {rt::Allreduce, "binomial", 4, INT32_MAX},
      {rt::Allreduce, "reduce-scatter-allgather", 1 << 20, INT32_MAX},
      // auto: from PricedChoiceRanks ranks on, chosen by price and built
      // as a part; below, chosen from whole candidates (the first call pays
      // every candidate's whole build).
      {rt::Bcast, "auto", 1 << 16, INT32_MAX},
      {rt::Allreduce, "auto", 4, INT32_MAX},
      {rt::Allreduce, "auto", 1 << 20, INT32_MAX},
      {rt::Allgather, "auto", 1 << 10, INT32_MAX},
      {rt::Alltoall, "auto", 1 << 10, INT32_MAX},
  };
  const char *Head[] = {"collective", "algorithm", "bytes",
                        "ranks",      "built",     "part",
                        "first ms",   "peak MiB",  "kept MiB"};
  llvm::outs() << llvm::format("%-10s %-9s %8s %7s  %-24s %-6s %10s %10s %9s\n",
                               Head[0], Head[1], Head[2], Head[3], Head[4],
                               Head[5], Head[6], Head[7], Head[8]);
  for (int32_t P : Ranks)
    for (const Case &C : Cases) {
      if (P > C.MaxRanks)
        continue;
      Result R;
      if (!playApart(C, P, R)) {
        llvm::outs() << rt::collName(C.Coll) << " " << C.Algorithm << " " << P
                     << ": the child failed\n";
        continue;
      }
      llvm::outs() << llvm::format(
          "%-10s %-9s %8llu %7d  %-24s %-6s %10.2f %10.1f %9.2f%s%s\n",
          rt::collName(C.Coll),
          std::string(C.Algorithm) == "reduce-scatter-allgather" ? "rsag"
                                                                 : C.Algorithm,
          (unsigned long long)C.Bytes, P,
          static_cast<const char *>(R.Algorithm),
          R.Rank < 0 ? "whole"
          : R.Priced ? "priced"
                     : "rank",
          R.Ms, R.PeakMiB, R.KeptMiB, R.Error[0] ? "  error: " : "",
          static_cast<const char *>(R.Error));
      llvm::outs().flush();
    }
  return 0;
}
