/// \file
/// What collc-probe found and the machine spec it writes: the `network:`
/// section of the agreed schema (docs/spec.md, docs/network.md) with the
/// measurements and the fit's error per size band in comments, and the
/// self-check of every measured median against the spec's prediction.
#ifndef COLLC_TOOLS_PROBE_PROBESPEC_H
#define COLLC_TOOLS_PROBE_PROBESPEC_H

#include "tools/probe/Fit.h"
#include "tools/probe/ProbeTopology.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace collc::probe {

/// The ping-pong measurements between rank 0 and one partner.
struct MeasuredPair {
  int Peer = 1;
  /// Links between the two nodes (1 for two processes of one node).
  unsigned Hops = 1;
  bool Intra = false;
  std::vector<Sample> Samples;
};

/// Everything a probe run found.
struct ProbeReport {
  std::string Name = "probed";
  int Processes = 0;
  Placement Where;
  ProbeTopology Topology;
  bool TopologyNamed = false;
  /// What `--topology discover` found, for the spec's comment (empty
  /// without it).
  std::string Discovered;
  /// Nodes of the machine (at least those found).
  int64_t Nodes = 0;
  Base BaseLink;
  NetworkFit Net;
  /// No two ranks on different nodes: the links repeat the intra-node fit.
  bool OnlyIntra = false;
  double TimerCost = 0;
  std::vector<MeasuredPair> Pairs;
  /// Concurrent flows out of rank 0 (to other nodes, when there are any).
  std::vector<FanSample> Fans;
  std::vector<int> FanPeers;
  uint64_t FanBytes = 0;
  bool FansInterNode = false;
  /// A simultaneous exchange against a one-way message of ExchangeBytes.
  bool ExchangeMeasured = false;
  /// The exchange was between two ranks of one node: FullDuplex is the
  /// intra-node link's (a half-duplex one is shared by the node's messages).
  bool ExchangeIntra = false;
  uint64_t ExchangeBytes = 0;
  double ExchangeRatio = 0;
  /// The same exchange in pieces below the eager limit (0: not measured,
  /// the exchange being too short), against one way.
  double PiecesRatio = 0;
  bool Quick = false;
};

/// One measured median against the spec's prediction.
struct CheckRow {
  size_t Pair = 0;
  Sample Measured;
  double Predicted = 0;
  double error() const {
    return Measured.Time > 0 ? (Predicted - Measured.Time) / Measured.Time : 0;
  }
};

/// The self-check of one protocol band.
struct BandCheck {
  ProtocolBand Band;
  /// Sorted by size, then pair.
  std::vector<CheckRow> Rows;
  double MaxError = 0;
};

/// Every measurement of \p R against its prediction, per band.
std::vector<BandCheck> selfCheck(const ProbeReport &R);
/// The largest |error| of \p Checks.
double maxError(const std::vector<BandCheck> &Checks);

/// The machine spec, YAML.
void writeProbeSpec(llvm::raw_ostream &OS, const ProbeReport &R);
/// One line per band: its sizes, factors and largest error.
void writeCheckSummary(llvm::raw_ostream &OS,
                       const std::vector<BandCheck> &Checks);

/// "12 KiB", "3 MiB", "731 B": a size for people.
std::string sizeText(uint64_t Bytes);

} // namespace collc::probe

#endif
