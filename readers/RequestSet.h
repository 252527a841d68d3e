/// \file
/// One collc run, many requests: the lists and ranges of `--collective`,
/// `--ranks`, `--root`, `--bytes` and `--bytes-range` expanded into one
/// request per combination (docs/cli.md, "Many requests in one run").
///
/// The forms, each a comma-separated list of items:
///
///   --collective  bcast,reduce,allreduce
///   --ranks       4 | 1:64 (inclusive) | 2,3,5 | 1:8,16,32
///   --root        a node as --root takes it ("3", "(3,2)", "14523"), a
///                 list of them, or `all`: every rank of each group
///   --bytes       1024 | 0,8,1024
///   --bytes-range LO:HI (bytes, inclusive): every size in it, by the auto
///                 policy's size bands (compiler/Select.h); with a named
///                 --algorithm, one band
///
/// The combinations, in that order (collective outermost, sizes innermost):
/// - a rooted collective (bcast, reduce, gather, scatter) takes every root
///   of the list; `all` means the node of every rank of the group;
/// - a collective without a root takes the one node of a one-item --root
///   (as a single request always did: some algorithms centre on it), and no
///   root with `all` or a list;
/// - a barrier moves no data: in a list of collectives it takes one request
///   per group size, whatever the sizes say;
/// - a root that is not among a group's nodes is skipped for that group,
///   with a note (Notes); a root that is in no group at all is an error (the
///   one a single request gives);
/// - a multicast names its group by root and destinations: it takes no
///   --ranks and no `all`.
///
/// Every combination's request is made and checked against the machine (the
/// one request constructor, makeRequest() of readers/RequestSpec.h, over the
/// request file read once and each size read once) before any schedule is
/// built, so a combination the machine cannot serve (more ranks than it
/// holds, a size its model cannot time, an algorithm that cannot run there)
/// is a usage error before any work, and the error names the combination. The
/// number of combinations is capped (MaxRequests) before any is read.
#ifndef COLLC_READERS_REQUESTSET_H
#define COLLC_READERS_REQUESTSET_H

#include "ir/Machine.h"
#include "ir/Request.h"
#include "ir/SizeBand.h"
#include "readers/RequestSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// The cap on combinations when none is given (`--max-requests`).
constexpr uint64_t DefaultMaxRequests = 4096;

/// Parses `--bytes-range LO:HI` (0 <= LO <= HI <= MaxBytes).
llvm::Expected<ByteBand> parseBytesRange(llvm::StringRef Text);

struct RequestSetOptions {
  /// The command line's request fields as written. Collective, Ranks and
  /// Root may hold lists (the forms above); the others are single values
  /// given to every request.
  RequestOverrides Fields;
  /// `--bytes` as written: a size or a list of them, each read once into a
  /// number before any request is made.
  std::optional<std::string> Bytes;
  /// `--bytes-range`: every size in it (then Bytes must be empty).
  std::optional<ByteBand> Range;
  /// At most this many combinations; more is a usage error that says how
  /// many were asked for and names --max-requests.
  uint64_t MaxRequests = DefaultMaxRequests;
  /// Checked on every combination's request once it is read, before any
  /// schedule is built (what the output can take: a backend's collectives).
  std::function<llvm::Error(const Request &)> Check;
};

/// One combination: its request, read and checked against the machine.
struct PlannedRequest {
  /// With Range set, Bytes is 0: the size comes from the band.
  Request R;
  /// The combination in words, for diagnostics and progress:
  /// "bcast on 5 ranks, root 3, 1024 bytes".
  std::string Label;
};

struct RequestSet {
  std::vector<PlannedRequest> Requests;
  /// Sizes every non-barrier request covers (from RequestSetOptions).
  std::optional<ByteBand> Range;
  /// What was left out and why ("root 5 is not among the nodes of groups
  /// of 1..5 ranks: skipped"), for the driver to print as notes.
  std::vector<std::string> Notes;
};

/// The items of a list option: \p Text split at commas outside parentheses
/// and brackets, each trimmed. An empty item is an error naming \p Option
/// ("--ranks: expected a list of items separated by commas, got '1,,3'").
llvm::Expected<std::vector<std::string>>
splitListOption(llvm::StringRef Text, llvm::StringRef Option);

/// The group sizes of `--ranks` in the order written, ranges expanded: "N",
/// "LO:HI" (1 <= LO <= HI), or a list of them. A size that appears twice,
/// or one beyond \p Limit (so that "1:1000000000" is refused before it is
/// expanded), is an error. Only the form is checked here, not the machine.
llvm::Expected<std::vector<int64_t>> parseRankList(llvm::StringRef Text,
                                                   uint64_t Limit);

/// Expands \p O into one checked request per combination on \p M, reading
/// the request file \p Path ("" for none) for the fields the command line
/// leaves out. On success the set holds at least one request. Errors name
/// the combination that failed (when there is more than one) and keep their
/// kind (a located error stays located).
llvm::Expected<RequestSet> expandRequests(llvm::StringRef Path,
                                          const RequestSetOptions &O,
                                          const Machine &M);

/// \p E with the combination \p Label said: a plain error gets "Label: "
/// before its text, a located one a note line after it
/// ("collc: note: in the request for Label"); the kind (LocatedError,
/// CheckFailure, InternalError) and so the exit status are kept.
llvm::Error inCombination(llvm::Error E, llvm::StringRef Label);

} // namespace collc

#endif
