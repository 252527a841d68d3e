// The drop-in library's first call of a kind in one process, at 256 to
// 65,536 ranks (issue 26): the engine (dropin/Engine.h) as one rank of a
// program plays it, building that rank's part where the algorithm has a
// rank-part form (algorithms/RankParts.h) and the whole schedule elsewhere.
// Each case runs in a child process of its own, so that its peak memory is
// its own: the table gives the first call's wall and CPU time, the growth
// of the process's peak resident memory during it, and the bytes the
// engine keeps.
//
//   build/bin/bench-rank-part [--case COLLECTIVE/ALGORITHM] [RANKS...]
//                                     (default ranks 512 1024 4096 65536)
//
// --case runs the cases of that collective and algorithm alone (e.g.
// alltoall/bruck, bcast/whole), for a profile of one.
// The machine is a 2-D torus of the rank count's size (linear model); the
// rank is the middle one. "part" says what was built: "rank" (the rank's
// part of a named algorithm, or of auto's choice among whole candidates),
// "priced" (the rank's part of auto's choice by price, no whole build),
// "whole" (the whole schedule), or "cands" (the `whole` rows, up to 1,024
// ranks: what auto's choice from the whole candidates costs a process,
// compile() as below PricedChoiceRanks, the threshold's reason). "rsag" is
// reduce-scatter-allgather.
#include "bench/Timing.h"
#include "compiler/Driver.h"
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
  /// "auto", a name, or "whole": auto's choice from the whole candidates
  /// (compile()), whatever the rank count.
  const char *Algorithm;
  uint64_t Bytes;
  int32_t MaxRanks; ///< Beyond it the case is not run (the whole build).
};

long peakKiB() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

struct Result {
  double Ms = 0, CpuMs = 0;
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
  const double Cpu0 = bench::cpuSeconds();
  auto T0 = bench::Clock::now();
  if (std::string(C.Algorithm) == "whole") {
    // auto's choice as below PricedChoiceRanks: every candidate built,
    // priced and verified whole.
    llvm::Expected<Request> Made = E.requestOf(K);
    if (!Made) {
      std::fprintf(stderr, "bench-rank-part: %s\n",
                   llvm::toString(Made.takeError()).c_str());
      return Out;
    }
    Request R = std::move(*Made);
    R.Algorithm = "auto";
    llvm::Expected<Schedule> S = compile(E.machine(), R);
    Out.Ms = bench::seconds(T0, bench::Clock::now()) * 1e3;
    Out.CpuMs = (bench::cpuSeconds() - Cpu0) * 1e3;
    Out.PeakMiB = double(peakKiB() - Before) / 1024;
    std::snprintf(Out.Algorithm, sizeof Out.Algorithm, "%s",
                  S ? S->Algorithm.c_str() : "");
    if (!S)
      std::snprintf(Out.Error, sizeof Out.Error, "%s",
                    llvm::toString(S.takeError()).c_str());
    return Out;
  }
  const Entry &En = E.get(K, P / 2);
  Out.Ms = bench::seconds(T0, bench::Clock::now()) * 1e3;
  Out.CpuMs = (bench::cpuSeconds() - Cpu0) * 1e3;
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
  std::string Only;
  for (int I = 1; I < Argc; ++I) {
    if (std::string(Argv[I]) == "--case" && I + 1 < Argc) {
      Only = Argv[++I];
      continue;
    }
    const int32_t P = int32_t(std::atoi(Argv[I]));
    if (P < 1) {
      llvm::errs() << "bench-rank-part: '" << Argv[I]
                   << "' is not a rank count; expected [--case "
                      "COLLECTIVE/ALGORITHM] [RANKS...]\n";
      return 1;
    }
    Ranks.push_back(P);
  }
  if (Ranks.empty())
    Ranks = {512, 1024, 4096, 65536};
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
      // auto: from PricedChoiceRanks (512) ranks on, chosen by price and
      // built as a part; below, chosen from whole candidates (the first
      // call pays every candidate's whole build).
      {rt::Bcast, "auto", 1 << 16, INT32_MAX},
      {rt::Allreduce, "auto", 4, INT32_MAX},
      {rt::Allreduce, "auto", 1 << 20, INT32_MAX},
      {rt::Allgather, "auto", 1 << 10, INT32_MAX},
      {rt::Alltoall, "auto", 1 << 10, INT32_MAX},
      // What auto's first call costs with whole candidates (seconds to
      // minutes per case from 512 ranks on).
      {rt::Bcast, "whole", 1 << 16, 1024},
      {rt::Allreduce, "whole", 1 << 20, 1024},
      {rt::Allgather, "whole", 1 << 10, 1024},
      {rt::Alltoall, "whole", 1 << 10, 1024},
  };
  const char *Head[] = {"collective", "algorithm", "bytes",    "ranks",
                        "built",      "part",      "first ms", "cpu ms",
                        "peak MiB",   "kept MiB"};
  llvm::outs() << llvm::format(
      "%-10s %-9s %8s %7s  %-24s %-6s %10s %10s %10s %9s\n", Head[0], Head[1],
      Head[2], Head[3], Head[4], Head[5], Head[6], Head[7], Head[8], Head[9]);
  for (int32_t P : Ranks)
    for (const Case &C : Cases) {
      if (P > C.MaxRanks ||
          (!Only.empty() &&
           Only != std::string(rt::collName(C.Coll)) + "/" + C.Algorithm))
        continue;
      Result R;
      if (!playApart(C, P, R)) {
        llvm::outs() << rt::collName(C.Coll) << " " << C.Algorithm << " " << P
                     << ": the child failed\n";
        continue;
      }
      llvm::outs() << llvm::format(
          "%-10s %-9s %8llu %7d  %-24s %-6s %10.2f %10.2f %10.1f %9.2f%s%s\n",
          rt::collName(C.Coll),
          std::string(C.Algorithm) == "reduce-scatter-allgather" ? "rsag"
                                                                 : C.Algorithm,
          (unsigned long long)C.Bytes, P,
          static_cast<const char *>(R.Algorithm),
          std::string(C.Algorithm) == "whole" ? "cands"
          : R.Rank < 0                        ? "whole"
          : R.Priced                          ? "priced"
                                              : "rank",
          R.Ms, R.CpuMs, R.PeakMiB, R.KeptMiB, R.Error[0] ? "  error: " : "",
          static_cast<const char *>(R.Error));
      llvm::outs().flush();
    }
  return 0;
}
