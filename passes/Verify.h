/// \file
/// The verifier: an independent check of a schedule against the meaning of
/// its collective and the machine's rules. The driver runs it on every
/// schedule before any backend; a failure there is an internal error.
///
/// Checked:
///  - structure: ranks in range, no self-transfers, pieces inside the data
///    space, each transfer's bytes equal to what its pieces carry;
///  - ports: per step a rank sends at most `ports` and receives at most
///    `ports` transfers (portsPerStep: any number on a machine with a
///    network);
///  - data flow, by simulating who holds what step by step (what arrives in a
///    step can be forwarded from the next step on):
///      * replicated data (bcast, multicast, allgather): a rank sends only
///        chunks it holds, receives each chunk exactly once, and at the end
///        every rank holds every chunk of every origin;
///      * personalized data (scatter, gather, alltoall): a rank forwards only
///        blocks it holds, no rank receives a block it already holds, and at
///        the end every block M[a][b] is at rank b;
///      * reductions (reduce, allreduce, scan), followed as
///        passes/ReductionFlow.h says: a rank sends exactly its
///        current partial result, every contribution is combined exactly
///        once, non-commutative operators combine only adjacent rank ranges
///        in order, and at the end the root (reduce), every rank (allreduce)
///        or rank r (scan: ranks 0..r) holds the full result; exscan keeps
///        its result apart (Transfer::From/Into, value 1), and rank r > 0
///        ends holding ranks 0..r-1 there;
///      * signals (barrier): every rank ends knowing, through a chain of
///        signals, that every other rank arrived (happens-before);
///  - on star and macro-star graphs, the call model (passes/CallModel.h):
///    every transfer joins adjacent nodes, a node is in one call per step;
///  - timing, when the cost pass has run: a receive ends t_end after its send
///    starts, consecutive sends (and receives) of a port are at least t_hold
///    apart, and nothing is sent before it arrived. On a machine with a
///    network (passes/NetworkCost.h) only the last rule applies: message
///    times depend on what else shares the links, not on a formula.
#ifndef COLLC_PASSES_VERIFY_H
#define COLLC_PASSES_VERIFY_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace collc {

/// What the verifier follows atom by atom (personalized data always,
/// replicated data and reductions under VerifyOptions::Tracking::Atoms): a
/// schedule beyond these limits is reported as a problem instead of being
/// checked (it would take minutes or gigabytes). Builders keep their
/// personalized schedules within them.
/// Messages a rank may send, and receive, in one step on \p M: the machine's
/// ports; on a machine with a network any number, since the MPI runtime posts
/// a step's sends at once and the network evaluator (passes/NetworkCost.h)
/// shares the rank's links among them.
unsigned portsPerStep(const Machine &M);

struct VerifyLimits {
  /// Atoms of the data space: ranks x chunks (x blocks per rank for
  /// allgather and all-to-all, which the dense tracker of large all-to-alls
  /// handles within its own budget).
  static constexpr uint64_t MaxAtoms = uint64_t(1) << 26;
  /// Atoms all transfers together move (a piece of o origins, d dests and c
  /// chunks moves o x d x c for personalized data, o x c for replicated data,
  /// c for reductions).
  static constexpr uint64_t MaxMoved = uint64_t(1) << 28;
  /// MaxMoved for an all-to-all the dense tracker follows (BlockFlow, from
  /// 1,024 ranks on): it walks each piece's rectangle row by row in memory
  /// order, so that a store-and-forward exchange's 1.06e9 block hops
  /// (torus-row-column on a 64x64 torus) take seconds.
  static constexpr uint64_t MaxDenseMoved = uint64_t(1) << 31;
};

struct VerifyOptions {
  /// Check Start/End against the model (skipped for transfers without times).
  bool Timing = true;
  /// Stop after this many problems.
  size_t MaxProblems = 20;
  /// How an all-to-all's blocks are tracked: Auto uses the dense
  /// block-exact tracker (passes/BlockFlow.h) from 1024 ranks on, the
  /// per-rank hash maps below; Dense and PerRank force one or the other.
  enum class BlockState { Auto, PerRank, Dense };
  BlockState AlltoallBlocks = BlockState::Auto;
  /// How replicated data and reductions are followed: Runs keeps each
  /// rank's state as runs of origins and chunks that share one state
  /// (passes/HeldFlow.h, passes/ReductionFlow.h), so that the work grows
  /// with the pieces the transfers carry and only the chunks of one message
  /// are bounded (by VerifyLimits::MaxAtoms, as the passes after it go chunk
  /// by chunk); Atoms
  /// follows every atom within VerifyLimits: the reference the runs are
  /// tested against. Auto follows replicated data and reductions as runs
  /// when their pieces carry more than a few atoms each on average or they
  /// exceed VerifyLimits, atom by atom otherwise (pieces of one chunk cost
  /// less as atoms). Personalized data is followed atom by atom whatever the
  /// choice. All three find the same problems, word for word.
  enum class Tracking { Auto, Runs, Atoms };
  Tracking Flow = Tracking::Auto;
};

/// Every problem found, one sentence each; empty when the schedule is correct.
std::vector<std::string> verifySchedule(const Schedule &S, const Machine &M,
                                        const VerifyOptions &Opts = {});

/// verifySchedule as an llvm::Error listing the problems.
llvm::Error verify(const Schedule &S, const Machine &M,
                   const VerifyOptions &Opts = {});

} // namespace collc

#endif
