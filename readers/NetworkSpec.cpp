#include "readers/NetworkSpec.h"

#include "ir/Format.h"
#include "ir/Request.h"
#include "passes/Routes.h"
#include "readers/Schema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;

namespace collc {

namespace {

/// Latencies and overheads: larger times would swallow every other.
constexpr double MaxTime = 1e12;

/// A number in (0, Max]: a bandwidth or a factor.
FieldReader positiveField(double &Out, double Max = 1e300) {
  return [&Out, Max](Document &D, const DocNode &N, StringRef Key) {
    if (!D.number(N, Key, Out, 0, Max))
      return false;
    if (Out > 0)
      return true;
    return D.error(&N, "expected a number > 0 for '" + Key + "', got '" +
                           N.Text + "'");
  };
}

/// The lowest bandwidth: one byte in at most MaxModelTime time units, as a
/// model's per_byte.
constexpr double MinBandwidth = 1 / MaxModelTime;

/// A bandwidth in [MinBandwidth, 1e300]; with \p Unlimited, 0 too (no
/// limit).
FieldReader bandwidthField(double &Out, bool Unlimited) {
  return [&Out, Unlimited](Document &D, const DocNode &N, StringRef Key) {
    if (!(Unlimited ? numberField(Out) : positiveField(Out))(D, N, Key))
      return false;
    if (Out >= MinBandwidth || (Unlimited && Out == 0))
      return true;
    return D.error(
        &N, "expected " + Twine(Unlimited ? "0 (no limit) or " : "") +
                "a number >= " + formatBound(MinBandwidth) + " for '" + Key +
                "' (a byte in at most " + formatBound(MaxModelTime) +
                " time units), got '" + N.Text + "'");
  };
}

FieldReader duplexField(bool &FullDuplex) {
  return choiceField(FullDuplex, {{"full", true}, {"half", false}}, "duplex");
}

/// Reads every item of the list \p N (field \p Key) with \p Read, which is
/// given the item and its index.
bool readList(Document &D, const DocNode &N, StringRef Key, StringRef Example,
              function_ref<bool(const DocNode &, size_t)> Read) {
  if (N.Kind != DocNode::Seq)
    return D.error(&N, "expected a list for '" + Key + "', e.g. " + Example);
  if (N.Items.empty())
    return D.error(&N, "expected at least one entry in '" + Key + "'");
  for (size_t I = 0; I < N.Items.size(); ++I)
    if (!Read(*N.Items[I], I))
      return false;
  return true;
}

/// The keys of a link: latency, bandwidth (> 0; with \p Unlimited, >= 0
/// and 0 for no limit), duplex, fatpipe.
std::vector<Field> linkFields(LinkClass &L, Presence Need, bool Unlimited) {
  return {
      {"latency", Need, numberField(L.Latency, 0, MaxTime)},
      {"bandwidth", Need, bandwidthField(L.Bandwidth, Unlimited)},
      {"duplex", Presence::Optional, duplexField(L.FullDuplex)},
      {"fatpipe", Presence::Optional, boolField(L.FatPipe)},
  };
}

/// `links`: one entry per link class of \p T, in any order, stored at the
/// class's number.
bool readLinks(Document &D, const DocNode &N, StringRef Key, const Topology &T,
               std::vector<LinkClass> &Out) {
  const std::vector<std::string> Names = linkClassNames(T);
  Out.assign(Names.size(), LinkClass{});
  std::vector<bool> Seen(Names.size(), false);
  auto Read = [&](const DocNode &Item, size_t) {
    LinkClass L;
    Section S{"", {}, linkFields(L, Presence::Required, false)};
    S.Fields.insert(S.Fields.begin(),
                    {"class", Presence::Required, stringField(L.Name)});
    SectionReader R(D, S);
    if (!R.read(Item, quoted(Key)))
      return false;
    auto It = find(Names, L.Name);
    if (It == Names.end())
      return D.error(R.get("class"),
                     "unknown link class '" + L.Name + "' for topology '" +
                         topologyKindName(T.Kind) +
                         "'; expected one of: " + join(Names, ", "));
    size_t Class = static_cast<size_t>(It - Names.begin());
    if (Seen[Class])
      return D.error(R.get("class"),
                     "duplicate link class '" + L.Name + "' in '" + Key + "'");
    Seen[Class] = true;
    Out[Class] = std::move(L);
    return true;
  };
  if (!readList(D, N, Key, "[{class: link, latency: 1, bandwidth: 12500}]",
                Read))
    return false;
  for (size_t I = 0; I < Names.size(); ++I)
    if (!Seen[I])
      return D.error(&N, "missing link class '" + Names[I] + "' in '" + Key +
                             "'; topology '" + topologyKindName(T.Kind) +
                             "' has: " + join(Names, ", "));
  return true;
}

/// `bands`: from 0 up, each above the one before.
bool readBands(Document &D, const DocNode &N, StringRef Key,
               std::vector<ProtocolBand> &Out) {
  auto Read = [&](const DocNode &Item, size_t I) {
    ProtocolBand B;
    Section S{"",
              {},
              {
                  {"from", Presence::Required,
                   integerField(B.MinBytes, 0, static_cast<int64_t>(MaxBytes))},
                  {"latency_factor", Presence::Required,
                   positiveField(B.LatencyFactor)},
                  {"bandwidth_factor", Presence::Required,
                   positiveField(B.BandwidthFactor)},
              }};
    SectionReader R(D, S);
    if (!R.read(Item, quoted(Key)))
      return false;
    if (I == 0 && B.MinBytes != 0)
      return D.error(R.get("from"), "expected the first band to start at 0 "
                                    "(every size needs a band), got " +
                                        Twine(B.MinBytes));
    if (I > 0 && B.MinBytes <= Out.back().MinBytes)
      return D.error(R.get("from"),
                     "expected bands sorted by 'from' without overlap: 'from' "
                     "above the previous band's " +
                         Twine(Out.back().MinBytes) + ", got " +
                         Twine(B.MinBytes));
    Out.push_back(B);
    return true;
  };
  return readList(D, N, Key,
                  "[{from: 0, latency_factor: 1, bandwidth_factor: 1}]", Read);
}

bool readProtocol(Document &D, const DocNode &N, StringRef Key, Network &Net) {
  Section S{"",
            {},
            {
                {"send_overhead", Presence::Optional,
                 numberField(Net.SendOverhead, 0, MaxTime)},
                {"rendezvous", Presence::Optional,
                 integerField(Net.RendezvousBytes, 0,
                              static_cast<int64_t>(MaxBytes))},
                {"envelope", Presence::Optional,
                 integerField(Net.EnvelopeBytes, 0, int64_t(1) << 20)},
                {"max_piece", Presence::Optional,
                 integerField(Net.MaxPiece, 1, int64_t(1) << 30)},
                {"bands", Presence::Optional,
                 [&Net](Document &D, const DocNode &N, StringRef Key) {
                   return readBands(D, N, Key, Net.Bands);
                 }},
            }};
  return SectionReader(D, S).read(N, quoted(Key));
}

bool readInjection(Document &D, const DocNode &N, StringRef Key, Network &Net) {
  Section S{"",
            {},
            {
                {"links", Presence::Optional,
                 integerField(Net.InjectionLinks, 0, 1024)},
                {"bandwidth", Presence::Optional,
                 bandwidthField(Net.InjectionBandwidth, /*Unlimited=*/true)},
                {"shared", Presence::Optional, boolField(Net.SharedLimiter)},
            },
            /*ShowKeysWhenNotAMap=*/true};
  return SectionReader(D, S).read(N, quoted(Key));
}

bool readFlow(Document &D, const DocNode &N, StringRef Key, Network &Net) {
  Section S{"",
            {},
            {
                {"weight_s", Presence::Optional, numberField(Net.WeightS)},
                {"cross_traffic", Presence::Optional,
                 numberField(Net.CrossTraffic, 0, 1)},
                {"tcp_gamma", Presence::Optional, numberField(Net.TcpGamma)},
            },
            /*ShowKeysWhenNotAMap=*/true};
  return SectionReader(D, S).read(N, quoted(Key));
}

/// The link between two processes of one node; bandwidth 0 is unlimited.
bool readIntra(Document &D, const DocNode &N, StringRef Key, LinkClass &L) {
  Section S{"",
            {},
            linkFields(L, Presence::Optional, true),
            /*ShowKeysWhenNotAMap=*/true};
  return SectionReader(D, S).read(N, quoted(Key));
}

std::string processes(unsigned P) {
  return std::to_string(P) + (P == 1 ? " process" : " processes");
}

/// `placement`: block, cyclic, or the node of every rank.
FieldReader placementField(const Topology &T, Network &Net) {
  return [&T, &Net](Document &D, const DocNode &N, StringRef Key) {
    if (N.Kind != DocNode::Seq) {
      if (N.Kind != DocNode::Scalar)
        return D.error(&N, "expected block, cyclic or a list of nodes for '" +
                               Key + "'");
      return choiceField(
          Net.Placement,
          {{"block", RankPlacement::Block}, {"cyclic", RankPlacement::Cyclic}},
          "placement")(D, N, Key);
    }
    if (T.Nodes <= 0)
      return D.error(&N, "a placement list needs a topology of fixed size "
                         "(a 'full' topology with 'nodes')");
    Net.Placement = RankPlacement::List;
    std::vector<unsigned> Count(static_cast<size_t>(T.Nodes), 0);
    for (const DocNode *X : N.Items) {
      int64_t Node;
      if (!D.integer(*X, Key, Node, 0, T.Nodes - 1))
        return false;
      Net.RankNodes.push_back(Node);
      if (++Count[static_cast<size_t>(Node)] > Net.ProcsPerNode)
        return D.error(
            X, "node " + Twine(Node) + " appears " +
                   (Net.ProcsPerNode == 1
                        ? Twine("twice")
                        : "more than " + Twine(Net.ProcsPerNode) + " times") +
                   " in '" + Key + "' (" + processes(Net.ProcsPerNode) +
                   " per node)");
    }
    const int64_t Ranks = T.Nodes * Net.ProcsPerNode;
    if (static_cast<int64_t>(Net.RankNodes.size()) != Ranks)
      return D.error(&N, "expected " + Twine(Ranks) + " entries in '" + Key +
                             "' (the node of every rank: " + Twine(T.Nodes) +
                             " nodes x " + processes(Net.ProcsPerNode) +
                             "), got " + Twine(Net.RankNodes.size()));
    return true;
  };
}

bool readNodes(Document &D, const DocNode &N, StringRef Key, const Topology &T,
               Network &Net) {
  Section S{
      "",
      {},
      {
          {"processes", Presence::Optional,
           integerField(Net.ProcsPerNode, 1, 1024)},
          {"placement", Presence::Optional, placementField(T, Net)},
          {"intra", Presence::Optional, sectionField(readIntra, Net.IntraNode)},
      },
      /*ShowKeysWhenNotAMap=*/true};
  return SectionReader(D, S).read(N, quoted(Key));
}

} // namespace

bool readNetwork(Document &D, const DocNode &N, StringRef Key,
                 const Topology &T, Network &Out) {
  Section S{
      "",
      {},
      {
          {"links", Presence::Required,
           [&](Document &D, const DocNode &N, StringRef Key) {
             return readLinks(D, N, Key, T, Out.Links);
           }},
          {"injection", Presence::Optional, sectionField(readInjection, Out)},
          {"protocol", Presence::Optional, sectionField(readProtocol, Out)},
          {"flow", Presence::Optional, sectionField(readFlow, Out)},
          {"nodes", Presence::Optional,
           [&](Document &D, const DocNode &N, StringRef Key) {
             return readNodes(D, N, Key, T, Out);
           }},
      }};
  return SectionReader(D, S).read(N, quoted(Key));
}

Model linearModelOf(const Network &Net, const Topology &T) {
  std::vector<Channel> Route;
  if (T.Nodes != 1 && isRouted(T))
    if (Error E = appendRoute(T, 0, 1, Route))
      consumeError(std::move(E));
  if (Route.empty())
    Route.push_back({0, 1, 0, 0}); // one link of the first class
  double Latency = 0;
  for (const Channel &C : Route)
    Latency += Net.Links[C.Class].Latency;
  // A node's sends and receives share its own link when it is half duplex.
  const LinkClass &Own = Net.Links[Route.front().Class];
  const bool Half = !Own.FullDuplex && !Own.FatPipe;
  double Slowest = std::numeric_limits<double>::infinity();
  for (const LinkClass &L : Net.Links)
    Slowest = std::min(Slowest, L.Bandwidth);
  const ProtocolBand &B = Net.band(1 + Net.EnvelopeBytes);
  Model M;
  M.Kind = ModelKind::Linear;
  M.Linear.Ts = Net.SendOverhead + Latency * B.LatencyFactor;
  M.Linear.PerByte = 1 / (B.BandwidthFactor * Slowest);
  M.SendRecvFactor = Half ? 2 : 1;
  return M;
}

bool hasFiniteTimes(const Model &M) {
  return M.Linear.Ts <= MaxModelTime && M.Linear.PerByte <= MaxModelTime;
}

namespace {

/// The lowest bandwidth of \p Net's links (its intra-node link and its
/// injection limit included, when they set one).
double lowestBandwidth(const Network &Net, bool LinksOnly) {
  double Rate = std::numeric_limits<double>::infinity();
  for (const LinkClass &L : Net.Links)
    Rate = std::min(Rate, L.Bandwidth);
  if (LinksOnly)
    return Rate;
  for (double Limit : {Net.IntraNode.Bandwidth, Net.InjectionBandwidth})
    if (Limit > 0)
      Rate = std::min(Rate, Limit);
  return Rate;
}

} // namespace

Model slowestModel(const Network &Net, uint64_t Hops) {
  double Latency = Net.IntraNode.Latency;
  for (const LinkClass &L : Net.Links)
    Latency = std::max(Latency, L.Latency);
  double LatencyFactor = Net.Bands.empty() ? 1 : 0;
  double BandwidthFactor = Net.Bands.empty() ? 1 : HUGE_VAL;
  for (const ProtocolBand &B : Net.Bands) {
    LatencyFactor = std::max(LatencyFactor, B.LatencyFactor);
    BandwidthFactor = std::min(BandwidthFactor, B.BandwidthFactor);
  }
  const double RouteLatency = static_cast<double>(Hops) * Latency;
  double Rate = lowestBandwidth(Net, /*LinksOnly=*/false);
  if (Net.TcpGamma > 0 && RouteLatency > 0)
    Rate = std::min(Rate, Net.TcpGamma / (2 * RouteLatency));
  Model M;
  M.Kind = ModelKind::Linear;
  M.Linear.Ts = Net.SendOverhead + RouteLatency * LatencyFactor;
  // A product that underflows to 0 makes per_byte infinite, as it should.
  M.Linear.PerByte = 1 / (Rate * BandwidthFactor);
  return M;
}

std::string networkTimesProblem(const Network &Net) {
  const Model Slowest = slowestModel(Net, 1);
  if (!hasFiniteTimes(Slowest))
    return "its slowest link and band give a model of " +
           linearModelText(Slowest) + "; expected at most " +
           formatBound(MaxModelTime) + " each";
  // The flow model weighs a message's share by its route's latency plus
  // weight-S over each link's bandwidth.
  const double Bandwidth = lowestBandwidth(Net, /*LinksOnly=*/true);
  const double Penalty = Net.WeightS / Bandwidth;
  if (!(Penalty <= MaxModelTime))
    return "weight_s " + formatRounded(Net.WeightS) +
           " over its slowest link's bandwidth " + formatRounded(Bandwidth) +
           " gives every route a weight of " + formatRounded(Penalty) +
           " time units; expected at most " + formatBound(MaxModelTime);
  return "";
}

std::string linearModelText(const Model &M) {
  return "t_s " + formatRounded(M.Linear.Ts) + ", per_byte " +
         formatRounded(M.Linear.PerByte);
}

} // namespace collc
