/// \file
/// The switch network's broadcast: kary-pipeline, a pipelined k-ary tree
/// over the ranks in the order of the leaf switches, for fat trees,
/// clusters and crossbars (the mesh and torus broadcasts are
/// algorithms/TopologyBcast.h).
#ifndef COLLC_ALGORITHMS_SWITCHBCAST_H
#define COLLC_ALGORITHMS_SWITCHBCAST_H

#include "algorithms/Builder.h"

#include <string>

namespace collc {

/// A pipelined k-ary tree over the ranks in node order starting at the root
/// (on a fat tree or cluster, the order of the leaf switches, so a subtree
/// mostly stays under one switch): rank i of that order receives from rank
/// (i - 1) / k. The fan-out k in {2, 4} and the segment
/// count are searched.
SearchingBuilder buildKaryPipeline;

/// A pipelined tree of node leaders, each passing every segment on to the
/// ranks of its node: only one copy of the data enters a node (SMPI's
/// SMP_binary, MPICH's and Open MPI's hierarchical broadcasts). The ranks in
/// node order from the root's node; a node's first rank there leads it (the
/// root its own). Leaders form a k-ary tree (k = 2 or 4), a node's other
/// ranks a binary tree below their leader or all the leader's children, or
/// every rank a child of the root (SMPI's flattree_pipeline); each form's
/// segment count is searched with the posting rule's receive window and with
/// an open one (searchWindows), so that a link carries many small segments
/// at once as the MPI libraries' pipelines post them.
SearchingBuilder buildNodeTree;

/// Whether auto builds node-tree: on a machine with a network, where ranks
/// share nodes, and on a switch network (switchBcastApplies) of at most
/// MaxAutoNodeTreeRanks ranks, where
/// with one rank a node it is a pipelined k-ary or flat tree over switch
/// order. Above, one rank a node, it runs only when named: its search costs
/// the evaluator seconds there (7-8.5 s on a 105-rank three-level fat tree).
AppliesTest nodeTreeInAuto;

/// Ranks up to which auto builds node-tree with one rank a node (0.1-1.3 s
/// of search on drawn clusters and fat trees of 24 to 101 ranks).
constexpr int32_t MaxAutoNodeTreeRanks = 64;

/// Whether the machine is a fat tree, a cluster or a crossbar (kary-pipeline).
AppliesTest switchBcastApplies;

} // namespace collc

#endif
