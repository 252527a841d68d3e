/// \file
/// The `auto` policy: which algorithm collc picks for a request. One
/// function, chooseSchedule, decides for `--algorithm auto`, for every band
/// of `--emit select` and `--emit ompi-rules`, and for bench-sweep, so they
/// cannot disagree.
///
/// The policy: build every candidate (autoCandidates: the registry's
/// algorithms that serve the collective and apply on the machine, in
/// registry order), score each with a cost judge, and keep the best-scoring
/// one that passes the verifier; on equal scores the earlier candidate wins.
/// A candidate with an AutoGain (one whose schedules often tie others') is
/// judged after all the others and wins only by that fraction.
/// A candidate that fails to build or to verify is left out (a defect of its
/// builder is never a reason to fail the request), with a note.
///
/// The judge is a parameter, so that a better cost model (a network
/// evaluator) changes what every user of the policy picks at once. The
/// search itself is the builders' (algorithms/Cheapest.h): each candidate
/// is timed as "auto: <algorithm>", with its own searches below it.
#ifndef COLLC_COMPILER_AUTOPOLICY_H
#define COLLC_COMPILER_AUTOPOLICY_H

#include "algorithms/Cheapest.h"
#include "algorithms/Registry.h"
#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "passes/Pipeline.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace collc {

struct ChooseOptions {
  /// Only candidates this accepts (nullptr: all), e.g. the algorithms Open
  /// MPI also has, for `--emit ompi-rules`.
  std::function<bool(const AlgorithmInfo &)> Filter;
  /// What Filter keeps, for the message when nothing is left ("that Open MPI
  /// also has").
  std::string FilterText;
  /// Called with every candidate that built, once judged (bench-sweep plots
  /// them all).
  std::function<void(const AlgorithmInfo &, const Schedule &, Score)>
      OnCandidate;
};

/// The chosen schedule: costed by the judge and verified. An error when no
/// candidate builds and verifies.
llvm::Expected<Schedule> chooseSchedule(const Machine &M, const Request &R,
                                        const CostJudge &Judge, Pipeline &P,
                                        const ChooseOptions &Opts = {});

} // namespace collc

#endif
