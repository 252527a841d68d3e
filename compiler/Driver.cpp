#include "compiler/Driver.h"

#include "compiler/Algorithms.h"
#include "ir/ScheduleJson.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/MergeSteps.h"
#include "passes/Verify.h"

#include "llvm/Support/Format.h"

#include <chrono>
#include <cmath>

namespace collc {

char InternalError::ID = 0;

namespace {

/// Runs passes in order, optionally logging the IR and the time after each.
class Pipeline {
public:
  explicit Pipeline(const CompileOptions &O) : O(O) {}

  template <typename F> auto run(llvm::StringRef Name, F &&Pass) {
    auto T0 = std::chrono::steady_clock::now();
    auto Result = Pass();
    auto T1 = std::chrono::steady_clock::now();
    Times.push_back(
        {Name.str(), std::chrono::duration<double>(T1 - T0).count()});
    return Result;
  }
  void after(llvm::StringRef Name, const Schedule &S, const Machine &M) {
    if (O.PrintAfterAll && O.Log) {
      *O.Log << "// *** IR after " << Name << " ***\n";
      writeScheduleJson(*O.Log, S, &M);
    }
  }
  ~Pipeline() {
    if (!O.TimePasses || !O.Log)
      return;
    double Total = 0;
    for (auto &[N, T] : Times)
      Total += T;
    *O.Log << "===-- collc pass timing --===\n";
    for (auto &[N, T] : Times)
      *O.Log << llvm::format("  %10.6f s  %5.1f%%  ", T,
                             Total > 0 ? 100 * T / Total : 0.0)
             << N << "\n";
    *O.Log << llvm::format("  %10.6f s  100.0%%  total\n", Total);
  }

private:
  const CompileOptions &O;
  std::vector<std::pair<std::string, double>> Times;
};

/// Requests whose every schedule would be beyond what collc tracks: an
/// allgather or all-to-all moves ranks^2 blocks.
llvm::Error checkSize(const Request &R) {
  if (R.Coll != Collective::Allgather && R.Coll != Collective::Alltoall)
    return llvm::Error::success();
  const double Blocks = static_cast<double>(R.size()) * R.size();
  if (Blocks <= static_cast<double>(VerifyLimits::MaxAtoms))
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "collc: error: %s %s of %d ranks moves %.0f blocks; collc schedules at "
      "most %llu (%lld ranks)",
      withArticle(R.Coll), collectiveName(R.Coll), R.size(), Blocks,
      static_cast<unsigned long long>(VerifyLimits::MaxAtoms),
      static_cast<long long>(std::sqrt(double(VerifyLimits::MaxAtoms))));
}

} // namespace

llvm::Expected<Schedule> buildAndCost(const Machine &M, const Request &R,
                                      llvm::StringRef Algorithm) {
  const AlgorithmInfo *A = findAlgorithm(Algorithm, R.Coll);
  if (!A || !A->supports(R.Coll))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "collc: error: no algorithm '%s' for %s",
                                   Algorithm.str().c_str(),
                                   collectiveName(R.Coll));
  if (llvm::Error E = checkSize(R))
    return E;
  auto S = A->Build(M, R);
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
  std::optional<Schedule> Best;
  bool Verified = false; // Best as it stands has passed the verifier
  if (R.Algorithm == "auto") {
    std::string Considered;
    bool SharedChannels = isRouted(M.Topo) && M.Topo.Kind != TopologyKind::Full;
    bool BestFree = false;
    // Why a candidate was left out: said under --time-passes.
    auto LeaveOut = [&](const AlgorithmInfo &A, llvm::Error E) {
      std::string Why = llvm::toString(std::move(E));
      if (Opts.TimePasses && Opts.Log)
        *Opts.Log << "collc: note: auto leaves out " << A.Name << ": " << Why
                  << "\n";
    };
    for (const AlgorithmInfo *A : autoCandidates(M, R)) {
      auto S = P.run(std::string("build ") + A->Name,
                     [&] { return A->Build(M, R); });
      if (!S) {
        LeaveOut(*A, S.takeError());
        continue;
      }
      P.run(std::string("cost ") + A->Name, [&] {
        estimateCost(*S, M);
        return 0;
      });
      // On a network with shared channels, a contention-free schedule beats
      // any schedule with contention; then the lower makespan wins.
      bool Free = P.run(std::string("contention ") + A->Name, [&] {
        ContentionOptions CO;
        CO.StopAtFirst = true;
        return !SharedChannels || checkContention(*S, M, CO).clean();
      });
      if (!Best || (Free && !BestFree) ||
          (Free == BestFree && S->Makespan < Best->Makespan)) {
        // Only a schedule that verifies may win: one that does not is a
        // defect of its builder, never a reason to fail the whole request.
        llvm::Error E = P.run(std::string("verify ") + A->Name,
                              [&] { return verify(*S, M); });
        if (E) {
          LeaveOut(*A, std::move(E));
          continue;
        }
        Best = std::move(*S);
        BestFree = Free;
        Verified = true;
      }
    }
    if (!Best)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "collc: error: no algorithm can build %s %s on machine '%s'",
          withArticle(R.Coll), collectiveName(R.Coll), M.Name.c_str());
    P.after("build (auto: " + Best->Algorithm + ")", *Best, M);
  } else {
    const AlgorithmInfo *A = findAlgorithm(R.Algorithm, R.Coll);
    if (!A || !A->supports(R.Coll))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "collc: error: unknown algorithm '%s' for %s", R.Algorithm.c_str(),
          collectiveName(R.Coll));
    auto S = P.run("build", [&] { return A->Build(M, R); });
    if (!S)
      return S.takeError();
    P.after("build", *S, M);
    P.run("cost", [&] {
      estimateCost(*S, M);
      return 0;
    });
    Best = std::move(*S);
  }
  P.after("cost", *Best, M);
  if (Opts.MergeSteps) {
    MergeStats MS = P.run("merge-steps", [&] { return mergeSteps(*Best, M); });
    P.run("cost", [&] {
      estimateCost(*Best, M);
      return 0;
    });
    if (Opts.Log)
      *Opts.Log << "collc: note: merge-steps removed " << MS.removed() << " of "
                << MS.StepsBefore << " steps\n";
    P.after("merge-steps", *Best, M);
    Verified = false;
  }
  if (!Verified) {
    llvm::Error E = P.run("verify", [&] { return verify(*Best, M); });
    if (E)
      return llvm::make_error<InternalError>(llvm::toString(std::move(E)));
  }
  P.after("verify", *Best, M);
  return std::move(*Best);
}

} // namespace collc
