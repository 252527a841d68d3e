//===- verify_bench: the verifier on runs against the atom-exact one ------===//
//
//   build/bin/bench-verify [max ranks, default 65536]
//
// CPU time of the process (median of 3, seconds; CPU rather than wall time
// because on a shared host the wall time varies several-fold) of
// verifySchedule on the schedules of
// reduction and replicated-data builders, followed atom by atom
// (VerifyOptions::Tracking::Atoms, within VerifyLimits) and as runs
// (Tracking::Runs), at 256 to 65,536 ranks on a parameterized machine
// (t_hold 10, t_end 20, 0.01 and 0.02 per byte), 1 MiB of int32. A dash: the
// builder declines that size (its reason is printed below the table), or the
// atom verifier refuses it (beyond its limits). Both verifiers must find the
// schedule correct; the bench stops if one does not.
//
//===----------------------------------------------------------------------===//

#include "bench/Timing.h"
#include "compiler/Algorithms.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"
#include "tests/TestUtil.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>

using namespace collc;

namespace {

struct Row {
  Collective Coll;
  const char *Algorithm;
  /// Beyond this the schedule itself does not fit (a ring's P^2 transfers).
  int32_t MaxRanks = 1 << 20;
};

const Row Rows[] = {
    {Collective::Allreduce, "reduce-scatter-allgather"},
    {Collective::Allreduce, "nearest-halving"},
    {Collective::Allreduce, "nearest-doubling"},
    {Collective::Allreduce, "binomial"},
    {Collective::Reduce, "binomial"},
    {Collective::Scan, "brent-kung"},
    {Collective::Exscan, "brent-kung"},
    {Collective::Bcast, "binomial"},
    {Collective::Bcast, "scatter-allgather", 1024},
    {Collective::Allgather, "bruck"},
    {Collective::Allgather, "ring", 1024},
};

double cpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}

/// Median CPU seconds of three verifications, or a negative number when the
/// verifier reports problems (the first one in \p Problem).
double timeVerify(const Schedule &S, const Machine &M,
                  VerifyOptions::Tracking T, std::string &Problem) {
  VerifyOptions O;
  O.Flow = T;
  std::vector<double> Times;
  for (int I = 0; I < 3; ++I) {
    const double T0 = cpuSeconds();
    std::vector<std::string> Problems = verifySchedule(S, M, O);
    Times.push_back(cpuSeconds() - T0);
    if (!Problems.empty()) {
      Problem = Problems.front();
      return -1;
    }
    if (Times.back() > 20)
      break; // one run is enough to show it
  }
  return bench::median(Times);
}

} // namespace

int main(int Argc, char **Argv) {
  const int32_t MaxP = Argc > 1 ? std::atoi(Argv[1]) : 65536;
  Machine M;
  M.Name = "bench";
  M.M.Kind = ModelKind::Parameterized;
  M.M.Parameterized = {{10, 0.01}, {20, 0.02}};
  const uint64_t Bytes = 1 << 20;
  std::vector<std::string> Notes;
  llvm::outs() << llvm::formatv("{0,-10} {1,-26} {2,7} {3,7} {4,10} {5,10} "
                                "{6,10} {7,10}\n",
                                "collective", "algorithm", "ranks", "chunks",
                                "transfers", "atoms s", "runs s", "atoms/runs");
  bool Failed = false;
  for (const Row &Rw : Rows)
    for (int32_t P = 256; P <= std::min(MaxP, Rw.MaxRanks); P *= 4) {
      Request R = test::request(Rw.Coll, P, 0, Bytes, Rw.Algorithm);
      auto S = buildAndCost(M, R, Rw.Algorithm);
      if (!S) {
        Notes.push_back(llvm::formatv("{0} {1} at {2} ranks: {3}",
                                      collectiveName(Rw.Coll), Rw.Algorithm,
                                      P, llvm::toString(S.takeError())));
        continue;
      }
      std::string AtomProblem, RunProblem;
      double Runs =
          timeVerify(*S, M, VerifyOptions::Tracking::Runs, RunProblem);
      double Atoms =
          timeVerify(*S, M, VerifyOptions::Tracking::Atoms, AtomProblem);
      if (Runs < 0) {
        llvm::errs() << "runs: " << RunProblem << "\n";
        Failed = true;
      }
      if (Atoms < 0)
        Notes.push_back(llvm::formatv("{0} {1} at {2} ranks, atoms: {3}",
                                      collectiveName(Rw.Coll), Rw.Algorithm,
                                      P, AtomProblem));
      std::string AtomCol =
          Atoms < 0 ? "-" : llvm::formatv("{0:f3}", Atoms).str();
      std::string Speedup =
          Atoms < 0 || Runs <= 0 ? "-"
                                 : llvm::formatv("{0:f1}x", Atoms / Runs).str();
      llvm::outs() << llvm::formatv(
          "{0,-10} {1,-26} {2,7} {3,7} {4,10} {5,10} {6,10:f3} {7,10}\n",
          collectiveName(Rw.Coll), Rw.Algorithm, P, S->NumChunks,
          S->numTransfers(), AtomCol, Runs, Speedup);
      llvm::outs().flush();
    }
  for (const std::string &N : Notes)
    llvm::outs() << "  " << N << "\n";
  return Failed ? 1 : 0;
}
