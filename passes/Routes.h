/// \file
/// Routes: the directed channels a message crosses on its way from one node
/// to another, under the topology's deterministic routing. The contention
/// checker, the step-merging pass, the DOT backend and the network evaluator
/// (passes/NetworkCost.h) read them.
///
/// Channels. A Channel joins two adjacent vertices of the network, From ->
/// To, in that direction only (a physical link is two channels, one each
/// way). Vertices are the processor nodes 0..Nodes-1; indirect networks (the
/// MIN, the fat tree, the cluster) also number their switches, from Nodes
/// on. A channel also names its link class (an index into
/// Network::Links, see linkClassNames()) and, where two vertices are joined
/// by parallel links (a fat tree's Parallel), which of them it is (Lane).
///
/// Injection and ejection channels are NOT part of a route on direct
/// networks (mesh, torus, hypercube, crossbar): a node's link into and out
/// of the network is its port, and the port rules (at most `ports` sends and
/// `ports` receives per step, t_hold between consecutive sends or receives
/// of a port) are the verifier's business. There a route holds only the
/// channels between vertices, so its length is the hop count. On indirect
/// networks a processor's link to its switch joins two vertices and belongs
/// to the route. Either way route(T, A, B).size() == T.distance(A, B) for
/// every routed topology.
///
/// Routing per topology kind:
///  - mesh: dimension-ordered routing that resolves the FIRST WRITTEN
///    coordinate first (sigma_{n-1}, then sigma_{n-2}, ..., see
///    Topology::coordOf), the only order under which paper 000's Theorem 3.1
///    holds;
///  - torus: the same dimension order; in each dimension the shorter way
///    round. Tie rule: when both ways are equally long (extent even, offset
///    exactly half the extent) the message travels in the increasing
///    direction (coordinate + 1, wrapping from extent-1 to 0), unless the
///    transfer's TieDown bit for that dimension asks for the decreasing one;
///  - torus (and mesh) with Topology::Routing == DimensionRouting::SimGrid:
///    as SimGrid's TorusZone, the LAST written coordinate first (SimGrid's
///    dimension 0, the one of stride 1, so a platform's topo_parameters
///    "d0,d1,..." is the machine's dims written [..., d1, d0]); the shorter
///    way round; on a tie the increasing way, except from coordinate
///    extent/2, which goes the decreasing way; TieDown is ignored (the
///    simulator decides);
///  - hypercube: e-cube routing, fixing the differing address bits in
///    written order (the first written coordinate first), like the mesh;
///  - full (a crossbar): every ordered pair has a private link, the route is
///    the single channel {Src, Dst}; two transfers share a channel only when
///    they join the same ordered pair of nodes;
///  - min: the turnaround route of ir/MultistageNetwork.h, switch (l, s)
///    numbered Nodes + switchId;
///  - fat-tree: SimGrid's up/down route of ir/FatTree.h, switches numbered as
///    there; link class l-1 for the links between levels l-1 and l;
///  - cluster: node -> switch (vertex Nodes) on the node's private link
///    (class 0), then, with a backbone, the backbone as the channel {Nodes,
///    Nodes} (class 1; one resource that every route crosses, whatever its
///    direction), then switch -> node on the destination's private link;
///  - star, macro-star: see the dispatch point in Routes.cpp; kinds without
///    routing yet give an error (never a guessed route).
#ifndef COLLC_PASSES_ROUTES_H
#define COLLC_PASSES_ROUTES_H

#include "ir/Machine.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// One directed channel between adjacent network vertices.
struct Channel {
  int64_t From = 0;
  int64_t To = 0;
  /// The link class (Network::Links index) of the link it belongs to.
  uint8_t Class = 0;
  /// Which of the parallel links between From and To (fat trees; else 0).
  int32_t Lane = 0;
  bool operator==(const Channel &O) const = default;
};

/// Whether route() knows the topology kind of \p T.
bool isRouted(const Topology &T);

/// The names of the link classes of \p T, index = Channel::Class: "link" on
/// every direct network and the MIN; "level-1".."level-L" on a fat tree;
/// "private" and "backbone" on a cluster (with a backbone; "private" alone
/// without one).
std::vector<std::string> linkClassNames(const Topology &T);

/// Appends to \p Out the channels of the route from node \p Src to node
/// \p Dst, in the order the message crosses them (nothing when Src == Dst).
/// The fast form for passes that route many transfers.
/// \p TieDown is Transfer::TieDown: on a torus, bit i makes a tie in
/// written dimension i go the decreasing way.
llvm::Error appendRoute(const Topology &T, int64_t Src, int64_t Dst,
                        std::vector<Channel> &Out, uint8_t TieDown = 0);

/// Appends to \p Out the nodes whose SimGrid limiter (Network::
/// SharedLimiter) a message from node \p Src to node \p Dst crosses, given
/// its \p Route (appendRoute's): on a torus, mesh or hypercube every node of
/// the route (Src, each it passes through, Dst), elsewhere Src and Dst.
void appendLimiterNodes(const Topology &T, int64_t Src, int64_t Dst,
                        const std::vector<Channel> &Route,
                        std::vector<int64_t> &Out);

/// The channels of the route from node \p Src to node \p Dst, in order.
llvm::Expected<std::vector<Channel>> route(const Topology &T, int64_t Src,
                                           int64_t Dst, uint8_t TieDown = 0);

/// "(1,5)->(2,5)" on meshes, tori and hypercubes (coordinates written highest
/// dimension first, as in the paper), "3->7" elsewhere, "3->sw(1,0)#1" for
/// the second of parallel links, "backbone" for a cluster's backbone.
std::string channelName(const Topology &T, const Channel &C);
/// "(3,2)" on topologies with coordinates, "12" elsewhere; switches by their
/// network's names ("sw(1,3)"; a cluster's is "switch").
std::string nodeName(const Topology &T, int64_t Node);

} // namespace collc

#endif
