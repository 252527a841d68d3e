//===- collc: a schedule compiler for collective communication ------------===//
//
// Options, then the pipeline: load the machine, get the schedules (built by
// compiler/Driver, or read with --schedule and taken down the same road) or
// the per-size selection, judge them when --verify asks, hand them to one
// backend of backends/Backend.h and write its files. Exit status: 0 success;
// 1 bad input or usage; 2 a requested check failed; 3 internal error
// (ir/Diagnostic.h).
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"
#include "compiler/Algorithms.h"
#include "compiler/Driver.h"
#include "compiler/Select.h"
#include "compiler/Spec.h"
#include "ir/Diagnostic.h"
#include "ir/OutOfMemory.h"
#include "passes/Contention.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace collc;

namespace {

cl::OptionCategory Cat("collc options");

// Every option in one line: a text value (-name=<value>) or a flag.
using Text = cl::opt<std::string>;
Text text(const char *Name, const char *Value, const char *Help,
          const char *Init = "") {
  return Text(StringRef(Name), cl::desc(Help), cl::value_desc(Value),
              cl::init(Init), cl::cat(Cat));
}
cl::opt<bool> flag(const char *Name, const char *Help) {
  return cl::opt<bool>(StringRef(Name), cl::desc(Help), cl::cat(Cat));
}

Text MachinePath = text("machine", "file",
                        "Machine spec (YAML, JSON) or SimGrid platform (XML)");
Text SmpiLatOpt = text("smpi-lat-factor", "t:f;..",
                       "SMPI's smpi/lat-factor for a network's bands");
Text SmpiBwOpt = text("smpi-bw-factor", "t:f;..",
                      "SMPI's smpi/bw-factor for a network's bands");
Text RequestPath = text("request", "file",
                        "Collective request (YAML or JSON); the options "
                        "below override its fields");
// The request's fields, as text: the request reader parses them with the
// file's rules (compiler/RequestSpec.h).
Text CollectiveOpt = text("collective", "name,..",
                          "bcast, multicast, reduce, allreduce, scan, exscan, "
                          "gather, scatter, allgather, alltoall or barrier; "
                          "or a list: one request per combination of the "
                          "lists (docs/cli.md)");
Text RanksOpt = text("ranks", "K,..",
                     "Number of participants (nodes 0..K-1); a range 1:64, "
                     "a list 2,3,5 or both (1:8,16)");
Text RootOpt = text("root", "node,..",
                    "Root node: a number, coordinates \"(3,2)\" or a "
                    "permutation \"14523\"; a list, or 'all' (every rank)");
Text BytesOpt = text("bytes", "n,..", "Message size in bytes, or a list");
Text AlgorithmOpt = text("algorithm", "name",
                         "Algorithm (see --list-algorithms); 'auto' (the "
                         "default) builds every candidate and keeps the best "
                         "(docs/algorithms.md)");
Text DestinationsOpt =
    text("destinations", "list",
         "Multicast destinations: \"3,4,5\" or \"(1,5),(2,1)\"");
Text OpOpt = text("op", "op", "Reduction operator: sum, prod, min, max");
Text DatatypeOpt = text("datatype", "type",
                        "Reduction element type: int32, int64, float, double");
Text CommutativeOpt =
    text("commutative", "bool",
         "Reductions: whether the operator is commutative, true (default) or "
         "false; with false every combine keeps rank order");
Text SegmentsOpt = text("segments", "k", "Split the message into k segments");

Text EmitOpt = text("emit", "kind", "", "summary");
Text OutputPath = text("o", "file",
                       "Write the output to <file> (default: "
                       "stdout)");
Text BytesRangeOpt = text("bytes-range", "lo:hi",
                          "Message sizes LO:HI (bytes, inclusive): --emit "
                          "select, ompi-rules (default 1:1048576), and the "
                          "MPI backends: one schedule per size band of auto");
cl::opt<uint64_t>
    MaxRequests("max-requests",
                cl::desc("At most this many combinations of the request lists "
                         "(default 4096)"),
                cl::value_desc("n"), cl::init(DefaultMaxRequests),
                cl::cat(Cat));
cl::list<std::string> ScheduleFiles(
    "schedule",
    cl::desc("Read a schedule (--emit json output) instead of building one; "
             "it takes the road of a built one (merge-steps, cost, verify). "
             "Repeat it to put several schedules in one MPI file"),
    cl::value_desc("ir.json"), cl::cat(Cat));
cl::opt<bool> MergeStepsOpt =
    flag("merge-steps", "Merge adjacent steps that touch disjoint ports and "
                        "channels (prints how many it removed)");
cl::opt<bool> VerifyOpt =
    flag("verify", "Also check the routes for contention and make it the "
                   "exit status: 2, and nothing written, when two transfers "
                   "share a channel; auto then prefers contention-free "
                   "candidates (the verifier of data flow, ports and timing "
                   "runs on every schedule anyway)");
cl::opt<bool> ListAlgorithms = flag(
    "list-algorithms", "List the algorithms and the collectives they serve");
cl::opt<bool> PrintAfterAll =
    flag("print-after-all", "Dump the IR (JSON) to stderr after every pass");
cl::opt<bool> TimePasses =
    flag("time-passes", "Print the time of every pass to stderr");
Text MpiName = text("mpi-name", "name",
                    "MPI backends: entry points are named "
                    "collc_<collective>_<name> (default: from the machine "
                    "and algorithm)");
cl::opt<bool> MpiFallback =
    flag("mpi-fallback", "MPI backends: when no schedule fits a call, run the "
                         "MPI library's collective instead of returning an "
                         "error");
Text MpiSizesOpt = text("mpi-sizes", "exact|any",
                        "MPI backends: 'exact' (default): a schedule serves "
                        "the size it was built for; 'any': every size, by "
                        "the nearest schedule",
                        "exact");

/// The value of \p O when the command line gives it.
std::optional<std::string> given(const Text &O) {
  return O.getNumOccurrences() ? std::optional(O.getValue()) : std::nullopt;
}

/// The options that override the request file's fields (the set's lists
/// among them: compiler/RequestSet.h).
RequestOverrides overrides() {
  RequestOverrides O;
  const std::pair<Text *, std::optional<std::string> RequestOverrides::*>
      Fields[] = {{&CollectiveOpt, &RequestOverrides::Collective},
                  {&AlgorithmOpt, &RequestOverrides::Algorithm},
                  {&OpOpt, &RequestOverrides::Op},
                  {&DatatypeOpt, &RequestOverrides::Datatype},
                  {&CommutativeOpt, &RequestOverrides::Commutative},
                  {&RootOpt, &RequestOverrides::Root},
                  {&DestinationsOpt, &RequestOverrides::Destinations},
                  {&RanksOpt, &RequestOverrides::Ranks},
                  {&SegmentsOpt, &RequestOverrides::Segments},
                  {&BytesOpt, &RequestOverrides::Bytes}};
  for (auto [Opt, Field] : Fields)
    O.*Field = given(*Opt);
  return O;
}

/// Every combination of requests the options ask for, checked for \p B
/// (compiler/RequestSet.h); a selection's sizes are its range.
Expected<RequestSet> requests(const Backend &B, const Machine &M,
                              std::pair<uint64_t, uint64_t> Range) {
  RequestSetOptions O;
  O.Fields = overrides();
  O.MaxRequests = MaxRequests;
  if (BytesRangeOpt.getNumOccurrences() || B.Takes == BackendTakes::Selection)
    O.Range = ByteRange{Range.first, Range.second};
  if (B.Takes == BackendTakes::Selection)
    O.Fields.Bytes.reset();
  if (B.CheckCollective)
    O.Check = [&B](const Request &R) -> Error {
      if (Error E = B.CheckCollective(R.Coll))
        return collc::error("--emit %s: %s", B.Name,
                            toString(std::move(E)).c_str());
      return Error::success();
    };
  auto Set = expandRequests(RequestPath, O, M);
  if (!Set)
    return Set.takeError();
  for (const std::string &Note : Set->Notes)
    errs() << "collc: note: " << Note << "\n";
  if (B.Takes != BackendTakes::Schedules && Set->Requests.size() > 1)
    return collc::error("--emit %s takes one request; the options ask for "
                        "%zu: give one value each, or use --emit %s",
                        B.Name, Set->Requests.size(),
                        backendNames(BackendTakes::Schedules, " or ").c_str());
  return Set;
}

/// Options that do not go together, said before any work is done.
Error checkUsage(const Backend &B) {
  const bool Reading = !ScheduleFiles.empty();
  const bool Selecting = B.Takes == BackendTakes::Selection;
  const bool Tables = B.Takes == BackendTakes::Schedules;
  if (BytesRangeOpt.getNumOccurrences() && !Selecting && !Tables)
    return collc::error("--bytes-range applies only to --emit %s, %s",
                        backendNames(BackendTakes::Selection, ", ").c_str(),
                        backendNames(BackendTakes::Schedules, " and ").c_str());
  if (Reading && Selecting)
    return collc::error("--emit %s builds its own schedules: it takes no "
                        "--schedule",
                        B.Name);
  if (Reading && (!RequestPath.empty() || !CollectiveOpt.empty()))
    return collc::error("--schedule reads a built schedule: it takes no "
                        "request (--request, --collective)");
  if (ScheduleFiles.size() > 1 && B.Takes != BackendTakes::Schedules)
    return collc::error("several --schedule files go only to --emit %s",
                        backendNames(BackendTakes::Schedules, " or ").c_str());
  if (MachinePath.empty() && (given(SmpiLatOpt) || given(SmpiBwOpt)))
    return collc::error("--smpi-lat-factor and --smpi-bw-factor need "
                        "--machine");
  if (!Reading && MachinePath.empty())
    return collc::error("--machine <file> is required (see --help)");
  if (!Reading && RequestPath.empty() && CollectiveOpt.empty())
    return collc::error(
        "give a request: --request <file>, or --collective with --ranks (or "
        "--destinations) and --bytes (see --help)");
  return Error::success();
}

/// The whole run once the options are read.
Error run(int argc, char **argv) {
  const Backend *Bp = findBackend(EmitOpt);
  if (!Bp)
    return collc::error("--emit: unknown output kind '%s'; expected one of: %s",
                        EmitOpt.c_str(), backendNames().c_str());
  const Backend &B = *Bp;
  BackendOptions BO;
  BO.OutputPath = OutputPath;
  if (MpiName.getNumOccurrences())
    BO.MpiName = MpiName;
  BO.MpiFallback = MpiFallback;
  BO.Command = "collc";
  for (int I = 1; I < argc; ++I)
    BO.Command += std::string(" ") + argv[I];
  auto Sizes = parseMpiSizes(MpiSizesOpt);
  if (!Sizes)
    return Sizes.takeError();
  BO.Sizes = *Sizes;
  if (Error E = checkOptions(BO))
    return E;

  if (Error E = checkUsage(B))
    return E;
  const bool Reading = !ScheduleFiles.empty();
  const bool Selecting = B.Takes == BackendTakes::Selection;
  std::pair<uint64_t, uint64_t> Range{1, 1 << 20};
  if (BytesRangeOpt.getNumOccurrences()) {
    auto Parsed = parseBytesRange(BytesRangeOpt);
    if (!Parsed)
      return Parsed.takeError();
    Range = *Parsed;
  }

  std::optional<Machine> M; // none without --machine (only with --schedule)
  if (!MachinePath.empty()) {
    auto Loaded =
        loadMachine(MachinePath, {given(SmpiLatOpt), given(SmpiBwOpt)});
    if (!Loaded)
      return Loaded.takeError();
    M = std::move(*Loaded);
  }
  const Machine *Mp = M ? &*M : nullptr;
  if (Error E = checkNeeds(B, Mp))
    return E;

  CompileOptions CO;
  CO.PrintAfterAll = PrintAfterAll;
  CO.TimePasses = TimePasses;
  CO.MergeSteps = MergeStepsOpt;
  CO.Log = &errs();
  const Machine Unknown = unknownMachine();
  BackendInput In{Mp ? *Mp : Unknown, {}, nullptr, {}};
  std::vector<Schedule> Schedules;
  std::vector<std::optional<std::pair<uint64_t, uint64_t>>> Bands;
  std::optional<Selection> Sel;
  for (const std::string &Path : ScheduleFiles) {
    auto S = loadSchedule(Path, Mp, CO);
    if (!S)
      return S.takeError();
    Schedules.push_back(std::move(*S));
  }
  auto Set = Reading ? RequestSet() : requests(B, *Mp, Range);
  if (!Set)
    return Set.takeError();
  if (!Reading && Selecting) {
    ChooseOptions Choose;
    const Request &R = Set->Requests[0].R;
    if (B.CanExpress) {
      Choose.Filter = [&](const AlgorithmInfo &A) {
        return B.CanExpress(R.Coll, A.Name);
      };
      Choose.FilterText = B.CanExpressText;
    }
    auto Bands = selectBands(*Mp, R, Range.first, Range.second,
                             modelJudge(VerifyOpt), Choose);
    if (!Bands)
      return Bands.takeError();
    Sel = std::move(*Bands);
    In.Sel = &*Sel;
  } else if (!Reading) {
    CO.ContentionFree = VerifyOpt;
    auto Built = compileSet(*Mp, *Set, CO, {&errs(), 1.0});
    if (!Built)
      return Built.takeError();
    for (SetSchedule &S : *Built) {
      Schedules.push_back(std::move(S.S));
      Bands.push_back(S.Band ? std::optional(std::pair(S.Band->Lo, S.Band->Hi))
                             : std::nullopt);
    }
    In.Bands = Bands;
  }
  In.Schedules = Schedules;
  for (const Schedule &S : Schedules)
    if (VerifyOpt && Mp && Reading)
      if (Error E = requireContentionFree(S, *Mp))
        return E;
  // Without a machine a read schedule keeps its file's times (null: none).
  if (Mp) {
    for (const Schedule &S : Schedules)
      if (Error E = requireFiniteTimes(S, *Mp))
        return E;
    if (Sel)
      if (Error E = requireFiniteTimes(*Sel, *Mp))
        return E;
  }
  auto Files = B.Emit(B, In, BO);
  if (!Files)
    return Files.takeError();
  return writeOutputs(*Files);
}

int collcMain(int argc, char **argv) {
  static const std::string EmitHelp =
      "Output kind (default summary): " + backendNames();
  EmitOpt.setDescription(EmitHelp);
  cl::HideUnrelatedOptions(Cat);
  cl::SetVersionPrinter(
      [](raw_ostream &OS) { OS << "collc " COLLC_VERSION "\n"; });
  if (!parseToolOptions(
          argc, argv, "collc",
          "collc: a schedule compiler for collective communication\n\n"
          "  Builds a step-by-step schedule for a collective on a measured\n"
          "  machine, verifies it, and emits it.\n\n"
          "  collc --machine examples/machines/ibm-sp.yaml --collective bcast "
          "\\\n"
          "        --ranks 9 --bytes 0 --algorithm opt-tree --emit json\n\n"
          "  Exit status: 0 success, 1 bad input or usage, 2 a requested\n"
          "  check failed, 3 internal error.\n"))
    return ExitBadInput;
  if (ListAlgorithms) {
    printAlgorithms(outs());
    return ExitOk;
  }
  if (Error E = run(argc, argv))
    return reportError(errs(), "collc", std::move(E));
  return ExitOk;
}

} // namespace

int main(int argc, char **argv) {
  return runReportingOutOfMemory("collc", collcMain, argc, argv, ExitBadInput);
}
