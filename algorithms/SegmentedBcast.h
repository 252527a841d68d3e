/// \file
/// Segmented and pipelined broadcasts of paper 001 (for the linear model
/// T_send(m) = t_s + m/B): edge-disjoint spanning binomial trees, k-segment,
/// pipeline on a linear array, 2-path pipeline, and scatter + allgather.
/// Every builder serves any process count and any root; ranks are taken
/// relative to the root (relative index i is rank (root + i) mod P).
#ifndef COLLC_ALGORITHMS_SEGMENTEDBCAST_H
#define COLLC_ALGORITHMS_SEGMENTEDBCAST_H

#include "algorithms/Builder.h"

namespace collc {

/// ceil(log2 P) parts, each sent along its own spanning binomial tree of the
/// hypercube (Johnsson and Ho's edge-disjoint trees: part j goes first along
/// dimension j, then through the nodes with bit j set in rotated dimension
/// order, and last across dimension j). In step s every node talks only to
/// its neighbour across dimension s mod d, and sends at most one part. When
/// P is not a power of two, parts cut off by the missing nodes are completed
/// in final one-port steps.
PlainBuilder buildEdgeDisjoint;

/// k segments (request `segments`, default the report's optimum k = P/2):
/// the root scatters segment g to the leader of group g (k groups of about
/// P/k ranks), each group passes its segment down a chain, then the members
/// with the same index in every group circulate the segments in a ring.
PlainBuilder buildKSegment;

/// k segments pipelined down a chain of all ranks; default k is the report's
/// optimum sqrt((P-2) M / (B t_s)).
PlainBuilder buildPipeline;

/// Two chains of about P/2 ranks, fed alternately by the root; default k
/// minimizes the report's (k + P/2 - 2) 2 T_send(M/k).
PlainBuilder buildTwoPathPipeline;

/// Binomial scatter of P segments, then a ring allgather (the large-message
/// broadcast of MPICH and Open MPI).
PlainBuilder buildScatterAllgather;

/// Explicit requests run on any model; `auto` considers these broadcasts
/// only under the linear model they were designed for (elsewhere OPT-tree is
/// optimal among one-message trees and segmenting is not modelled).
AppliesTest segmentedBcastApplies;
/// segmentedBcastApplies, and at most MaxTransfers ring transfers.
AppliesTest scatterAllgatherApplies;

/// The AutoBounds (algorithms/Registry.h) of the pipeline, the two-path
/// pipeline and scatter-allgather: the chain of transfers their first
/// segment takes to the last rank (P - 1, about P / 2, and for
/// scatter-allgather the longer of P - 1 - O, O the first rank that owns a
/// segment, and about P / 2, the last rank's segments' way round the ring
/// from the root) times the least time of one (leastTransferTime).
BoundTest pipelineBound;
/// k-segment's: the ring of the groups' second members, a segment passed on
/// around it after its leader passed it down (N transfers, N the groups of
/// two ranks or more).
BoundTest kSegmentBound;
BoundTest twoPathPipelineBound;
BoundTest scatterAllgatherBound;
/// edge-disjoint's: each part's tree in the cube of relative indices, every
/// node's chain of transfers from the root along it (where every node on it
/// exists), each transfer at least a part's least time between its two
/// ranks' nodes (LeastHopTime).
BoundTest edgeDisjointBound;

/// The report's optimal segment count for the pipeline on \p M.
double pipelineOptimalSegments(const Machine &M, int64_t P, uint64_t Bytes);

} // namespace collc

#endif
