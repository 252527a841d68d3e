/// \file
/// Broadcasts laid onto the topology: schedules whose transfers join
/// neighbouring nodes of a mesh or torus (the switch network's broadcast is
/// algorithms/SwitchBcast.h), so that a node drives several of
/// its links at once and small segments overlap their latencies in a
/// pipeline.
///
/// Every builder serves any root. The mesh and torus builders need a rank on
/// every node of the topology (ranks sharing a node are served by the first
/// of them, the root on its own node, in a chain inside the node); they
/// decline with a reason elsewhere. Segment counts, tree families and
/// fan-outs are searched with the machine's cost pass (searchSegments in
/// algorithms/Placement.h: the network evaluator on a machine with
/// a network), unless the request gives `segments`.
///
/// Steps are an order, not a promise of simultaneity: every builder is
/// one-port per step (the verifier's rule on a one-port machine), and a
/// node's sends to different neighbours overlap as the posting rule lets
/// them (passes/NetworkCost.h: under AsDataArrives a send is posted as soon
/// as its data has arrived, whatever the sends before it still carry).
///
/// Contention. spanning-trees' trees use pairwise disjoint directed links
/// (each non-root node takes its in-link of tree t from a different
/// dimension or direction than every other tree); ring-pipeline's chains are
/// neighbour paths that share no directed link. Within a tree, segments
/// follow each other on the same links (that is the pipeline).
#ifndef COLLC_ALGORITHMS_TOPOLOGYBCAST_H
#define COLLC_ALGORITHMS_TOPOLOGYBCAST_H

#include "algorithms/Builder.h"
#include "algorithms/TreePipeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// Segments pipelined along a Hamiltonian path of neighbouring nodes, a
/// reflected (snake) order of the coordinates: on a torus with an even
/// extent the path closes into a ring and the root feeds both directions
/// (two chains of about P/2); on a torus of odd extents the path is shifted
/// so that the root sits in its middle; on a mesh the dimension order that
/// puts the root nearest the middle is taken. Segments searched.
SearchingBuilder buildRingPipeline;

/// Edge-disjoint spanning trees rooted at the root, each carrying an equal
/// share of the segments, pipelined. Two families, the search keeps the
/// faster (with the segment count):
///  - on any mesh or torus, d shortest-path trees (tree k resolves the
///    dimensions in the order k, k+1, ..., each the shorter way round; a node
///    whose k-th offset is 0 enters through a neighbour one step off in
///    dimension k); depth at most the root's eccentricity + 2;
///  - on a torus whose extents are all at least 3, the 2d half-space trees
///    of halfSpaceTreesOf (each node's in-links all used, one per tree).
/// In both, every non-root node takes its in-link of each tree from a
/// different (dimension, direction), so no directed link carries two trees.
/// (The 2d one-direction trees of spanningTreesOf apply where the half-space
/// trees do and are deeper: not searched.)
/// On a machine with a network, the faster family's segments are then also
/// tried behind a lead, a first segment of 1/G of the others (G in {3, 6}):
/// under the posting rule's window two equal segments posted together
/// share a link all the way down a tree; a short first one keeps the
/// segments behind it offset, each alone on a link as it transmits.
SearchingBuilder buildSpanningTrees;

/// Scatter, then allgather, both along the rings (tori) or lines (meshes) of
/// each dimension: the root's line of the last dimension gets the slabs of
/// the nodes behind each of its members (the farthest first, relayed
/// neighbour to neighbour both ways round), then each of those scatters its
/// slab along the next dimension, down to one block per node; the allgather
/// runs the dimensions the other way, a bidirectional ring (or line)
/// exchange per dimension, the gathered blocks growing by the extent each
/// time. Blocks: one per node.
PlainBuilder buildScatterRing;

/// Scatter, then each block down its own spanning tree: the message is cut
/// in B blocks (B searched, fewer than the nodes), block b goes straight
/// from the root to its source node (over the routed path, all at once) and
/// from there down the shortest-path spanning tree (source mod d) of
/// spanning-trees rooted at the source, each node passing a block on as
/// soon as it has it. The sources are the B nodes nearest the root or, if
/// faster with the B found, the B farthest. Every message is one block, so
/// no node is handed much data at once to pass on (what a pipeline suffers
/// when its root posts all its segments together).
SearchingBuilder buildScatterTrees;

/// Whether the machine is a mesh, torus or hypercube with a rank on every
/// node (the mesh and torus builders above).
AppliesTest topologyBcastApplies;
/// `auto` considers the builders of this file only on machines with a
/// network (the evaluator times overlapping sends; the papers' models do
/// not).
bool topologyBcastInAuto(const Machine &M, const Request &R, std::string &Why);

/// Node-level link-disjoint spanning trees on the mesh or torus of \p T
/// rooted at node \p Root: \p Unidirectional selects the 2d one-direction
/// trees (torus only, all active extents >= 3: tree (k, +) reaches a node
/// along + links, the dimensions taken in the order k, k+1, ..., a node whose
/// k-th offset is 0 through the wrap-around link of dimension k; depth at
/// most sum(extent - 1) + 1), else the d shortest-path trees of
/// spanning-trees. Dimensions of extent 1 are skipped. Empty when the
/// family does not apply.
std::vector<ParentArray> spanningTreesOf(const Topology &T, int64_t Root,
                                         bool Unidirectional);

/// The 2d half-space trees of spanning-trees on the torus of \p T rooted at
/// node \p Root (all active extents >= 3; empty otherwise), link-disjoint
/// like the families above but of smaller depth than the one-direction
/// trees. With offsets from the root taken in (-ceil(n/2), floor(n/2)],
/// tree (k, s) reaches the half-space where the k-th offset has sign s along
/// shortest paths (toward the root's line of dimension k in another
/// dimension whose offset is non-zero, the previous such one cyclically;
/// along dimension k on that line), the other half the long way round
/// dimension k (one step of s at a time), and the hyperplane of offset 0 in
/// dimension k from its neighbour at offset s. Depth at most
/// max_k (n_k - 1 + sum_{j != k} floor(n_j / 2)), 23 on 16x16 (the
/// one-direction trees: 31).
std::vector<ParentArray> halfSpaceTreesOf(const Topology &T, int64_t Root);

} // namespace collc

#endif
