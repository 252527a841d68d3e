/// \file
/// collc-probe finding which nodes share a switch (`--topology discover`),
/// from concurrent flows, as topology-discovering tools do.
///
/// In rounds, every node sends a flow to another at once (a random
/// derangement of the nodes: each node sends one flow and receives one, so
/// no two flows share a node's own link); the receivers time them. On a tree
/// of switches, a flow between two nodes of one leaf switch crosses only
/// their own links and always runs at the full rate; a flow between leaves
/// crosses the leaves' uplinks, which it shares with the round's other flows
/// leaving or entering those leaves, and runs slower whenever more flows
/// cross an uplink than it carries at full rate. So "never slowed" holds
/// between the nodes of one leaf and, given rounds enough, between no
/// others: the leaves are its classes. Where no flow is ever slowed the
/// links do not limit the flows (one switch, or uplinks as fast as the nodes
/// behind them) and, for collc's model, the nodes are as on one switch.
///
/// What the rounds found is checked: "never slowed" must be an equivalence,
/// but for noise: a pair slowed inside a class is taken as noise when at
/// most one in four of its flows (of four or more) was slowed and such flows
/// are at most one in ten of the flows inside classes (a real network's
/// timings have outliers; a pair on two leaves is slowed whenever its
/// uplinks are loaded). Noise only slows flows, so it can only split a leaf:
/// when "never slowed" gives leaves no fat tree has (unequal, out of rank
/// order), pairs slowed in at most one in eight, then one in four of their
/// flows are joined too. Anything else is another shape: the result is
/// unclear and the probe says so and keeps the topology it was told.
#ifndef COLLC_TOOLS_PROBE_DISCOVER_H
#define COLLC_TOOLS_PROBE_DISCOVER_H

#include <cstdint>
#include <string>
#include <vector>

namespace collc::probe {

/// One flow of a round: node Src to node Dst, at Rate (bytes per µs).
struct FlowSample {
  int Round = 0;
  int Src = 0, Dst = 0;
  double Rate = 0;
};

/// What the rounds show.
struct Discovery {
  enum Outcome {
    /// No flow was slowed: as on one switch.
    OneSwitch,
    /// Leaves found (Groups).
    Leaves,
    /// The flows contradict a tree of switches (Why says how).
    Unclear
  } Result = Unclear;
  /// The leaves, each its nodes in increasing order, ordered by their first
  /// node.
  std::vector<std::vector<int>> Groups;
  /// What a leaf's uplinks carry at once, in flows at the full rate: the
  /// median over the slowed flows of their rate times the flows that shared
  /// their busiest uplink; 0 when no slowed flow shows it.
  double Capacity = 0;
  /// The fastest flow seen (the full rate).
  double FullRate = 0;
  /// Flows slower than Slow x FullRate.
  unsigned Slowed = 0;
  /// Of those, flows inside a leaf taken as noise (a pair of nodes whose
  /// flows were otherwise fast).
  unsigned Noise = 0;
  std::string Why;
};

/// A random derangement of 0..N-1 (no node sends to itself; N >= 2), drawn
/// from \p Seed: the same seed gives the same round on every run.
std::vector<int> derangement(int N, uint64_t Seed);

/// Where each node sends in round \p Round: first the N - 1 shifts
/// i -> i + s (mod N), s from N / 2 outwards (on leaves of consecutive
/// nodes these load the uplinks most: every flow of a leaf crosses once s is
/// at least the leaf's size), then random derangements (derangement(N,
/// Seed + Round)).
std::vector<int> roundTargets(int N, int Round, uint64_t Seed);

/// The leaves of \p N nodes from the flows \p Samples: a flow is slowed below
/// \p Slow times the full rate, the fastest flow or \p Alone (the rate of
/// one flow by itself), whichever is higher: when every flow of a round
/// shares one link, all of them are slowed alike.
Discovery inferLeaves(int N, const std::vector<FlowSample> &Samples,
                      double Alone = 0, double Slow = 0.7);

/// Whether \p D's leaves are all of one size and hold nodes in order
/// (0..K-1, K..2K-1, ...), as a two-level fat tree numbers them.
bool contiguousLeaves(const Discovery &D);

/// Whether every pair of the \p N nodes was sampled at least \p Times
/// times, either way: rounds enough to trust that a pair never slowed shares
/// a leaf.
bool enoughRounds(int N, const std::vector<FlowSample> &Samples,
                  unsigned Times);

/// Runs rounds (\p Measure: each node's target -> the round's flows;
/// \p Alone as for inferLeaves) until every pair of nodes was seen \p Times
/// times and the flows are explained (one switch, or leaves of one size in
/// rank order), or \p MaxRounds; returns what they show and, in \p Samples,
/// every flow. A flow between leaves is slowed only in rounds that load its
/// uplinks, so a pair seen fast may yet be on two leaves, and a pair of one
/// leaf timed slow once splits it until its other flows show the slow one
/// was noise: more rounds settle both.
template <typename MeasureFn>
Discovery discover(int N, uint64_t Seed, unsigned Times, int MaxRounds,
                   double Alone, MeasureFn &&Measure,
                   std::vector<FlowSample> &Samples) {
  Discovery D;
  for (int R = 0; R < MaxRounds; ++R) {
    std::vector<FlowSample> S = Measure(R, roundTargets(N, R, Seed));
    Samples.insert(Samples.end(), S.begin(), S.end());
    if (R + 1 < N - 1 || !enoughRounds(N, Samples, Times))
      continue;
    D = inferLeaves(N, Samples, Alone);
    if (D.Result == Discovery::OneSwitch ||
        (D.Result == Discovery::Leaves && contiguousLeaves(D)))
      return D;
  }
  return inferLeaves(N, Samples, Alone);
}

} // namespace collc::probe

#endif
