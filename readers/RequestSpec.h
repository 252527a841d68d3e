/// \file
/// The request schema (docs/spec.md): which collective, among which nodes,
/// how many bytes, which algorithm; read from YAML or JSON and from the
/// command line, and checked against the machine.
#ifndef COLLC_READERS_REQUESTSPEC_H
#define COLLC_READERS_REQUESTSPEC_H

#include "ir/Machine.h"
#include "ir/Request.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>

namespace collc {

/// Fields of a request given on the command line, as written; they override
/// the file's and are read by the same field readers, so a value is checked
/// the same way wherever it was written.
struct RequestOverrides {
  std::optional<std::string> Collective, Algorithm, Op, Datatype;
  std::optional<std::string> Root; ///< Node number, coords or permutation.
  std::optional<std::string> Destinations; ///< Comma/semicolon separated list.
  /// Numbers as text, so that "-1" or a number beyond 64 bits gets the same
  /// clear error as any other value out of range.
  std::optional<std::string> Ranks, Segments, Bytes;
  std::optional<std::string> Commutative; ///< "true" or "false", as written.
};

/// Reads a request file (\p Buffer may be null when the whole request comes
/// from \p Overrides) and checks it against \p M.
llvm::Expected<Request> parseRequest(const llvm::MemoryBufferRef *Buffer,
                                     const RequestOverrides &Overrides,
                                     const Machine &M);
/// Reads a request file; \p Path empty means "no file".
llvm::Expected<Request> loadRequest(llvm::StringRef Path,
                                    const RequestOverrides &Overrides,
                                    const Machine &M);

/// Longest time one transfer may take under a model: a schedule has far
/// fewer than 10^20 transfers, so its makespan stays below 10^300.
constexpr double MaxTransferTime = 1e280;

/// Checks that the largest transfer a request for \p Bytes can make (every
/// block of every rank; of every pair for an all-to-all) carries at most
/// MaxTransferBytes (ir/Request.h) and takes at most MaxTransferTime under \p
/// M; the error says what it would carry or take.
llvm::Error checkFiniteTimes(const Machine &M, const Request &R,
                             uint64_t Bytes);

} // namespace collc

#endif
