// collc-barrier: drives the hardware-barrier simulator of paper 003.
//
//   collc-barrier figure8 [--runs N] [--seed S] [--cycle-length T] [--csv FILE]
//                         [--svg FILE] [--release-cut-through]
//   collc-barrier cycle-fit [--runs N] [--seed S] [--max-cycle-length T]
//                           [--release-cut-through]
//   collc-barrier faults  [--participants N] [--runs N] [--seed S]
//                         [--cycle-length T] [--corrupt PCT] [--csv FILE]
//                         [--svg FILE]
//   collc-barrier run     [--scheme sivaram|multi-drop] [--participants N]
//                         [--seed S] [--cycle-length T] [--loss PCT]
//                         [--corrupt PCT] [--trace]
//
// Exit status: 0 success, 1 bad usage, 2 an episode broke an invariant.
#include "ir/OutOfMemory.h"
#include "tools/BarrierExperiments.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace collc;
using namespace collc::barrier;

namespace {

const char *Usage =
    R"(usage: collc-barrier figure8 [--runs N] [--seed S] [--cycle-length T]
                             [--csv FILE] [--svg FILE] [--release-cut-through]
       collc-barrier cycle-fit [--runs N] [--seed S] [--max-cycle-length T]
                               [--release-cut-through]
       collc-barrier faults [--participants N] [--runs N] [--seed S]
                            [--cycle-length T] [--corrupt PCT]
                            [--csv FILE] [--svg FILE]
       collc-barrier run [--scheme sivaram|multi-drop] [--participants N]
                         [--seed S] [--cycle-length T] [--loss PCT]
                         [--corrupt PCT] [--trace]
Simulates the hardware barriers of Sivaram et al. and of the multi-drop scheme
(paper 003) on a 64-node MIN of 8x8 switches.

commands:
  figure8    average delay against participants (4..64 step 4), both schemes
  cycle-fit  Figure 8's reduction for unit-cycle lengths 1..T (default 16),
             its distance from the paper's band, and the closest length
  faults     completion against the packet loss rate (0..20% in every phase)
  run        one episode, optionally traced

options:
  --cycle-length T        time units one cycle of the barrier unit lasts; the
                          paper does not say. Sivaram's unit spends 4 cycles on
                          a packet, the multi-drop unit 3; links take 1 unit.
                          Default: {F8} for figure8 (the length closest to the
                          paper's 24.6-24.8% reduction), 1 for faults and run.
  --max-cycle-length T    the longest cycle-fit tries (default 16)
  --runs N                seeded episodes per point (figure8 2000, cycle-fit
                          and faults 1000)
  --seed S                seed of the first episode (default 1)
  --participants N        participants (faults 64, run 8)
  --scheme S              sivaram or multi-drop (default multi-drop)
  --loss PCT              packet loss rate in every phase (default 0)
  --corrupt PCT           packet corruption rate in every phase (default 0)
  --release-cut-through   the multi-drop release is replicated by the crossbar
                          without entering the barrier unit
  --csv FILE, --svg FILE  write the table, the chart
  --trace                 print every packet event
)";

/// The usage text, with the defaults that are the program's own figures.
std::string usage() {
  std::string U = Usage;
  std::string::size_type At = U.find("{F8}");
  U.replace(At, 4, std::to_string(Figure8CycleLength));
  return U;
}

[[noreturn]] void fail(const std::string &Msg) {
  std::cerr << "collc-barrier: error: " << Msg << "\n";
  std::exit(1);
}

struct Args {
  std::map<std::string, std::string> Values;
  std::set<std::string> Flags;

