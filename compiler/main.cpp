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
#include "ir/ScheduleJson.h"
#include "passes/Contention.h"

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
// The request's fields on the command line, as text: the request reader
// (compiler/Spec.h) parses them with the file's rules.
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
                 cl::desc("Algorithm (see --list-algorithms); 'auto' "
                          "(the default) builds every candidate and keeps "
                          "the best (see docs/algorithms.md)"),
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
            cl::desc("Output kind (default summary): " + backendNames()),
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
cl::opt<bool> VerifyOpt(
    "verify",
    cl::desc("Also check the routes for contention, and make that verdict "
             "the exit status: 2, and nothing written, when two transfers "
             "share a channel (the verifier of data flow, ports and timing "
             "runs on every schedule anyway)"),
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
    cl::desc("Read a schedule (--emit json output) instead of building one; "
             "it takes the road of a built one (merge-steps, cost, verify) "
             "before a backend sees it. Repeat it to put several schedules "
             "in one MPI file"),
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

/// "a, b or c": the names of the backends that take \p T.
std::string namesTaking(BackendTakes T, const char *Last) {
  std::vector<std::string> Names;
  for (const Backend &B : backends())
    if (B.Takes == T)
      Names.push_back(B.Name);
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? Last : ", ") + Names[I];
  return Out;
}

/// The machine of --machine; none without it (only with --schedule).
Expected<std::optional<Machine>> machine() {
  if (MachinePath.empty())
    return std::nullopt;
  auto M = loadMachine(MachinePath);
  if (!M)
    return M.takeError();
  return std::optional<Machine>(std::move(*M));
}

/// The request of --request and the options that override its fields.
Expected<Request> request(const Machine &M, bool Selecting, uint64_t RangeLo) {
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
  // A selection replaces the size by the range; any whole element will do.
  if (Selecting && !O.Bytes)
    O.Bytes = std::to_string(RangeLo - RangeLo % 8);
  return loadRequest(RequestPath, O, M);
}

/// --schedule: the files, read and taken down the road of built schedules.
Expected<std::vector<Schedule>> readSchedules(const Machine *M,
                                              const CompileOptions &CO) {
  std::vector<Schedule> Out;
  for (const std::string &Path : ScheduleFiles) {
    auto Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return collc::error("--schedule: cannot read '%s': %s", Path.c_str(),
                          Buf.getError().message().c_str());
    auto S = readScheduleJson((*Buf)->getBuffer(), Path, M);
    if (!S)
      return S.takeError();
    auto Ready = prepareSchedule(std::move(*S), Path, M, CO);
    if (!Ready)
      return Ready.takeError();
    Out.push_back(std::move(*Ready));
  }
  return Out;
}

/// --verify: contention on the routes fails the run before anything is
/// written.
Error contentionVerdict(ArrayRef<Schedule> Schedules, const Machine &M) {
  for (const Schedule &S : Schedules) {
    ContentionReport CR = checkContention(S, M);
    if (CR.clean())
      continue;
    std::string Msg;
    raw_string_ostream MS(Msg);
    printContention(MS, S, M, CR);
    return make_error<CheckFailure>("--verify: " +
                                    StringRef(MS.str()).rtrim().str());
  }
  return Error::success();
}

