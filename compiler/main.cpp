//===- collc: a schedule compiler for collective communication
//-------------===//
//
// Options, the pipeline of compiler/Driver, one backend, exit codes:
//   0 success; 1 bad input or usage; 2 a requested verification failed;
//   3 internal error.
//
//===----------------------------------------------------------------------===//

#include "backends/Emit.h"
#include "backends/Mpi.h"
#include "backends/StarDot.h"
#include "backends/Traces.h"
#include "compiler/Algorithms.h"
#include "compiler/Driver.h"
#include "compiler/Output.h"
#include "compiler/Select.h"
#include "compiler/Spec.h"
#include "ir/OutOfMemory.h"
#include "ir/ScheduleJson.h"
#include "passes/Contention.h"
#include "passes/MergeSteps.h"
#include "passes/Verify.h"
#include "sim/ScheduleSim.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace collc;

namespace {

cl::OptionCategory Cat("collc options");

cl::opt<std::string> MachinePath("machine",
                                 cl::desc("Machine spec (YAML or JSON)"),
                                 cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string>
    RequestPath("request",
                cl::desc("Collective request (YAML or JSON); the "
                         "options below override its fields"),
                cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> CollectiveOpt(
    "collective",
    cl::desc("bcast, multicast, reduce, allreduce, scan, exscan, gather, "
             "scatter, allgather, alltoall or barrier"),
    cl::value_desc("name"), cl::cat(Cat));
cl::opt<std::string> RanksOpt("ranks",
                              cl::desc("Number of participants (nodes 0..K-1)"),
                              cl::value_desc("K"), cl::cat(Cat));
cl::opt<std::string>
    RootOpt("root",
            cl::desc("Root node: a number, coordinates \"(3,2)\" "
                     "or a permutation \"14523\""),
            cl::value_desc("node"), cl::cat(Cat));
cl::opt<std::string> BytesOpt("bytes", cl::desc("Message size in bytes"),
                              cl::value_desc("n"), cl::cat(Cat));
cl::opt<std::string>
    AlgorithmOpt("algorithm",
                 cl::desc("Algorithm (see --list-algorithms); "
                          "'auto' picks the cheapest under the model"),
                 cl::value_desc("name"), cl::cat(Cat));
cl::opt<std::string> DestinationsOpt(
    "destinations",
    cl::desc("Multicast destinations: \"3,4,5\" or \"(1,5),(2,1)\""),
    cl::value_desc("list"), cl::cat(Cat));
cl::opt<std::string> OpOpt("op",
                           cl::desc("Reduction operator: sum, prod, min, max"),
                           cl::value_desc("op"), cl::cat(Cat));
cl::opt<std::string>
    DatatypeOpt("datatype",
                cl::desc("Reduction element type: int32, int64, "
                         "float, double"),
                cl::value_desc("type"), cl::cat(Cat));
cl::opt<std::string> CommutativeOpt(
    "commutative",
    cl::desc("Reductions: whether the operator is commutative, true "
             "(default) or false; with false every combine keeps rank order "
             "and algorithms that need commutativity are refused"),
    cl::value_desc("bool"), cl::cat(Cat));
cl::opt<std::string> SegmentsOpt("segments",
                                 cl::desc("Split the message into k segments"),
                                 cl::value_desc("k"), cl::cat(Cat));
cl::opt<std::string>
    EmitOpt("emit",
            cl::desc("Output: summary (default), json, dot, dot-graph, mpi, "
                     "mpi-header, mpi-preload, sim, chrome-trace, "
                     "chrome-trace-sim, goal, ti-trace, contention, "
                     "select, ompi-rules"),
            cl::value_desc("kind"), cl::init("summary"), cl::cat(Cat));
cl::opt<std::string> BytesRangeOpt(
    "bytes-range",
    cl::desc(
        "--emit select / ompi-rules: message sizes LO:HI (bytes, inclusive; "
        "default 1:1048576) to choose an algorithm for"),
    cl::value_desc("lo:hi"), cl::cat(Cat));
cl::opt<std::string>
    OutputPath("o", cl::desc("Write the output to <file> (default: stdout)"),
               cl::value_desc("file"), cl::cat(Cat));
cl::opt<bool>
    MergeStepsOpt("merge-steps",
                  cl::desc("Merge adjacent steps that touch disjoint ports "
                           "and channels (prints how many it removed)"),
                  cl::cat(Cat));
cl::opt<bool> VerifyOpt("verify",
                        cl::desc("Exit with status 2 when a check fails (the "
                                 "verifier always runs; this makes its verdict "
                                 "the exit status)"),
                        cl::cat(Cat));
cl::opt<bool> ListAlgorithms(
    "list-algorithms",
    cl::desc("List the algorithms and the collectives they serve"),
    cl::cat(Cat));
cl::opt<bool>
    PrintAfterAll("print-after-all",
                  cl::desc("Dump the IR (JSON) to stderr after every pass"),
                  cl::cat(Cat));
cl::opt<bool> TimePasses("time-passes",
                         cl::desc("Print the time of every pass to stderr"),
                         cl::cat(Cat));
cl::list<std::string> ScheduleFiles(
    "schedule",
    cl::desc(
        "Read a schedule (--emit json output) instead of building one; it is "
        "verified, then emitted. Repeat it to put several schedules in one "
        "MPI file"),
    cl::value_desc("ir.json"), cl::cat(Cat));
cl::opt<std::string>
    MpiName("mpi-name",
            cl::desc("MPI backends: entry points are named "
                     "collc_<collective>_<name> (default: from the "
                     "machine and algorithm)"),
            cl::value_desc("name"), cl::cat(Cat));
cl::opt<bool>
    MpiFallback("mpi-fallback",
                cl::desc("MPI backends: when no schedule fits a call, run "
                         "the MPI library's collective instead of "
                         "returning an error"),
                cl::cat(Cat));
cl::opt<std::string>
    MpiSizesOpt("mpi-sizes",
                cl::desc("MPI backends: 'exact' (default): a schedule "
                         "serves the size it was built for; 'any': "
                         "every size, by the nearest schedule"),
                cl::value_desc("exact|any"), cl::init("exact"), cl::cat(Cat));

enum ExitCode { Ok = 0, BadInput = 1, CheckFailed = 2, Internal = 3 };

/// Prints an error; messages that carry their own location or prefix are
/// printed as they are.
void report(Error E) {
  handleAllErrors(std::move(E), [](const ErrorInfoBase &Info) {
    std::string Msg = Info.message();
    StringRef M(Msg);
    if (M.contains(": error: ") || M.startswith("collc: "))
      errs() << Msg << "\n";
    else
      WithColor::error(errs(), "collc") << Msg << "\n";
  });
}

int usage(const Twine &Msg) {
  WithColor::error(errs(), "collc") << Msg << "\n";
  return BadInput;
}

struct Backend {
  const char *Name;
  void (*Emit)(raw_ostream &, const Schedule &, const Machine &);
};

void emitJson(raw_ostream &OS, const Schedule &S, const Machine &M) {
  writeScheduleJson(OS, S, &M);
}

std::string CommandLine;

/// The MPI backends over one or more schedules (--schedule may give several).
Error emitMpiKind(raw_ostream &OS, ArrayRef<Schedule> Schedules,
                  StringRef Kind) {
  auto Variants =
      mpiSizeBands(Schedules, MpiSizesOpt == "any" ? collc::MpiSizes::Any
                                                   : collc::MpiSizes::Exact);
  if (!Variants)
    return Variants.takeError();
  MpiOptions O;
  O.Name = MpiName.getNumOccurrences() ? MpiName.getValue()
                                       : defaultMpiName(Schedules[0]);
  O.Fallback = MpiFallback;
  O.Preload = Kind == "mpi-preload";
  O.Command = CommandLine;
  if (Kind == "mpi-header") {
    emitMpiHeader(OS, *Variants, O);
    return Error::success();
  }
  return emitMpi(OS, *Variants, O);
}

template <const char *Kind>
void emitMpiOne(raw_ostream &OS, const Schedule &S, const Machine &) {
  // The verifier has passed S and --mpi-name was checked, so this cannot fail.
  if (Error E = emitMpiKind(OS, S, Kind))
    report_fatal_error(std::move(E));
}
constexpr char MpiKind[] = "mpi", MpiHeaderKind[] = "mpi-header",
               MpiPreloadKind[] = "mpi-preload";

const Backend Backends[] = {
    {"summary", emitSummary},
    {"json", emitJson},
    {"dot", emitDot},
    {"dot-graph", emitStarGraphDot},
    {"contention", emitContention},
    {"mpi", emitMpiOne<MpiKind>},
    {"mpi-header", emitMpiOne<MpiHeaderKind>},
    {"mpi-preload", emitMpiOne<MpiPreloadKind>},
    {"sim", emitSimReport},
    {"chrome-trace", emitChromeTrace},
    {"chrome-trace-sim", emitChromeTraceSim},
    {"goal", emitGoal},
    {"ti-trace", emitTiTrace},
};

/// Output kinds that run the wormhole simulator need a machine it can run.
Error checkEmitMachine(StringRef Kind, const Machine &M) {
  if (Kind != "sim" && Kind != "chrome-trace-sim")
    return Error::success();
  if (Error E = checkSimulatable(M))
    return createStringError(inconvertibleErrorCode(),
                             "collc: error: --emit %s: %s", Kind.str().c_str(),
                             toString(std::move(E)).c_str());
  return Error::success();
}

/// `--emit ti-trace -o PATH` writes the index PATH and one trace per rank
/// beside it (see tiTraceFiles), all or none of them; without -o the actions
/// go to stdout.
Error writeTiTrace(const Schedule &S) {
  // The index names each trace on a line of its own, as written.
  if (StringRef(OutputPath).find_first_of("\r\n") != StringRef::npos)
    return createStringError(inconvertibleErrorCode(),
                             "--emit ti-trace: the index names the trace "
                             "files one per line; -o cannot hold a line break");
  std::vector<OutputFile> Files;
  for (auto &[Path, Text] : tiTraceFiles(S, OutputPath))
    Files.push_back({std::move(Path), std::move(Text)});
  return writeOutputs(Files);
}

/// --verify: the contention checker's verdict as an exit status.
int contentionVerdict(const Schedule &S, const Machine &M) {
  ContentionReport CR = checkContention(S, M);
  if (CR.clean())
    return Ok;
  std::string Msg;
  raw_string_ostream MS(Msg);
  printContention(MS, S, M, CR);
  WithColor::error(errs(), "collc") << "--verify: " << MS.str();
  return CheckFailed;
}

/// Runs one backend on a verified schedule and writes its output; then, with
/// \p Verify, the contention verdict is the exit status (the output is
/// written either way, for inspection). A simulation that deadlocks is not a
/// result: exit 2 and nothing written.
int emitAndJudge(const Backend &Emit, const Schedule &S, const Machine &M,
                 bool Verify) {
  StringRef Kind = Emit.Name;
  if (Kind == "sim" || Kind == "chrome-trace-sim")
    if (Error E = checkSimCompletes(S, M)) {
      WithColor::error(errs(), "collc")
          << "--emit " << Kind << ": " << toString(std::move(E)) << "\n";
      return CheckFailed;
    }
  if (Kind == "ti-trace" && !OutputPath.empty() && OutputPath != "-") {
    if (Error E = writeTiTrace(S)) {
      report(std::move(E));
      return BadInput;
    }
  } else {
    std::string Text;
    raw_string_ostream OS(Text);
    Emit.Emit(OS, S, M);
    OS.flush();
    if (Error E = writeOutput(OutputPath, Text)) {
      report(std::move(E));
      return BadInput;
    }
  }
  return Verify ? contentionVerdict(S, M) : Ok;
}

/// `--schedule`: reads, verifies and emits schedules written by --emit json.
int runSchedules(const Backend &Emit);

/// `--emit select` / `--emit ompi-rules` over the sizes of `--bytes-range`.
int runSelect(const Machine &M, const Request &R,
              std::pair<uint64_t, uint64_t> Range);

} // namespace

static int run(int argc, char **argv) {
  cl::HideUnrelatedOptions(Cat);
  cl::SetVersionPrinter(
      [](raw_ostream &OS) { OS << "collc " COLLC_VERSION "\n"; });
  std::string CLErrors;
  raw_string_ostream CLErr(CLErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "collc: a schedule compiler for collective communication\n\n"
          "  Builds a step-by-step schedule for a collective on a measured\n"
          "  machine, verifies it, and emits it.\n\n"
          "  collc --machine examples/machines/ibm-sp.yaml --collective bcast "
          "\\\n"
          "        --ranks 9 --bytes 0 --algorithm opt-tree --emit json\n\n"
          "  Exit status: 0 success, 1 bad input or usage, 2 a requested\n"
          "  verification failed, 3 internal error.\n",
          &CLErr)) {
    // Restate llvm::cl's messages in collc's diagnostic form.
    CLErr.flush();
    SmallVector<StringRef, 4> Lines;
    StringRef(CLErrors).split(Lines, '\n', -1, false);
    for (StringRef L : Lines) {
      L = L.split("  Try: ").first.rtrim();
      if (L.consume_front("collc: Did you mean"))
        errs() << "collc: note: did you mean" << L << "\n";
      else if (L.consume_front("collc: "))
        errs() << "collc: error: " << L << "\n";
      else
        errs() << L << "\n";
    }
    return BadInput;
  }

  if (ListAlgorithms) {
    for (const AlgorithmInfo &A : algorithms()) {
      std::string Colls;
      for (Collective C : A.Collectives)
        Colls += (Colls.empty() ? "" : ",") + std::string(collectiveName(C));
      outs() << format("%-16s %-28s %s\n", A.Name, Colls.c_str(), A.Summary);
    }
    return Ok;
  }

  const Backend *Emit = nullptr;
  for (const Backend &B : Backends)
    if (EmitOpt == B.Name)
      Emit = &B;
  // select and ompi-rules choose among algorithms over a range of sizes
  // instead of emitting one schedule (compiler/Select.h).
  const bool Selecting = EmitOpt == "select" || EmitOpt == "ompi-rules";
  if (!Emit && !Selecting) {
    std::string Names;
    for (const Backend &B : Backends)
      Names += (Names.empty() ? "" : ", ") + std::string(B.Name);
    Names += ", select, ompi-rules";
    return usage("--emit: unknown output kind '" + EmitOpt +
                 "'; expected one of: " + Names);
  }
  CommandLine = "collc";
  for (int I = 1; I < argc; ++I)
    CommandLine += std::string(" ") + argv[I];
  if (MpiName.getNumOccurrences() && !isValidMpiName(MpiName))
    return usage("--mpi-name: '" + MpiName +
                 "' is not a C identifier suffix (letters, "
                 "digits, _)");
  if (MpiSizesOpt != "exact" && MpiSizesOpt != "any")
    return usage("--mpi-sizes: '" + MpiSizesOpt + "'; expected exact or any");
  if (BytesRangeOpt.getNumOccurrences() && !Selecting)
    return usage("--bytes-range applies only to --emit select and ompi-rules");
  std::pair<uint64_t, uint64_t> Range{1, 1 << 20};
  if (BytesRangeOpt.getNumOccurrences()) {
    auto Parsed = parseBytesRange(BytesRangeOpt);
    if (!Parsed) {
      report(Parsed.takeError());
      return BadInput;
    }
    Range = *Parsed;
  }
  if (!ScheduleFiles.empty()) {
    if (Selecting)
      return usage("--emit " + EmitOpt +
                   " builds its own schedules: it takes no --schedule");
    return runSchedules(*Emit);
  }
  if (MachinePath.empty())
    return usage("--machine <file> is required (see --help)");
  if (RequestPath.empty() && CollectiveOpt.empty())
    return usage(
        "give a request: --request <file>, or --collective with --ranks "
        "(or --destinations) and --bytes (see --help)");

  auto M = loadMachine(MachinePath);
  if (!M) {
    report(M.takeError());
    return BadInput;
  }
  if (EmitOpt == "dot-graph" && ((M->Topo.Kind != TopologyKind::Star &&
                                  M->Topo.Kind != TopologyKind::MacroStar) ||
                                 M->Topo.Nodes > MaxDotGraphNodes))
    return usage(
        "--emit dot-graph: draws star and macro-star graphs of at most " +
        std::to_string(MaxDotGraphNodes) + " nodes; machine '" + M->Name +
        "' has a " + topologyKindName(M->Topo.Kind) + " topology" +
        (M->Topo.Nodes ? " of " + std::to_string(M->Topo.Nodes) + " nodes"
                       : std::string()));
  RequestOverrides O;
  auto Set = [](auto &Opt, auto &Dest) {
    if (Opt.getNumOccurrences())
      Dest = Opt.getValue();
  };
  Set(CollectiveOpt, O.Collective);
  Set(AlgorithmOpt, O.Algorithm);
  Set(OpOpt, O.Op);
  Set(DatatypeOpt, O.Datatype);
  Set(CommutativeOpt, O.Commutative);
  Set(RootOpt, O.Root);
  Set(DestinationsOpt, O.Destinations);
  Set(RanksOpt, O.Ranks);
  Set(SegmentsOpt, O.Segments);
  Set(BytesOpt, O.Bytes);
  if (Selecting && !O.Bytes)
    O.Bytes =
        std::to_string(Range.first - Range.first % 8); // replaced by the range
  auto R = loadRequest(RequestPath, O, *M);
  if (!R) {
    report(R.takeError());
    return BadInput;
  }
  if (Selecting) {
    if (Error E = checkFiniteTimes(*M, *R, Range.second))
      return usage("--bytes-range: " + toString(std::move(E)));
    return runSelect(*M, *R, Range);
  }
  if (Error E = checkEmitMachine(EmitOpt, *M)) {
    report(std::move(E));
    return BadInput;
  }

  CompileOptions CO;
  CO.PrintAfterAll = PrintAfterAll;
  CO.TimePasses = TimePasses;
  CO.MergeSteps = MergeStepsOpt;
  CO.Log = &errs();
  auto S = compile(*M, *R, CO);
  if (!S) {
    int Code = BadInput;
    Error Rest = handleErrors(S.takeError(), [&](const InternalError &E) {
      WithColor::error(errs(), "collc")
          << "internal error: " << E.message() << "\n";
      Code = Internal;
    });
    if (Rest)
      report(std::move(Rest));
    return Code;
  }
  return emitAndJudge(*Emit, *S, *M, VerifyOpt);
}

int main(int argc, char **argv) {
  return runReportingOutOfMemory("collc", run, argc, argv, BadInput);
}

namespace {

int runSchedules(const Backend &Emit) {
  if (!RequestPath.empty() || !CollectiveOpt.empty())
    return usage("--schedule reads a built schedule: it takes no request "
                 "(--request, --collective)");
  bool Mpi = StringRef(Emit.Name).startswith("mpi");
  if (ScheduleFiles.size() > 1 && !Mpi)
    return usage("several --schedule files go only to --emit mpi, mpi-header "
                 "or mpi-preload");
  // Without a machine, the schedules' data flow is verified (not their timing
  // or ports, which belong to a machine).
  Machine M;
  M.Name = "unknown";
  M.Ports = UINT32_MAX;
  VerifyOptions VO;
  VO.Timing = false;
  if (!MachinePath.empty()) {
    auto L = loadMachine(MachinePath);
    if (!L) {
      report(L.takeError());
      return BadInput;
    }
    M = *L;
    VO.Timing = true;
  }
  if (MachinePath.empty() && StringRef(Emit.Name).contains("sim"))
    return usage(std::string("--emit ") + Emit.Name +
                 ": the simulator needs --machine <file>");
  if (Error E = checkEmitMachine(Emit.Name, M)) {
    report(std::move(E));
    return BadInput;
  }
  std::vector<Schedule> Schedules;
  for (const std::string &Path : ScheduleFiles) {
    auto Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return usage("--schedule: cannot read '" + Path +
                   "': " + Buf.getError().message());
    auto S = readScheduleJson((*Buf)->getBuffer(), Path,
                              MachinePath.empty() ? nullptr : &M);
    if (!S) {
      report(S.takeError());
      return BadInput;
    }
    auto Problems = verifySchedule(*S, M, VO);
    if (!Problems.empty()) {
      std::string Msg = Path + ": error: the schedule fails verification:";
      for (const std::string &P : Problems)
        Msg += "\n  " + P;
      errs() << Msg << "\n";
      return BadInput;
    }
    // Merging joins only steps with disjoint ranks, so every transfer keeps
    // its time: no cost pass needed afterwards.
    if (MergeStepsOpt && !MachinePath.empty()) {
      MergeStats MS = mergeSteps(*S, M);
      errs() << "collc: note: merge-steps removed " << MS.removed() << " of "
             << MS.StepsBefore << " steps\n";
    }
    Schedules.push_back(std::move(*S));
  }
  if (!Mpi)
    return emitAndJudge(Emit, Schedules[0], M,
                        VerifyOpt && !MachinePath.empty());
  std::string Text;
  raw_string_ostream OS(Text);
  if (Error E = emitMpiKind(OS, Schedules, Emit.Name)) {
    report(std::move(E));
    return BadInput;
  }
  OS.flush();
  if (Error E = writeOutput(OutputPath, Text)) {
    report(std::move(E));
    return BadInput;
  }
  // --verify with a machine: the contention verdict is the exit status.
  if (VerifyOpt && !MachinePath.empty())
    for (const Schedule &S : Schedules)
      if (int Code = contentionVerdict(S, M))
        return Code;
  return Ok;
}

int runSelect(const Machine &M, const Request &R,
              std::pair<uint64_t, uint64_t> Range) {
  bool Rules = EmitOpt == "ompi-rules";
  if (Rules && ompiCollectiveId(R.Coll) < 0)
    return usage("--emit ompi-rules: Open MPI has no " +
                 std::string(collectiveName(R.Coll)) + " collective");
  auto Bands = selectBands(M, R, Range.first, Range.second, Rules);
  if (!Bands) {
    report(Bands.takeError());
    return BadInput;
  }
  std::string Text;
  raw_string_ostream OS(Text);
  if (Rules) {
    if (Error E = emitOmpiRules(OS, M, R, *Bands)) {
      report(std::move(E));
      return BadInput;
    }
  } else {
    emitSelect(OS, M, R, *Bands);
  }
  OS.flush();
  if (Error E = writeOutput(OutputPath, Text)) {
    report(std::move(E));
    return BadInput;
  }
  return Ok;
}

} // namespace
