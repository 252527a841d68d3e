/// \file
/// Allreduce and allgather laid onto the topology (issue 16): the ranks are
/// ordered so that the partners that exchange the most data are physical
/// neighbours.
///
/// The layout every builder here starts from is a ring grid (ringGrid()):
/// the ranks as a grid of extents L_0 x L_1 x ..., dimension 0 varying
/// fastest. On a mesh or torus whose every node holds one rank, the grid is
/// the topology itself, dimension 0 its stride-1 dimension (the last written
/// one): the members of a ring of dimension j differ only in coordinate j and
/// consecutive ones are neighbours (on a mesh with Fold, the ring visits
/// coordinates 0, 2, 4, ..., then the odd ones back, so that every hop is at
/// most two links and each link direction carries one message per step).
/// Elsewhere (a partial mesh or torus, a fat tree, a cluster) the ranks in
/// the order of their nodes are cut into groups of consecutive ranks: the
/// extents are divisors of P near the topology's natural group (the stride-1
/// dimension, a fat tree's leaf switch, sqrt(P) otherwise).
///
/// Non-commutative operators: the halving and doubling builders then take
/// the ranks in rank order, nearest partner first, so that every combine
/// joins adjacent rank ranges; the dimension rings replace each ring
/// reduce-scatter by two chains on the ranks in rank order, one lane.
#ifndef COLLC_ALGORITHMS_TOPOLOGYREDUCTIONS_H
#define COLLC_ALGORITHMS_TOPOLOGYREDUCTIONS_H

#include "algorithms/Builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// The ranks of a request as a grid of rings (see the file comment).
struct RingGrid {
  /// Order[v]: the rank at grid index v = sum_j digit_j prod_{i<j} L_i;
  /// consecutive digits of a dimension are consecutive members of its ring.
  std::vector<int32_t> Order;
  /// L_j per dimension, each at least 2 (none when P <= 1).
  std::vector<int64_t> Extents;
  /// Whether the grid is the topology's own (a full mesh or torus).
  bool Physical = false;
};

/// The ring grid of \p R's ranks on \p M. \p Fold: on a mesh, rings visit
/// even coordinates up and odd ones down (for ring algorithms); without it
/// coordinates go in order (for partners by bit, whose pairs 2i, 2i + 1 are
/// then neighbours).
RingGrid ringGrid(const Machine &M, const Request &R, bool Fold);

/// Allreduce by recursive halving (reduce-scatter) then recursive doubling
/// (allgather), in MPICH's order: the partner at grid index distance 1
/// first, so that the largest halves travel one hop and only the small
/// pieces go far; partners follow the grid (ringGrid() without Fold), i.e.
/// torus neighbours dimension by dimension. P not a power of two: the first
/// 2(P - 2^d) grid indices fold pairwise first and get the result last.
/// Segments: the 2^d pieces of the reduce-scatter.
PlainBuilder buildNearestHalving;
AppliesTest nearestHalvingApplies;

/// Small-message allreduce: recursive doubling of the whole vector along
/// the grid, nearest partner first (P not a power of two: MPICH's fold
/// before and copy after). ceil(log2 P) exchanges of the whole message.
/// Refused (before listing any) past MaxCopyTransfers transfers: from
/// 2^20 ranks.
PlainBuilder buildNearestDoubling;
/// Rank \p Rank's part of buildNearestDoubling's schedule
/// (algorithms/RankParts.h): its fold-in or copy-out and its exchanges, each
/// sender's contributors those of its block of 2^k cores, in O(P log P)
/// for that rank alone (the grid order is O(P)).
RankPartBuilder buildNearestDoublingPart;

/// Allreduce and allgather as dimension-wise rings (bucket algorithms) on
/// the ring grid with Fold: allreduce reduce-scatters along the rings of
/// dimension 0, then of dimension 1 over the piece each rank kept, ..., and
/// allgathers back in reverse; allgather gathers along dimension 0 first,
/// then passes whole groups along the next dimensions. Each ring step moves
/// one piece per rank to its ring successor. With two directions the data
/// is halved and the halves go round each ring in opposite ways (both link
/// directions busy), and with two orders of the dimensions half the lanes
/// take them in reverse (on a 2-D torus all four link directions of a node
/// carry a lane at once); the builder keeps whichever of one lane, two
/// directions, or two directions x two orders the machine's cost pass
/// times faster. The request's `segments` k cuts
/// every piece in k more, sent in consecutive steps (default 1). Allreduce
/// needs 0 or at least P x directions x k elements; with a non-commutative
/// operator each ring's reduce-scatter becomes two chains (the piece of
/// position b collects positions 0..b-1 up from 0 and b+1..L-1 down from
/// L-1), on the ranks in rank order.
SearchingBuilder buildDimensionRings;
/// dimension-rings with one cut, without the search: the data in
/// \p Directions (1 or 2) x \p Orders (1 or 2: the dimensions in order, and
/// also in reverse) lanes that run side by side, each piece in the request's
/// `segments` (default 1). An error when the count does not fit the cut.
llvm::Expected<Schedule> buildDimensionRingsCut(const Machine &M,
                                                const Request &R,
                                                int64_t Directions,
                                                int64_t Orders);
AppliesTest dimensionRingsApplies;

/// One ring of all ranks in node order (rank order on a node): the grid of
/// the flat `ring` allreduce.
RingGrid flatRingGrid(const Request &R);

/// Allreduce on one ring of all ranks in node order, one direction (Open
/// MPI's ring): a ring reduce-scatter in P - 1 steps, each rank passing one
/// block to the next, then a ring allgather back; with a non-commutative
/// operator, two chains in rank order (as dimension-rings). Every step sends
/// one block out of each node and across each link between groups of
/// consecutive nodes once each way, so on a tree of oversubscribed switches
/// an uplink carries one flow at a time, where recursive halving sends
/// several across it at once and dimension-rings groups the ranks by leaf.
/// Needs 0 or at least P x segments elements. With a commutative operator
/// on the ranks in rank order the steps are written as they are (one per
/// ring step and segment, every rank sending once), and a request that names
/// the algorithm may list up to 2 MaxCopyTransfers (both halves of every
/// pair of 4,096 ranks); `auto` and the other forms, which follow the
/// reduction through a Reducer, keep to MaxTransfers.
PlainBuilder buildRingAllreduce;
AppliesTest ringAllreduceApplies;
/// The ring allreduce as the generic ring builder lists it, through a
/// Reducer (what buildRingAllreduce writes directly matches it; tests).
Schedule ringAllreduceFollowed(const Machine &M, const Request &R);
/// For `--algorithm auto` and ring: a machine with a network, up to 2^18
/// transfers (2 P (P - 1): up to 362 ranks), as for dimension-rings.
bool onNetworkFlatRing(const Machine &M, const Request &R, std::string &Why);

/// For `--algorithm auto` and dimension-rings: a machine with a network whose
/// topology has rings of its own (a mesh, torus or hypercube). Elsewhere its
/// rings are logical: both lanes of every ring leave through a node's one
/// link, where the evaluator times it 6-16% faster than SMPI (cluster, fat
/// tree; docs/network.md) and where ranks share a host's cores, 3x slower
/// than the MPI library (bench/mpi/run.sh host). Nor beyond 2^18 transfers
/// of one lane (on a 64x64 torus one lane has about a million and takes
/// 37 s and 680 MB to build, price and verify).
bool onNetworkRings(const Machine &M, const Request &R, std::string &Why);

} // namespace collc

#endif
