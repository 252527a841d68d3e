//===- collc-barrier: the hardware-barrier simulator of paper 003 ---------===//
//
//   collc-barrier figure8 | cycle-fit | faults | run [options]
//
// Runs the experiments of tools/BarrierExperiments.h (Figure 8, the fit of
// the unit's cycle length, the fault sweep) or one episode of
// sim/BarrierSim.h, prints a table, and writes the CSV and SVG asked for.
// `collc-barrier COMMAND --help` describes the command's options.
//
// Exit status: 0 success, 1 bad usage, 2 an episode broke an invariant.
//
//===----------------------------------------------------------------------===//

#include "ir/Diagnostic.h"
#include "ir/OutOfMemory.h"
#include "tools/BarrierExperiments.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

using namespace llvm;
using namespace collc;
using namespace collc::barrier;

namespace {

const char *const Overview =
    R"(the hardware barriers of Sivaram et al. and of the
multi-drop scheme (paper 003), simulated on a 64-node MIN of 8x8 switches.

  collc-barrier figure8 [--runs N] [--seed S] [--cycle-length T]
                        [--csv FILE] [--svg FILE] [--release-cut-through]
  collc-barrier cycle-fit [--runs N] [--seed S] [--max-cycle-length T]
                          [--release-cut-through]
  collc-barrier faults [--participants N] [--runs N] [--seed S]
                       [--cycle-length T] [--corrupt PCT]
                       [--csv FILE] [--svg FILE]
  collc-barrier run [--scheme sivaram|multi-drop] [--participants N]
                    [--seed S] [--cycle-length T] [--loss PCT]
                    [--corrupt PCT] [--trace]

Exit status: 0 success, 1 bad usage, 2 an episode broke an invariant.
)";

cl::SubCommand Figure8Sub("figure8", "average delay against participants "
                                     "(4..64 step 4), both schemes");
cl::SubCommand
    CycleFitSub("cycle-fit",
                "Figure 8's reduction for unit-cycle lengths 1..T, its "
                "distance from the paper's band, and the closest length");
cl::SubCommand FaultsSub("faults", "completion against the packet loss rate "
                                   "(0..20% in every phase)");
cl::SubCommand RunSub("run", "one episode, optionally traced");

cl::OptionCategory Cat("collc-barrier options");

// Numbers are read as text and checked here, so that a bad one gets one
// message that names its range.
cl::SubCommand &Top = *cl::TopLevelSubCommand;

/// An option's modifier: the commands that take it. Every option is also
/// known without a command, so that `collc-barrier --help` lists them all,
/// and is in Cat.
struct Commands {
  std::vector<cl::SubCommand *> Subs;
  Commands(std::initializer_list<cl::SubCommand *> S) : Subs(S) {}
  template <class Opt> void apply(Opt &O) const {
    O.addSubCommand(Top);
    for (cl::SubCommand *S : Subs)
      O.addSubCommand(*S);
    O.addCategory(Cat);
  }
};

const std::string CycleLengthDesc =
    "figure8, faults, run: time units one cycle of the barrier unit lasts; "
    "the paper does not say. Sivaram's unit spends 4 cycles on a packet, the "
    "multi-drop unit 3; links take 1 unit. Default: " +
    std::to_string(Figure8CycleLength) +
    " for figure8 (the length closest to the paper's 24.6-24.8% reduction), "
    "1 for faults and run";
cl::opt<std::string> CycleLength("cycle-length", cl::desc(CycleLengthDesc),
                                 cl::value_desc("T"),
                                 Commands({&Figure8Sub, &FaultsSub, &RunSub}));
cl::opt<std::string>
    MaxCycleLength("max-cycle-length",
                   cl::desc("cycle-fit: the longest unit-cycle length tried "
                            "(default 16)"),
                   cl::value_desc("T"), Commands({&CycleFitSub}));
cl::opt<std::string> Runs("runs",
                          cl::desc("seeded episodes per point (default: "
                                   "figure8 2000, cycle-fit and faults 1000)"),
                          cl::value_desc("N"),
                          Commands({&Figure8Sub, &CycleFitSub, &FaultsSub}));
cl::opt<std::string>
    Seed("seed", cl::desc("seed of the first episode (default 1)"),
         cl::value_desc("S"),
         Commands({&Figure8Sub, &CycleFitSub, &FaultsSub, &RunSub}));
cl::opt<std::string>
    Participants("participants",
                 cl::desc("faults, run: participants (default: faults 64, "
                          "run 8)"),
                 cl::value_desc("N"), Commands({&FaultsSub, &RunSub}));
cl::opt<std::string>
    SchemeName("scheme",
               cl::desc("run: sivaram or multi-drop (default multi-drop)"),
               cl::value_desc("S"), Commands({&RunSub}));
