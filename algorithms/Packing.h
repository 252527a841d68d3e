/// \file
/// Spanning-tree packing for broadcast from the machine's graph (after
/// ForestColl, Zhao et al. 2024: broadcast trees packed into the network
/// with switches as vertices, each tree a share of the data in proportion
/// to its rate, so that together they fill the links up to the cut bound).
///
/// Switches do not copy data, so a tree edge is a rank-to-rank transfer
/// along the topology's route (passes/Routes.h), switches and all: the
/// packing works on those routes. Resources are what the network evaluator
/// shares (passes/NetworkCost.h): every link direction (both together when
/// half duplex), a cluster's backbone, each node's injection and ejection
/// or its SimGrid limiter; a FATPIPE is not shared and is no resource. A
/// tree loads a resource once per tree edge whose route crosses it; a
/// packing of trees at rates x_t is feasible when every resource's load,
/// sum_t x_t x uses_t(r), stays within its bandwidth.
///
/// The packing is the multiplicative-weights method for fractional packing
/// (Garg and Koenemann): every resource has a length, 1 / bandwidth at
/// first; each round takes the tree of least length (grown from the root's
/// node, Prim's rule with a share of Dijkstra's to keep trees shallow, see
/// packBroadcast), gives it its bottleneck rate and lengthens each resource
/// it uses by its share of that resource. The trees found are then scaled
/// together to the largest feasible rates, and the fewest that keep nearly
/// all the rate are kept (a schedule of few trees pipelines better).
///
/// The cut bound beside it, an upper bound on any broadcast's rate on the
/// machine: the least, over the non-root nodes v, of the maximum flow from
/// the root's node to v in the graph of links (switches as vertices,
/// parallel links summed); and for every resource r, its bandwidth over the
/// number of non-root nodes that every route into crosses r (a cluster's
/// backbone: every node but the root's takes the whole message across it),
/// and its bandwidth if every route out of the root's node crosses it.
#ifndef COLLC_ALGORITHMS_PACKING_H
#define COLLC_ALGORITHMS_PACKING_H

#include "algorithms/Builder.h"
#include "algorithms/TreePipeline.h"

#include <string>
#include <vector>

namespace collc {

/// Broadcast trees over the ranks, each with its rate (bytes per time unit),
/// and the cut bound beside them.
struct TreePacking {
  /// Parent arrays over ranks, rooted at the request's root (ranks that
  /// share a node with another are served by that node's first rank).
  std::vector<ParentArray> Trees;
  /// Rates of the trees, largest first; together feasible on every resource.
  std::vector<double> Rates;
  /// Sum of Rates.
  double Rate = 0;
  /// The cut bound (see the file comment); infinity when nothing bounds it
  /// (all ranks on one node).
  double CutBound = 0;
};

/// The packing of broadcast trees for \p R on \p M (a routed topology;
/// packingApplies), at most \p MaxTrees trees.
/// \p DijkstraShare in [0, 1]: a tree grows by the node v minimizing
/// length(u -> v) + DijkstraShare x (length from the root to u) (0: Prim's
/// minimum-length tree, 1: a shortest-path tree).
llvm::Expected<TreePacking> packBroadcast(const Machine &M, const Request &R,
                                          int MaxTrees = 6,
                                          double DijkstraShare = 0);

/// packing: the trees of packBroadcast, each carrying a share of the chunks
/// in proportion to its rate, pipelined in segments (forestSteps); the
/// segment count and the Dijkstra share are searched with the cost pass.
llvm::Expected<Schedule> buildPacking(const Machine &M, const Request &R,
                                      Pipeline &P);

/// packing for allgather: one tree per origin, grown from its node (as
/// packBroadcast's, on lengths that count the blocks the trees before it
/// route through each resource: (1 + blocks) / bandwidth), each origin's
/// block down its tree, level by level over all the trees; the Dijkstra
/// share searched with the cost pass.
llvm::Expected<Schedule> buildPackingAllgather(const Machine &M,
                                               const Request &R, Pipeline &P);

/// A routed topology of at most 512 nodes in use (the packing routes every
/// ordered pair of them). Without a network (a model machine) every link
/// counts as one unit of bandwidth.
bool packingApplies(const Machine &M, const Request &R, std::string &Why);

} // namespace collc

#endif
