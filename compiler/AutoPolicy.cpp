#include "compiler/AutoPolicy.h"

#include "ir/Diagnostic.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include <algorithm>

namespace collc {

llvm::Expected<Schedule> chooseSchedule(const Machine &M, const Request &R,
                                        const CostJudge &Judge, Pipeline &P,
                                        const ChooseOptions &Opts) {
  Cheapest Search(M, P, Judge, "auto", /*NoteLeftOut=*/true);
  // A candidate with a gain to make must beat all the others by it, so it
  // is judged after them.
  std::vector<const AlgorithmInfo *> Candidates = autoCandidates(M, R);
  std::stable_partition(
      Candidates.begin(), Candidates.end(),
      [](const AlgorithmInfo *A) { return A->AutoGain == 0; });
  for (const AlgorithmInfo *A : Candidates) {
    if (Opts.Filter && !Opts.Filter(*A))
      continue;
    CandidateHooks Hooks;
    Hooks.Gain = A->AutoGain;
    if (A->AutoBound && pricedBySteps(R.size(), M))
      Hooks.LowerBound = A->AutoBound(M, R);
    auto OnJudged = [&](const Schedule &S, Score Sc) {
      Opts.OnCandidate(*A, S, Sc);
    };
    if (Opts.OnCandidate)
      Hooks.OnJudged = OnJudged;
    // Only a schedule that verifies may win.
    auto Verify = [&](const Schedule &S) { return verify(S, M); };
    Hooks.Accept = Verify;
    Search.consider(
        A->Name, [&] { return A->Build(M, R, P); }, Hooks);
  }
  if (!Search.best())
    return error("no algorithm%s%s can build %s %s of %llu bytes on machine "
                 "'%s'",
                 Opts.FilterText.empty() ? "" : " ", Opts.FilterText.c_str(),
                 withArticle(R.Coll), collectiveName(R.Coll),
                 static_cast<unsigned long long>(R.Bytes), M.Name.c_str());
  return Search.take();
}

} // namespace collc
