// collc-barrier: drives the hardware-barrier simulator of paper 003.
//
//   collc-barrier figure8 [--runs N] [--seed S] [--csv FILE] [--svg FILE]
//                         [--release-cut-through]
//   collc-barrier faults  [--participants N] [--runs N] [--seed S]
//                         [--corrupt PCT] [--csv FILE] [--svg FILE]
//   collc-barrier run     [--scheme sivaram|multi-drop] [--participants N]
//                         [--seed S] [--loss PCT] [--corrupt PCT] [--trace]
//
// Exit status: 0 success, 1 bad usage, 2 an episode broke an invariant.
#include "ir/OutOfMemory.h"
#include "runtime/barrier/Experiments.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace collc::barrier;

namespace {

const char *Usage =
    "usage: collc-barrier figure8 [--runs N] [--seed S] [--csv FILE] [--svg "
    "FILE]\n"
    "                             [--release-cut-through]\n"
    "       collc-barrier faults [--participants N] [--runs N] [--seed S] "
    "[--corrupt PCT]\n"
    "                            [--csv FILE] [--svg FILE]\n"
    "       collc-barrier run [--scheme sivaram|multi-drop] [--participants N] "
    "[--seed S]\n"
    "                         [--loss PCT] [--corrupt PCT] [--trace]\n"
    "Simulates the hardware barriers of Sivaram et al. and of the multi-drop "
    "scheme\n"
    "(paper 003) on a 64-node MIN of 8x8 switches.\n";

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
  std::ofstream F(*Path);
  if (!F)
    fail("cannot write '" + *Path + "'");
  Write(F);
  if (!F.good())
    fail("cannot write '" + *Path + "'");
}

int figure8Cmd(int Argc, char **Argv) {
  Args A = parse(Argc, Argv, {"runs", "seed", "csv", "svg"});
  int64_t Runs = A.integer("runs", 2000, 1, 100000000);
  uint64_t Seed = static_cast<uint64_t>(A.integer("seed", 1, 0, INT64_MAX));
  SimParams P;
  P.ReleaseThroughUnit = !A.Flags.count("release-cut-through");
  auto Rows = figure8(P, Runs, Seed);
  std::printf(
      "Figure 8: average delay AD on a 64-node MIN of 8x8 switches, %lld runs "
      "per point (seed %llu)\n",
      static_cast<long long>(Runs), static_cast<unsigned long long>(Seed));
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
                R.MultiDrop.MeanCompletionDelay,
                100 * (1 - R.MultiDrop.MeanCompletionDelay /
                               R.Sivaram.MeanCompletionDelay));
    Failures += R.Sivaram.Failures + R.MultiDrop.Failures;
  }
  writeFile(A.get("csv"), [&](std::ostream &F) { writeFigure8Csv(F, Rows); });
  writeFile(A.get("svg"),
            [&](std::ostream &F) { writeSvg(F, figure8Chart(Rows)); });
  return Failures ? 2 : 0;
}

int faultsCmd(int Argc, char **Argv) {
  Args A = parse(Argc, Argv,
                 {"participants", "runs", "seed", "corrupt", "csv", "svg"});
  SimParams P;
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
      "%.1f%% corruption, %lld runs per point (timeout %lld units)\n",
      N, Corrupt, static_cast<long long>(Runs),
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
  writeFile(A.get("csv"), [&](std::ostream &F) { writeFaultCsv(F, Rows); });
  writeFile(A.get("svg"),
            [&](std::ostream &F) { writeSvg(F, faultChart(Rows, N)); });
  return Failures ? 2 : 0;
}

int runCmd(int Argc, char **Argv) {
  Args A =
      parse(Argc, Argv, {"scheme", "participants", "seed", "loss", "corrupt"});
  SimParams P;
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
  std::printf("scheme %s, %d participants, root p%lld, unit %lld cycles, "
              "timeout %lld\n",
              schemeName(P.S), N, static_cast<long long>(E.Root),
              static_cast<long long>(P.unitCycles()),
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
    std::fputs(Usage, Argc < 2 ? stderr : stdout);
    return Argc < 2 ? 1 : 0;
  }
  std::string Cmd = Argv[1];
  if (Cmd == "figure8")
    return figure8Cmd(Argc, Argv);
  if (Cmd == "faults")
    return faultsCmd(Argc, Argv);
  if (Cmd == "run")
    return runCmd(Argc, Argv);
  fail("unknown command '" + Cmd + "'; expected figure8, faults or run");
}

int main(int Argc, char **Argv) {
  return collc::runReportingOutOfMemory("collc-barrier", run, Argc, Argv);
}
