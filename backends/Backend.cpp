#include "backends/Backend.h"

#include "backends/Emit.h"
#include "backends/SelectTable.h"
#include "backends/StarDot.h"
#include "backends/Traces.h"
#include "ir/Diagnostic.h"
#include "ir/ScheduleJson.h"
#include "passes/Contention.h"
#include "sim/ScheduleSim.h"

namespace collc {

namespace {

using Files = llvm::Expected<std::vector<OutputFile>>;

/// One file, written by \p Write to a string, or, when \p O asks for it and
/// \p Write cannot fail, by \p Write to the file itself (the JSON of a
/// schedule of millions of transfers takes gigabytes as text).
template <typename F> Files oneFile(const BackendOptions &O, F &&Write) {
  std::vector<OutputFile> Out(1);
  Out[0].Path = O.OutputPath;
  llvm::raw_string_ostream OS(Out[0].Text);
  if constexpr (std::is_same_v<decltype(Write(OS)), llvm::Error>) {
    if (llvm::Error E = Write(OS))
      return E;
  } else if (O.Streamed) {
    Out[0].Write = std::forward<F>(Write);
  } else {
    Write(OS);
  }
  OS.flush();
  return Out;
}

/// A backend of one schedule that writes one stream.
template <void (*Emit)(llvm::raw_ostream &, const Schedule &, const Machine &)>
Files stream(const Backend &, const BackendInput &In, const BackendOptions &O) {
  return oneFile(
      O, [&](llvm::raw_ostream &OS) { Emit(OS, In.Schedules[0], In.M); });
}

void json(llvm::raw_ostream &OS, const Schedule &S, const Machine &M) {
  writeScheduleJson(OS, S, &M);
}

/// The simulator's backends: a simulation that deadlocks is not a result.
template <void (*Emit)(llvm::raw_ostream &, const Schedule &, const Machine &)>
Files simulated(const Backend &Self, const BackendInput &In,
                const BackendOptions &O) {
  if (llvm::Error E = checkSimCompletes(In.Schedules[0], In.M))
    return llvm::make_error<CheckFailure>(std::string("--emit ") + Self.Name +
                                          ": " + llvm::toString(std::move(E)));
  return stream<Emit>(Self, In, O);
}

/// `-o PATH` writes the index PATH and one trace per rank beside it (see
/// tiTraceFiles); without -o the actions go to standard output.
Files tiTrace(const Backend &Self, const BackendInput &In,
              const BackendOptions &O) {
  if (O.OutputPath.empty() || O.OutputPath == "-")
    return stream<emitTiTrace>(Self, In, O);
  // The index names each trace on a line of its own, as written.
  if (llvm::StringRef(O.OutputPath).find_first_of("\r\n") !=
      llvm::StringRef::npos)
    return error("--emit %s: the index names the trace files one per line; "
                 "-o cannot hold a line break",
                 Self.Name);
  std::vector<OutputFile> Out;
  for (auto &[Path, Text] : tiTraceFiles(In.Schedules[0], O.OutputPath))
    Out.push_back({std::move(Path), std::move(Text), {}});
  return Out;
}

/// The MPI backends over one or more schedules.
template <bool Header, bool Preload>
Files mpi(const Backend &, const BackendInput &In, const BackendOptions &O) {
  auto Variants = mpiSizeBands(In.Schedules, O.Sizes);
  if (!Variants)
    return Variants.takeError();
  if (!In.Bands.empty())
    for (MpiVariant &V : *Variants)
      if (const auto &B = In.Bands[V.S - In.Schedules.data()]) {
        V.MinBytes = B->Lo;
        V.MaxBytes = B->Hi;
      }
  MpiOptions MO;
  MO.Name = O.MpiName ? *O.MpiName : defaultMpiName(In.Schedules[0]);
  MO.Fallback = O.MpiFallback;
  MO.Preload = Preload;
  MO.Command = O.Command;
  MO.MaxPiece = In.M.Net ? In.M.Net->MaxPiece : 0;
  return oneFile(O, [&](llvm::raw_ostream &OS) -> llvm::Error {
    if (Header) {
      emitMpiHeader(OS, *Variants, MO);
      return llvm::Error::success();
    }
    return emitMpi(OS, *Variants, MO);
  });
}

Files select(const Backend &, const BackendInput &In, const BackendOptions &O) {
  return oneFile(O,
                 [&](llvm::raw_ostream &OS) { emitSelect(OS, In.M, *In.Sel); });
}

Files ompiRules(const Backend &, const BackendInput &In,
                const BackendOptions &O) {
  return oneFile(O, [&](llvm::raw_ostream &OS) {
    return emitOmpiRules(OS, In.M, *In.Sel);
  });
}

bool ompiCanExpress(Collective C, llvm::StringRef Algorithm) {
  return ompiAlgorithm(C, Algorithm) != 0;
}

llvm::Error ompiHasCollective(Collective C) {
  if (ompiCollectiveId(C) < 0)
    return error("Open MPI has no %s collective", collectiveName(C));
  return llvm::Error::success();
}

using T = BackendTakes;
using N = BackendNeeds;

const Backend Registry[] = {
    {"summary", "a table for people: the schedule and one line per rank",
     T::Schedule, N::Nothing, stream<emitSummary>},
    {"json", "the Schedule IR, for other tools and --schedule", T::Schedule,
     N::Nothing, stream<json>},
    {"dot", "Graphviz digraph of the transfers", T::Schedule, N::Nothing,
     stream<emitDot>},
    {"dot-graph", "a star or macro-star graph with the broadcast's calls",
     T::Schedule, N::StarGraph, stream<emitStarGraphDot>},
    {"contention", "every pair of transfers that share a channel", T::Schedule,
     N::Nothing, stream<emitContention>},
    {"mpi", "C++ MPI source running the schedules", T::Schedules, N::Nothing,
     mpi<false, false>},
    {"mpi-header", "the header declaring the MPI entry points", T::Schedules,
     N::Nothing, mpi<true, false>},
    {"mpi-preload", "an LD_PRELOAD library interposing the MPI collectives",
     T::Schedules, N::Nothing, mpi<false, true>},
    {"sim", "the wormhole simulator's run of the schedule", T::Schedule,
     N::Simulator, simulated<emitSimReport>},
    {"chrome-trace", "Perfetto / chrome://tracing JSON of the model's times",
     T::Schedule, N::Nothing, stream<emitChromeTrace>},
    {"chrome-trace-sim", "the same with the simulator's times", T::Schedule,
     N::Simulator, simulated<emitChromeTraceSim>},
    {"goal", "LogGOPSim's GOAL schedule", T::Schedule, N::Nothing,
     stream<emitGoal>},
    {"ti-trace",
     "SimGrid time-independent traces (an index and a file per "
     "rank with -o)",
     T::Schedule, N::Nothing, tiTrace},
    {"select", "auto's choice per band of message sizes", T::Selection,
     N::Machine, select},
    {"ompi-rules", "the same as an Open MPI coll/tuned dynamic rules file",
     T::Selection, N::Machine, ompiRules, ompiCanExpress,
     "that Open MPI also has", ompiHasCollective},
};

} // namespace

llvm::ArrayRef<Backend> backends() { return Registry; }

const Backend *findBackend(llvm::StringRef Name) {
  for (const Backend &B : Registry)
    if (Name == B.Name)
      return &B;
  return nullptr;
}

std::string backendNames() {
  std::string Names;
  for (const Backend &B : Registry)
    Names += (Names.empty() ? "" : ", ") + std::string(B.Name);
  return Names;
}

std::string backendNames(BackendTakes T, const char *Last) {
  std::vector<std::string> Names;
  for (const Backend &B : Registry)
    if (B.Takes == T)
      Names.push_back(B.Name);
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? Last : ", ") + Names[I];
  return Out;
}