cl::opt<std::string> Loss("loss",
                          cl::desc("run: packet loss rate in every phase, in "
                                   "percent (default 0)"),
                          cl::value_desc("PCT"), Commands({&RunSub}));
cl::opt<std::string>
    Corrupt("corrupt",
            cl::desc("faults, run: packet corruption rate in every phase, in "
                     "percent (default 0)"),
            cl::value_desc("PCT"), Commands({&FaultsSub, &RunSub}));
cl::opt<bool> ReleaseCutThrough(
    "release-cut-through",
    cl::desc("figure8, cycle-fit: the multi-drop release is replicated by the "
             "crossbar without entering the barrier unit"),
    Commands({&Figure8Sub, &CycleFitSub}));
cl::opt<std::string> Csv("csv",
                         cl::desc("figure8, faults: write the table as CSV"),
                         cl::value_desc("FILE"),
                         Commands({&Figure8Sub, &FaultsSub}));
cl::opt<std::string> Svg("svg",
                         cl::desc("figure8, faults: write the chart as SVG"),
                         cl::value_desc("FILE"),
                         Commands({&Figure8Sub, &FaultsSub}));
cl::opt<bool> Trace("trace", cl::desc("run: print every packet event"),
                    Commands({&RunSub}));
// A first argument that names no command.
cl::opt<std::string> Unknown(cl::Positional, cl::desc(""), Commands({}));

Error usageError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// Reads the options' values, each checked against its range; the first bad
/// one is the error, and the values read after it are not used.
class OptionReader {
public:
  /// \p O's value, an integer in [Lo, Hi], or \p Default when not given.
  int64_t integer(const cl::opt<std::string> &O, int64_t Default, int64_t Lo,
                  int64_t Hi) {
    if (!O.getNumOccurrences())
      return Default;
    const std::string &V = O;
    char *End = nullptr;
    errno = 0;
    long long X = std::strtoll(V.c_str(), &End, 10);
    if (V.empty() || *End || errno || X < Lo || X > Hi)
      return bad("--" + O.ArgStr.str() + ": expected an integer in [" +
                     std::to_string(Lo) + ", " + std::to_string(Hi) +
                     "], got '" + V + "'",
                 Default);
    return X;
  }

  /// \p O's value, a percentage in [0, 100], or \p Default when not given.
  double percent(const cl::opt<std::string> &O, double Default) {
    if (!O.getNumOccurrences())
      return Default;
    const std::string &V = O;
    char *End = nullptr;
    double X = std::strtod(V.c_str(), &End);
    if (V.empty() || *End || !(X >= 0 && X <= 100))
      return bad("--" + O.ArgStr.str() +
                     ": expected a percentage in [0, 100], got '" + V + "'",
                 Default);
    return X;
  }

  /// \p O's value, \p A or \p B, or \p Default when not given.
  std::string either(const cl::opt<std::string> &O, const char *A,
                     const char *B, const char *Default) {
    if (!O.getNumOccurrences())
      return Default;
    if (O.getValue() == A || O.getValue() == B)
      return O.getValue();
    return bad("--" + O.ArgStr.str() + ": expected '" + A + "' or '" + B +
                   "', got '" + O.getValue() + "'",
               std::string(Default));
  }

  /// The first problem, if any.
  Error takeError() {
    return Problem.empty() ? Error::success() : usageError(Problem);
  }

private:
  template <typename T> T bad(std::string Msg, T Default) {
    if (Problem.empty())
      Problem = std::move(Msg);
    return Default;
  }
  std::string Problem;
};

/// Writes \p O's file, when given, with \p Write.
template <typename F>
Error writeFile(const cl::opt<std::string> &O, F &&Write) {
  if (!O.getNumOccurrences())
    return Error::success();
  std::error_code EC;
  raw_fd_ostream OS(O.getValue(), EC);
  if (!EC) {
    Write(OS);
    OS.close();
    EC = OS.error();
    OS.clear_error();
  }
  if (EC)
    return usageError("cannot write '" + O.getValue() + "'");
  return Error::success();
}

