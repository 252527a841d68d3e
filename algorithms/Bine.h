/// \file
/// Bine trees (De Sensi et al., SC'25, "Bine Trees"): binomial trees whose
/// parent and child sit at negabinary distances rho(k) = 1, -1, 3, -5, 11,
/// ... (algorithms/Butterfly.h), the farthest first, even ranks sending
/// forward and odd ones backward, so that every subtree is a range of ranks
/// round the ring with its root near the middle and most messages stay
/// close. For P a power of two the tree is the paper's; for any other P
/// collc keeps the tree's first P nodes in binomial order (closed under
/// parents) and closes up their positions (algorithms/Butterfly.h,
/// bineTreeOffsets). Any root.
#ifndef COLLC_ALGORITHMS_BINE_H
#define COLLC_ALGORITHMS_BINE_H

#include "algorithms/Builder.h"

namespace collc {

/// Bine broadcast, reduce, allreduce, gather, scatter, allgather and
/// reduce-scatter. Broadcast: the whole message down
/// the tree, or (the paper's large-message form) a scatter of 2^d blocks
/// along Swing's butterfly from the root followed by the butterfly's
/// allgather (ranks in node order from the root; P not a power of two: the
/// ranks at odd positions below 2(P - 2^d) get the whole message from their
/// neighbour last), whichever the machine's cost pass times faster (the
/// second needs a byte per block). Reduce: up the tree to the root;
/// allreduce: up the tree to the root, then down it (2 ceil(log2 P) steps;
/// Swing, algorithms/Swing.h, is the butterfly with the same partners).
/// Gather and scatter: down the tree, each node sending its parent (or
/// getting from it) the blocks of its subtree, one range of ranks.
/// Allgather: the Bine butterfly over the ranks in rank order, ceil(log2 P)
/// steps whose partners are rho(k) apart, the farthest first
/// (k = ceil(log2 P) - 1, ..., 1, 0), each rank sending its partner every
/// block it holds that the partner lacks: for any even P every rank gets
/// every block once, 2^t blocks at step t for P a power of two. An odd P
/// takes the partners of a ring of P + 1 with one place empty (its partner
/// waits) and goes round the steps again until every rank holds every
/// block (at most two steps more). Reduce-scatter: the same steps backwards
/// (the nearest partner first, where the halves of the vector go), each rank
/// sending its partner the partial sums of the blocks the partner would send it
/// in the allgather; rank r ends with block r. The blocks of a step are not one
/// range of ranks: one message per partner, a piece per range. Reductions
/// combine out of rank order.
SearchingBuilder buildBine;
/// One form of the Bine broadcast, without the search: \p ScatterAllgather,
/// the scatter + allgather (an error with fewer bytes than blocks); else the
/// tree.
llvm::Expected<Schedule> buildBineBcastForm(const Machine &M, const Request &R,
                                            bool ScatterAllgather);
/// Reductions: a commutative operator.
AppliesTest bineApplies;

} // namespace collc

#endif
