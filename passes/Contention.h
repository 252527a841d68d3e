/// \file
/// The contention checker: finds every pair of transfers whose routes share
/// a directed channel (passes/Routes.h) while both are in the network.
///
/// "In the network". A transfer is in the network from the start of its send
/// to the end of its receive, [Start, End), the times of the cost pass. This
/// window contains every instant at which any flit of the message can hold
/// any channel of its route in a wormhole network (the header leaves after
/// the send starts; the tail is consumed before the receive ends), so two
/// transfers whose windows on a shared channel are disjoint never meet there:
/// no reported contention implies no blocking in a wormhole simulator that
/// honours the same start times. Windows are half-open: a transfer that
/// starts when another ends does not contend with it.
///
/// One exception, from the proof of paper 000's Theorem 3.2: two transfers
/// sent by the same node, the later starting at least t_hold (of the earlier
/// message) after the earlier, are not contention. The sender injects them
/// one after the other, the later message's header follows the earlier
/// message's tail, and under dimension-ordered routing the channels two
/// routes from one source share are a common prefix of both, so the later
/// worm never waits for the earlier one.
///
/// Without times (a schedule read back without its cost annotations) step s
/// stands for the window [s, s+1): transfers of one step are all in the
/// network together, transfers of different steps never are.
///
/// Cost: every transfer's route is expanded once and the (channel, transfer)
/// uses are sorted by channel and start, so the work is
/// O(U log U + reported pairs) for U channel uses, never quadratic in the
/// number of transfers.
#ifndef COLLC_PASSES_CONTENTION_H
#define COLLC_PASSES_CONTENTION_H

#include "ir/Machine.h"
#include "ir/Schedule.h"
#include "passes/Routes.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// A transfer by position: Steps[Step].Transfers[Index].
struct TransferRef {
  uint32_t Step = 0;
  uint32_t Index = 0;
};

/// Two transfers that hold one channel at the same time.
struct Conflict {
  TransferRef A, B; ///< A starts no later than B.
  Channel Shared;   ///< The first channel of A's route that both use.
  double From = 0;  ///< Overlap of the two windows, [From, To).
  double To = 0;
};

struct ContentionReport {
  /// False when the topology has no routing yet (see Routes.h); the schedule
  /// was then not checked and Why says so.
  bool Checked = true;
  std::string Why;
  /// Whether transfer times were used (false: step windows).
  bool Timed = true;
  uint64_t Transfers = 0;
  /// Channel uses: the sum of the routes' lengths.
  uint64_t ChannelUses = 0;
  /// Number of distinct conflicting transfer pairs.
  uint64_t NumConflicts = 0;
  /// The first MaxConflicts of them, in channel order.
  std::vector<Conflict> Conflicts;

  bool clean() const { return NumConflicts == 0; }
};

struct ContentionOptions {
  /// Keep at most this many conflicts in the report (all are counted).
  size_t MaxConflicts = 100;
  /// Stop at the first conflict (NumConflicts is then 0 or 1): enough for a
  /// verdict, and fast even when a schedule has millions of conflicts.
  bool StopAtFirst = false;
};

ContentionReport checkContention(const Schedule &S, const Machine &M,
                                 const ContentionOptions &Opts = {});

/// One line for a transfer: "step 2 #0 rank 1 (4,4) -> rank 6 (5,1) [55, 110)".
std::string describeTransfer(const Schedule &S, const Machine &M,
                             TransferRef R);
/// The report as text: a verdict line, then one line per conflict naming both
/// transfers, the channel and the overlap.
void printContention(llvm::raw_ostream &OS, const Schedule &S, const Machine &M,
                     const ContentionReport &R);

/// `--emit contention`: checks \p S and prints the report.
void emitContention(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

} // namespace collc

#endif