Expected<int> figure8Cmd() {
  OptionReader Read;
  int64_t N = Read.integer(Runs, 2000, 1, 100000000);
  uint64_t S = static_cast<uint64_t>(Read.integer(Seed, 1, 0, INT64_MAX));
  SimParams P;
  P.CycleLength = Read.integer(CycleLength, Figure8CycleLength, 1, 1000);
  P.ReleaseThroughUnit = !ReleaseCutThrough;
  if (Error E = Read.takeError())
    return E;
  auto Rows = figure8(P, N, S);
  outs() << format("Figure 8: average delay AD on a 64-node MIN of 8x8 "
                   "switches, unit cycle %lld time units, %lld runs per point "
                   "(seed %llu)\n",
                   static_cast<long long>(P.CycleLength),
                   static_cast<long long>(N),
                   static_cast<unsigned long long>(S));
  outs() << "AD: A_j = participant j's ack at its switch (section 4.2's "
            "formula); completion: A_j = every switch and the root done\n";
  outs() << "participants   AD sivaram  AD multi-drop  reduction  compl sivaram"
            "   compl m-drop  reduction\n";
  int64_t Failures = 0;
  for (const Figure8Row &R : Rows) {
    outs() << format("%12d  %11.2f  %13.2f  %8.2f%%  %13.2f  %13.2f  %8.2f%%\n",
                     R.Participants, R.Sivaram.MeanAD, R.MultiDrop.MeanAD,
                     R.ReductionPercent, R.Sivaram.MeanCompletionDelay,
                     R.MultiDrop.MeanCompletionDelay,
                     R.CompletionReductionPercent);
    Failures += R.Sivaram.Failures + R.MultiDrop.Failures;
  }
  if (Error E =
          writeFile(Csv, [&](raw_ostream &OS) { writeFigure8Csv(OS, Rows); }))
    return E;
  if (Error E = writeFile(
          Svg, [&](raw_ostream &OS) { writeSvgChart(OS, figure8Chart(Rows)); }))
    return E;
  return Failures ? 2 : 0;
}

Expected<int> cycleFitCmd() {
  OptionReader Read;
  int64_t N = Read.integer(Runs, 1000, 1, 100000000);
  uint64_t S = static_cast<uint64_t>(Read.integer(Seed, 1, 0, INT64_MAX));
  int64_t Max = Read.integer(MaxCycleLength, 16, 1, 1000);
  if (Error E = Read.takeError())
    return E;
  std::vector<int64_t> Lengths;
  for (int64_t L = 1; L <= Max; ++L)
    Lengths.push_back(L);
  SimParams P;
  P.ReleaseThroughUnit = !ReleaseCutThrough;
  std::vector<CycleFit> Fits = cycleFits(P, Lengths, N, S);
  outs() << format("Figure 8's reduction (4..64 participants) against the "
                   "paper's %.1f-%.1f%% (mean %.1f%%), %lld runs per point "
                   "(seed %llu)\n",
                   PaperReductionMin, PaperReductionMax, PaperReductionMean,
                   static_cast<long long>(N),
                   static_cast<unsigned long long>(S));
  outs() << "cycle length        min        max       mean  distance\n";
  const CycleFit *Best = nullptr;
  for (const CycleFit &F : Fits) {
    outs() << format("%12lld  %8.2f%%  %8.2f%%  %8.2f%%  %8.3f\n",
                     static_cast<long long>(F.CycleLength), F.MinReduction,
                     F.MaxReduction, F.MeanReduction, F.Distance);
    if (!Best || F.Distance < Best->Distance)
      Best = &F;
  }
  outs() << format("closest: cycle length %lld (every point within %.3f "
                   "points of the band)\n",
                   static_cast<long long>(Best->CycleLength), Best->Distance);
  return 0;
}

Expected<int> faultsCmd() {
  OptionReader Read;
  SimParams P;
  P.CycleLength = Read.integer(CycleLength, P.CycleLength, 1, 1000);
  const auto Parts =
      static_cast<int32_t>(Read.integer(Participants, 64, 2, P.Nodes));
  int64_t N = Read.integer(Runs, 1000, 1, 100000000);
  uint64_t S = static_cast<uint64_t>(Read.integer(Seed, 1, 0, INT64_MAX));
  double CorruptPct = Read.percent(Corrupt, 0);
  if (Error E = Read.takeError())
    return E;
  std::vector<double> LossPcts;
  for (int L = 0; L <= 20; L += 2)
    LossPcts.push_back(L);
  auto Rows = faultSweep(P, Parts, LossPcts, CorruptPct, N, S);
  outs() << format("Completion after the last arrival under packet loss: %d "
                   "participants, %.1f%% corruption, %lld runs per point "
                   "(unit cycle %lld time units, timeout %lld units)\n",
                   Parts, CorruptPct, static_cast<long long>(N),
                   static_cast<long long>(P.CycleLength),
                   static_cast<long long>(P.timeout()));
  outs() << " loss%         sivaram        retx      multi-drop        retx  "
            "failures\n";
  int64_t Failures = 0;
  for (const FaultRow &R : Rows) {
    outs() << format(
        "%6.1f  %14.2f  %10.2f  %14.2f  %10.2f  %8lld\n", R.LossPercent,
        R.Sivaram.MeanCompletion, R.Sivaram.MeanRetransmissions,
        R.MultiDrop.MeanCompletion, R.MultiDrop.MeanRetransmissions,
        static_cast<long long>(R.Sivaram.Failures + R.MultiDrop.Failures));
    Failures += R.Sivaram.Failures + R.MultiDrop.Failures;
  }
  if (Error E =
          writeFile(Csv, [&](raw_ostream &OS) { writeFaultCsv(OS, Rows); }))
    return E;
  if (Error E = writeFile(Svg, [&](raw_ostream &OS) {
        writeSvgChart(OS, faultChart(Rows, Parts));
      }))
    return E;
  return Failures ? 2 : 0;
}

