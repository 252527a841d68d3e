#include "compiler/AutoPolicy.h"

#include "ir/Diagnostic.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/Routes.h"
#include "passes/Verify.h"

#include <optional>

namespace collc {

CostJudge modelJudge(bool ContentionFirst) {
  CostJudge J;
  J.Description =
      ContentionFirst
          ? "contention-free schedules first where channels are shared, "
            "then the lowest makespan (under the network evaluator on a "
            "machine with a network)"
          : "the lowest makespan: under the network evaluator on a "
            "machine with a network, else under the model with "
            "contention-free schedules first where channels are shared";
  J.Judge = [ContentionFirst](Schedule &S, const Machine &M, Pipeline &P) {
    const llvm::StringRef Name = S.Algorithm;
    P.run("cost " + Name, [&] {
      estimateCost(S, M);
      return 0;
    });
    Score Sc;
    Sc.Time = S.Makespan;
    // A network's evaluator already prices shared links: its makespan alone
    // decides, unless contention-free schedules are required.
    if ((!M.Net || ContentionFirst) && isRouted(M.Topo) &&
        M.Topo.Kind != TopologyKind::Full)
      Sc.Contention = P.run("contention " + Name, [&] {
        ContentionOptions CO;
        CO.StopAtFirst = true;
        return !checkContention(S, M, CO).clean();
      });
    return Sc;
  };
  return J;
}

llvm::Expected<Schedule> chooseSchedule(const Machine &M, const Request &R,
                                        const CostJudge &Judge, Pipeline &P,
                                        const ChooseOptions &Opts) {
  std::optional<Schedule> Best;
  Score BestScore;
  for (const AlgorithmInfo *A : autoCandidates(M, R)) {
    if (Opts.Filter && !Opts.Filter(*A))
      continue;
    auto S =
        P.run(llvm::Twine("build ") + A->Name, [&] { return A->Build(M, R); });
    if (!S) {
      P.note(llvm::Twine("auto leaves out ") + A->Name + ": " +
             llvm::toString(S.takeError()));
      continue;
    }
    Score Sc = Judge.Judge(*S, M, P);
    if (Opts.OnCandidate)
      Opts.OnCandidate(*A, *S, Sc);
    if (Best && !(Sc < BestScore))
      continue;
    // Only a schedule that verifies may win.
    if (llvm::Error E = P.run(llvm::Twine("verify ") + A->Name,
                              [&] { return verify(*S, M); })) {
      P.note(llvm::Twine("auto leaves out ") + A->Name + ": " +
             llvm::toString(std::move(E)));
      continue;
    }
    Best = std::move(*S);
    BestScore = Sc;
  }
  if (!Best)
    return error("no algorithm%s%s can build %s %s of %llu bytes on machine "
                 "'%s'",
                 Opts.FilterText.empty() ? "" : " ", Opts.FilterText.c_str(),
                 withArticle(R.Coll), collectiveName(R.Coll),
                 static_cast<unsigned long long>(R.Bytes), M.Name.c_str());
  return std::move(*Best);
}

} // namespace collc