  std::optional<std::string> get(const std::string &K) const {
    auto It = Values.find(K);
    if (It == Values.end())
      return std::nullopt;
    return It->second;
  }
  int64_t integer(const std::string &K, int64_t Default, int64_t Lo,
                  int64_t Hi) const {
    auto V = get(K);
    if (!V)
      return Default;
    char *End = nullptr;
    errno = 0;
    long long X = std::strtoll(V->c_str(), &End, 10);
    if (V->empty() || *End || errno || X < Lo || X > Hi)
      fail("--" + K + ": expected an integer in [" + std::to_string(Lo) + ", " +
           std::to_string(Hi) + "], got '" + *V + "'");
    return X;
  }
  /// --cycle-length: time units per barrier-unit cycle.
  int64_t cycleLength(int64_t Default) const {
    return integer("cycle-length", Default, 1, 1000);
  }
  double percent(const std::string &K, double Default) const {
    auto V = get(K);
    if (!V)
      return Default;
    char *End = nullptr;
    double X = std::strtod(V->c_str(), &End);
    if (V->empty() || *End || !(X >= 0 && X <= 100))
      fail("--" + K + ": expected a percentage in [0, 100], got '" + *V + "'");
    return X;
  }
};

Args parse(int Argc, char **Argv, std::initializer_list<const char *> Allowed) {
  Args A;
  for (int I = 2; I < Argc; ++I) {
    std::string S = Argv[I];
    if (S == "--help" || S == "-h") {
      std::fputs(usage().c_str(), stdout);
      std::exit(0);
    }
    if (S == "--trace" || S == "--release-cut-through") {
      A.Flags.insert(S.substr(2));
      continue;
    }
    if (S.rfind("--", 0) != 0)
      fail("unexpected argument '" + S + "'");
    std::string K = S.substr(2), V;
    if (auto Eq = K.find('='); Eq != std::string::npos) {
      V = K.substr(Eq + 1);
      K = K.substr(0, Eq);
    } else if (I + 1 < Argc) {
      V = Argv[++I];
    } else {
      fail("--" + K + ": missing value");
    }
    bool Ok = false;
    for (const char *X : Allowed)
      Ok |= K == X;
    if (!Ok)
      fail("unknown option '--" + K + "' for '" + Argv[1] + "'");
    A.Values[K] = V;
  }
  return A;
}

void writeFile(const std::optional<std::string> &Path, auto &&Write) {
  if (!Path)
    return;
  std::error_code EC;
  llvm::raw_fd_ostream F(*Path, EC);
  if (EC)
    fail("cannot write '" + *Path + "'");
  Write(F);
  F.close();
  if (F.has_error()) {
    F.clear_error();
    fail("cannot write '" + *Path + "'");
  }
}

int figure8Cmd(int Argc, char **Argv) {
  Args A = parse(Argc, Argv, {"runs", "seed", "cycle-length", "csv", "svg"});
  int64_t Runs = A.integer("runs", 2000, 1, 100000000);
  uint64_t Seed = static_cast<uint64_t>(A.integer("seed", 1, 0, INT64_MAX));
  SimParams P;
  P.CycleLength = A.cycleLength(Figure8CycleLength);
  P.ReleaseThroughUnit = !A.Flags.count("release-cut-through");
  auto Rows = figure8(P, Runs, Seed);
  std::printf(
      "Figure 8: average delay AD on a 64-node MIN of 8x8 switches, unit cycle "
      "%lld time units, %lld runs per point (seed %llu)\n",
      static_cast<long long>(P.CycleLength), static_cast<long long>(Runs),
      static_cast<unsigned long long>(Seed));
  std::printf("AD: A_j = participant j's ack at its switch (section 4.2's "
              "formula); completion: A_j = every switch and the root done\n");
  std::printf("%12s  %11s  %13s  %9s  %13s  %13s  %9s\n", "participants",
              "AD sivaram", "AD multi-drop", "reduction", "compl sivaram",
              "compl m-drop", "reduction");
  int Failures = 0;
  for (const Figure8Row &R : Rows) {
    std::printf("%12d  %11.2f  %13.2f  %8.2f%%  %13.2f  %13.2f  %8.2f%%\n",
                R.Participants, R.Sivaram.MeanAD, R.MultiDrop.MeanAD,
                R.ReductionPercent, R.Sivaram.MeanCompletionDelay,
                R.MultiDrop.MeanCompletionDelay, R.CompletionReductionPercent);
    Failures += R.Sivaram.Failures + R.MultiDrop.Failures;
  }
  writeFile(A.get("csv"),
            [&](llvm::raw_ostream &F) { writeFigure8Csv(F, Rows); });
  writeFile(A.get("svg"), [&](llvm::raw_ostream &F) {
    writeSvgChart(F, figure8Chart(Rows));
  });
  return Failures ? 2 : 0;
}

int cycleFitCmd(int Argc, char **Argv) {
  Args A = parse(Argc, Argv, {"runs", "seed", "max-cycle-length"});
  int64_t Runs = A.integer("runs", 1000, 1, 100000000);
  uint64_t Seed = static_cast<uint64_t>(A.integer("seed", 1, 0, INT64_MAX));
  int64_t Max = A.integer("max-cycle-length", 16, 1, 1000);
  std::vector<int64_t> Lengths;
  for (int64_t L = 1; L <= Max; ++L)
    Lengths.push_back(L);
  SimParams P;
  P.ReleaseThroughUnit = !A.Flags.count("release-cut-through");
  std::vector<CycleFit> Fits = cycleFits(P, Lengths, Runs, Seed);
  std::printf("Figure 8's reduction (4..64 participants) against the paper's "
              "%.1f-%.1f%% (mean %.1f%%), %lld runs per point (seed %llu)\n",
              PaperReductionMin, PaperReductionMax, PaperReductionMean,
              static_cast<long long>(Runs),
              static_cast<unsigned long long>(Seed));
  std::printf("%12s  %9s  %9s  %9s  %8s\n", "cycle length", "min", "max",
              "mean", "distance");
  const CycleFit *Best = nullptr;
  for (const CycleFit &F : Fits) {
    std::printf("%12lld  %8.2f%%  %8.2f%%  %8.2f%%  %8.3f\n",
                static_cast<long long>(F.CycleLength), F.MinReduction,
                F.MaxReduction, F.MeanReduction, F.Distance);
    if (!Best || F.Distance < Best->Distance)
      Best = &F;
  }
  std::printf("closest: cycle length %lld (every point within %.3f points of "
              "the band)\n",
              static_cast<long long>(Best->CycleLength), Best->Distance);
  return 0;
}

int faultsCmd(int Argc, char **Argv) {
  Args A = parse(Argc, Argv,
                 {"participants", "runs", "seed", "cycle-length", "corrupt",
                  "csv", "svg"});
  SimParams P;
  P.CycleLength = A.cycleLength(P.CycleLength);
  int32_t N = static_cast<int32_t>(A.integer("participants", 64, 2, P.Nodes));
  int64_t Runs = A.integer("runs", 1000, 1, 100000000);
  uint64_t Seed = static_cast<uint64_t>(A.integer("seed", 1, 0, INT64_MAX));
  double Corrupt = A.percent("corrupt", 0);
  std::vector<double> Loss;
  for (int L = 0; L <= 20; L += 2)
    Loss.push_back(L);
  auto Rows = faultSweep(P, N, Loss, Corrupt, Runs, Seed);
  std::printf(
      "Completion after the last arrival under packet loss: %d participants, "
      "%.1f%% corruption, %lld runs per point (unit cycle %lld time units, "
      "timeout %lld units)\n",
      N, Corrupt, static_cast<long long>(Runs),
      static_cast<long long>(P.CycleLength),
      static_cast<long long>(P.timeout()));
  std::printf("%6s  %14s  %10s  %14s  %10s  %8s\n", "loss%", "sivaram", "retx",
              "multi-drop", "retx", "failures");
  int64_t Failures = 0;
  for (const FaultRow &R : Rows) {
    std::printf(
        "%6.1f  %14.2f  %10.2f  %14.2f  %10.2f  %8lld\n", R.LossPercent,
        R.Sivaram.MeanCompletion, R.Sivaram.MeanRetransmissions,
        R.MultiDrop.MeanCompletion, R.MultiDrop.MeanRetransmissions,
        static_cast<long long>(R.Sivaram.Failures + R.MultiDrop.Failures));
    Failures += R.Sivaram.Failures + R.MultiDrop.Failures;
  }
  writeFile(A.get("csv"),
            [&](llvm::raw_ostream &F) { writeFaultCsv(F, Rows); });
  writeFile(A.get("svg"), [&](llvm::raw_ostream &F) {
    writeSvgChart(F, faultChart(Rows, N));
  });
  return Failures ? 2 : 0;
}

int runCmd(int Argc, char **Argv) {
  Args A = parse(
      Argc, Argv,
      {"scheme", "participants", "seed", "cycle-length", "loss", "corrupt"});
  SimParams P;
  P.CycleLength = A.cycleLength(P.CycleLength);
  std::string S = A.get("scheme").value_or("multi-drop");
  if (S == "sivaram")
    P.S = Scheme::Sivaram;
  else if (S != "multi-drop")
    fail("--scheme: expected 'sivaram' or 'multi-drop', got '" + S + "'");
  int32_t N = static_cast<int32_t>(A.integer("participants", 8, 1, P.Nodes));
  uint64_t Seed = static_cast<uint64_t>(A.integer("seed", 1, 0, INT64_MAX));
  P.F = Faults::uniform(A.percent("loss", 0) / 100,
                        A.percent("corrupt", 0) / 100);
  Rng EpisodeRng(Seed), FaultRng(Seed ^ 0x5deece66dULL);
  Episode E = randomEpisode(P, N, EpisodeRng);
  Simulator Sim(P);
  std::vector<std::string> Trace;
  if (A.Flags.count("trace"))
    Sim.Trace = &Trace;
  EpisodeResult R = Sim.run(E, FaultRng);
  std::printf("scheme %s, %d participants, root p%lld, unit %lld cycles of "
              "%lld time units, timeout %lld\n",
              schemeName(P.S), N, static_cast<long long>(E.Root),
              static_cast<long long>(P.unitCycles()),
              static_cast<long long>(P.CycleLength),
              static_cast<long long>(P.timeout()));
  std::printf("participants:");
  for (size_t I = 0; I < E.Nodes.size(); ++I)
    std::printf(" p%lld@%lld", static_cast<long long>(E.Nodes[I]),
                static_cast<long long>(E.Arrival[I]));
  std::printf("\n");
  for (const std::string &L : Trace)
    std::printf("  %s\n", L.c_str());
  std::printf(
      "last arrival %lld, first release %lld, completion %lld, AD %.2f\n",
      static_cast<long long>(R.LastArrival),
      static_cast<long long>(R.FirstRelease),
      static_cast<long long>(R.Completion), R.AverageDelay);
  std::printf("packets %llu, lost %llu, corrupted %llu, retransmissions %llu, "
              "duplicates "
              "ignored %llu\n",
              static_cast<unsigned long long>(R.Packets),
              static_cast<unsigned long long>(R.Lost),
              static_cast<unsigned long long>(R.Corrupted),
              static_cast<unsigned long long>(R.Retransmissions),
              static_cast<unsigned long long>(R.Duplicates));
  if (!R.ok()) {
    std::printf("INVARIANT BROKEN: %s\n", R.Problem.c_str());
    return 2;
  }
  return 0;
}

} // namespace

static int run(int Argc, char **Argv) {
  if (Argc < 2 || std::string(Argv[1]) == "--help" ||
      std::string(Argv[1]) == "-h") {
    std::fputs(usage().c_str(), Argc < 2 ? stderr : stdout);
    return Argc < 2 ? 1 : 0;
  }
  std::string Cmd = Argv[1];
  if (Cmd == "figure8")
    return figure8Cmd(Argc, Argv);
  if (Cmd == "cycle-fit")
    return cycleFitCmd(Argc, Argv);
  if (Cmd == "faults")
    return faultsCmd(Argc, Argv);
  if (Cmd == "run")
    return runCmd(Argc, Argv);
  fail("unknown command '" + Cmd +
       "'; expected figure8, cycle-fit, faults or run");
}

int main(int Argc, char **Argv) {
  return collc::runReportingOutOfMemory("collc-barrier", run, Argc, Argv);
}
