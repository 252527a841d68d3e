/// \file
/// The algorithm registry: every builder collc has, which collectives it
/// serves, and when it applies. The front end validates `algorithm:` against
/// it, `--help` lists it, and `--algorithm auto` picks among its entries.
#ifndef COLLC_ALGORITHMS_REGISTRY_H
#define COLLC_ALGORITHMS_REGISTRY_H

#include "algorithms/Builder.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace collc {

struct AlgorithmInfo {
  const char *Name;
  const char *Summary;
  std::vector<Collective> Collectives;
  BuilderRef Build;
  AppliesFn Applies = nullptr;
  /// Whether `--algorithm auto` considers it.
  bool InAuto = true;
  /// Whether it calls only adjacent nodes of a star or macro-star graph (the
  /// call model of paper 002); the others do not apply to those topologies.
  bool OnStarGraphs = false;
  /// Further conditions for `--algorithm auto` only (nullptr: none), e.g.
  /// that building it is affordable; an explicit request ignores them.
  AppliesFn AutoApplies = nullptr;
  /// The fraction of the best other candidate's time by which `auto`
  /// requires it to be faster to take it (0: any gain), for an algorithm
  /// whose schedules often tie others' (CandidateHooks::Gain).
  double AutoGain = 0;
  /// Where the cost pass prices by steps (more than StepPricingRanks ranks
  /// on a machine with a network), a time its schedule cannot beat, known
  /// without building it (nullptr: none): `auto` does not build it when the
  /// best candidate so far is faster (CandidateHooks::LowerBound).
  BoundFn AutoBound = nullptr;

  bool supports(Collective C) const;
  bool applies(const Machine &M, const Request &R, std::string &Why) const {
    if (!OnStarGraphs && (M.Topo.Kind == TopologyKind::Star ||
                          M.Topo.Kind == TopologyKind::MacroStar)) {
      Why = "on a star or macro-star graph a call joins adjacent nodes; use "
            "star-search, macro-star or greedy";
      return false;
    }
    return !Applies || Applies(M, R, Why);
  }
};

/// All algorithms, in the order `auto` prefers them on a tie.
const std::vector<AlgorithmInfo> &algorithms();
/// The algorithm called \p Name, or formerly so called (`star-optimal` is now
/// `star-search`); several entries may share a name (e.g. binomial broadcast
/// and binomial reduce): with \p C, the one serving C.
const AlgorithmInfo *findAlgorithm(llvm::StringRef Name,
                                   std::optional<Collective> C = std::nullopt);
/// `--list-algorithms`: one line per algorithm, its name, the collectives it
/// serves and what it does.
void printAlgorithms(llvm::raw_ostream &OS);

/// The algorithm \p Name for \p R on \p M: the one place that checks an
/// algorithm name. The error says why not: "unknown algorithm 'x' for bcast;
/// expected one of: auto, ..." or "algorithm 'x' cannot run here: why".
llvm::Expected<const AlgorithmInfo *>
lookupAlgorithm(llvm::StringRef Name, const Machine &M, const Request &R);
/// What `--algorithm auto` chooses among for \p R on \p M (and what
/// `--emit select` and bench-sweep compare): every algorithm in auto that
/// serves the collective and applies, in registry order.
std::vector<const AlgorithmInfo *> autoCandidates(const Machine &M,
                                                  const Request &R);

} // namespace collc

#endif
