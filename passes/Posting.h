/// \file
/// The posting plan: every rank's operations as collc's MPI runtime
/// (runtime/collc/runtime.h) executes them, where each keeps its data, and
/// what each waits for. The MPI backend lowers it to tables
/// (backends/MpiTables.h); the network evaluator (passes/NetworkCost.h) times
/// the same plan, so that it times what the runtime runs.
///
/// Operations. Every transfer is a send of its sender and a receive of its
/// receiver; a rank's operations are in schedule order (by step, then as
/// listed). What travels is a list of segments (PlannedSeg below; the
/// runtime's tables, runtime/collc/tables.h, copy them as they are):
/// chunks of blocks of the user's send or receive buffer, of scratch slots
/// (blocks a rank relays but does not keep), of the reduction accumulator or
/// of the result kept apart. A message whose segments are not one contiguous
/// run, and every reduction receive, is staged: packed into (or received
/// into) a staging area of the arena, measured in chunk units (the longest
/// chunk of a block: at most the bytes of ceil(units / NumChunks) units).
///
/// Memory by lifetime. A scratch block of a rank is live from the step of
/// its first receive to the step of its last use, a staging area from its
/// operation's step to that same step; both start Lookahead steps earlier,
/// so that receives can be posted that far ahead. Slots (scratch: whole
/// blocks, the blocks one receive brings first kept consecutive; staging:
/// chunk units) are assigned by first fit in order of the start
/// (assignSlots()), so two areas share memory only when the first is dead in
/// a step strictly before the second is live. The Lookahead of each rank is
/// the largest (doubling from 1, up to all steps) that keeps its scratch
/// slots within twice what it needs at Lookahead 0 and its staging within
/// twice that or one block, whichever is more. A schedule with a
/// StagingDepth of d > 1 lets the staging grow to d times what it needs at
/// Lookahead 0 (and a quarter more): a rank whose reduction receives each
/// take a whole vector (a tree reduce) then has d of them out at once, as
/// Open MPI's tree reduces receive into two buffers, where otherwise the
/// next waits for the area the previous one is applied from.
///
/// Bruck's all-to-all (an all-to-all named "bruck") relays half a million
/// blocks a rank at 65,536 ranks, too many to colour for each lookahead: a
/// rank keeps each relayed block in a slot of its hop class, (the step it
/// came in, the step it leaves in), each class's slots placed once by first
/// fit over the O(log^2 P) classes, at Lookahead 0 (Planner::hopSlot in
/// Posting.cpp). The plan checks that every slot changes hands in a receive
/// of a step after its last use, and waits as for coloured slots; a schedule
/// that fails the check is coloured as any other. Its slots are the
/// colouring's at a power of two, up to 1.26 times as many at the other
/// rank counts tests/passes/PostingTest.cpp draws.
///
/// The waits (indices of the rank's own operations):
///  - a send is posted once the receives it depends on (passes/Dependencies.h:
///    the data it forwards or combines, and signals) have been applied, once
///    the sends of the rank's latest earlier step that sends have completed
///    (one message at a time leaves a rank, as the schedules' one-port
///    models time them; an eager send completes as it is posted; not in a
///    schedule with SendsAhead, whose sends wait for their data only), and
///    once
///    every operation of an earlier step that uses its staging area has
///    finished (PostWaits);
///  - a receive is posted once the receive RecvWindow before it from the same
///    peer, and the one RankRecvWindow before it from any peer, have
///    finished (more receives out would split the links among the senders'
///    queued messages, which then all arrive late, and a simulator's time
///    grows with the messages in flight); receives of one step do not hold
///    each other back: those past the window wait as the step's first one
///    does, so a step in which a rank receives from many peers at once (the
///    one-shot algorithms, on a machine with a network) posts them together,
///    as its senders send them together; and once every operation of an
///    earlier step
///    that uses memory it writes (its destination, unless it is a
///    reduction's, and its staging area) has finished (PostWaits);
///  - a reduction receive lands in staging and is applied (folded into the
///    accumulator or result) in schedule order, once it arrived, the rank's
///    earlier receives were applied, and the sends of its step or earlier
///    that read the chunks it updates completed (ApplyWaits);
///  - a schedule in lockstep (Schedule::Lockstep) besides has every
///    operation of a rank wait for all the rank's operations of its latest
///    earlier step that has any (a loop of sendrecv);
///  - besides, a rank posts its sends to one peer in schedule order, and its
///    receives from one peer too, so MPI's ordered matching pairs every send
///    with the receive of its transfer.
/// "Finished": a send completed (its buffer may be reused), a receive
/// applied (a copy: arrived, and unpacked when staged).
///
/// No deadlock. Order a rank's operations by step, then as listed. Every
/// wait of an operation of step s is for an operation of a step before s,
/// except three: the receive windows wait for earlier receives, a combine's
/// apply for sends of step s, and the per-peer order for a posting. Suppose
/// every operation of the steps before s finishes. Then every send of step s is
/// posted (what it waits for is earlier, or an earlier posting to the same
/// peer), and so is every receive of step s (the receives it waits for, earlier
/// ones, are matched by sends that are posted, so they arrive, one after the
/// other); so every send of step s meets its receive and completes, every
/// receive arrives, and then every apply of step s happens (its sends
/// completed, and the receives before it, of steps up to s, are applied in
/// order). By induction on s, everything finishes.
#ifndef COLLC_PASSES_POSTING_H
#define COLLC_PASSES_POSTING_H

