#include "algorithms/Cheapest.h"

#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/Routes.h"
#include "passes/StepCost.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace collc {

namespace {

/// Whether the cost pass has timed \p S: its makespan and every transfer's
/// times are set.
bool costed(const Schedule &S) {
  if (std::isnan(S.Makespan))
    return false;
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers)
      if (std::isnan(T.Start) || std::isnan(T.End))
        return false;
  return true;
}

/// \p T (in the model's unit, microseconds on a network) for a note.
std::string timeText(double T) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.1f", T);
  return Buf;
}

} // namespace

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
  J.Judge = [ContentionFirst](Schedule &S, const Machine &M, Pipeline &P,
                              double GiveUpAbove) {
    const llvm::StringRef Name = S.Algorithm;
    // Where the flow-level evaluator would take seconds, the step pricing
    // (passes/StepCost.h); --time-passes says which.
    // A builder's own search already costed the schedule it returns (with
    // the same cost pass): its times stand, unless steps were added since.
    bool Whole = true;
    if (!costed(S))
      P.run("cost " + Name + (pricedBySteps(S, M) ? " (by steps)" : ""), [&] {
        Whole = estimateCost(S, M, GiveUpAbove);
        return 0;
      });
    Score Sc;
    Sc.Time = S.Makespan;
    // Priced only until it could not win: slower than the best so far, which
    // the search asks only of a contention-free best, so it loses whatever
    // its contention.
    if (!Whole)
      return Sc;
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

const CostJudge &makespanJudge() {
  static const CostJudge J{
      "the lowest makespan under the machine's cost pass",
      [](Schedule &S, const Machine &M, Pipeline &, double GiveUpAbove) {
        if (!costed(S))
          estimateCost(S, M, GiveUpAbove);
        Score Sc;
        Sc.Time = S.Makespan;
        return Sc;
      }};
  return J;
}

void Cheapest::leaveOut(const llvm::Twine &Name, llvm::Error E) {
  if (NoteLeftOut) {
    P.note(llvm::Twine(Kind) + " leaves out " + Name + ": " +
           llvm::toString(std::move(E)));
    return;
  }
  llvm::consumeError(std::move(Last));
  Last = std::move(E);
}

bool Cheapest::consider(const llvm::Twine &Name,
                        llvm::function_ref<llvm::Expected<Schedule>()> Build,
                        const CandidateHooks &Hooks) {
  const std::string Label = Name.str();
  // A candidate slower than a contention-free best cannot win (nor tie: a
  // tie key wins only at an equal time): it is not built when its bound says
  // so, nor priced past the best's time. Where every candidate is reported
  // (OnJudged), or the pipeline asks (PriceWhole), each is priced whole.
  const bool MayGiveUp = Best && !BestScore.Contention && !Hooks.OnJudged &&
                         !P.options().PriceWhole;
  if (MayGiveUp && Hooks.LowerBound > BestScore.Time) {
    if (NoteLeftOut)
      P.note(llvm::Twine(Kind) + " leaves out " + Label +
             " unbuilt: it takes " + timeText(Hooks.LowerBound) +
             " at least, the best so far " + timeText(BestScore.Time));
    return true;
  }
  return P.run(llvm::Twine(Kind) + ": " + Label, [&] {
    llvm::Expected<Schedule> S = Build();
    if (!S) {
      leaveOut(Label, S.takeError());
      return false;
    }
    const double GiveUpAbove =
        MayGiveUp ? BestScore.Time : std::numeric_limits<double>::infinity();
    const Score Sc = Judge.Judge(*S, M, P, GiveUpAbove);
    if (Hooks.OnJudged)
      Hooks.OnJudged(*S, Sc);
    Score Needed = BestScore;
    Needed.Time *= 1 - Hooks.Gain;
    const bool Wins = !Best || Sc < Needed ||
                      (!(BestScore < Sc) && Hooks.TieKey && HasBestKey &&
                       *Hooks.TieKey < BestKey);
    if (!Wins)
      return true;
    if (Hooks.Accept)
      if (llvm::Error E = P.run(llvm::Twine("verify ") + Label,
                                [&] { return Hooks.Accept(*S); })) {
        leaveOut(Label, std::move(E));
        return true;
      }
    Best = std::move(*S);
    BestScore = Sc;
    HasBestKey = Hooks.TieKey.has_value();
    BestKey = Hooks.TieKey.value_or(0);
    return true;
  });
}

llvm::Expected<Schedule> Cheapest::take() {
  if (Best) {
    llvm::consumeError(std::move(Last));
    return std::move(*Best);
  }
  if (Last)
    return std::move(Last);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "%s: no candidate", Kind.c_str());
}

} // namespace collc
