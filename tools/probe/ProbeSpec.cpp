#include "tools/probe/ProbeSpec.h"

#include "ir/Escape.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

namespace collc::probe {

namespace {

/// A measured value to six significant digits: what a measurement carries.
std::string num(double V) {
  if (V == 0 || !std::isfinite(V))
    return std::isfinite(V) ? "0" : ".nan";
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.6g", V);
  return Buf;
}

std::string pairLabel(const MeasuredPair &P) {
  std::string S = "0-" + std::to_string(P.Peer);
  if (P.Intra)
    return S + " (same node)";
  return S + " (" + std::to_string(P.Hops) +
         (P.Hops == 1 ? " link)" : " links)");
}

std::string placementYaml(const Placement &P) {
  switch (P.K) {
  case Placement::Block:
    return "block";
  case Placement::Cyclic:
    return "cyclic";
  case Placement::List:
    break;
  }
  std::string S = "[";
  for (size_t I = 0; I < P.RankNodes.size(); ++I)
    S += (I ? ", " : "") + std::to_string(P.RankNodes[I]);
  return S + "]";
}

std::string nodeList(const std::vector<std::string> &Names) {
  std::string S;
  const size_t Shown = 4;
  for (size_t I = 0; I < Names.size() && I < Shown; ++I)
    S += (I ? ", " : "") + printableText(Names[I]);
  if (Names.size() > Shown)
    S += ", ..., " + printableText(Names.back());
  return S;
}

const char *baseText(const Base &B) {
  switch (B.K) {
  case Base::Smpi:
    return "--base smpi: the factors at the smallest and the largest probed\n"
           "# size are SimGrid SMPI 3.32's defaults there";
  case Base::Measured:
    return "--base measured: the factors at the smallest and the largest\n"
           "# probed size are 1";
  case Base::Given:
    return "--base LAT,BW: the link given on the command line";
  }
  return "";
}

} // namespace

std::string sizeText(uint64_t Bytes) {
  if (Bytes >= (uint64_t(1) << 20) && Bytes % (uint64_t(1) << 20) == 0)
    return std::to_string(Bytes >> 20) + " MiB";
  if (Bytes >= 1024 && Bytes % 1024 == 0)
    return std::to_string(Bytes >> 10) + " KiB";
  return std::to_string(Bytes) + " B";
}

std::vector<BandCheck> selfCheck(const ProbeReport &R) {
  std::vector<BandCheck> Checks;
  for (const ProtocolBand &F : R.Net.Bands)
    Checks.push_back({F, {}, 0});
  if (Checks.empty())
    return Checks;
  for (size_t P = 0; P < R.Pairs.size(); ++P) {
    const MeasuredPair &Pair = R.Pairs[P];
    for (const Sample &S : Pair.Samples) {
      CheckRow Row{P, S,
                   Pair.Intra ? R.Net.predictIntra(S.Bytes)
                              : R.Net.predict(S.Bytes, Pair.Hops)};
      size_t B = Checks.size() - 1;
      while (B > 0 && Checks[B].Band.MinBytes > S.Bytes)
        --B;
      Checks[B].Rows.push_back(Row);
      Checks[B].MaxError = std::max(Checks[B].MaxError, std::fabs(Row.error()));
    }
  }
  for (BandCheck &C : Checks)
    std::stable_sort(C.Rows.begin(), C.Rows.end(),
                     [](const CheckRow &A, const CheckRow &B) {
                       return A.Measured.Bytes != B.Measured.Bytes
                                  ? A.Measured.Bytes < B.Measured.Bytes
                                  : A.Pair < B.Pair;
                     });
  return Checks;
}

double maxError(const std::vector<BandCheck> &Checks) {
  double M = 0;
  for (const BandCheck &C : Checks)
    M = std::max(M, C.MaxError);
  return M;
}

void writeCheckSummary(llvm::raw_ostream &OS,
                       const std::vector<BandCheck> &Checks) {
  for (const BandCheck &C : Checks) {
    if (C.Rows.empty())
      continue;
    OS << llvm::format(
        "  from %10s: latency x %-9s bandwidth x %-9s "
        "%3zu medians, largest error %.2f%%\n",
        sizeText(C.Band.MinBytes).c_str(), num(C.Band.LatencyFactor).c_str(),
        num(C.Band.BandwidthFactor).c_str(), C.Rows.size(), 100 * C.MaxError);
  }
}

void writeProbeSpec(llvm::raw_ostream &OS, const ProbeReport &R) {
  const NetworkFit &N = R.Net;
  const Placement &W = R.Where;
  OS << "# Machine spec written by collc-probe " << COLLC_VERSION << ": "
     << R.Processes << " processes on " << W.NodeNames.size()
     << (W.NodeNames.size() == 1 ? " node" : " nodes") << " ("
     << nodeList(W.NodeNames) << ").\n";
  if (!R.Discovered.empty())
    OS << "# Topology " << R.Topology.text() << ", found by --topology "
       << "discover: " << R.Discovered << "\n";
  else if (R.TopologyNamed)
    OS << "# Topology as named with --topology " << R.Topology.text()
       << "; node i is the i-th processor name\n# in rank order.\n";
  else
    OS << "# Topology: the probe cannot see it; --topology names it (every "
          "route is one\n# link here).\n";
  OS << "#\n# One-way time of m bytes over h links, as measured by ping-pong "
        "(medians):\n"
        "#   send_overhead + h * latency * latency_factor(m)\n"
        "#                 + m / (bandwidth_factor(m) * bandwidth)\n"
        "# A ping-pong measures latency * latency_factor and bandwidth * "
        "bandwidth_factor;\n# the split is "
     << baseText(R.BaseLink) << ".\n";
  if (R.OnlyIntra)
    OS << "# No two processes ran on different nodes: the links repeat the "
          "intra-node fit.\n";
  OS << "name: " << jsonString(R.Name) << "\n";
  OS << "topology: " << R.Topology.yaml(R.Nodes) << "\n";
  OS << "network:\n  links:\n";
  for (const std::string &Class : R.Topology.linkClasses())
    OS << "    - {class: " << Class << ", latency: " << num(N.Link.Latency)
       << ", bandwidth: " << num(N.Link.Bandwidth)
       << ", duplex: " << (N.FullDuplex ? "full" : "half") << "}\n";
  OS << "  injection: {links: " << N.InjectionLinks
     << ", bandwidth: " << num(N.InjectionBandwidth) << "}\n";
  OS << "  protocol:\n    send_overhead: " << num(N.SendOverhead) << "\n";
  if (N.MaxPiece)
    OS << "    max_piece: " << N.MaxPiece << "\n";
  OS << "    bands:\n";
  for (const ProtocolBand &F : N.Bands)
    OS << "      - {from: " << F.MinBytes
       << ", latency_factor: " << num(F.LatencyFactor)
       << ", bandwidth_factor: " << num(F.BandwidthFactor) << "}\n";
  OS << "  nodes: {processes: " << W.ProcsPerNode
     << ", placement: " << placementYaml(W);
  if (N.HasIntra) {
    OS << ", intra: {latency: " << num(N.Intra.Latency)
       << ", bandwidth: " << num(N.Intra.Bandwidth);
    // Measured half duplex between two ranks of one node: the node's
    // messages share its intra-node link (docs/network.md).
    if (R.ExchangeMeasured && R.ExchangeIntra && !N.FullDuplex)
      OS << ", duplex: half";
    OS << "}";
  }
  OS << "}\n";
  if (!N.HasIntra)
    OS << "# No two processes shared a node: the intra-node link was not "
          "measured.\n";

  // What was measured beyond the ping-pongs.
  OS << "#\n# Timer: " << num(R.TimerCost)
     << " µs per reading, taken off every measurement.\n";
  if (!R.Fans.empty()) {
    OS << "# Injection: " << sizeText(R.FanBytes)
       << " from rank 0 to k partners at once (ranks";
    for (int P : R.FanPeers)
      OS << " " << P;
    OS << "), bytes per time unit in all:\n#  ";
    for (const FanSample &F : R.Fans)
      OS << " k=" << F.Flows << ": " << num(F.Rate) << " (" << F.Shared
         << " on the busiest link)";
    OS << "\n";
    if (!R.FansInterNode)
      OS << "# (all on rank 0's node: no injection limit is derived from "
            "them)\n";
  }
  if (R.ExchangeMeasured)
    OS << "# Duplex: " << sizeText(R.ExchangeBytes) << " each way at once took "
       << num(R.ExchangeRatio)
       << " times one way: " << (N.FullDuplex ? "full" : "half")
       << " duplex.\n";
  if (R.PiecesRatio > 0)
    OS << "# In pieces below the eager limit it took " << num(R.PiecesRatio)
       << " times one way"
       << (N.MaxPiece ? ": whole messages that cross share a connection here, "
                        "so messages go in pieces of max_piece bytes (the "
                        "duplex above is the pieces')"
                      : "")
       << ".\n";

  // The fit's error per band.
  std::vector<BandCheck> Checks = selfCheck(R);
  OS << "#\n# Fit per size band: measured against predicted median one-way "
        "time, error %.\n# Pairs:";
  for (size_t P = 0; P < R.Pairs.size(); ++P)
    OS << (P ? "," : "") << " " << char('A' + P) << " = rank "
       << pairLabel(R.Pairs[P]);
  OS << ".\n# Largest error " << llvm::format("%.2f%%", 100 * maxError(Checks))
     << " over every measured median.\n";
  for (const BandCheck &C : Checks) {
    OS << "#\n# band from " << sizeText(C.Band.MinBytes) << ": "
       << C.Rows.size() << " medians, largest error "
       << llvm::format("%.2f%%", 100 * C.MaxError) << "\n";
    OS << "# pair      bytes     measured    predicted    error\n";
    for (const CheckRow &Row : C.Rows)
      OS << llvm::format("# %4c %10llu %12s %12s %+7.2f%%\n",
                         char('A' + Row.Pair),
                         (unsigned long long)Row.Measured.Bytes,
                         num(Row.Measured.Time).c_str(),
                         num(Row.Predicted).c_str(), 100 * Row.error());
  }
}

} // namespace collc::probe
