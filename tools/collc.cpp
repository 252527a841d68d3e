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

#include "algorithms/Registry.h"
#include "backends/Backend.h"
#include "compiler/Run.h"
#include "ir/Diagnostic.h"
#include "ir/OutOfMemory.h"
#include "readers/RequestOptions.h"
#include "readers/Spec.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace collc;

namespace {

cl::OptionCategory Cat("collc options");
using Text = TextOption;

// The request's fields, as text: the request reader parses them with the
// file's rules (readers/RequestOptions.h).
RequestOptions Req(Cat);

Text text(const char *Name, const char *Value, const char *Help,
          const char *Init = "") {
  return textOption(Cat, Name, Value, Help, Init);
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
Text EmitOpt = text("emit", "kind", "", "summary");
Text OutputPath = text("o", "file",
                       "Write the output to <file> (default: "
                       "stdout)");
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

/// Every combination of requests the options ask for, checked for \p B
/// (readers/RequestSet.h); a selection's sizes are its range.
Expected<RequestSet> requests(const Backend &B, const Machine &M,
                              ByteBand Range) {
  RequestSetOptions O;
  O.Fields = Req.overrides();
  O.Bytes = given(Req.Bytes);
  O.MaxRequests = Req.MaxRequests;
  if (Req.BytesRange.getNumOccurrences() || B.Takes == BackendTakes::Selection)
    O.Range = Range;
  if (B.Takes == BackendTakes::Selection)
    O.Bytes.reset();
  if (B.CheckCollective)
    O.Check = [&B](const Request &R) -> Error {
      if (Error E = B.CheckCollective(R.Coll))
        return collc::error("--emit %s: %s", B.Name,
                            toString(std::move(E)).c_str());
      return Error::success();
    };
  auto Set = expandRequests(Req.RequestPath, O, M);
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
  if (Req.BytesRange.getNumOccurrences() && !Selecting && !Tables)
    return collc::error("--bytes-range applies only to --emit %s, %s",
                        backendNames(BackendTakes::Selection, ", ").c_str(),
                        backendNames(BackendTakes::Schedules, " and ").c_str());
  if (Reading && Selecting)
    return collc::error("--emit %s builds its own schedules: it takes no "
                        "--schedule",
                        B.Name);
  if (Reading && (!Req.RequestPath.empty() || !Req.Collective.empty()))
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
  if (!Reading && Req.RequestPath.empty() && Req.Collective.empty())
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
  BO.Streamed = true;
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
  ByteBand Range{1, 1 << 20};
  if (Req.BytesRange.getNumOccurrences()) {
    auto Parsed = parseBytesRange(Req.BytesRange);
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

  auto Set = Reading ? RequestSet() : requests(B, *Mp, Range);
  if (!Set)
    return Set.takeError();
  RunPlan P;
  P.ScheduleFiles = ScheduleFiles;
  P.Set = &*Set;
  P.Select = Selecting;
  P.Range = Range;
  P.Verify = VerifyOpt;
  if (Selecting && B.CanExpress) {
    const Collective Coll = Set->Requests[0].R.Coll;
    P.Choose.Filter = [&B, Coll](const AlgorithmInfo &A) {
      return B.CanExpress(Coll, A.Name);
    };
    P.Choose.FilterText = B.CanExpressText;
  }
  P.Compile.PrintAfterAll = PrintAfterAll;
  P.Compile.TimePasses = TimePasses;
  P.Compile.MergeSteps = MergeStepsOpt;
  P.Compile.Log = &errs();
  auto Run = runPlan(Mp, P);
  if (!Run)
    return Run.takeError();
  const Machine Unknown = unknownMachine();
  BackendInput In{Mp ? *Mp : Unknown, Run->Schedules,
                  Run->Sel ? &*Run->Sel : nullptr, Run->Bands};
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
