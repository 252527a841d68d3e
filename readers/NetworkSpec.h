/// \file
/// The `network:` section of a machine spec (docs/spec.md, docs/network.md),
/// read into ir/Network.h's Network and checked against the machine's
/// topology:
///
///   network:
///     links: [{class, latency, bandwidth, duplex, fatpipe}, ...]
///     injection: {links, bandwidth}
///     protocol: {send_overhead, rendezvous, envelope, max_piece,
///                bands: [{from, latency_factor, bandwidth_factor}, ...]}
///     flow: {weight_s, cross_traffic, tcp_gamma}
///     nodes: {processes, placement, intra: {latency, bandwidth, duplex}}
///
/// `links` names every link class of the topology once (linkClassNames() of
/// passes/Routes.h), and no other. Bands start at 0 and rise strictly.
/// A placement list gives the node of every rank: nodes x processes entries,
/// each node at most `processes` times.
///
/// A machine with a network and no `model:` gets the linear model of
/// linearModelOf(), which the builders plan with (segment counts, trees).
#ifndef COLLC_READERS_NETWORKSPEC_H
#define COLLC_READERS_NETWORKSPEC_H

#include "ir/Machine.h"
#include "readers/Document.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace collc {

/// Reads the `network:` mapping \p N (field \p Key) of a machine whose
/// topology is \p T into \p Out; reports a problem through \p D and returns
/// false.
bool readNetwork(Document &D, const DocNode &N, llvm::StringRef Key,
                 const Topology &T, Network &Out);

/// The linear model T_send(m) = t_s + m per_byte of a message between two
/// neighbouring nodes (node 0 and node 1) of \p T on \p Net, alone on the
/// network:
///   t_s      = send overhead + the latency of the route from node 0 to
///              node 1 (the sum of its links': one link on a torus; private,
///              backbone, private on a cluster; two level-1 links on a fat
///              tree) x the latency factor of the band of a 1-byte message
///              (its envelope included);
///   per_byte = 1 / (that band's bandwidth factor x the bandwidth of the
///              slowest link class);
///   send_recv_factor = 2 when the route's first link, the node's own, is
///              half duplex (a node sending and receiving at once shares
///              it), else 1.
/// Times may be infinite when the bandwidths or factors are tiny; the
/// machine reader refuses such a network.
Model linearModelOf(const Network &Net, const Topology &T);

/// Whether the linear model \p M has finite times (t_s and per_byte at most
/// MaxModelTime, as the model section allows).
bool hasFiniteTimes(const Model &M);

/// The bound the model section puts on t_s and per_byte, and a network's
/// slowest message on a link, and weight-S's penalty, must stay under.
constexpr double MaxModelTime = 1e300;

/// The linear model of the slowest message \p Net can carry over a route of
/// \p Hops links, alone on it, whatever its size band:
///   t_s      = send overhead + Hops x the highest link latency (the
///              intra-node link's included) x the highest latency factor;
///   per_byte = 1 / (the lowest rate x the lowest bandwidth factor), the
///              rate the lowest of the link bandwidths, the injection
///              bandwidth, the intra-node bandwidth (those two when not 0:
///              no limit) and TCP-gamma / (2 x the route's latency).
/// Every message the flow evaluator times is at least this fast when alone,
/// so finite times here (hasFiniteTimes) and a bounded amount of data make
/// finite times there.
Model slowestModel(const Network &Net, uint64_t Hops);

/// What in \p Net would give a message a time that is not finite, in words
/// ("its slowest link and band give a model of t_s 1, per_byte 1e+308;
/// expected at most 1e300 each"), or an empty string when nothing does: the
/// slowest one-link message (slowestModel) and weight-S over the slowest
/// link, a time the flow model adds to every route.
std::string networkTimesProblem(const Network &Net);

/// "t_s 2.01467, per_byte 9.851e-05": a linear model in a message.
std::string linearModelText(const Model &M);

} // namespace collc

#endif
