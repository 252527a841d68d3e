/// \file
/// The step pricing: the network evaluator's rules (passes/NetworkCost.h)
/// with the sharing of the links fixed per step instead of re-solved at
/// every event, so that a schedule of P ranks and T transfers is priced in
/// O(T x route length) time, not O(T x messages in flight x route length).
/// The cost pass (passes/Cost.h) uses it instead of the flow-level
/// evaluator on schedules of more than StepPricingRanks ranks, and on those
/// with a step of more than StepPricingTransfers transfers, where the latter
/// takes seconds to minutes per candidate.
///
/// What it keeps of the evaluator: the route of every message (its links'
/// latencies summed, times the protocol band's latency factor), the band's
/// bandwidth factor, the envelope bytes, the sender's overhead before each
/// send it posts (a rank's sends leave one after the other), the intra-node
/// class for two ranks on one node, the TCP-gamma bound on a message's rate,
/// the injection and ejection limits, and when a send may start: once what
/// it carries has arrived at its sender (passes/Dependencies.h).
///
/// What it approximates: the messages of one step share each link (and
/// each node's injection and ejection) as if they crossed it together from
/// start to end: a message of b bytes on a link of bandwidth B that carries
/// the step's messages o takes min(b x sum_o w_o / w, sum_o b_o) / B, with
/// w = 1 / (route latency + weight-S over the route) the evaluator's
/// weights; its data phase takes the longest of these over its links. The
/// acknowledgements' cross traffic is left out, and a receive is taken as
/// posted when the send is (collc's runtime posts receives ahead).
/// docs/network.md gives how far it lies from the flow-level evaluator.
#ifndef COLLC_PASSES_STEPCOST_H
#define COLLC_PASSES_STEPCOST_H

#include "ir/Machine.h"
#include "ir/Schedule.h"

#include <cstdint>
#include <limits>
#include <memory>

namespace collc {

/// Above this many ranks the cost pass prices a schedule on a machine with
/// a network by steps (estimateStepCost) instead of the flow-level
/// evaluator: at 4,096 ranks the latter takes seconds per candidate.
constexpr int32_t StepPricingRanks = 2048;

/// A schedule with a step of more than this many transfers (an exchange of
/// every pair of more than 128 ranks: the direct all-to-all,
/// reduce-scatter-direct) is priced by steps at any rank count: the
/// flow-level evaluator re-solves the sharing among all of a step's messages
/// at each of hundreds of moments where some end, so its work grows as the
/// square of the step's size (a 256-rank reduce-scatter-direct allreduce of
/// 1 MiB on a 16x16 torus: 186 s and 0.76 GB; at 1,024 ranks over 20 GB).
constexpr size_t StepPricingTransfers = size_t(1) << 14;

/// Whether the cost pass prices \p S on \p M by steps: a network, and more
/// than StepPricingRanks ranks or a step of more than StepPricingTransfers
/// transfers.
bool pricedBySteps(const Schedule &S, const Machine &M);
/// Whether it prices every schedule of \p Ranks ranks on \p M by steps.
bool pricedBySteps(int64_t Ranks, const Machine &M);

/// The least time the step pricing gives a transfer of at least \p MinBytes
/// bytes on network \p N, from when what it carries is at its sender to its
/// end: the sender's overhead, then one link of the least latency and the
/// most bandwidth (or, where \p NodesShared, within a node, when that is
/// faster) at the factors of the band it falls in. A chain of L transfers,
/// each carrying what the one before delivered, ends no earlier than L
/// times this: a bound for a builder whose schedules hold such a chain
/// (AlgorithmInfo::AutoBound). With \p Hops, over a route of that many
/// links (each of the least latency; 0: within a node, whatever
/// \p NodesShared says).
double leastTransferTime(const Network &N, uint64_t MinBytes, bool NodesShared,
                         unsigned Hops = 1);

/// leastTransferTime between two nodes of \p M (which has a network), by the
/// links a route between them crosses at the least: Topology::distance on a
/// mesh, torus or hypercube (their routes are minimal), else one; within a
/// node, the intra-node class. On a mesh, torus or hypercube the hops of a
/// chain of transfers from A to B add up to at least distance(A, B), so a
/// chain ends no earlier than one transfer's least time from A to B past its
/// first overhead. Kept per hop count, for bounds that price a tree's
/// every edge (the knomial radices, edge-disjoint).
class LeastHopTime {
public:
  LeastHopTime(const Machine &M, uint64_t MinBytes);
  double operator()(int64_t NodeA, int64_t NodeB) const {
    const unsigned H = NodeA == NodeB ? 0
                       : ByDistance   ? Topo.distance(NodeA, NodeB)
                                      : 1;
    return H < Times.size() ? Times[H] : at(H);
  }
  /// On a mesh, torus or hypercube whose links the step pricing books one
  /// message after the other (no fat pipe), the most links a node's routes
  /// leave it by, two a dimension; else 0. Of n transfers a rank sends to
  /// other nodes, ceil(n / linksPerNode()) leave by one link, which is busy
  /// for each at least leastLinkBusy() (its bytes at the fastest link's
  /// bandwidth, at the band's factor) from the first one's start on.
  int64_t linksPerNode() const;
  double leastLinkBusy() const;

private:
  double at(unsigned Hops) const;

