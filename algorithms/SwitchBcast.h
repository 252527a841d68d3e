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

/// Whether the machine is a fat tree, a cluster or a crossbar (kary-pipeline).
AppliesTest switchBcastApplies;

} // namespace collc

#endif
