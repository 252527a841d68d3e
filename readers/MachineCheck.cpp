#include "readers/MachineCheck.h"

#include "passes/Routes.h"

#include <cmath>
#include <string>

namespace collc {

int64_t fatTreeLevelTooLarge(const Topology &T) {
  // Level l holds prod_{i<l} up_i x prod_{i>=l} down_i vertices.
  for (int64_t L = 0; L <= T.Levels; ++L) {
    int64_t Count = 1;
    for (int64_t I = 0; I < T.Levels; ++I) {
      int64_t X = I < L ? T.Up[I] : T.Down[I];
      if (Count > MaxNodes / X)
        return L;
      Count *= X;
    }
  }
  return -1;
}

llvm::Error checkNetwork(const Machine &M) {
  auto Fail = [](const std::string &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                   Msg.c_str());
  };
  if (!M.Net)
    return llvm::Error::success();
  const Network &N = *M.Net;
  if (!isRouted(M.Topo))
    return Fail(std::string("a network needs routes, and topology '") +
                topologyKindName(M.Topo.Kind) + "' has none");
  std::vector<std::string> Names = linkClassNames(M.Topo);
  if (N.Links.size() != Names.size()) {
    std::string List;
    for (const std::string &Nm : Names)
      List += (List.empty() ? "'" : ", '") + Nm + "'";
    return Fail("topology '" + std::string(topologyKindName(M.Topo.Kind)) +
                "' has " + std::to_string(Names.size()) + " link class" +
                (Names.size() == 1 ? "" : "es") + " (" + List +
                "), the network describes " + std::to_string(N.Links.size()));
  }
  for (const LinkClass &L : N.Links)
    if (!(L.Bandwidth > 0) || !(L.Latency >= 0) || !std::isfinite(L.Bandwidth))
      return Fail("link class '" + L.Name +
                  "' needs a positive bandwidth and a latency >= 0");
  if (!(N.IntraNode.Bandwidth >= 0) || !(N.IntraNode.Latency >= 0))
    return Fail("the intra-node link needs a bandwidth and a latency >= 0");
  for (size_t I = 0; I < N.Bands.size(); ++I) {
    const ProtocolBand &B = N.Bands[I];
    if (I == 0 && B.MinBytes != 0)
      return Fail("the first protocol band must start at 0 bytes");
    if (I > 0 && B.MinBytes <= N.Bands[I - 1].MinBytes)
      return Fail("protocol bands must be sorted by their first size, "
                  "without repeats");
    if (!(B.LatencyFactor > 0) || !(B.BandwidthFactor > 0) ||
        !std::isfinite(B.LatencyFactor) || !std::isfinite(B.BandwidthFactor))
      return Fail("protocol band factors must be positive");
  }
  if (!(N.SendOverhead >= 0) || !(N.InjectionBandwidth >= 0) ||
      !(N.WeightS >= 0) || !(N.CrossTraffic >= 0) || !(N.TcpGamma >= 0))
    return Fail("network times, bandwidths and model constants must be >= 0");
  if (N.ProcsPerNode < 1)
    return Fail("a node runs at least one process");
  return llvm::Error::success();
}

} // namespace collc
