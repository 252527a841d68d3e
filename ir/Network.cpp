#include "ir/Network.h"

#include "ir/EnumNames.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace collc {

const ProtocolBand &Network::band(uint64_t Bytes) const {
  static const ProtocolBand Neutral;
  // The last band that starts at or below Bytes.
  auto It = std::upper_bound(
      Bands.begin(), Bands.end(), Bytes,
      [](uint64_t B, const ProtocolBand &Band) { return B < Band.MinBytes; });
  return It == Bands.begin() ? Neutral : *(It - 1);
}

std::pair<double, double> Network::oneHopLinear() const {
  if (Links.empty())
    return {0, 0};
  const ProtocolBand &First = band(0);
  return {Links[0].Latency * First.LatencyFactor,
          1 / (Links[0].Bandwidth * First.BandwidthFactor)};
}

double Network::injectionLimit() const {
  double Limit = std::numeric_limits<double>::infinity();
  if (InjectionLinks > 0 && !Links.empty())
    Limit = InjectionLinks * Links[0].Bandwidth;
  if (InjectionBandwidth > 0)
    Limit = std::min(Limit, InjectionBandwidth);
  return Limit;
}

int64_t Network::nodeOfRank(int64_t Rank, int64_t Ranks, int64_t Nodes) const {
  const int64_t PerNode = std::max<int64_t>(1, ProcsPerNode);
  switch (Placement) {
  case RankPlacement::Block:
    return Rank / PerNode;
  case RankPlacement::Cyclic: {
    // Over as few nodes as hold the ranks.
    int64_t Used = (Ranks + PerNode - 1) / PerNode;
    if (Nodes > 0)
      Used = std::min(Used, Nodes);
    return Rank % std::max<int64_t>(1, Used);
  }
  case RankPlacement::List:
    assert(Rank < static_cast<int64_t>(RankNodes.size()));
    return RankNodes[Rank];
  }
  return Rank;
}

const char *rankPlacementName(RankPlacement P) {
  static constexpr const char *Names[] = {"block", "cyclic", "list"};
  return enumName<RankPlacement::Block, RankPlacement::List>(P, Names);
}

} // namespace collc
