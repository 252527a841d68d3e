/// \file
/// The reduction flow: which contributors each of a rank's two values holds,
/// step by step, and how each chunk a reduction transfer delivers updates the
/// receiver's values. The verifier checks reductions with it
/// (passes/Verify.h) and the MPI backend lowers them with it
/// (backends/Mpi.cpp), so that both read a reduction schedule alike.
///
/// The model (ir/Schedule.h, Transfer::From/Into): per chunk, every rank keeps
/// value 0, the partial result, which starts as its own contribution {r}, and
/// value 1, the result kept apart, which starts empty. A transfer carries,
/// per chunk its pieces name, value From of its sender; the origins of its
/// pieces over that chunk are the contributors it carries. Every send of a
/// step reads the values as they were before the step; then the step's
/// transfers are delivered in order, each updating the values Into of its
/// receiver, chunk by chunk in increasing order (Fold):
///  - Store: a Copy, or a Combine into an empty value: the value becomes the
///    incoming one;
///  - Left: value = incoming op value; Right: value = value op incoming, when
///    the incoming contributors all lie above the value's (so that a
///    non-commutative operator sees its operands in rank order);
///  - Twice (refused): the incoming contributors and the value's overlap: a
///    contribution would count twice;
///  - Unordered (refused, non-commutative operators only): the two are not
///    adjacent rank ranges, so no order of the operands keeps rank order.
/// A refused update is not applied, and neither are the transfer's later
/// chunks into the same value; the verifier reports the refused one.
#ifndef COLLC_PASSES_REDUCTIONFLOW_H
#define COLLC_PASSES_REDUCTIONFLOW_H

#include "ir/Interval.h"
#include "ir/Schedule.h"
#include "passes/RunMap.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace collc {

/// How a delivered chunk updates one value of the receiver (see the file
/// comment).
enum class Fold : uint8_t {
  /// Not updated: Transfer::Into leaves the value alone, or an earlier
  /// chunk's update of the value was refused.
  None,
  Store,     ///< value = incoming.
  Left,      ///< value = incoming op value.
  Right,     ///< value = value op incoming.
  Twice,     ///< Refused: a contribution would count twice.
  Unordered, ///< Refused: not adjacent, and the operator does not commute.
};

/// Consecutive chunks a transfer carries that update the receiver's values
/// alike.
struct ChunkRun {
  Interval Chunks;
  /// Per receiver value (0 the partial result, 1 the result kept apart).
  Fold Into[2] = {Fold::None, Fold::None};
};

/// One chunk's contributors that disagree: what a transfer carries and what
/// a value holds.
struct FlowConflict {
  int64_t Chunk = -1; ///< -1: no conflict.
  IntervalSet Carried, Held;
  explicit operator bool() const { return Chunk >= 0; }
};

/// What one transfer does in the flow.
struct TransferFlow {
  /// The chunks it carries, in increasing order.
  std::vector<ChunkRun> Runs;
  /// The first chunk whose pieces name contributors other than those the
  /// sender's value From holds (Held). The transfer still delivers what its
  /// pieces name.
  FlowConflict Sent;
  /// Per receiver value, the refused update (Held: what the value holds).
  FlowConflict Refused[2];
};

/// How one chunk's update of a value goes (see the file comment): \p Mine is
/// what the value holds, \p In what arrives by a transfer of kind \p Kind.
/// Updates \p Mine unless the update is refused (Twice, Unordered). Sets
/// \p NeedsCommutative when it joins sets that are not adjacent.
Fold foldInto(IntervalSet &Mine, const IntervalSet &In, TransferKind Kind,
              bool Commutative, bool &NeedsCommutative);

/// The flow followed step by step, for callers that choose which transfers
/// take part (the verifier leaves out those it finds malformed). Each rank's
/// values are kept as runs of chunks that hold the same contributors
/// (passes/RunMap.h), so that the work grows with the pieces the transfers
/// carry, not with ranks x chunks.
class ReductionFlow {
public:
  explicit ReductionFlow(const Schedule &S);

  /// Follows one step made of \p Transfers, in order. They must be well
  /// formed for a reduction (ranks in range, no signal, pieces inside the
  /// data space, Transfer::From/Into in range). Returns their flows, index by
  /// index.
  std::vector<TransferFlow> step(llvm::ArrayRef<const Transfer *> Transfers);

  /// The contributors value \p V of rank \p R holds for chunk \p C.
  const IntervalSet &value(int V, int32_t R, int64_t C) const {
    return Values[V][R].at(C);
  }
  /// Value \p V of rank \p R over all chunks, as runs.
  const RunMap<IntervalSet> &runs(int V, int32_t R) const {
    return Values[V][R];
  }
  /// Whether an update so far joined contributor sets that are not adjacent
  /// rank ranges: the result is then in rank order only if the operator
  /// commutes.
  bool needsCommutative() const { return NeedsCommutative; }

private:
  const Schedule &S;
  const int32_t P;
  const int64_t K;
  /// Per value, per rank.
  std::vector<RunMap<IntervalSet>> Values[2];
  bool NeedsCommutative = false;
};

/// The same flow followed chunk by chunk, one contributor set per rank, value
/// and chunk: the reference ReductionFlow is tested against, and what the
/// atom-exact verifier (VerifyOptions::Tracking::Atoms) follows.
class ChunkReductionFlow {
public:
  explicit ChunkReductionFlow(const Schedule &S);

  /// As ReductionFlow::step.
  std::vector<TransferFlow> step(llvm::ArrayRef<const Transfer *> Transfers);

  /// The contributors value \p V of rank \p R holds for chunk \p C.
  const IntervalSet &value(int V, int32_t R, int64_t C) const {
    static const IntervalSet None;
    return Values[V].empty() ? None : Values[V][static_cast<size_t>(R) * K + C];
  }
  bool needsCommutative() const { return NeedsCommutative; }

private:
  /// Value 1 (the result kept apart, exscan's) is held only once a transfer
  /// updates it: the other reductions never do, and at P ranks of P chunks
  /// (the ring reductions) P^2 empty sets take 32 bytes each.
  IntervalSet &at(int V, int32_t R, int64_t C) {
    if (Values[V].empty())
      Values[V].assign(static_cast<size_t>(P) * K, IntervalSet{});
    return Values[V][static_cast<size_t>(R) * K + C];
  }

  const Schedule &S;
  const int32_t P;
  const int64_t K;
  std::vector<IntervalSet> Values[2];
  bool NeedsCommutative = false;
};

/// The flow of a whole reduction schedule.
struct ScheduleFlow {
  /// Per step and transfer, index-aligned with Schedule::Steps.
  std::vector<std::vector<TransferFlow>> Steps;
  /// ReductionFlow::needsCommutative at the end.
  bool NeedsCommutative = false;
};

/// Follows every transfer of the reduction schedule \p S. A transfer the flow
/// cannot follow (a rank or piece outside the schedule, a signal,
/// Transfer::From/Into out of range) is left out with an empty flow; on a
/// verified schedule there is none.
ScheduleFlow reductionFlow(const Schedule &S);

} // namespace collc

#endif
