/// \file
/// Two-level reductions (MVAPICH2's two-level reduce and allreduce, SMPI's
/// smp_rdb): the ranks of every node fold into one leader of the node, the
/// leaders reduce among themselves across the network, and (allreduce) each
/// leader hands the result back to the ranks of its node. Inside a node the
/// messages cross the node's loopback, so the network carries one vector per
/// node and the rounds across it are those of a reduction over the nodes,
/// not over the ranks.
#ifndef COLLC_ALGORITHMS_TWOLEVEL_H
#define COLLC_ALGORITHMS_TWOLEVEL_H

#include "algorithms/Builder.h"

namespace collc {

/// Reduce: every rank sends its vector to its node's leader at once (the
/// root leads its own node, the lowest rank every other), then a k-nomial
/// reduce over the leaders, nodes in node order from the root's, radix 2, 3,
/// 4 (MVAPICH2's) or 8 by the cost pass. Allreduce: leaders the lowest rank
/// of each node; across the leaders recursive doubling (the first
/// 2 (n - 2^d) of n leaders fold pairwise first and get the result last) or
/// one exchange of every leader's vector with every other, whichever the
/// cost pass times faster; then every leader sends the result to its node's
/// ranks at once. Commutative operators (a node's ranks need not be a range
/// of ranks).
SearchingBuilder buildTwoLevelReduction;
AppliesTest twoLevelApplies;

} // namespace collc

#endif
