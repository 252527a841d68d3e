#include "compiler/Driver.h"

#include "algorithms/Registry.h"
#include "compiler/Select.h"
#include "ir/Diagnostic.h"
#include "ir/Format.h"
#include "ir/InputFile.h"
#include "ir/ScheduleJson.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/MergeSteps.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>

namespace collc {

namespace {

/// Requests whose every schedule would be beyond what collc tracks: an
/// allgather or all-to-all moves ranks^2 blocks.
llvm::Error checkSize(const Request &R) {
  if (!blockPerPair(R.Coll))
    return llvm::Error::success();
  const double Blocks = static_cast<double>(R.size()) * R.size();
  if (Blocks <= static_cast<double>(VerifyLimits::MaxAtoms))
    return llvm::Error::success();
  return error(
      "%s %s of %d ranks moves %.0f blocks; collc schedules at "
      "most %llu (%lld ranks)",
      withArticle(R.Coll), collectiveName(R.Coll), R.size(), Blocks,
      static_cast<unsigned long long>(VerifyLimits::MaxAtoms),
      static_cast<long long>(std::sqrt(double(VerifyLimits::MaxAtoms))));
}

/// The step-merging pass, with its note on the log.
void runMergeSteps(Schedule &S, const Machine &M, const CompileOptions &Opts,
                   Pipeline &P) {
  MergeStats MS = P.run("merge-steps", [&] { return mergeSteps(S, M); });
  if (Opts.Log)
    *Opts.Log << "collc: note: merge-steps removed " << MS.removed() << " of "
              << MS.StepsBefore << " steps\n";
  P.after("merge-steps", S, M);
}

void cost(Schedule &S, const Machine &M, Pipeline &P) {
  P.run(pricedBySteps(S, M) ? "cost (by steps)" : "cost", [&] {
    estimateCost(S, M);
    return 0;
  });
  P.after("cost", S, M);
}

} // namespace

llvm::Expected<Schedule> buildAndCost(const Machine &M, const Request &R,
                                      llvm::StringRef Algorithm) {
  auto A = lookupAlgorithm(Algorithm, M, R);
  if (!A)
    return A.takeError();
  if (llvm::Error E = checkSize(R))
    return E;
  auto S = (*A)->Build(M, R);
  if (!S)
    return S.takeError();
  estimateCost(*S, M);
  return S;
}

llvm::Expected<Schedule> compile(const Machine &M, const Request &R,
                                 const CompileOptions &Opts) {
  if (llvm::Error E = checkSize(R))
    return E;
  Pipeline P(Opts);
  std::optional<Schedule> S;
  bool Verified = false; // S as it stands has passed the verifier
  if (R.Algorithm == "auto") {
    const CostJudge Model = modelJudge(Opts.ContentionFree);
    auto Chosen = chooseSchedule(M, R, Opts.Judge ? *Opts.Judge : Model, P);
    if (!Chosen)
      return Chosen.takeError();
    S = std::move(*Chosen);
    Verified = true;
    P.after("build (auto: " + S->Algorithm + ")", *S, M);
    P.after("cost", *S, M);
  } else {
    auto A = lookupAlgorithm(R.Algorithm, M, R);
    if (!A)
      return A.takeError();
    auto Built = P.run("build", [&] { return (*A)->Build(M, R, P); });
    if (!Built)
      return Built.takeError();
    S = std::move(*Built);
    P.after("build", *S, M);
    cost(*S, M, P);
  }
  if (Opts.MergeSteps) {
    runMergeSteps(*S, M, Opts, P);
    cost(*S, M, P);
    Verified = false;
  }
  if (!Verified)
    if (llvm::Error E = P.run("verify", [&] { return verify(*S, M); }))
      return llvm::make_error<InternalError>(llvm::toString(std::move(E)));
  P.after("verify", *S, M);
  return std::move(*S);
}

namespace {

/// The bands of sizes \p R's schedules serve over \p Range, each with its
/// algorithm.
llvm::Expected<std::vector<AlgorithmBand>>
bandsOf(const Machine &M, const Request &R, const ByteBand &Range,
        const CostJudge &Judge, const CompileOptions &Opts) {
  if (R.Algorithm == "auto") {
    Pipeline P(Opts);
    auto Sel = selectBands(M, R, Range.Lo, Range.Hi, Judge, {}, &P);
    if (!Sel)
      return Sel.takeError();
    return std::move(Sel->Bands);
  }
  const uint64_t Unit = elementBytes(R.Datatype);
  auto Units = elementRange(Range.Lo, Range.Hi, R.Datatype);
  if (!Units)
    return Units.takeError();
  AlgorithmBand B;
  B.Lo = Units->first * Unit;
  B.Hi = Units->second * Unit;
  B.Algorithm = R.Algorithm;
  return std::vector<AlgorithmBand>{B};
}

} // namespace

llvm::Expected<std::vector<SetSchedule>>
compileSet(const Machine &M, const RequestSet &Set, const CompileOptions &Opts,
           const SetProgress &Progress) {
  using Clock = std::chrono::steady_clock;
  const bool Name = Set.Requests.size() > 1 || Set.Range;
  const CostJudge Model = modelJudge(Opts.ContentionFree);
  const CostJudge &Judge = Opts.Judge ? *Opts.Judge : Model;
  auto Last = Clock::now();
  std::vector<SetSchedule> Out;
  auto Fail = [&](llvm::Error E, const std::string &Label) {
    return Name ? inCombination(std::move(E), Label) : std::move(E);
  };
  // The schedule of \p Label, built from \p R, checked and kept.
  auto Build = [&](const Request &R, std::string Label,
                   std::optional<ByteBand> Band) -> llvm::Error {
    auto S = compile(M, R, Opts);
    if (!S)
      return Fail(S.takeError(), Label);
    if (Opts.ContentionFree)
      if (llvm::Error E = requireContentionFree(*S, M))
        return Fail(std::move(E), Label);
    Out.push_back({std::move(*S), Band, std::move(Label)});
    return llvm::Error::success();
  };
  for (size_t I = 0; I < Set.Requests.size(); ++I) {
    const PlannedRequest &P = Set.Requests[I];
    if (Progress.OS &&
        std::chrono::duration<double>(Clock::now() - Last).count() >=
            Progress.EverySeconds) {
      *Progress.OS << "collc: " << I << "/" << Set.Requests.size()
                   << " requests, " << Out.size() << " schedules\n";
      Last = Clock::now();
    }
    if (!Set.Range || P.R.Coll == Collective::Barrier) {
      if (llvm::Error E = Build(P.R, P.Label, std::nullopt))
        return E;
      continue;
    }
    auto Bands = bandsOf(M, P.R, *Set.Range, Judge, Opts);
    if (!Bands)
      return Fail(Bands.takeError(), P.Label);
    for (const AlgorithmBand &B : *Bands) {
      Request R = P.R;
      R.Algorithm = B.Algorithm;
      R.Bytes = B.buildBytes(messageUnit(R.Coll, R.Datatype, R.size()));
      std::string Label = P.Label + ", band " + std::to_string(B.Lo) + ".." +
                          std::to_string(B.Hi) + " (" + B.Algorithm +
                          " built at " + std::to_string(R.Bytes) + " bytes)";
      if (llvm::Error E = Build(R, std::move(Label), ByteBand(B)))
        return E;
    }
  }
  return Out;
}

llvm::Expected<Schedule> loadSchedule(llvm::StringRef Path, const Machine *M,
                                      const CompileOptions &Opts) {
  auto Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  auto S = readScheduleJson((*Buf)->getBuffer(), Path, M);
  if (!S)
    return S.takeError();
  return prepareSchedule(std::move(*S), Path, M, Opts);
}

namespace {

llvm::Error notFinite(const Machine &M, const std::string &What,
                      const std::string &Where, double Time) {
  return error("machine '%s' gives %s a time that is not finite (%s is %s); "
               "collc writes finite times only: give fewer bytes or a "
               "machine of shorter times",
               M.Name.c_str(), What.c_str(), Where.c_str(),
               formatRounded(Time).c_str());
}

} // namespace

llvm::Error requireFiniteTimes(const Schedule &S, const Machine &M) {
  const std::string What = "the " + std::string(collectiveName(S.Coll)) +
                           " of " + std::to_string(S.size()) + " ranks by " +
                           S.Algorithm;
  for (size_t I = 0; I < S.Steps.size(); ++I)
    for (size_t J = 0; J < S.Steps[I].Transfers.size(); ++J) {
      const Transfer &T = S.Steps[I].Transfers[J];
      for (auto [Time, Name] : {std::pair(T.Start, "start"), {T.End, "end"}})
        if (!std::isfinite(Time))
          return notFinite(M, What,
                           std::string("the ") + Name + " of transfer " +
                               std::to_string(J) + " of step " +
                               std::to_string(I),
                           Time);
    }
  if (!std::isfinite(S.Makespan))
    return notFinite(M, What, "its makespan", S.Makespan);
  return llvm::Error::success();
}

llvm::Error requireFiniteTimes(const Selection &Sel, const Machine &M) {
  for (const AlgorithmBand &B : Sel.Bands)
    for (auto [Time, Bytes] :
         {std::pair(B.TimeAtLo, B.Lo), std::pair(B.TimeAtHi, B.Hi)})
      if (!std::isfinite(Time))
        return notFinite(M,
                         "the " + std::string(collectiveName(Sel.Base.Coll)) +
                             " by " + B.Algorithm,
                         "the time at " + std::to_string(Bytes) + " bytes",
                         Time);
  return llvm::Error::success();
}

Machine unknownMachine() {
  Machine M;
  M.Name = "unknown";
  M.Ports = UINT32_MAX;
  return M;
}

llvm::Expected<Schedule> prepareSchedule(Schedule S, llvm::StringRef Path,
                                         const Machine *M,
                                         const CompileOptions &Opts) {
  Pipeline P(Opts);
  // Without a machine, the schedule's data flow is verified (not its timing
  // or ports, which belong to a machine).
  const Machine None = unknownMachine();
  VerifyOptions VO;
  VO.Timing = M != nullptr;
  if (M) {
    if (Opts.MergeSteps)
      runMergeSteps(S, *M, Opts, P);
    cost(S, *M, P);
  }
  const Machine &On = M ? *M : None;
  auto Problems = P.run("verify", [&] { return verifySchedule(S, On, VO); });
  if (!Problems.empty()) {
    std::string Msg = Path.str() + ": error: the schedule fails verification:";
    for (const std::string &Problem : Problems)
      Msg += "\n  " + Problem;
    return llvm::make_error<LocatedError>(std::move(Msg));
  }
  P.after("verify", S, On);
  return S;
}

} // namespace collc