#include "ir/Schedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace collc {

/// Receives from one peer, and in all, a rank has out at once (see the file
/// comment), unless the schedule asks for more (Schedule::RecvWindow: then
/// that many from one peer, and in all).
constexpr int64_t RecvWindow = 2, RankRecvWindow = 8;

/// Buffers a segment addresses.
enum PlanBuf : uint8_t {
  SendBuf = 0,
  RecvBuf = 1,
  ScratchBuf = 2, ///< Whole blocks a rank relays but does not keep.
  AccBuf = 3,     ///< The reduction accumulator (the IR's value 0).
  ResultBuf = 4,  ///< Exscan: the result, kept apart from the accumulator.
};

/// What an operation does (PlannedOp::Flags).
enum PlanOpFlag : uint8_t {
  OpRecv = 1,    ///< Receive (else send).
  OpCombine = 2, ///< Reduction: fold into the accumulator (else copy).
  OpSignal = 4,  ///< No data: a zero-byte message.
};

/// How a received reduction value updates its segment (PlannedSeg::Mode).
enum PlanSegMode : uint8_t {
  SegRight = 1,      ///< Combine: the incoming value is the right operand.
  SegStore = 2,      ///< Combine into an empty value: store it.
  SegAlso = 4,       ///< The same chunks of the result (ResultBuf) too,
  SegAlsoRight = 8,  ///< ... as the right operand,
  SegAlsoStore = 16, ///< ... or stored (the result was empty).
};

/// Chunks [ChunkLo, ChunkHi) of blocks [Block, Block + NumBlocks) of buffer
/// Buf (a PlanBuf); Mode (PlanSegMode bits) for received reduction values.
struct PlannedSeg {
  int64_t Block;
  int64_t NumBlocks;
  int32_t ChunkLo, ChunkHi;
  uint8_t Buf;
  uint8_t Mode;
};

/// One operation of a rank.
struct PlannedOp {
  uint32_t Transfer = 0; ///< Its id (passes/Dependencies.h: TransferIds).
  int32_t Step = 0;
  int32_t Peer = 0;
  uint8_t Flags = 0; ///< PlanOpFlag bits.
  std::vector<PlannedSeg> Segs;
  /// Staging: first chunk unit and length (Stage < 0: none, the message
  /// goes straight to or from its buffer).
  int64_t Stage = -1, StageUnits = 0;
  /// Indices of the rank's operations it waits for before it is posted, and
  /// (reduction receives) before it is applied.
  std::vector<int32_t> PostWaits, ApplyWaits;

