/// \file
/// The contention checker: finds every pair of transfers whose routes share
/// a directed channel (passes/Routes.h) while both are in the network.
///
/// "In the network". Without wormhole parameters (parameterized, linear and
/// the other models) a transfer is in the network from the start of its send
/// to the end of its receive, [Start, End), the times of the cost pass, on
/// every channel of its route. One exception, from the proof of paper 000's
/// Theorem 3.2: two transfers sent by the same node, the later starting at
/// least t_hold (of the earlier message) after the earlier, are not
/// contention: the sender injects them one after the other, and under
/// dimension-ordered routing the channels two routes from one source share
/// are a common prefix, so the later worm follows the earlier one's tail.
/// That is the paper's assumption about its machine; these models cannot
/// check it.
///
/// On a machine with a network (M.Net: the network evaluator's times, with
/// sends posted as data arrives) one rank's messages to one rank are one
/// stream: they take one route and MPI delivers them in order, so a
/// pipeline's segments in flight together on their route share its links
/// with each other only, and are not reported.
///
/// With a wormhole model (s_s, s_d, c_d, r_s, r_d) the checker knows when a
/// worm holds each channel, as sim/Wormhole.h defines it: a message
/// of m flits (L = max(1, m) in the network) sent at Start enters the network
/// at Inject = Start + s_s + m s_d; its header takes channel i (1-based, of
/// k) at Inject + (i-1) c_d and its tail frees it at
/// Inject + min(i + L, k + L - 1) c_d (wormChannelWindow). Two uses of a
/// channel contend when these windows overlap; there is no exception. Two
/// sends of one node t_hold apart then contend exactly when the later header
/// reaches a shared channel before the earlier tail has left it; for equal
/// sizes, starts exactly t_hold apart and a shared channel before the
/// earlier route's last, that is s_s + m s_d < (m + 1) c_d. The paper's
/// exception is thus derived where it is sound (paper 000's parameters:
/// 2000 + 2m >= 2m + 2) and reported where it is not.
///
/// Conservative with respect to the simulator: when the simulated transfers
/// start at the cost pass's times (every rank receives at most once before it
/// sends, as in broadcasts and multicasts), no reported contention implies no
/// blocked time, and with wormhole channel windows the converse holds too:
/// the earliest overlap is a header finding its channel taken. Windows are
/// half-open: a use that starts when another ends does not contend with it.
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

/// When a worm holds one channel of its route, uncontended: [From, To).
struct ChannelWindow {
  double From = 0, To = 0;
};

/// The window of channel \p Pos (1-based) of a \p Hops-channel route for a
/// message of \p Bytes sent at \p Start under wormhole parameters \p W: the
/// header takes it at Inject + (Pos-1) c_d, the tail frees it at
/// Inject + min(Pos + L, Hops + L - 1) c_d, Inject = Start + s_s + m s_d,
/// L = max(1, m) flits.
ChannelWindow wormChannelWindow(const WormholeParams &W, uint64_t Bytes,
                                unsigned Hops, unsigned Pos, double Start);

/// Two transfers that hold one channel at the same time.
struct Conflict {
  TransferRef A, B; ///< A enters the channel no later than B.
  Channel Shared;   ///< The first channel of A's route that both use.
  double From = 0;  ///< Overlap of the two windows on it, [From, To).
  double To = 0;
};

struct ContentionReport {
  /// False when the topology has no routing yet (see Routes.h); the schedule
  /// was then not checked and Why says so.
  bool Checked = true;
  std::string Why;
  /// Whether transfer times were used (false: step windows).
  bool Timed = true;
  /// Whether each channel use had its own wormhole window (a timed check on
  /// a wormhole model) rather than its transfer's [Start, End).
  bool PerChannel = false;
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
/// `--verify`: a CheckFailure (ir/Diagnostic.h) naming every conflicting
/// pair when \p S has contention on \p M's routes, success otherwise.
llvm::Error requireContentionFree(const Schedule &S, const Machine &M);

void printContention(llvm::raw_ostream &OS, const Schedule &S, const Machine &M,
                     const ContentionReport &R);

/// `--emit contention`: checks \p S and prints the report.
void emitContention(llvm::raw_ostream &OS, const Schedule &S, const Machine &M);

} // namespace collc

#endif
