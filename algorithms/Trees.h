/// \file
/// One-to-all trees built by recursively splitting a chain of ranks (paper
/// 000): OPT-tree, binomial, sequential (separate addressing) and chain. The
/// same chain recursion, on a dimension-ordered chain, is OPT-mesh and U-mesh.
#ifndef COLLC_ALGORITHMS_TREES_H
#define COLLC_ALGORITHMS_TREES_H

#include "algorithms/Builder.h"
#include "algorithms/OptTree.h"

#include <functional>

namespace collc {

/// Size of the lower part [l, l+a-1] when a holder at offset \p Offset of an
/// \p I-node range splits it; the holder keeps the part containing it and
/// sends the other part to that part's node nearest to it (the lowest node of
/// the upper part, or the highest node of the lower part, as Algorithm 2).
using ChainSplit = std::function<int64_t(int64_t I, int64_t Offset)>;

/// Split keeping the OPT-tree subtree size j_i on the holder's side, of the
/// OPT-tree for \p R's ranks under \p M's t_hold and t_end at \p R's size.
ChainSplit optTreeSplit(const Machine &M, const Request &R);
/// Binomial split (McKinley's U-mesh): the lower part has floor(i/2) nodes.
ChainSplit binomialSplit();

/// Transfers of the multicast of the whole message over \p Chain (ranks, in
/// chain order) from the rank at \p SourceIndex, in the order they are
/// discovered (each holder's receive before its sends).
std::vector<Transfer> chainSplitTransfers(const Schedule &S,
                                          const std::vector<int32_t> &Chain,
                                          int64_t SourceIndex,
                                          const ChainSplit &Split);

/// A time the step pricing cannot give the tree of chainSplitTransfers(S,
/// Chain, SourceIndex, Split) less than, on \p M (with a network): every
/// rank's chain of transfers down the tree, each at least the message's
/// least time between the two ranks' nodes (LeastHopTime).
double chainSplitBound(const Machine &M, const Schedule &S,
                       const std::vector<int32_t> &Chain, int64_t SourceIndex,
                       const ChainSplit &Split);

/// Ranks in chain order for a tree on a crossbar: the root, then the other
/// ranks in increasing rank order (wrapping around).
std::vector<int32_t> rotatedChain(int32_t Ranks, int32_t Root);

/// Flat tree: the root sends the message to every rank at once (SMPI's
/// flattree), in one step on a machine with a network; else one port at a
/// time, as `sequential`.
PlainBuilder buildDirectBcast;

PlainBuilder buildOptTree;
PlainBuilder buildBinomial;
/// Rank \p Rank's part of `binomial`'s broadcast (algorithms/RankParts.h):
/// the path from the root down to the rank, O(log P) holders, and the
/// rank's own sends, in the steps the whole tree gives them.
RankPartBuilder buildBinomialBcastPart;
PlainBuilder buildSequential;
/// The AutoBounds (algorithms/Registry.h) of OPT-tree and binomial:
/// chainSplitBound of their trees.
BoundTest optTreeBound;
BoundTest binomialBound;
PlainBuilder buildChain;

/// What the AutoBounds (algorithms/Registry.h) of the flat trees, `direct`
/// and `sequential`, start from: the root posts P - 1 sends, so the last starts
/// no earlier than P - 1 sender's overheads and ends a transfer's least time
/// (leastTransferTime) after its own; and where the network limits a
/// node's injection, the root's node injects the bytes (envelope included)
/// of every send to another node at that limit, one after the other.
/// Known before building, where the step pricing's time of either grows as
/// P times the diameter of the routes it prices.
BoundTest flatTreeBound;
/// `direct`'s: flatTreeBound, and on a mesh, torus or hypercube whose
/// sends from the root share one step, the farthest rank's message: its
/// hops' latencies, then the bytes of every message that leaves the root
/// by the channel it leaves by (the step pricing gives the message of
/// least weight on a link the link's whole load).
BoundTest directBound;
/// `sequential`'s: flatTreeBound, and on a mesh, torus or hypercube of one
/// link class, the root's sends (one step each, in chain order) queued on
/// the links they leave the root by: the step pricing books each message
/// on its first link from its data phase's start (its overheads and its
/// hops' latencies past the schedule's start), after the ones before it.
BoundTest sequentialBound;

/// Whether the routes on \p M have one link class whose links the step
/// pricing books one message after the other (a mesh, torus or hypercube
/// of one class, no fat pipe): then a message's route latency is its hops
/// times the class's.
bool oneBookedClass(const Machine &M);

/// Which end of a route between the root and another rank rootLinks names.
enum class RootEnd { Leaving, Entering };

/// Per participant of \p S on a mesh, torus or hypercube, the link its
/// route from the root leaves the root by (Leaving: numbered by its far
/// end) or its route to the root enters the root by (Entering: numbered by
/// its near end); -1 on the root's node. The first link depends on the
/// destination only through the first dimension, in routing order, where
/// the two differ and the destination's coordinate there; the last on the
/// source only through the last such dimension and its coordinate (the
/// route corrects it last, from the node that differs from the root there
/// alone, routing by the current node's coordinates). One route per such
/// pair finds it.
std::vector<int64_t> rootLinks(const Machine &M, const Schedule &S,
                               RootEnd End);

/// For a one-step flat tree into or out of the root on a machine of one
/// booked class (oneBookedClass), the time the step pricing cannot end its
/// messages before: the ranks farthest from the root weigh the least on
/// every link they share, so occupy() gives one of them each link's whole
/// load (min(b x the link's weight / its own, the link's bytes)); past one
/// overhead and its hops' latencies it moves the bytes of every message
/// on its root link (\p Links: rootLinks'). 0 if no rank is off the root's
/// node.
double rootLinkShareTime(const Machine &M, const Schedule &S,
                         const std::vector<int64_t> &Links);

} // namespace collc

#endif
