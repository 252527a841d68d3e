/// \file
/// Test-only: the machines of examples/platforms/{torus-16x16, cluster-256,
/// fat-tree-256}.xml built in code from the numbers the platform files give
/// (the platform reader is another part of collc), for the evaluator's
/// comparisons with SMPI. Each has SMPI 3.32's default network model (its
/// protocol bands, envelope, weight-S, cross traffic, TCP window), SimGrid's
/// routing, and the linear model a network implies (Network::oneHopLinear)
/// for the builders.
#ifndef COLLC_TESTS_NETWORK_PLATFORMS_H
#define COLLC_TESTS_NETWORK_PLATFORMS_H

#include "ir/Machine.h"

#include <optional>
#include <string>
#include <vector>

namespace collc::test {

/// SMPI 3.32's defaults (smpi/lat-factor, smpi/bw-factor) with the given
/// link classes.
inline Network smpiNetwork(std::vector<LinkClass> Links) {
  Network N;
  N.Links = std::move(Links);
  N.Bands = {{0, 2.01467, 0.812084},    {257, 1.95341, 0.338112},
             {732, 1.9503, 0.341987},   {1426, 1.61075, 0.608902},
             {3484, 1.88101, 0.77493},  {5776, 2.18796, 1.08739},
             {9376, 2.59299, 0.58729},  {15424, 3.48845, 0.697866},
             {65472, 11.6436, 0.940694}};
  return N;
}

inline Machine withNetwork(std::string Name, Topology T, Network N) {
  Machine M;
  M.Name = std::move(Name);
  M.Topo = std::move(T);
  auto [Ts, PerByte] = N.oneHopLinear();
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {Ts, PerByte};
  M.Net = std::move(N);
  return M;
}

/// A SimGrid torus named \p Name of extents \p Dims as the bundled ones:
/// 1 µs, 12.5 GB/s (12500 bytes/µs) split-duplex links, SimGrid's TorusZone
/// routing.
inline Machine smpiTorus(std::string Name, std::vector<int64_t> Dims) {
  Topology T;
  T.Kind = TopologyKind::Torus;
  T.Nodes = 1;
  for (int64_t D : Dims)
    T.Nodes *= D;
  T.Dims = std::move(Dims);
  T.Routing = DimensionRouting::SimGrid;
  return withNetwork(std::move(Name), T,
                     smpiNetwork({{"link", 1, 12500, true}}));
}

/// torus-16x16.xml.
inline Machine smpiTorus16x16() { return smpiTorus("torus-16x16", {16, 16}); }

/// cluster-256.xml: private links of 1 µs and 12.5 GB/s, a 3.2 TB/s
/// backbone without latency.
inline Machine smpiCluster256() {
  Topology T;
  T.Kind = TopologyKind::Cluster;
  T.Nodes = 256;
  T.Backbone = true;
  return withNetwork("cluster-256", T,
                     smpiNetwork({{"private", 1, 12500, true},
                                  {"backbone", 0, 3.2e6, false}}));
}

/// A SimGrid two-level fat tree named \p Name, "2;D,D;1,U;1,2" with \p Down
/// = D and \p Up = U, every link 1 µs and 12.5 GB/s.
inline Machine smpiFatTree(std::string Name, int64_t Down, int64_t Up) {
  Topology T;
  T.Kind = TopologyKind::FatTree;
  T.Levels = 2;
  T.Down = {Down, Down};
  T.Up = {1, Up};
  T.Parallel = {1, 2};
  T.Nodes = Down * Down;
  return withNetwork(
      std::move(Name), T,
      smpiNetwork({{"level-1", 1, 12500, true}, {"level-2", 1, 12500, true}}));
}

/// fat-tree-256.xml: "2;16,16;1,4;1,2".
inline Machine smpiFatTree256() { return smpiFatTree("fat-tree-256", 16, 4); }

/// By the platform file's stem.
inline std::optional<Machine> smpiPlatform(const std::string &Name) {
  if (Name == "torus-16x16")
    return smpiTorus16x16();
  if (Name == "cluster-256")
    return smpiCluster256();
  if (Name == "fat-tree-256")
    return smpiFatTree256();
  return std::nullopt;
}

} // namespace collc::test

#endif
