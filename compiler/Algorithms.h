/// \file
/// The algorithm registry: every builder collc has, which collectives it
/// serves, and when it applies. The front end validates `algorithm:` against
/// it, `--help` lists it, and `--algorithm auto` picks among its entries.
#ifndef COLLC_COMPILER_ALGORITHMS_H
#define COLLC_COMPILER_ALGORITHMS_H

#include "compiler/Request.h"
#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace collc {

/// A builder: a function from (machine, request) to a schedule. Builders
/// fill steps, transfers and pieces; times are the cost pass's business.
using BuildFn = llvm::Expected<Schedule> (*)(const Machine &, const Request &);
/// Whether an algorithm can serve this machine and request; sets \p Why if not.
using AppliesFn = bool (*)(const Machine &, const Request &, std::string &Why);

struct AlgorithmInfo {
  const char *Name;
  const char *Summary;
  std::vector<Collective> Collectives;
  BuildFn Build;
  AppliesFn Applies = nullptr;
  /// Whether `--algorithm auto` considers it.
  bool InAuto = true;
  /// Whether it calls only adjacent nodes of a star or macro-star graph (the
  /// call model of paper 002); the others do not apply to those topologies.
  bool OnStarGraphs = false;
  /// Further conditions for `--algorithm auto` only (nullptr: none), e.g.
  /// that building it is affordable; an explicit request ignores them.
  AppliesFn AutoApplies = nullptr;

  bool supports(Collective C) const;
  bool applies(const Machine &M, const Request &R, std::string &Why) const {
    if (!OnStarGraphs && (M.Topo.Kind == TopologyKind::Star ||
                          M.Topo.Kind == TopologyKind::MacroStar)) {
      Why = "on a star or macro-star graph a call joins adjacent nodes; use "
            "star-optimal, macro-star or greedy";
      return false;
    }
    return !Applies || Applies(M, R, Why);
  }
};

/// All algorithms, in the order `auto` prefers them on a tie.
const std::vector<AlgorithmInfo> &algorithms();
/// The algorithm called \p Name; several entries may share a name (e.g.
/// binomial broadcast and binomial reduce): with \p C, the one serving C.
const AlgorithmInfo *findAlgorithm(llvm::StringRef Name,
                                   std::optional<Collective> C = std::nullopt);
/// What `--algorithm auto` chooses among for \p R on \p M (and what
/// `--emit select` and bench-sweep compare): every algorithm in auto that
/// serves the collective and applies, in registry order.
std::vector<const AlgorithmInfo *> autoCandidates(const Machine &M,
                                                  const Request &R);

/// Fills what every builder's schedule shares from the request: collective,
/// algorithm name, machine name, bytes, root, participants, reduction fields.
Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm);

} // namespace collc

#endif
