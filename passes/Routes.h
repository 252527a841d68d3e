/// \file
/// Routes: the directed channels a message crosses on its way from one node
/// to another, under the topology's deterministic routing. The contention
/// checker, the step-merging pass and the DOT backend read them.
///
/// Channels. A Channel joins two adjacent vertices of the network, From ->
/// To, in that direction only (a physical link is two channels, one each
/// way). Vertices are the processor nodes 0..Nodes-1; indirect networks (the
/// MIN) also number their switches, from Nodes on.
///
/// Injection and ejection channels are NOT part of a route: a node's link
/// into and out of the network is its port, and the port rules (at most
/// `ports` sends and `ports` receives per step, t_hold between consecutive
/// sends or receives of a port) are the verifier's business. A route holds
/// only the channels between vertices, so its length is the hop count, and
/// route(T, A, B).size() == T.distance(A, B) for every routed topology.
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
///  - hypercube: e-cube routing, fixing the differing address bits in
///    written order (the first written coordinate first), like the mesh;
///  - full (a crossbar): every ordered pair has a private link, the route is
///    the single channel {Src, Dst}; two transfers share a channel only when
///    they join the same ordered pair of nodes;
///  - min, star, macro-star: see the dispatch point in Routes.cpp; kinds
///    without routing yet give an error (never a guessed route).
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
  bool operator==(const Channel &O) const = default;
};

/// Whether route() knows the topology kind of \p T.
bool isRouted(const Topology &T);

/// Appends to \p Out the channels of the route from node \p Src to node
/// \p Dst, in the order the message crosses them (nothing when Src == Dst).
/// The fast form for passes that route many transfers.
/// \p TieDown is Transfer::TieDown: on a torus, bit i makes a tie in
/// written dimension i go the decreasing way.
llvm::Error appendRoute(const Topology &T, int64_t Src, int64_t Dst,
                        std::vector<Channel> &Out, uint8_t TieDown = 0);

/// The channels of the route from node \p Src to node \p Dst, in order.
llvm::Expected<std::vector<Channel>> route(const Topology &T, int64_t Src,
                                           int64_t Dst, uint8_t TieDown = 0);

/// "(1,5)->(2,5)" on meshes, tori and hypercubes (coordinates written highest
/// dimension first, as in the paper), "3->7" elsewhere.
std::string channelName(const Topology &T, const Channel &C);
/// "(3,2)" on topologies with coordinates, "12" elsewhere.
std::string nodeName(const Topology &T, int64_t Node);

} // namespace collc

#endif
