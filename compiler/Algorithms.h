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

  bool supports(Collective C) const;
  bool applies(const Machine &M, const Request &R, std::string &Why) const {
    return !Applies || Applies(M, R, Why);
  }
};

/// All algorithms, in the order `auto` prefers them on a tie.
const std::vector<AlgorithmInfo> &algorithms();
const AlgorithmInfo *findAlgorithm(llvm::StringRef Name);

/// Fills what every builder's schedule shares from the request: collective,
/// algorithm name, machine name, bytes, root, participants, reduction fields.
Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm);

} // namespace collc

#endif
