/// \file
/// The topology collc-probe is told it runs on (`--topology`): the probe
/// cannot see it, but when it is named the fit counts the links each
/// measured route crosses (latency per link), and the injection test knows
/// which flows leave a node by the same link.
///
/// Kinds, as the machine spec writes them (docs/spec.md, docs/network.md):
///  - `full[:N]` (the default): a crossbar, every route one link (class
///    `link`);
///  - `cluster[:N]`: SimGrid's flat cluster, every node a private link to one
///    switch (class `private`): a route crosses two, its sender's and its
///    receiver's; the probe writes no backbone (it would add the same to
///    every route, so the private links absorb it);
///  - `mesh:D1,D2,...`, `torus:D1,D2,...`, `hypercube:D`: collc's topologies
///    of that name (ir/Machine.h), routed by passes/Routes.h (class `link`);
///  - `fat-tree:L;d1,..,dL;u1,..,uL;p1,..,pL`: SimGrid's FAT_TREE parameters;
///    nodes are grouped by d1 under the first switches, d1*d2 under the
///    second level and so on, and a route climbs to the lowest level that
///    holds both ends and comes down (classes `level-1`..`level-L`).
/// Node i of the topology is the i-th node in rank order of first
/// appearance (collc-probe's placement).
#ifndef COLLC_TOOLS_PROBE_PROBETOPOLOGY_H
#define COLLC_TOOLS_PROBE_PROBETOPOLOGY_H

#include "ir/Machine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc::probe {

struct ProbeTopology {
  enum Kind { Full, Cluster, Mesh, Torus, Hypercube, FatTree } K = Full;
  /// Full and cluster: the node count given, 0 for as many as the run finds.
  int64_t Nodes = 0;
  /// Mesh, torus and hypercube as collc knows them.
  Topology Collc;
  /// Fat tree: per level, down, up and parallel links (SimGrid's order).
  std::vector<int64_t> Down, Up, Parallel;

  /// Nodes of the machine when the run found \p Found.
  int64_t nodeCount(int64_t Found) const;
  /// Links a message from node \p A to node \p B crosses (0 when A == B).
  unsigned hops(int64_t A, int64_t B) const;
  /// The most routes from \p Src to \p Dsts (one each) that start on one
  /// link out of Src: the flows that share the busiest of its links.
  unsigned sharedFirstLink(int64_t Src, const std::vector<int64_t> &Dsts) const;
  /// The link classes, in class-number order.
  std::vector<std::string> linkClasses() const;
  /// The spec's `topology:` value for a machine of \p Nodes nodes, in YAML
  /// flow style: "{kind: torus, dims: [4, 4]}".
  std::string yaml(int64_t Nodes) const;
  /// As `--topology` writes it: "torus:4,4".
  std::string text() const;
};

/// Reads a `--topology` value (see the file comment).
llvm::Expected<ProbeTopology> parseProbeTopology(llvm::StringRef Text);

/// A rank rank 0 measures against.
struct Partner {
  int Rank = 1;
  /// Links between the two ranks' nodes; 1 for two ranks of one node.
  unsigned Hops = 1;
  bool Intra = false;
};

/// The ping-pong partners of rank 0, given the node of each rank: the
/// nearest, a middle and the farthest rank on other nodes (by hops, then
/// rank: on a crossbar rank 1, rank P/2 and rank P-1), then the first rank on
/// rank 0's node. Without other nodes, the nearest, middle and farthest rank
/// on rank 0's node. Distinct ranks; the first is the reference for the send
/// overhead, the bisection and the duplex test.
std::vector<Partner> choosePartners(const std::vector<int64_t> &RankNodes,
                                    const ProbeTopology &T);

/// Up to \p Max ranks for rank 0 to send to at once, on other nodes when
/// there are any: first ranks whose routes start on a link no earlier choice
/// uses, then ranks on nodes not chosen yet, then any (nearest first in
/// each pass).
std::vector<int> chooseFanPeers(const std::vector<int64_t> &RankNodes,
                                const ProbeTopology &T, unsigned Max);

} // namespace collc::probe

#endif
