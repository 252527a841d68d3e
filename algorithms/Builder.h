/// \file
/// What a builder needs, without the registry (algorithms/Registry.h): the
/// signatures of a builder and of its applicability test, and the pieces
/// every builder's schedule starts from.
#ifndef COLLC_ALGORITHMS_BUILDER_H
#define COLLC_ALGORITHMS_BUILDER_H

#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace collc {

/// A builder: a function from (machine, request) to a schedule. Builders
/// fill steps, transfers and pieces; times are the cost pass's business.
using BuildFn = llvm::Expected<Schedule> (*)(const Machine &, const Request &);
/// Whether an algorithm can serve this machine and request; sets \p Why if not.
using AppliesFn = bool (*)(const Machine &, const Request &, std::string &Why);

/// Fills what every builder's schedule shares from the request: collective,
/// algorithm name, machine name, bytes, root, participants, reduction fields.
Schedule scheduleSkeleton(const Machine &M, const Request &R,
                          llvm::StringRef Algorithm);

/// A copy of the whole message of \p S from rank \p From to rank \p To.
Transfer wholeMessageCall(const Schedule &S, int64_t From, int64_t To);

/// A copy of the root's chunks [\p Chunks.Lo, \p Chunks.Hi) of a broadcast
/// (every rank's destination) from rank \p From to rank \p To.
Transfer rootChunksCall(const Schedule &S, int64_t From, int64_t To,
                        Interval Chunks);

} // namespace collc

#endif
