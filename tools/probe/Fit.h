/// \file
/// The fits of collc-probe: from measured one-way times to the network model
/// of a machine spec (ir/Network.h's fields), without MPI, so that every step
/// is unit-tested on synthetic measurements.
///
/// The model of one message of m bytes whose route crosses h links:
///
///   time(m, h) = o + h * L * lf(m) + m / (bf(m) * B)
///
/// with o the send overhead, L and B the base link latency and bandwidth,
/// and lf, bf the latency and bandwidth factors of the protocol band m falls
/// in (bands start at a size and run to the next band's start; SimGrid's SMPI
/// calls them smpi/lat-factor and smpi/bw-factor). A message between two
/// processes of one node takes the intra-node link instead: h = 1 with its
/// own L and B, the same factors.
///
/// What a ping-pong can tell apart. Per band the times give two numbers: the
/// cost per link (L * lf) and per byte (1 / (B * bf)). Splitting them into a
/// base and factors is a convention (Base): `smpi` picks L and B so that the
/// factors of the smallest and the largest probed sizes are SMPI 3.32's
/// defaults there, which makes a spec probed under SMPI read back the
/// platform's links and SMPI's factors; `measured` makes those two factors 1;
/// a given L and B (a data sheet's) leaves the factors relative to them.
/// Predictions do not depend on the choice.
///
/// Bands. fitBands() splits the probed sizes into the fewest contiguous bands
/// whose per-band least-squares fits (relative errors) predict every sample
/// within a tolerance, by dynamic programming over the split points;
/// refineBoundary() then bisects between the last size of one band and the
/// first of the next to find where the regime changes, measuring as it goes.
#ifndef COLLC_TOOLS_PROBE_FIT_H
#define COLLC_TOOLS_PROBE_FIT_H

#include "ir/Network.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collc::probe {

/// One measured point: the median one-way time of a ping-pong at one size
/// between two processes whose route crosses Hops links.
struct Sample {
  uint64_t Bytes = 0;
  unsigned Hops = 1;
  /// Median one-way time (half a round trip, the timer's own cost removed).
  double Time = 0;
  /// Half the interquartile range of the repetitions over the median: the
  /// measurement's own noise.
  double Spread = 0;
  /// How the route compares with Hops links between nodes, for fitting
  /// samples of the intra-node link with the others: its latency over a
  /// link's, and a link's bandwidth over its own (1 between nodes).
  double LatencyScale = 1;
  double ByteScale = 1;
};

/// One band's fit: time - o = Hops * PerLink + Bytes * PerByte for sizes
/// from From on (to the next band's From); a sample's scales multiply the
/// two terms.
struct BandFit {
  uint64_t From = 0;
  /// Time per link crossed: L * lf.
  double PerLink = 0;
  /// Time per byte: 1 / (B * bf).
  double PerByte = 0;
};

struct FitOptions {
  /// The fewest bands whose largest relative error is at most this win.
  double Tolerance = 0.002;
  unsigned MaxBands = 12;
};

/// The relative error fitBands() aims at for samples as noisy as \p Samples:
/// three times their median spread, at least 0.2% and at most 5%.
double fitTolerance(const std::vector<Sample> &Samples);

/// The bands of \p Samples (one-way times with the send overhead \p Overhead
/// included): the fewest bands within Options.Tolerance, or, when no split
/// reaches it, the split of the smallest Bayesian information criterion. A
/// band holds at least two probed sizes (one when only one was probed).
/// Bands come sorted, the first from the smallest probed size.
std::vector<BandFit> fitBands(const std::vector<Sample> &Samples,
                              double Overhead, const FitOptions &Options = {});

/// Least-squares fits of the bands that start at \p Froms (sorted, the first
/// at or below every sample's size). A band without samples takes its
/// neighbour's fit.
std::vector<BandFit> fitFixedBands(const std::vector<Sample> &Samples,
                                   double Overhead,
                                   const std::vector<uint64_t> &Froms);

/// Measures one-way times at a size over the reference route.
using MeasureFn = std::function<Sample(uint64_t Bytes)>;

/// The first size of \p Above's regime in (\p Lo, \p Hi]: bisects while the
/// interval is wider than one byte and at most \p MaxSteps times, measuring
/// the middle with \p Measure (appended to \p Measured) and giving it to the
/// band that predicts it better. Returns the new start of \p Above.
uint64_t refineBoundary(const BandFit &Below, const BandFit &Above, uint64_t Lo,
                        uint64_t Hi, double Overhead, const MeasureFn &Measure,
                        unsigned MaxSteps, std::vector<Sample> &Measured);

/// SMPI 3.32's default smpi/lat-factor and smpi/bw-factor.
const std::vector<ProtocolBand> &smpiDefaultFactors();