  const Topology &Topo;
  const Network &Net;
  uint64_t MinBytes;
  bool ByDistance;
  mutable std::vector<double> Times;
};

/// A time the step pricing cannot give a schedule less than, from its
/// transfers alone (they need not be kept): a builder adds a candidate's
/// transfers before building it, to leave out one that cannot beat the best
/// so far (CandidateHooks::LowerBound). Each transfer's data phase starts
/// no earlier than its sender's overhead and its route's latency after what
/// it carries is at its sender (the caller's lower bound of that), and ends
/// no earlier than its bytes at the rate it gets alone after that; each
/// resource it crosses (a link, or a node's injection or ejection where the
/// network limits them) is busy for its bytes at the resource's capacity
/// times its band's bandwidth factor, one message after the other, from the
/// earliest start of the phase's messages on it. The transfers are added
/// phase by phase: the step pricing books every transfer of a phase before
/// any of a later one (a phase is one step, or consecutive steps).
class BookedLoad {
public:
  /// For schedules of \p Participants on \p M, which has a network.
  BookedLoad(const Machine &M, const std::vector<Participant> &Participants);
  ~BookedLoad();
  BookedLoad(const BookedLoad &) = delete;
  BookedLoad &operator=(const BookedLoad &) = delete;

  /// Books \p T in phase \p Phase (never below an earlier call's), all it
  /// carries at its sender no earlier than \p ReadyAtLeast. Returns a time
  /// it cannot end before.
  double add(const Transfer &T, double ReadyAtLeast, int64_t Phase);
  /// The time the schedule cannot end before.
  double bound() const;

private:
  struct Impl;
  std::unique_ptr<Impl> I;
};

/// The steps of at most this many transfers whose routes estimateStepCost
/// keeps while it prices them.
constexpr size_t StepRoutesKept = size_t(1) << 16;

/// Fills Start, End and Makespan of \p S on \p M, which has a network that
/// checkNetwork() (readers/MachineCheck.h) accepts, by the step pricing
/// (see the file comment). A step of at most \p KeepRoutesUpTo transfers
/// keeps its messages' resources while it is priced; a larger one (an
/// exchange of P^2 messages at thousands of ranks: about 30 resources a
/// message on a 64x64 torus) routes each message again instead. The times
/// are the same either way.
///
/// With a finite \p GiveUpAbove, pricing stops after the first step at
/// which the makespan so far exceeds it (a search's best so far: the
/// schedule cannot beat it, since a later step never ends earlier than the
/// ones priced). It then returns false; S.Makespan is that partial makespan,
/// a lower bound of the whole schedule's, and the later steps' transfers
/// keep their times unset. Else it returns true and every time is filled.
bool estimateStepCost(
    Schedule &S, const Machine &M, size_t KeepRoutesUpTo = StepRoutesKept,
    double GiveUpAbove = std::numeric_limits<double>::infinity());

} // namespace collc

#endif
