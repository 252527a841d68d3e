/// \file
/// A physical lower bound on the makespan of any schedule of a broadcast,
/// reduce, allreduce, allgather or all-to-all on a machine with a network,
/// under SMPI's model as the evaluator runs it (passes/NetworkCost.h): a
/// message pays its route's latency x the latency factor of its band before
/// its data moves; then its bytes cross every resource of its route (one
/// direction of a link, a half-duplex link both ways, a node's injection
/// and ejection) at its band's bandwidth factor x its share, the shares of a
/// resource summing to at most its bandwidth. "Any schedule" is meant
/// literally: any algorithm, SMPI's built-ins as much as collc's, with any
/// relaying, pieces and message sizes; the bound holds when it never
/// exceeds a measured makespan (docs/network.md, "The bound").
///
/// Optimistic assumptions, each of which can only lower the bound: the best
/// latency factor (LF) and the best bandwidth factor (BF) of the bands a
/// message of the collective can fall in, each taken alone; no cross
/// traffic, sharing penalty or TCP window; no envelope bytes; messages
/// between the ranks of one node free (SimGrid's loopback is a FATPIPE: it
/// has no shared capacity); a FATPIPE link never full.
///
/// The terms, each a time the collective cannot beat; the bound is the
/// largest:
///  - **latency**: the result of rank b depends on the input of rank a (the
///    root's data for a broadcast; every input at the root for a reduce;
///    every input everywhere otherwise), and no data moves before its
///    route's latency x LF: the shortest chain of routes from a's node to
///    b's (relays included), x LF; over the loopback, its latency.
///  - **shared resources**: for a resource r, the nodes all of whose
///    incoming routes cross it, D_in(r), and all of whose outgoing routes
///    cross it, D_out(r) (a node's own link; a cluster's backbone, which
///    every route crosses: D_in = D_out = every node; an injection limit).
///    Bytes that must cross r at least once, by collective (M bytes, or m
///    per block; c_n ranks on node n, P in all; root node n0):
///      broadcast  M x max(|D_in \ {n0}|, [n0 in D_out]) (each node of D_in
///                 receives the whole message, in messages of its own);
///      reduce     M x max(|D_out \ {n0}|, [n0 in D_in]);
///      allreduce  M x the messages per element: 2 (N - 1) when D_in =
///                 D_out = all N nodes (one-way gossip needs 2N - 2 calls),
///                 2 when both are one node (it sends and receives), else
///                 max(|D_in|, |D_out|);
///      allgather  m x sum over D_in of (P - c_n) (+ c_n when D_in = D_out =
///                 {n}: its blocks leave in messages of their own);
///      alltoall   m x sum of c_a c_b over node pairs a != b with a in D_out
///                 or b in D_in (every block from a or to b crosses r);
///    each over the resource's bandwidth x BF, after the smallest latency x
///    LF of a route that crosses r.
///  - **cuts**: for a set S of nodes (each node alone; on a torus each half
///    along a dimension; on a fat tree the nodes under each switch group),
///    the channels by which routes enter S (and leave it) carry at least
///    what S must receive (send): M for a broadcast (root outside S), a
///    reduce (root outside: out; inside: in) and an allreduce (both ways);
///    (P - R_S) m in and R_S m out for an allgather; R_S (P - R_S) m each way
///    for an all-to-all (R_S: the ranks in S); over the sum of their
///    bandwidths x BF, after the smallest route latency x LF into S (for a
///    broadcast: from the root's node by the shortest chain of routes);
///    and for an allreduce all nodes at once: its 2 (N - 1) M bytes of
///    messages each leave a node and enter another, over the sum of the
///    nodes' bandwidths out (in).
#ifndef COLLC_PASSES_LOWERBOUND_H
#define COLLC_PASSES_LOWERBOUND_H

#include "ir/Collective.h"
#include "ir/Machine.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// The bound of one collective and size, and the term that reaches it.
struct LowerBound {
  /// The bound: Latency + Transfer of the largest term.
  double Time = 0;
  double Latency = 0, Transfer = 0;
  /// The factors the bound used (the best of the reachable bands).
  double LatencyFactor = 1, BandwidthFactor = 1;
  /// The term: "latency from node 0 to node 7", "backbone", "into node 3",
  /// "into cut dim 0 < 8", ...
  std::string Where;
};

/// The routes of a machine's ranks, analysed once for the bounds of every
/// collective and size.
class PhysicalBound {
public:
  /// Analyses the routes between the nodes of \p M's first \p Ranks ranks
  /// (by its placement). Needs a network and a routed topology; work
  /// O(nodes^2 x route length) per cut family.
  static llvm::Expected<PhysicalBound> analyse(const Machine &M, int64_t Ranks);

  /// The bound of \p C (bcast, reduce, allreduce, allgather or alltoall) of
  /// \p Bytes (a rank's block for allgather and alltoall) with root rank
  /// \p Root; an error for another collective or a root out of range.
  llvm::Expected<LowerBound> of(Collective C, uint64_t Bytes,
                                int64_t Root) const;

  int64_t ranks() const { return P; }
  int64_t nodes() const { return static_cast<int64_t>(Used.size()); }

private:
  /// A resource that can fill: its bandwidth, name, the smallest latency of
  /// a route that crosses it, and the (used) nodes it covers.
  struct Resource {
    double Bandwidth = 0;
    std::string Name;
    double MinLatency = 0;
    std::vector<uint32_t> In, Out; ///< D_in, D_out as indices into Used.
  };
  /// A set of nodes and the channels into and out of it.
  struct Cut {
    std::string Name;
    std::vector<uint32_t> Members; ///< Indices into Used.
    int64_t Ranks = 0;
    double InBandwidth = 0, OutBandwidth = 0; ///< 0: a FATPIPE crosses it.
    double InLatency = 0, OutLatency = 0;     ///< Smallest route latency.
  };

  const Machine *M = nullptr;
  int64_t P = 0;
  std::vector<int64_t> Used;       ///< The ranks' nodes, ascending.
  std::vector<int64_t> RanksOn;    ///< Ranks per used node.
  std::vector<int64_t> NodeOfRank; ///< Index into Used, per rank.
  std::vector<double> Lat;         ///< Route latency, Used x Used.
  double MinRouteLatency = 0;      ///< Over every pair (0 with one node).
  std::vector<Resource> Resources;
  std::vector<Cut> Cuts;
};

} // namespace collc

#endif
