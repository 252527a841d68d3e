#include "compiler/AutoPolicy.h"

#include "ir/Diagnostic.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace collc {

namespace {

/// One candidate of chooseSchedule, in the order it is judged.
struct Candidate {
  const AlgorithmInfo *Info = nullptr;
  /// Its AutoBound where the cost pass prices by steps (0: none).
  double Bound = 0;
  /// Its place in the registry's order, where the judging order differs
  /// from it: a tie goes to the earlier, as in the registry's order.
  std::optional<int64_t> TieKey;
};

/// The candidates in the order chooseSchedule judges them: the registry's,
/// with those that have a gain to make last (they must beat all the others
/// by it). Where a candidate may be left unbuilt by its bound (the cost pass
/// prices by steps and no candidate is priced whole), those with a bound
/// come after those without, by increasing bound, so that they meet the
/// best of the others: a candidate skipped there could not have won (its
/// bound exceeds a time some candidate has), the tie keys keep the
/// registry's order among equal times, and the choice is the one the
/// registry's order makes.
std::vector<Candidate> candidateOrder(const Machine &M, const Request &R,
                                      const Pipeline &P,
                                      const ChooseOptions &Opts) {
  std::vector<Candidate> Out;
  for (const AlgorithmInfo *A : autoCandidates(M, R))
    if (!Opts.Filter || Opts.Filter(*A)) {
      Candidate C;
      C.Info = A;
      Out.push_back(C);
    }
  auto NoGain = [](const Candidate &C) { return C.Info->AutoGain == 0; };
  if (!pricedBySteps(R.size(), M)) {
    std::stable_partition(Out.begin(), Out.end(), NoGain);
    return Out;
  }
  // Reordered only where a bound may leave a candidate unbuilt; tie keys
  // then keep the registry's order among equal times.
  const bool Reorder = !Opts.OnCandidate && !P.options().PriceWhole;
  for (size_t I = 0; I < Out.size(); ++I) {
    Candidate &C = Out[I];
    if (C.Info->AutoBound)
      C.Bound = C.Info->AutoBound(M, R);
    // A gain candidate wins only by its gain, never by a tie key.
    if (Reorder && NoGain(C))
      C.TieKey = static_cast<int64_t>(I);
  }
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const Candidate &X, const Candidate &Y) {
                     if (NoGain(X) != NoGain(Y))
                       return NoGain(X);
                     return Reorder && X.Bound < Y.Bound;
                   });
  return Out;
}

} // namespace

llvm::Expected<Schedule> chooseSchedule(const Machine &M, const Request &R,
                                        const CostJudge &Judge, Pipeline &P,
                                        const ChooseOptions &Opts) {
  Cheapest Search(M, P, Judge, "auto", /*NoteLeftOut=*/true);
  for (const Candidate &C : candidateOrder(M, R, P, Opts)) {
    const AlgorithmInfo *A = C.Info;
    CandidateHooks Hooks;
    Hooks.Gain = A->AutoGain;
    Hooks.LowerBound = C.Bound;
    Hooks.TieKey = C.TieKey;
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
