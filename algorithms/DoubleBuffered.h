/// \file
/// Double-buffered tree reduces (Open MPI's generic tree reduce,
/// coll_base_reduce.c, SMPI's ompi_binomial): collc's tree reduces of whole
/// vectors (the binomial tree, the k-nomial tree, the two-level reduce)
/// with two children's vectors arriving at a rank at once. Open MPI posts
/// the receive from child i + 1 before it waits for child i's (one into the
/// accumulator, the next into a second buffer), so a parent always has a
/// message coming in while it folds the one before; collc's posting plan
/// otherwise stages one whole vector at a time, and a child's message (past
/// the rendezvous size) starts only once the one before it was applied.
#ifndef COLLC_ALGORITHMS_DOUBLEBUFFERED_H
#define COLLC_ALGORITHMS_DOUBLEBUFFERED_H

#include "algorithms/Builder.h"

namespace collc {

/// Reduce: the binomial tree (Open MPI's in-order binomial tree: the
/// root's children 1, 2, 4, ..., each with the ranks after it up to the
/// next; any operator), and with a commutative operator the k-nomial tree
/// and the two-level reduce as their own searches choose them, each with
/// Schedule::StagingDepth 2; the cheapest by the cost pass.
SearchingBuilder buildDoubleBufferedReduce;

} // namespace collc

#endif