/// The whole run once the options are read.
Error run(const Backend &B, const BackendOptions &BO) {
  const bool Reading = !ScheduleFiles.empty();
  const bool Selecting = B.Takes == BackendTakes::Selection;
  if (BytesRangeOpt.getNumOccurrences() && !Selecting)
    return collc::error("--bytes-range applies only to --emit %s",
                        namesTaking(BackendTakes::Selection, " and ").c_str());
  std::pair<uint64_t, uint64_t> Range{1, 1 << 20};
  if (BytesRangeOpt.getNumOccurrences()) {
    auto Parsed = parseBytesRange(BytesRangeOpt);
    if (!Parsed)
      return Parsed.takeError();
    Range = *Parsed;
  }
  if (Reading && Selecting)
    return collc::error("--emit %s builds its own schedules: it takes no "
                        "--schedule",
                        B.Name);
  if (Reading && (!RequestPath.empty() || !CollectiveOpt.empty()))
    return collc::error("--schedule reads a built schedule: it takes no "
                        "request (--request, --collective)");
  if (ScheduleFiles.size() > 1 && B.Takes != BackendTakes::Schedules)
    return collc::error("several --schedule files go only to --emit %s",
                        namesTaking(BackendTakes::Schedules, " or ").c_str());
  if (!Reading && MachinePath.empty())
    return collc::error("--machine <file> is required (see --help)");
  if (!Reading && RequestPath.empty() && CollectiveOpt.empty())
    return collc::error(
        "give a request: --request <file>, or --collective with --ranks (or "
        "--destinations) and --bytes (see --help)");

  auto M = machine();
  if (!M)
    return M.takeError();
  const Machine *Mp = *M ? &**M : nullptr;
  if (Error E = checkNeeds(B, Mp))
    return E;

  CompileOptions CO;
  CO.PrintAfterAll = PrintAfterAll;
  CO.TimePasses = TimePasses;
  CO.MergeSteps = MergeStepsOpt;
  CO.Log = &errs();
  const Machine Unknown = unknownMachine();
  BackendInput In{Mp ? *Mp : Unknown, Mp != nullptr, {}, nullptr};
  std::vector<Schedule> Schedules;
  std::optional<Selection> Sel;
  if (Reading) {
    auto Read = readSchedules(Mp, CO);
    if (!Read)
      return Read.takeError();
    Schedules = std::move(*Read);
  } else {
    auto R = request(*Mp, Selecting, Range.first);
    if (!R)
      return R.takeError();
    if (B.CheckCollective)
      if (Error E = B.CheckCollective(R->Coll))
        return collc::error("--emit %s: %s", B.Name,
                            toString(std::move(E)).c_str());
    if (Selecting) {
      if (Error E = checkFiniteTimes(*Mp, *R, Range.second))
        return collc::error("--bytes-range: %s",
                            toString(std::move(E)).c_str());
      ChooseOptions Choose;
      if (B.CanExpress) {
        Choose.Filter = [&](const AlgorithmInfo &A) {
          return B.CanExpress(R->Coll, A.Name);
        };
        Choose.FilterText = B.CanExpressText;
      }
      auto Bands =
          selectBands(*Mp, *R, Range.first, Range.second, modelJudge(), Choose);
      if (!Bands)
        return Bands.takeError();
      Sel = std::move(*Bands);
      In.Sel = &*Sel;
    } else {
      auto S = compile(*Mp, *R, CO);
      if (!S)
        return S.takeError();
      Schedules.push_back(std::move(*S));
    }
  }
  In.Schedules = Schedules;
  if (VerifyOpt && Mp)
    if (Error E = contentionVerdict(Schedules, *Mp))
      return E;
  auto Files = B.Emit(B, In, BO);
  if (!Files)
    return Files.takeError();
  return writeOutputs(*Files);
}

int collcMain(int argc, char **argv) {
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
    for (const AlgorithmInfo &A : algorithms()) {
      std::string Colls;
      for (Collective C : A.Collectives)
        Colls += (Colls.empty() ? "" : ",") + std::string(collectiveName(C));
      outs() << format("%-16s %-28s %s\n", A.Name, Colls.c_str(), A.Summary);
    }
    return ExitOk;
  }
  const Backend *B = findBackend(EmitOpt);
  if (!B)
    return reportError(errs(), "collc",
                       collc::error("--emit: unknown output kind '%s'; "
                                    "expected one of: %s",
                                    EmitOpt.c_str(), backendNames().c_str()));
  BackendOptions BO;
  BO.OutputPath = OutputPath;
  BO.MpiName = MpiName;
  BO.MpiFallback = MpiFallback;
  BO.Command = "collc";
  for (int I = 1; I < argc; ++I)
    BO.Command += std::string(" ") + argv[I];
  if (MpiName.getNumOccurrences() && !isValidMpiName(MpiName))
    return reportError(errs(), "collc",
                       collc::error("--mpi-name: '%s' is not a C identifier "
                                    "suffix (letters, digits, _)",
                                    MpiName.c_str()));
  if (MpiSizesOpt != "exact" && MpiSizesOpt != "any")
    return reportError(errs(), "collc",
                       collc::error("--mpi-sizes: '%s'; expected exact or any",
                                    MpiSizesOpt.c_str()));
  BO.Sizes = MpiSizesOpt == "any" ? MpiSizes::Any : MpiSizes::Exact;
  if (Error E = run(*B, BO))
    return reportError(errs(), "collc", std::move(E));
  return ExitOk;
}

} // namespace

int main(int argc, char **argv) {
  return runReportingOutOfMemory("collc", collcMain, argc, argv, ExitBadInput);
}
