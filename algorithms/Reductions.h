/// \file
/// Reductions and prefix reductions of paper 001: binomial reduce and
/// allreduce, the segmented reduce-scatter + allgather ("reduction of
/// segmented message"), and the scans (inclusive and exclusive): linear
/// array, pipelined, Brent-Kung and RootP. Transfers are Combine transfers
/// whose pieces name the contributors folded into the value that travels.
#ifndef COLLC_ALGORITHMS_REDUCTIONS_H
#define COLLC_ALGORITHMS_REDUCTIONS_H

#include "algorithms/Builder.h"

namespace collc {

/// Binomial reduce to the root (Reduce) or to rank 0 and a binomial
/// broadcast of the result back (Allreduce). With a non-commutative operator
/// the tree is on ranks in order (subtrees are adjacent rank ranges) and the
/// result, reduced at rank 0, is copied to the root. As rank \p Rank's part
/// (algorithms/RankParts.h): the rank's own transfers, each carrying the
/// contributors its subtree holds, in the steps the whole schedule gives
/// them (a level's step; the broadcast's from the path down from rank 0);
/// with \p Rank -1 the whole schedule (wholeSchedule).
RankPartBuilder buildBinomialReducePart;

/// Recursive-halving reduce-scatter, then recursive-doubling allgather
/// (Allreduce) or a binomial gather to the root (Reduce); segments = the
/// largest power of two 2^d <= P. ReduceScatter (`recursive-halving`): the
/// halving alone, on the P blocks (core c's window of cores, the blocks of
/// their ranks), then core c, which ends with the blocks of core
/// bitreverse(c), hands each on to its owner (one step, two where a core
/// stands for two ranks). With P not a power of two the first
/// 2(P - 2^d) ranks fold pairwise first and the folded ranks get the result
/// last. With a non-commutative operator the partners are taken nearest
/// first on ranks in order (every combine joins adjacent rank ranges, the
/// lower ranks on the left) and a reduce's result, gathered at rank 0, is
/// copied to the root.
PlainBuilder buildReduceScatterAllgather;
AppliesTest reduceScatterApplies;
/// Rank \p Rank's part of `reduce-scatter-allgather`'s allreduce
/// (algorithms/RankParts.h), from the same step code as the whole: its
/// 2 log2(2^d) exchanges with its partners (and an extra rank's fold and
/// copy), each window and contributor range in closed form.
RankPartBuilder buildReduceScatterAllgatherPart;

/// Pipelined reduces (Open MPI's `pipeline` and `binary` reduces, SMPI's
/// NTSL): the vector in k segments folded up a tree of the ranks in node
/// order from the root, every rank folding its own contribution in and
/// sending a segment on as soon as its children's have come in; the tree a
/// chain (`pipeline`: each link carries every segment once, one flow at a
/// time, so shared backbones and uplinks are crossed as few times as a
/// reduce can) or a binary tree (`pipelined-binary`: depth log2 P). The
/// segment count is searched with the machine's cost pass (searchSegments,
/// algorithms/Placement.h), or the request's `segments`. Commutative
/// operators: segments fold as they arrive.
SearchingBuilder buildPipelineReduce;
SearchingBuilder buildBinaryPipelineReduce;
AppliesTest pipelineReduceApplies;

/// K-nomial tree reduce (MVAPICH2's knomial, radix 3, 4 or 8 by the cost
/// pass): a rank folds in its K - 1 children of each level one after the
/// other; log_K P levels. Commutative operators (the tree is rooted at the
/// root).
SearchingBuilder buildKnomialReduce;
AppliesTest knomialReduceApplies;

/// Direct (flat) reduce: every rank sends its vector to the root at once,
/// and the root folds them in rank order (the ranks after it appended, then
/// the ones before it prepended), so any operator gets its operands in
/// order; Allreduce: then the root sends the result to every rank at once.
/// One step each on a machine with a network; else one port at a time.
PlainBuilder buildDirectReduce;
/// Its AutoBound (algorithms/Registry.h), known before building it, where
/// the step pricing routes P - 1 messages of up to the diameter's hops in
/// each step: the vectors into the root, the last no earlier than a
/// transfer's least time, after the root node's ejection limit (where the
/// network has one) has carried them one after the other, on a mesh, torus
/// or hypercube after the farthest rank's message has crossed with the
/// bytes of every message entering the root by its last link, elsewhere
/// after the root's busiest last link has carried all of its; then
/// (allreduce) the broadcast of the result, directBound (algorithms/Trees.h)
/// from there.
BoundTest directReduceBound;

/// Reduce-scatter by one all-to-all (SMPI's rab2): the vector in
/// K = min(P, elements) blocks, rank b < K owns block b, and every rank sends
/// each owner its block at once; the owner folds them in rank order (any
/// operator). ReduceScatter (`direct`): that alone, on the P blocks. Then
/// Allreduce: an allgather of the reduced blocks, direct (every owner sends its
/// block to every rank at once) or on a ring (P - 1 steps), whichever the
/// machine's cost pass times faster; Reduce: every owner sends its block to the
/// root at once.
/// Past MaxTransfers (named, up to 2 MaxCopyTransfers: 4,096 ranks) the
/// allreduce takes the ring allgather alone, written as it is, without
/// following the reduction or holding the list of its transfers beside
/// the steps.
SearchingBuilder buildReduceScatterDirect;
/// Whether the ranks x blocks of reduce-scatter-direct stay tracked.
AppliesTest reduceScatterDirectApplies;
/// Whether a P^2 reduction whose transfers are written as they are (not
/// followed through a Reducer), named, lists at most 2 MaxCopyTransfers
/// (\p Transfers; both halves of every pair of 4,096 ranks); else says why
/// not, naming \p What.
bool writtenReductionFits(double Transfers, const std::string &What,
                          std::string &Why);
/// reduce-scatter-direct's allreduce with the ring allgather, as written
/// past MaxTransfers and as the Reducer follows it (the same; tests).
Schedule reduceScatterDirectRingAllreduce(const Machine &M, const Request &R);
Schedule reduceScatterDirectRingFollowed(const Machine &M, const Request &R);

/// Reduce-scatter on a ring: in step s rank r folds block r - s - 1 and
/// passes it on to r + 1, P - 1 steps; block b ends at rank b. Commutative
/// operators (the blocks pass from rank P - 1 to rank 0).
PlainBuilder buildRingReduceScatter;
AppliesTest ringReduceScatterApplies;

/// Linear array: rank r combines what rank r-1 sends and passes it on.
PlainBuilder buildLinearScan;
/// The linear array with the message in k segments (request `segments`,
/// default the k minimizing (k + P)(2 T_send(M/k) + T_op(M/k))).
PlainBuilder buildPipelinedScan;
/// Brent and Kung's up-sweep / down-sweep, 2 ceil(log2 P) - 1 steps at most.
PlainBuilder buildBrentKungScan;
/// RootP: blocks of 1, 2, 3, ... ranks scan locally in chains, block totals
/// pass along the block ends, and each block end hands the prefix to the
/// next block's other ranks: about 2 sqrt(2P) steps, work spread evenly.
PlainBuilder buildRootPScan;

/// Applies for algorithms that split the message into segments: the element
/// count must allow it.
AppliesTest scanApplies;

} // namespace collc

#endif
