/// \file
/// The pipeline, in plain order. Every schedule takes the same road before a
/// backend sees it, whether collc built it or read it from a file:
///
///   built:  build (or choose with `auto`) -> cost -> [merge-steps -> cost]
///           -> verify
///   read:   [merge-steps] -> cost -> verify
///
/// A built schedule that fails verification is collc's fault (an
/// InternalError, exit 3); a read one is the file's (exit 1).
#ifndef COLLC_COMPILER_DRIVER_H
#define COLLC_COMPILER_DRIVER_H

#include "compiler/AutoPolicy.h"
#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"
#include "ir/Selection.h"
#include "passes/Pipeline.h"
#include "readers/RequestSet.h"

#include "llvm/Support/Error.h"

namespace collc {

struct CompileOptions : PipelineOptions {
  /// Run the step-merging pass (passes/MergeSteps) and note on Log how many
  /// steps it removed.
  bool MergeSteps = false;
  /// The judge `auto` chooses with; nullptr: the machine model's
  /// (modelJudge()).
  const CostJudge *Judge = nullptr;
  /// compileSet: also require every schedule to be contention-free
  /// (requireContentionFree, `--verify`); a conflict is a CheckFailure.
  bool ContentionFree = false;
};

/// Builds the schedule \p R asks for on \p M (R.Algorithm, or the choice of
/// the auto policy), costs it and verifies it. User errors (an algorithm that
/// cannot run here) come back as plain errors; a schedule that fails
/// verification as an InternalError.
llvm::Expected<Schedule> compile(const Machine &M, const Request &R,
                                 const CompileOptions &Opts = {});

/// A schedule of a request set (compileSet) and the sizes it serves.
struct SetSchedule {
  Schedule S;
  /// With a --bytes-range: the band of message sizes this schedule serves
  /// (it was built at a size inside it); none: the size it was built for.
  std::optional<ByteBand> Band;
  /// The combination and band, in words, for diagnostics.
  std::string Label;
};

/// Progress of a long compileSet on a stream: "collc: 120/563 requests, 150
/// schedules", at most once every \p EverySeconds (none before the first
/// such interval has passed, so short runs say nothing).
struct SetProgress {
  llvm::raw_ostream *OS = nullptr;
  double EverySeconds = 1.0;
};

/// Builds every request of \p Set with compile(), in order. With
/// Set.Range, a request (but a barrier's, which has no size) is cut into
/// size bands: under `auto` the policy's bands over the range (selectBands
/// with Opts.Judge, or the model's judge), with a named algorithm one band;
/// a reduction's bands hold whole elements of its datatype. Each band gets
/// one schedule, built with the band's algorithm at ByteBand::buildBytes inside
/// it. Errors name the combination (and band) that failed when the set has
/// more than one request or a range (inCombination), and keep their kind.
llvm::Expected<std::vector<SetSchedule>>
compileSet(const Machine &M, const RequestSet &Set,
           const CompileOptions &Opts = {}, const SetProgress &Progress = {});

/// The road of a schedule read from \p Path (`--schedule`): merge-steps (if
/// asked), cost and verification on \p M. With \p M null there is no
/// machine: the times in the file are kept, steps are not merged, and only
/// the data flow is verified (timing and ports belong to a machine). A
/// schedule that fails verification is a LocatedError naming \p Path.
llvm::Expected<Schedule> prepareSchedule(Schedule S, llvm::StringRef Path,
                                         const Machine *M,
                                         const CompileOptions &Opts = {});

/// Reads the schedule file \p Path (what `--emit json` writes) and takes it
/// down the road of prepareSchedule.
llvm::Expected<Schedule> loadSchedule(llvm::StringRef Path, const Machine *M,
                                      const CompileOptions &Opts = {});

/// The last guard before a backend: an error naming \p M when a time the
/// cost pass gave \p S (a transfer's start or end, the makespan) is not
/// finite. The readers refuse machines and requests that could give one;
/// this keeps inf and nan out of every output whatever slips past them.
llvm::Error requireFiniteTimes(const Schedule &S, const Machine &M);
/// The same for the times of a selection's bands.
llvm::Error requireFiniteTimes(const Selection &Sel, const Machine &M);

/// The stand-in for the machine of a schedule read without --machine:
/// named "unknown", with as many ports as any schedule uses.
Machine unknownMachine();

/// Builds and costs one named algorithm, without verification (for
/// benchmarks and tests that inspect unverified schedules).
llvm::Expected<Schedule> buildAndCost(const Machine &M, const Request &R,
                                      llvm::StringRef Algorithm);

} // namespace collc

#endif
