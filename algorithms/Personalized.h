/// \file
/// Personalized collectives (paper 001 finds no algorithmic gain for them,
/// only the choice of point-to-point calls): gather and scatter, linear and
/// binomial; all-to-all by direct pairwise exchange and by Bruck's
/// algorithm; allgather on a ring and by Bruck's algorithm. A block M[a][b] is
/// the atom (origin a, dest b); the message size is one block.
#ifndef COLLC_ALGORITHMS_PERSONALIZED_H
#define COLLC_ALGORITHMS_PERSONALIZED_H

#include "algorithms/Builder.h"

namespace collc {

/// A transfer of the blocks M[a][b] for every origin a in \p Origins and
/// dest b in \p Dests (rank intervals) from rank \p Src to rank \p Dst: a
/// gather's or scatter's subtree of blocks, one piece per pair of intervals.
Transfer personalizedBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                            const std::vector<Interval> &Origins,
                            const std::vector<Interval> &Dests);
/// A transfer of an allgather's blocks of the origins \p Origins (rank
/// intervals), each meant for every rank, from \p Src to \p Dst.
Transfer allgatherBlocks(const Schedule &S, int32_t Src, int32_t Dst,
                         const std::vector<Interval> &Origins);

/// The root exchanges one block with every other rank in turn.
PlainBuilder buildLinearPersonalized;
/// Binomial tree over ranks relative to the root: a subtree's blocks travel
/// together (ceil(log2 P) steps, larger messages).
PlainBuilder buildBinomialPersonalized;
/// The four exchanges of one transfer per rank and step, each as rank
/// \p Rank's part (algorithms/RankParts.h): the steps hold the transfers
/// \p Rank sends and receives, as the whole schedule lists them, computed
/// for that rank alone in O(steps) transfers (Bruck's all-to-all: O(P log P)
/// blocks, those the rank moves); with \p Rank -1 the whole schedule
/// (wholeSchedule, as the registry lists them).
///
/// `pairwise` all-to-all: P - 1 steps; in step s rank r sends M[r][r+s] to
/// rank r + s (mod P).
RankPartBuilder buildPairwiseAlltoallPart;
/// Bruck's all-to-all: ceil(log2 P) steps; in step k rank r sends to
/// r + 2^k every block whose remaining distance has bit k set, each block
/// a piece of its own in order of distance; or, past BruckBlockPieces such
/// pieces in all (bruckAlltoallRectangles), each run of 2^k distances as one
/// rectangle, the run's origins (a range, two where it wraps) to its one
/// dest: about P^2 pieces in all instead of P^2 log2(P) / 2 (at 4,096 ranks
/// 16.8 instead of 100 million).
RankPartBuilder buildBruckAlltoallPart;
/// The most one-block pieces Bruck's all-to-all lists as such (2^22, about
/// 900 ranks).
constexpr int64_t BruckBlockPieces = int64_t(1) << 22;
/// Whether Bruck's all-to-all on \p P ranks lists its blocks as rectangles.
bool bruckAlltoallRectangles(int64_t P);
/// Allgather on a ring: P - 1 steps; in step s rank r passes the block of
/// rank r - s to r + 1 (bandwidth-optimal, latency P - 1 start-ups).
RankPartBuilder buildRingAllgatherPart;
/// Bruck's allgather: ceil(log2 P) steps for any P; in the step of distance
/// 2^k rank r sends the blocks of r .. r + 2^k - 1 to r - 2^k.
RankPartBuilder buildBruckAllgatherPart;

/// Direct gather or scatter: every rank sends its block to the root (the
/// root sends every rank its block) at once, in one step on a machine with a
/// network (as MPI libraries' linear algorithms post them); else one port at
/// a time, as `linear`.
PlainBuilder buildDirectPersonalized;
/// Whether every ordered pair of ranks fits in one schedule (transfersFit):
/// the direct all-to-all and allgather and the ring allgather send P (P - 1)
/// messages.
bool allPairsFit(const Machine &M, const Request &R, std::string &Why);

/// Direct all-to-all: every rank posts its P - 1 blocks at once (SMPI's
/// basic_linear), rank r's to r + 1, r + 2, ... first; direct allgather:
/// every rank sends its block to every other rank at once. One step on a
/// machine with a network, else one port at a time (as `pairwise`). With
/// \p Rank -1 the whole schedule (wholeSchedule); else rank \p Rank's part
/// where the whole schedule is one step (directPartApplies: a machine with a
/// network, or one whose ports take P - 1 transfers a step): the 2 (P - 1)
/// transfers \p Rank sends and receives, in the whole step's order (offset
/// by offset, senders in rank order), computed for that rank alone. With
/// fewer ports the whole schedule's steps follow them one transfer after
/// another (orderedRounds): no part is derived there.
bool directPartApplies(const Machine &M, const Request &R);
RankPartBuilder buildDirectAlltoallPart;
RankPartBuilder buildDirectAllgatherPart;

/// The ranks of each node of \p S that runs some, nodes in order, ranks in
/// order (Participants' nodes): the groups of the node-aware algorithms.
std::vector<std::vector<int32_t>> ranksByNode(const Schedule &S);

/// Ranks (in increasing order) as intervals: the origins of a group's
/// blocks.
std::vector<Interval> asIntervals(const std::vector<int32_t> &Ranks);

/// Node-aware direct allgather, for ranks that share nodes (SMPI's
/// smp_simple, all at once): every rank sends its block to the other ranks
/// of its node; then each node's blocks cross once to every other node, in
/// one message from one of its ranks to one rank there (the ranks of a node
/// take turns), which passes them on inside its node. A block crosses a
/// node's link once per other node, where `direct` sends it once per rank.
PlainBuilder buildNodeDirectAllgather;
/// Two-step grid allgather (SMPI's 2dmesh, all at once): ranks in N groups
/// of consecutive ranks (sizes differing by one at most), direct inside
/// every group, then rank j of every group gets each other group's blocks
/// straight from its rank j (mod its size); N near sqrt(P) (the divisors of
/// P nearest it, else sqrt(P) rounded), searched with the cost pass. About
/// 2 sqrt(P) messages per rank where `direct` sends P - 1. Where the cost
/// pass prices by steps, the counts are tried by increasing
/// gridDirectBound, and one whose bound exceeds the best so far is not
/// built.
SearchingBuilder buildGridDirectAllgather;
/// buildGridDirectAllgather's schedule of \p Groups groups.
Schedule gridDirectAllgather(const Machine &M, const Request &R,
                             int64_t Groups);
/// A time the step pricing (passes/StepCost.h) cannot give
/// gridDirectAllgather(\p M, \p R, \p Groups) less than, from its transfers
/// alone (BookedLoad), on a machine with a network.
double gridDirectBound(const Machine &M, const Request &R, int64_t Groups);

} // namespace collc

#endif
