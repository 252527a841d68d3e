/// \file
/// The network a schedule runs on, below the papers' one-formula-per-message
/// models: links with a latency and a bandwidth, how much a node can inject
/// at once, the protocol bands of the MPI library (eager, rendezvous: the
/// factors SimGrid's SMPI calls lat-factor and bw-factor), a per-message
/// software overhead, and several processes per node with the placement of
/// ranks on nodes.
///
/// A machine has a network when its spec has a `network:` section or when
/// it is read from a SimGrid platform file; the cost pass then runs the
/// flow-level evaluator (passes/NetworkCost.h) instead of the model's
/// affine formulas. Plain data, filled by the front end; checkNetwork()
/// (readers/MachineCheck.h) says whether a machine's network is usable.
///
/// Which links a message crosses is the topology's business
/// (passes/Routes.h): every channel of a route names its link class, an
/// index into Network::Links. A message between two ranks on one node
/// crosses no channel and uses the IntraNode class only.
///
/// Units: times in the machine's unit (µs for the bundled machines), sizes
/// in bytes, bandwidths in bytes per time unit (bytes/µs = MB/s).
#ifndef COLLC_IR_NETWORK_H
#define COLLC_IR_NETWORK_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace collc {

/// A kind of link: every link of the topology belongs to one class (all the
/// links of a torus; a fat-tree's levels; a cluster's private links and its
/// backbone; the links inside a node).
struct LinkClass {
  std::string Name;
  /// Time a message's head takes to cross the link.
  double Latency = 0;
  /// Bytes per time unit the link carries (per direction when full duplex).
  /// For the IntraNode class, 0 means unlimited.
  double Bandwidth = 0;
  /// Full duplex: each direction has the whole bandwidth. Half duplex: both
  /// directions share it.
  bool FullDuplex = true;
  /// SimGrid's FATPIPE: messages do not share the link, each one alone is
  /// bounded by its bandwidth (a backbone that traffic cannot saturate);
  /// FullDuplex is then moot.
  bool FatPipe = false;
};

/// Multipliers for messages from MinBytes on (up to the next band): this is
/// how MPI libraries and SMPI model eager and rendezvous protocols.
struct ProtocolBand {
  uint64_t MinBytes = 0;
  /// Multiplies the route's latency.
  double LatencyFactor = 1;
  /// Multiplies the rate a message gets from the links (SimGrid 3.32: the
  /// share of the links' bandwidth the flow holds, times this factor; a
  /// message alone on its route moves at BandwidthFactor x the slowest
  /// link's bandwidth).
  double BandwidthFactor = 1;
};

enum class RankPlacement {
  Block,  ///< Ranks 0..k-1 on node 0, k..2k-1 on node 1, ...
  Cyclic, ///< Rank r on node r mod nodes.
  List,   ///< As listed (Network::RankNodes).
};

struct Network {
  /// Index = the topology's link class number (see linkClassNames() in
  /// passes/Routes.h).
  std::vector<LinkClass> Links;
  /// Sorted by MinBytes, the first at 0. Empty: factors 1 at every size.
  std::vector<ProtocolBand> Bands;
  /// Software time a sender spends per message before it leaves; a rank's
  /// sends of one step leave one after the other.
  double SendOverhead = 0;
  /// Links a node drives at once (0: all it has). A node then injects (and,
  /// separately, ejects) at most InjectionLinks x the bandwidth of its
  /// first-hop link class, shared by its messages.
  unsigned InjectionLinks = 0;
  /// Total bytes per time unit a node injects (and, separately, ejects);
  /// 0: no limit beyond its links.
  double InjectionBandwidth = 0;
  /// InjectionBandwidth is SimGrid's `limiter_link`: one shared link per
  /// node rather than an injection and an ejection limit. A message crosses
  /// the limiter of every node of its route on a torus or mesh (its
  /// sender's, each it passes through and its receiver's: what SMPI 3.32
  /// measures), its sender's and its receiver's elsewhere; a node's sends,
  /// receives and forwarded messages share one rate.
  bool SharedLimiter = false;
  /// Messages of at least this many bytes go by rendezvous: the send
  /// completes when the data has arrived. Smaller ones are eager: the send
  /// completes as soon as it is posted. (SMPI's smpi/send-is-detached-thresh;
  /// either way SMPI moves the data only once the receive is posted.)
  uint64_t RendezvousBytes = 65536;
  /// The largest piece of a message the runtime gives to one MPI call
  /// (`protocol: {max_piece}`; 0: no limit of the machine's, the runtime's
  /// 1 GiB). Where two messages beyond the eager limit that cross on one
  /// connection move at half the link's rate (Open MPI over TCP), pieces
  /// below it keep the rate; collc-probe measures it. The model prices a
  /// message as one either way.
  uint64_t MaxPiece = 0;
  /// Bytes the library adds to every message (SMPI: a 16-byte envelope);
  /// they travel with it and count when its band is chosen.
  uint64_t EnvelopeBytes = 16;

  /// The flow model's constants, SimGrid's (SMPI network model) unless
  /// changed; docs/network.md says what each does.
  /// Concurrent messages share a link in proportion to 1 / (route latency +
  /// sum over the route of WeightS / link bandwidth): SimGrid's weight-S, in
  /// bytes (SMPI: 8775; 0 = equal shares whatever the route).
  double WeightS = 8775;
  /// A message also loads the links of the reverse route with this fraction
  /// of its rate (the acknowledgements; SimGrid's network/crosstraffic: 0.05
  /// when on; 0 = off).
  double CrossTraffic = 0.05;
  /// A message's rate is at most TcpGamma / (2 x route latency) (SimGrid's
  /// network/TCP-gamma, the largest TCP window, in bytes; 0 = no bound).
  double TcpGamma = 4194304;

  /// Processes per node, the link class between two of them on one node,
  /// and where each rank runs.
  unsigned ProcsPerNode = 1;
  LinkClass IntraNode{"intra-node", 0, 0, true};
  RankPlacement Placement = RankPlacement::Block;
  /// Placement List: the node of each rank.
  std::vector<int64_t> RankNodes;

  /// The band a message of \p Bytes (envelope included) falls in.
  const ProtocolBand &band(uint64_t Bytes) const;
  /// Whether a message of \p Bytes (envelope excluded) goes by rendezvous.
  bool rendezvous(uint64_t Bytes) const { return Bytes >= RendezvousBytes; }
  /// t_s and per_byte of the linear model (t_s + m x per_byte) the builders
  /// use on a machine whose spec gives a network and no model: a one-hop
  /// message on a link of class 0 in the first band (latency x latency
  /// factor; 1 / (bandwidth x bandwidth factor)).
  std::pair<double, double> oneHopLinear() const;
  /// Bytes per time unit a node injects (and, separately, ejects) at most:
  /// InjectionLinks x the bandwidth of link class 0, or InjectionBandwidth
  /// where that is lower; infinity without either limit.
  double injectionLimit() const;
  /// The node rank \p Rank of \p Ranks runs on, by the placement, on a
  /// topology of \p Nodes nodes (Nodes = 0: as many as the ranks need).
  /// This is what the front end writes into Request::Nodes.
  int64_t nodeOfRank(int64_t Rank, int64_t Ranks, int64_t Nodes) const;
};

const char *rankPlacementName(RankPlacement P);

} // namespace collc

#endif
