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

/// Bine broadcast, reduce and allreduce. Broadcast: the whole message down
/// the tree, or (the paper's large-message form) a scatter of 2^d blocks
/// along Swing's butterfly from the root followed by the butterfly's
/// allgather (ranks in node order from the root; P not a power of two: the
/// ranks at odd positions below 2(P - 2^d) get the whole message from their
/// neighbour last), whichever the machine's cost pass times faster (the
/// second needs a byte per block). Reduce: up the tree to the root;
/// allreduce: up the tree to the root, then down it (2 ceil(log2 P) steps;
/// Swing, algorithms/Swing.h, is the butterfly with the same partners).
/// Reductions combine out of rank order.
llvm::Expected<Schedule> buildBine(const Machine &M, const Request &R,
                                   Pipeline &P);
/// One form of the Bine broadcast, without the search: \p ScatterAllgather,
/// the scatter + allgather (an error with fewer bytes than blocks); else the
/// tree.
llvm::Expected<Schedule> buildBineBcastForm(const Machine &M, const Request &R,
                                            bool ScatterAllgather);
/// Reductions: a commutative operator.
bool bineApplies(const Machine &M, const Request &R, std::string &Why);

} // namespace collc

#endif
