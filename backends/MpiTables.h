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

/// Lowers the verified schedule \p S. Fails for what the runtime does not
/// execute: a transfer that is not between two ranks, a result kept apart
/// (Transfer::From/Into) by anything but an exscan, or a transfer folding
/// higher ranks into both of a rank's values.
llvm::Expected<MpiTables> lowerToTables(const Schedule &S);

} // namespace collc

#endif
