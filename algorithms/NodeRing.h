/// \file
/// The node-aware ring allgather (SMPI's loosely_lr, Faraj and Yuan's
/// loosely coupled logical ring): one ring across the nodes per local rank
/// ("lane"), and each block passed on inside the node it enters as it
/// arrives, for ranks that share nodes.
#ifndef COLLC_ALGORITHMS_NODERING_H
#define COLLC_ALGORITHMS_NODERING_H

#include "algorithms/Builder.h"

namespace collc {

/// `node-ring` allgather over the N nodes that run ranks (nodes in order,
/// their ranks in order, any number per node): lane j of node n is its rank
/// j mod c_n (c_n its ranks), so every lane has a rank on every node. In
/// round i (0 <= i < N) lane j's rank on node n holds the block of rank j of
/// node n - i (mod N, where that node has a rank j): it passes it to lane
/// j's rank on node n + 1 (but in the last round) and sends it to every
/// other rank of its node. A block crosses N - 1 node links, as on a ring;
/// with c ranks on every node a rank sends N - 1 messages across nodes and
/// N (c - 1) inside its node. One step per round on a machine with a network
/// (a rank's sends wait only for the block they carry).
PlainBuilder buildNodeRingAllgather;

} // namespace collc

#endif
