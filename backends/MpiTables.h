/// \file
/// Lowering a schedule to the MPI runtime's tables (runtime/collc/tables.h),
/// in memory: `--emit mpi` (backends/Mpi.h) prints them as C++ arrays, and a
/// program that links the compiler could hand them to the runtime as they are.
///
/// The tables are the posting plan (passes/Posting.h): every transfer is one
/// operation of its sender and one of its receiver, in step order; what
/// travels is a list of segments of the user's buffers, the scratch slots
/// (blocks a rank forwards but does not keep, assigned by lifetime), the
/// reduction accumulator or the result kept apart; each operation's staging
/// area and waits are a record in Waits. Equal segment lists and equal
/// records are stored once. A reduction's receive segments say how each chunk
/// updates the receiver's values, as passes/ReductionFlow.h follows them.
#ifndef COLLC_BACKENDS_MPITABLES_H
#define COLLC_BACKENDS_MPITABLES_H

#include "ir/Schedule.h"
#include "passes/Posting.h"
#include "runtime/collc/tables.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace collc {

/// The tables of one schedule.
struct MpiTables {
  /// Size + 1 offsets into Ops: rank r's operations are
  /// Ops[RankOps[r] .. RankOps[r+1]).
  std::vector<int64_t> RankOps;
  std::vector<rt::Op> Ops;
  std::vector<rt::Seg> Segs;
  /// Staging and wait records (runtime/collc/tables.h).
  std::vector<int32_t> Waits;
  /// The plan the tables were written from (per rank: memory, lookahead).
  PostingPlan Plan;
  /// Scratch blocks the busiest rank needs.
  int64_t ScratchBlocks = 0;
  /// A reduction whose fold order is rank order only for a commutative
  /// operator.
  bool NeedsCommutative = false;

  /// The runtime's description of \p S served with these tables for message
  /// sizes [MinBytes, MaxBytes]. It points into this object and \p S.
  rt::Variant variant(const Schedule &S, uint64_t MinBytes,
                      uint64_t MaxBytes) const;
};

/// Checks that \p T are tables the runtime can run safely as a schedule of
/// \p Coll on \p Ranks ranks with root \p Root, its blocks split in
/// \p NumChunks chunks: the invariants of every table lowerToTables writes,
/// checked on the tables alone (backends/TableCheck.cpp):
///  - memory: every segment addresses a buffer the collective gives its
///    rank (a rooted collective's buffers by role), within its blocks and
///    chunks (64-bit arithmetic, no overflow); receives never write the send
///    buffer; scratch slots within ScratchBlocks, which is at most the blocks
///    the collective has; staging within what the rank's staged operations
///    move together; a message that is not one contiguous run is staged, and
///    so is every reduction receive;
///  - flags: combining and receive modes only in reductions (the result kept
///    apart only in an exscan), signals carry nothing, data something;
///  - pairing: the k-th send of rank a to rank b and the k-th receive of b
///    from a have the same step and kind and move the same chunks of the
///    same number of blocks, so they match byte for byte at every size;
///  - progress: a run of every rank under the runtime's posting rules
///    (runtime/collc/runtime.h), in which a send completes only once its
///    receive is posted (MPI's rendezvous, the case that waits most),
///    finishes every operation: no wait cycle, nothing left unmatched.
/// The error names the first rank and operation that fails. Work and memory
/// are linear in the tables' size.
llvm::Error checkTables(const MpiTables &T, Collective Coll, int32_t Ranks,
                        int32_t Root, int64_t NumChunks);

/// Lowers the verified schedule \p S. Fails for what the runtime does not
/// execute: a transfer that is not between two ranks, a result kept apart
/// (Transfer::From/Into) by anything but an exscan, or a transfer folding
/// higher ranks into both of a rank's values.
llvm::Expected<MpiTables> lowerToTables(const Schedule &S);

/// The tables of rank \p Rank of \p S alone (planRankPosting): RankOps
/// still has S.size() + 1 offsets, the other ranks with no operation; the
/// rank's operations, segments and wait records equal what lowerToTables(S)
/// gives it, and ScratchBlocks is what that rank needs. \p S may be the
/// whole schedule or the rank's part of it (algorithms/RankParts.h).
/// checkTables() needs every rank and does not apply.
llvm::Expected<MpiTables> lowerRankTables(const Schedule &S, int32_t Rank);

} // namespace collc

#endif