  bool isRecv() const { return Flags & OpRecv; }
};

/// One rank's program and what memory it needs.
struct RankPlan {
  std::vector<PlannedOp> Ops;
  /// Scratch blocks and staging chunk units it uses at most.
  int64_t ScratchSlots = 0, StagingUnits = 0;
  /// What it would need with every relayed block in its own slot and every
  /// staged message in its own area (the runtime before lifetimes).
  int64_t ScratchBlocksApart = 0, StagingUnitsApart = 0;
  /// How many steps ahead its receives may be posted.
  int64_t Lookahead = 0;
};

struct PostingPlan {
  std::vector<RankPlan> Ranks;
  /// A reduction whose fold order is rank order only for a commutative
  /// operator.
  bool NeedsCommutative = false;
};

/// Plans the verified schedule \p S. Fails for what the runtime does not
/// execute: a transfer that is not between two ranks, a result kept apart
/// (Transfer::From/Into) by anything but an exscan, or a transfer folding
/// higher ranks into both of a rank's values.
llvm::Expected<PostingPlan> planPosting(const Schedule &S);

/// Plans rank \p Rank of \p S alone: its RankPlan equals planPosting(S)'s,
/// the other ranks' are left empty. \p S needs to hold only the transfers
/// \p Rank takes part in, in their steps and in the order the whole schedule
/// lists them (algorithms/RankParts.h), so the work grows with that rank's
/// part and the number of steps. NeedsCommutative is left false: one rank's
/// folds do not say whether the others' keep rank order.
llvm::Expected<PostingPlan> planRankPosting(const Schedule &S, int32_t Rank);

/// A request for memory: Size consecutive slots live in steps
/// [First, Last].
struct SlotRequest {
  int64_t First = 0, Last = 0, Size = 1;
};

/// Interval colouring by first fit in order of First (ties: as given): the
/// first slot of each request, such that two requests live in a common step
/// never share a slot. Returns the slots used (one past the highest). With
/// unit sizes that is the most requests live in one step. Steps are step
/// indices (0 <= First <= Last): requests are ordered and expired by
/// counting over them, and each takes O(log) time (the lowest freed slot
/// from a heap, or the lowest free run from a segment tree), so plans of
/// thousands of relayed blocks stay fast.
int64_t assignSlots(llvm::ArrayRef<SlotRequest> Requests,
                    std::vector<int64_t> &Slots);

/// Bytes of the scratch (slots and staging) \p R needs when a block has
/// \p BlockBytes bytes and a chunk unit (the longest chunk) \p UnitBytes;
/// \p Apart: every block and staged message apart, as before lifetimes.
uint64_t scratchBytes(const RankPlan &R, uint64_t BlockBytes,
                      uint64_t UnitBytes, bool Apart = false);

/// The rank whose scratch is largest for schedule \p S's message size (the
/// lowest such rank), and its bytes; \p Apart as above.
std::pair<int32_t, uint64_t> peakScratch(const PostingPlan &Plan,
                                         const Schedule &S, bool Apart = false);

/// What peakScratch says of both ways of counting: the rank whose scratch is
/// largest (the lowest such rank) and its bytes, and the largest with every
/// block apart.
struct ScratchPeak {
  int32_t Rank = 0;
  uint64_t Bytes = 0;
  uint64_t Apart = 0;
};

/// peakScratch of planPosting(\p S), with and without Apart, planned rank by
/// rank (planRankPosting on each rank's own transfers): the memory it takes
/// grows with the largest rank's part and an index of the transfers (16
/// bytes each: a reference from its sender and one from its receiver), not
/// with every rank's plan at once, which for a schedule of
/// millions of transfers takes gigabytes. Fails as planPosting(\p S) does.
llvm::Expected<ScratchPeak> peakScratchByRank(const Schedule &S);

} // namespace collc

#endif