Expected<int> runCmd() {
  OptionReader Read;
  SimParams P;
  P.CycleLength = Read.integer(CycleLength, P.CycleLength, 1, 1000);
  if (Read.either(SchemeName, "sivaram", "multi-drop", "multi-drop") ==
      "sivaram")
    P.S = Scheme::Sivaram;
  const auto Parts =
      static_cast<int32_t>(Read.integer(Participants, 8, 1, P.Nodes));
  const auto SeedValue =
      static_cast<uint64_t>(Read.integer(Seed, 1, 0, INT64_MAX));
  double LossPct = Read.percent(Loss, 0), CorruptPct = Read.percent(Corrupt, 0);
  if (Error E = Read.takeError())
    return E;
  P.F = Faults::uniform(LossPct / 100, CorruptPct / 100);
  Rng EpisodeRng(SeedValue), FaultRng(SeedValue ^ 0x5deece66dULL);
  Episode E = randomEpisode(P, Parts, EpisodeRng);
  Simulator Sim(P);
  std::vector<std::string> Events;
  if (Trace)
    Sim.Trace = &Events;
  EpisodeResult R = Sim.run(E, FaultRng);
  outs() << format("scheme %s, %d participants, root p%lld, unit %lld cycles "
                   "of %lld time units, timeout %lld\n",
                   schemeName(P.S), Parts, static_cast<long long>(E.Root),
                   static_cast<long long>(P.unitCycles()),
                   static_cast<long long>(P.CycleLength),
                   static_cast<long long>(P.timeout()));
  outs() << "participants:";
  for (size_t I = 0; I < E.Nodes.size(); ++I)
    outs() << format(" p%lld@%lld", static_cast<long long>(E.Nodes[I]),
                     static_cast<long long>(E.Arrival[I]));
  outs() << "\n";
  for (const std::string &L : Events)
    outs() << "  " << L << "\n";
  outs() << format(
      "last arrival %lld, first release %lld, completion %lld, AD %.2f\n",
      static_cast<long long>(R.LastArrival),
      static_cast<long long>(R.FirstRelease),
      static_cast<long long>(R.Completion), R.AverageDelay);
  outs() << format("packets %llu, lost %llu, corrupted %llu, retransmissions "
                   "%llu, duplicates ignored %llu\n",
                   static_cast<unsigned long long>(R.Packets),
                   static_cast<unsigned long long>(R.Lost),
                   static_cast<unsigned long long>(R.Corrupted),
                   static_cast<unsigned long long>(R.Retransmissions),
                   static_cast<unsigned long long>(R.Duplicates));
  if (!R.ok()) {
    outs() << "INVARIANT BROKEN: " << R.Problem << "\n";
    return 2;
  }
  return 0;
}

/// Runs the command given, or says what is wrong with the command line.
Expected<int> dispatch() {
  if (Figure8Sub)
    return figure8Cmd();
  if (CycleFitSub)
    return cycleFitCmd();
  if (FaultsSub)
    return faultsCmd();
  if (RunSub)
    return runCmd();
  if (Unknown.getNumOccurrences())
    return usageError("unknown command '" + Unknown +
                      "'; expected figure8, cycle-fit, faults or run");
  return usageError(
      "no command; expected figure8, cycle-fit, faults or run (see --help)");
}

int run(int Argc, char **Argv) {
  if (Argc < 2) {
    errs() << "collc-barrier: " << Overview
           << "Run 'collc-barrier --help' for the commands and options.\n";
    return 1;
  }
  cl::HideUnrelatedOptions(Cat);
  if (!parseToolOptions(Argc, Argv, "collc-barrier",
                        std::string("collc-barrier: ") + Overview))
    return ExitBadInput;
  Expected<int> Status = dispatch();
  if (!Status) {
    WithColor::error(errs(), "collc-barrier")
        << toString(Status.takeError()) << "\n";
    return 1;
  }
  return *Status;
}

} // namespace

int main(int Argc, char **Argv) {
  return collc::runReportingOutOfMemory("collc-barrier", run, Argc, Argv);
}
