/// \file
/// Transfer dependencies: which earlier transfers a transfer waits for.
///
/// The rule, the one every part of collc that orders transfers follows (the
/// cost pass, the wormhole simulator, the trace backends): a transfer may
/// start once its sender holds what it carries, that is once every transfer
/// into its sender from an earlier step whose pieces meet the pieces it
/// sends has ended. Signals carry no pieces and meet everything: a signal
/// waits for every earlier transfer into its sender, and every later send of
/// a rank waits for the signals it received. Transfers of one step never
/// wait for each other, and nothing waits for a transfer into another rank
/// (what a rank's sends wait for besides data, its ports, is the business of
/// whoever times them).
///
/// Transfers are numbered in schedule order, step by step and then as listed
/// in the step, from 0: TransferIds maps a number to its (step, index) and
/// back. Numbers fit in 32 bits.
///
/// Two ways to ask:
///  - transferDependencies(S): every transfer's list at once, as ids (an
///    event simulator releases a transfer when the last of them completes);
///  - ArrivalIndex: walking the schedule step by step, what a transfer of the
///    next step waits for among the steps recorded so far (the cost pass
///    asks only for the latest end, which it answers without listing them).
/// Both look only at the receives whose chunks can meet a send's: a pipeline
/// of k segments costs O(k log k), not O(k^2).
#ifndef COLLC_PASSES_DEPENDENCIES_H
#define COLLC_PASSES_DEPENDENCIES_H

#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace collc {

/// Transfer numbers <-> positions in a schedule's steps.
class TransferIds {
public:
  explicit TransferIds(const Schedule &S);

  /// Number of transfers: ids are 0..size()-1.
  uint32_t size() const { return StepBegin.back(); }
  uint32_t numSteps() const {
    return static_cast<uint32_t>(StepBegin.size() - 1);
  }
  /// The id of the first transfer of step \p Step (size() for numSteps()).
  uint32_t stepBegin(uint32_t Step) const { return StepBegin[Step]; }
  /// The id of S.Steps[R.Step].Transfers[R.Index].
  uint32_t id(TransferRef R) const { return StepBegin[R.Step] + R.Index; }
  /// The position of transfer \p Id.
  TransferRef ref(uint32_t Id) const;

private:
  std::vector<uint32_t> StepBegin; ///< Per step, then the total.
};

/// Every transfer's dependencies, compressed: the ids transfer Id waits for
/// are Deps[Begin[Id], Begin[Id + 1]), in increasing order.
struct TransferDependencies {
  TransferIds Ids;
  std::vector<uint64_t> Begin;
  std::vector<uint32_t> Deps;

  /// The transfers \p Id waits for, in increasing order.
  llvm::ArrayRef<uint32_t> of(uint32_t Id) const {
    return llvm::ArrayRef<uint32_t>(Deps).slice(Begin[Id],
                                                Begin[Id + 1] - Begin[Id]);
  }
};

/// The dependencies of every transfer of \p S. Needs no machine.
TransferDependencies transferDependencies(const Schedule &S);

/// The transfers each rank has received in the steps recorded so far, for
/// "which of them does this send wait for". Record a step with addStep()
/// once every transfer of it has been asked about (a step's receives count
/// only for the steps after it); the transfers must outlive the index, and
/// their End must be final when their step is recorded.
class ArrivalIndex {
public:
  /// \p Ranks: the schedule's size; \p Expected: how many transfers will be
  /// recorded (a capacity hint, which also bounds the index's buckets);
  /// \p Chunks: the schedule's NumChunks (0: not known, so that arrivals are
  /// indexed by chunk in an ordered map only).
  ArrivalIndex(int32_t Ranks, uint64_t Expected, int64_t Chunks = 0);
  ~ArrivalIndex();

  /// Records the transfers of \p St, numbered from \p FirstId.
  void addStep(const Step &St, uint32_t FirstId);

  /// For every transfer of \p St (the step after those recorded), the latest
  /// End among the recorded transfers it waits for (0 when none): when what
  /// it carries is at its sender. Into \p Ends, one per transfer.
  void latestEnds(const Step &St, std::vector<double> &Ends) const;

  /// Calls \p Fn with the id of every recorded transfer \p T waits for, in
  /// no particular order.
  void forEachDependency(const Transfer &T,
                         llvm::function_ref<void(uint32_t)> Fn) const;

private:
  struct ChunkIndex;
  /// A recorded step: its first arrival's number, its first transfer's id
  /// and its transfers. Arrivals are numbered in the order recorded; an
  /// arrival's transfer and id follow from its step's, so that an arrival
  /// takes 4 bytes (Prev) instead of a pointer and an id besides.
  struct StepRecord {
    uint32_t FirstArrival;
    uint32_t FirstId;
    const Transfer *Transfers;
  };
  void add(const Transfer &T);
  const StepRecord &recordOf(uint32_t A) const;
  const Transfer &transferOf(uint32_t A) const;
  uint32_t idOf(uint32_t A) const;
  double latestEnd(const Transfer &T) const;
  template <typename F> void visitCandidates(const Transfer &T, F &&Fn) const;
  template <typename F> void visitMeeting(const Transfer &T, F &&Fn) const;

  const int32_t Ranks;
  const int64_t Chunks;
  /// Bucket cells the chunk indexes may take in all, and have taken.
  const uint64_t BucketBudget;
  uint64_t BucketCells = 0;
  /// Per rank, its newest data and signal arrivals (None: none yet).
  std::vector<uint32_t> DataHead, SignalHead;
  /// Per rank, its last data send asked about by latestEnd (null: none),
  /// the rank's newest data arrival then, and the latest End among the
  /// arrivals it met. A send of the same pieces later (a rank that passes
  /// one block to every other in turn) looks only at the arrivals since, so
  /// that P such sends after P arrivals cost O(P), not O(P^2).
  struct LastAsked {
    const Transfer *T = nullptr;
    uint32_t Head = 0;
    double Ready = 0;
  };
  mutable std::vector<LastAsked> Asked;
  std::vector<StepRecord> Recorded;
  /// Per arrival, the previous one of its receiver (of data or of
  /// signals), or None.
  std::vector<uint32_t> Prev;
  /// Per arrival, whether its pieces are sorted by origin (meets' fast
  /// path), worked out once when it is recorded.
  std::vector<uint8_t> Sorted;
  /// Per arrival, its transfer's End (final when recorded), for latestEnd
  /// to pass over arrivals that cannot raise the latest end without reading
  /// their transfers.
  std::vector<double> ArrivalEnd;
  /// Per rank: data arrivals, and the latest End of all and of signals.
  std::vector<uint32_t> DataCount;
  std::vector<double> AllEnd, SignalEnd;
  /// Past a few data arrivals, a rank's are also indexed by chunk.
  std::unordered_map<int32_t, std::unique_ptr<ChunkIndex>> Index;
};

} // namespace collc

#endif
