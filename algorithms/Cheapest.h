/// \file
/// The one search of the compiler: build candidates, judge each, keep the
/// cheapest. The `auto` policy (compiler/AutoPolicy.h) chooses among
/// builders with it, and every builder that searches its own parameters
/// (segment counts, radices, lanes, tree families) chooses among its
/// candidates with it. Each candidate runs through the same pipeline (build,
/// then the judge's cost passes) as one run of the Pipeline, named
/// "<kind>: <candidate>" ("auto: spanning-trees", "search: k=12"), so
/// `--time-passes` shows where a compile's time goes, nested by search.
#ifndef COLLC_ALGORITHMS_CHEAPEST_H
#define COLLC_ALGORITHMS_CHEAPEST_H

#include "ir/Machine.h"
#include "ir/Schedule.h"
#include "passes/Pipeline.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace collc {

/// How good a candidate is; lower is better.
struct Score {
  /// Two of its transfers share a channel while both are in flight, on a
  /// network whose channels are shared: any contention-free candidate beats
  /// it, whatever the times (the model's times assume no contention).
  bool Contention = false;
  /// The makespan under the judge's cost model.
  double Time = std::numeric_limits<double>::infinity();

  bool operator<(const Score &O) const {
    if (Contention != O.Contention)
      return !Contention;
    return Time < O.Time;
  }
};

/// A cost judge: fills a candidate's times (Start, End, Makespan) and scores
/// it. Its last argument is the time a candidate must not exceed to win (the
/// best so far's; infinity when anything may win): a judge may stop pricing
/// a candidate once its makespan is known to exceed it (estimateCost), and
/// then scores it by that partial makespan, above the bound.
struct CostJudge {
  /// What "best" means under this judge, for reports ("--emit select").
  std::string Description;
  std::function<Score(Schedule &, const Machine &, Pipeline &, double)> Judge;
};

/// The machine model's judge: the cost pass's times (passes/Cost); on a
/// routed topology with shared channels, contention (passes/Contention)
/// first. A machine with a network prices shared links in its times, so
/// there contention comes first only when \p ContentionFirst asks (`--verify`
/// does: it requires a contention-free schedule, so auto prefers one).
CostJudge modelJudge(bool ContentionFirst = false);

/// The judge of a builder's own searches: the makespan under the machine's
/// cost pass (passes/Cost.h: the network evaluator on a machine with a
/// network, else the model). A candidate an inner search already costed is
/// not costed again.
const CostJudge &makespanJudge();

/// What a search does with one candidate beyond judging it.
struct CandidateHooks {
  /// Among equal scores the lower key wins; without keys, the earlier
  /// candidate.
  std::optional<int64_t> TieKey;
  /// The candidate displaces the best so far only when its time is below
  /// (1 - Gain) of the best's (0: when it is lower at all): for a candidate
  /// whose schedules often tie others', so that the choice does not
  /// alternate between them from one size to the next.
  double Gain = 0;
  /// A time the candidate cannot beat, known before building it (0: none).
  /// Above a contention-free best so far, the candidate is not built (noted
  /// as left out with NoteLeftOut).
  double LowerBound = 0;
  /// Called with every candidate that built, once judged (and then judged
  /// whole: its pricing is never stopped early).
  llvm::function_ref<void(const Schedule &, Score)> OnJudged;
  /// Asked of a candidate only when it would be the best so far (in the run
  /// "verify <name>"): an error leaves it out.
  llvm::function_ref<llvm::Error(const Schedule &)> Accept;
};

/// A running search for the cheapest candidate.
class Cheapest {
public:
  /// \p Kind names the search in the pipeline's timing ("auto", "search").
  /// With \p NoteLeftOut, a candidate that fails to build or is not accepted
  /// is noted on the pipeline ("<Kind> leaves out <name>: why"); without,
  /// its error is kept as the last one.
  Cheapest(const Machine &M, Pipeline &P, const CostJudge &Judge,
           llvm::StringRef Kind = "search", bool NoteLeftOut = false)
      : M(M), P(P), Judge(Judge), Kind(Kind.str()), NoteLeftOut(NoteLeftOut) {}
  Cheapest(const Cheapest &) = delete;
  Cheapest &operator=(const Cheapest &) = delete;
  ~Cheapest() { llvm::consumeError(std::move(Last)); }

  /// Builds the candidate \p Name with \p Build and judges it, in one run of
  /// the pipeline; keeps it when it scores below the best so far. Returns
  /// false when it failed to build.
  bool consider(const llvm::Twine &Name,
                llvm::function_ref<llvm::Expected<Schedule>()> Build,
                const CandidateHooks &Hooks = {});

  /// The best candidate so far, or null.
  const Schedule *best() const { return Best ? &*Best : nullptr; }
  /// The best candidate's TieKey.
  std::optional<int64_t> bestKey() const {
    return HasBestKey ? std::optional<int64_t>(BestKey) : std::nullopt;
  }
  /// The error of the last candidate that failed to build (success if
  /// none); it is taken.
  llvm::Error takeLastError() { return std::move(Last); }
  /// The best candidate; without one, the last error (or an error saying
  /// that there was no candidate).
  llvm::Expected<Schedule> take();

private:
  void leaveOut(const llvm::Twine &Name, llvm::Error E);

  const Machine &M;
  Pipeline &P;
  const CostJudge &Judge;
  std::string Kind;
  bool NoteLeftOut;
  std::optional<Schedule> Best;
  Score BestScore;
  bool HasBestKey = false;
  int64_t BestKey = 0;
  llvm::Error Last = llvm::Error::success();
};

} // namespace collc

#endif