/// A link class: latency per crossing and bytes per time unit.
struct LinkFit {
  double Latency = 0;
  double Bandwidth = 0;
};

/// How the base link is chosen (see the file comment).
struct Base {
  enum Kind { Smpi, Measured, Given } K = Smpi;
  /// Given: the base link.
  LinkFit Link;
};

/// The network model the probe writes: the spec's `network:` section.
struct NetworkFit {
  /// The links between nodes (every class alike: a ping-pong cannot tell
  /// classes apart).
  LinkFit Link;
  /// The protocol bands as the spec writes them.
  std::vector<ProtocolBand> Bands;
  double SendOverhead = 0;
  /// The link between two processes of one node, when measured.
  bool HasIntra = false;
  LinkFit Intra;
  /// Injection limits (fitInjection), as ir/Network.h's: links a node
  /// drives at once (0: all), bytes per time unit it injects (0: no limit).
  unsigned InjectionLinks = 0;
  double InjectionBandwidth = 0;
  /// The pieces' size when they were much faster than whole messages
  /// (`protocol: {max_piece}`), else 0.
  uint64_t MaxPiece = 0;
  /// Whether the links between nodes are full duplex.
  bool FullDuplex = true;

  const ProtocolBand &band(uint64_t Bytes) const;
  /// One-way time of \p Bytes over \p Hops links between nodes.
  double predict(uint64_t Bytes, unsigned Hops) const;
  /// One-way time of \p Bytes between two processes of one node.
  double predictIntra(uint64_t Bytes) const;
};

/// Splits \p Bands into base link and factors by \p B; \p SmallestBytes and
/// \p LargestBytes are the probed extremes the `smpi` base anchors at. A band
/// whose per-link (per-byte) cost came out 0, which noise can do where that
/// term is too small to see, takes the smallest positive one of the others.
NetworkFit makeNetworkFit(std::vector<BandFit> Bands, double Overhead,
                          const Base &B, uint64_t SmallestBytes,
                          uint64_t LargestBytes);

/// The intra-node link under \p Net's factors: least squares over \p Samples
/// (Hops ignored: one link).
LinkFit fitIntraLink(const std::vector<Sample> &Samples, const NetworkFit &Net);

/// The whole model from the bands' starts \p Froms: per-band fits of the
/// samples between nodes, \p Inter, split by \p B. With samples of the
/// intra-node link too, the bands fit both (the link's latency and bandwidth
/// relative to the others', fitted in turn with the bands, a few rounds:
/// factors are the same for every link). Without \p Inter, the bands and
/// the links come from \p Intra and the intra-node link is the links'.
NetworkFit fitNetwork(const std::vector<Sample> &Inter,
                      const std::vector<Sample> &Intra, double Overhead,
                      const std::vector<uint64_t> &Froms, const Base &B,
                      uint64_t SmallestBytes, uint64_t LargestBytes);

/// Aggregate rate of k concurrent flows from one node.
struct FanSample {
  unsigned Flows = 1;
  /// The most of them whose routes start on one link out of the node
  /// (ProbeTopology::sharedFirstLink).
  unsigned Shared = 1;
  /// Bytes per time unit, all flows together: their bytes over the time the
  /// last one took.
  double Rate = 0;
};

/// \p Net's injection limits from k = 1, 2, ... concurrent flows (the first
/// one flow): none when every k reaches (1 - \p Slack) of k / Shared times
/// one flow's rate (what the links alone allow); else the links the node
/// drives at once when the best rate is that many flows' rate, or the best
/// rate as a bandwidth.
void fitInjection(const std::vector<FanSample> &Fans, NetworkFit &Net,
                  double Slack = 0.1);

/// Full duplex when a simultaneous exchange of m bytes each way takes less
/// than 1.5 times a one-way message of m bytes.
bool isFullDuplex(double ExchangeTime, double OneWayTime);

/// Where the ranks run, from each rank's processor name.
struct Placement {
  enum Kind { Block, Cyclic, List } K = Block;
  /// Node of each rank: nodes numbered by first appearance in rank order.
  std::vector<int64_t> RankNodes;
  std::vector<std::string> NodeNames;
  unsigned ProcsPerNode = 1;
};
Placement detectPlacement(const std::vector<std::string> &ProcessorNames);

/// Message sizes 0, 1, then \p PerOctave log-spaced sizes per doubling up to
/// \p MaxBytes (every power of two included), rounded to whole bytes.
std::vector<uint64_t> probeSizes(uint64_t MaxBytes, unsigned PerOctave);

/// Median of \p V (not empty); reorders V.
double median(std::vector<double> &V);
/// Half the interquartile range of \p V over its median (0 for a median of
/// 0); reorders V.
double relativeSpread(std::vector<double> &V);

} // namespace collc::probe

#endif