llvm::Error checkOptions(const BackendOptions &O) {
  if (O.MpiName && !isValidMpiName(*O.MpiName))
    return error("--mpi-name: '%s' is not a C identifier suffix (letters, "
                 "digits, _)",
                 O.MpiName->c_str());
  return llvm::Error::success();
}

llvm::Expected<MpiSizes> parseMpiSizes(llvm::StringRef Text) {
  if (Text == "exact")
    return MpiSizes::Exact;
  if (Text == "any")
    return MpiSizes::Any;
  return error("--mpi-sizes: '%s'; expected exact or any", Text.str().c_str());
}

llvm::Error checkNeeds(const Backend &B, const Machine *M) {
  switch (B.Needs) {
  case BackendNeeds::Nothing:
    return llvm::Error::success();
  case BackendNeeds::Machine:
    if (!M)
      return error("--emit %s needs --machine <file>", B.Name);
    return llvm::Error::success();
  case BackendNeeds::Simulator:
    if (!M)
      return error("--emit %s: the simulator needs --machine <file>", B.Name);
    if (llvm::Error E = checkSimulatable(*M))
      return error("--emit %s: %s", B.Name,
                   llvm::toString(std::move(E)).c_str());
    return llvm::Error::success();
  case BackendNeeds::StarGraph:
    if (M &&
        (M->Topo.Kind == TopologyKind::Star ||
         M->Topo.Kind == TopologyKind::MacroStar) &&
        M->Topo.Nodes <= MaxDotGraphNodes)
      return llvm::Error::success();
    std::string Has =
        M ? "machine '" + M->Name + "' has a " +
                topologyKindName(M->Topo.Kind) + " topology" +
                (M->Topo.Nodes
                     ? " of " + std::to_string(M->Topo.Nodes) + " nodes"
                     : std::string())
          : std::string("no machine was given");
    return error("--emit %s: draws star and macro-star graphs of at most %lld "
                 "nodes; %s",
                 B.Name, static_cast<long long>(MaxDotGraphNodes), Has.c_str());
  }
  return llvm::Error::success();
}

} // namespace collc
