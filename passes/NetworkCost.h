/// \file
/// The network evaluator: fills every transfer's Start and End and the
/// schedule's Makespan by a flow-level simulation of the schedule on the
/// machine's network (ir/Network.h), as collc's MPI runtime
/// (runtime/collc/runtime.h) runs it and as SimGrid's SMPI 3.32 network
/// model times it. The cost pass (passes/Cost.h) calls it whenever the
/// machine has a network.
///
/// What happens to one transfer, in order:
///  1. its sender posts the send and its receiver posts the receive, when
///     the posting rule (below) lets each of them; the sender spends
///     Network::SendOverhead before each send it posts;
///  2. the message starts moving once both are posted (SMPI matches a send
///     with its receive before any data moves, eager or not): that is Start;
///  3. the latency phase: the route's latency (the sum of its links'
///     latencies) times the band's latency factor; the message holds no
///     bandwidth meanwhile;
///  4. the data phase: its bytes plus Network::EnvelopeBytes move at a rate
///     that changes whenever another message starts or ends its data phase:
///     the weighted max-min fair share below, times the band's bandwidth
///     factor. When the last byte arrives the receive completes: that is
///     End. A rendezvous send (Network::RendezvousBytes) completes then too;
///     an eager send completed when it was posted.
/// Two ranks on one node exchange over the IntraNode class only: its
/// latency, and its bandwidth for every message alone (a loopback shares
/// nothing) unless the class is half duplex (and no fat pipe): then it is
/// one resource of the node that all messages between two of its ranks
/// share, both directions together (what collc-probe writes for a host
/// whose processes share its cores and memory).
///
/// Sharing (SimGrid's LMM max-min system): every link direction (both
/// directions together for a half-duplex class) is a resource with the
/// class's bandwidth; every node's injection and ejection, when
/// Network::InjectionLinks or InjectionBandwidth limit them, are resources
/// too, or one SimGrid limiter per node (Network::SharedLimiter) that every
/// message crossing the node uses. A message in its data phase uses each
/// link of its route once and, at Network::CrossTraffic of its rate, each
/// link of the reverse route; its injection and ejection once (a limiter
/// like a link: once for the route, at CrossTraffic for the reverse). Rates are
/// the weighted max-min fair allocation: a message of penalty p gets lambda /
/// p, where lambda rises until a resource it uses is full, p = route latency +
/// sum over the route of WeightS / link bandwidth. A message's share is at most
/// the slowest link's bandwidth on its route and TcpGamma / (2 x route
/// latency). docs/network.md says where this matches SimGrid and where it
/// approximates.
///
/// Posting rules. AsDataArrives (the default) is what collc's MPI runtime
/// does: it follows the posting plan of passes/Posting.h, the one the MPI
/// backend lowers to tables. A rank posts each operation once what it waits
/// for has finished and after its operations of the same direction with the
/// same peer that come before it: receives ahead, as far as the memory they
/// write is free (scratch slots and staging areas reused by lifetime);
/// sends once the receives they depend on (passes/Dependencies.h) were
/// applied, without waiting for the rank's earlier sends. A send finishes
/// when it completes (an eager one as it is posted, a rendezvous one at its
/// End); a copy received finishes at its End; a reduction receive is applied
/// in schedule order once it arrived and the sends reading what it updates
/// completed. A schedule the MPI backend cannot lower is timed StepByStep.
/// StepByStep is the runtime as it was, kept for comparison: a rank takes
/// its steps in order; a step that sends first waits until every receive and
/// every send the rank posted before has completed; then it posts the
/// step's receives, then its sends; a step that only receives posts at once.
///
/// Performance: events that fall together (within a relative 1e-9) are
/// handled as one, and a change re-solves the sharing only among the
/// messages it can reach through shared resources (passes/MaxMinSharing.h
/// solves the sharing; this file keeps the events and the posting). The
/// solve fills the resources in order of their level (a 4-ary heap, lazily
/// raised) and leaves out those that cannot fill first (a level at or above
/// the highest bound of their users); none of this changes a result: the
/// order of the fill is total, so the times are bit for bit those of a plain
/// heap (bench-network-corpus checks a corpus).
#ifndef COLLC_PASSES_NETWORKCOST_H
#define COLLC_PASSES_NETWORKCOST_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace collc {

/// When a rank posts its receives and sends (see the file comment).
enum class PostingRule {
  StepByStep,    ///< collc's MPI runtime before receives were posted ahead.
  AsDataArrives, ///< The runtime: receives ahead, sends as data arrives.
};

struct NetworkCostOptions {
  PostingRule Posting = PostingRule::AsDataArrives;
};

/// What one evaluation did (for benchmarks).
struct NetworkCostStats {
  uint64_t Transfers = 0;
  /// Moments at which something happened (events that fall together count
  /// once), and how many times the sharing was solved.
  uint64_t Moments = 0, Solves = 0;
  /// Messages re-rated, summed over the solves.
  uint64_t Rerated = 0;
};

/// Fills Start, End and Makespan of \p S on \p M, which has a network that
/// checkNetwork() (readers/MachineCheck.h) accepts.
NetworkCostStats estimateNetworkCost(Schedule &S, const Machine &M,
                                     const NetworkCostOptions &Opts = {});

} // namespace collc

#endif
