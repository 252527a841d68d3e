// Machines with a network: the `network:` section, the SimGrid platforms
// read as machines, their YAML and JSON equivalents, SMPI's factors as bands,
// ranks placed on nodes, and the derived model.
#include "ir/SmpiFactors.h"
#include "readers/Spec.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

std::string path(const char *Rel) {
  return std::string(COLLC_SOURCE_DIR) + "/" + Rel;
}

Machine load(const char *Rel, const MachineOverrides &O = {}) {
  auto M = loadMachine(path(Rel), O);
  if (!M)
    FAIL(llvm::toString(M.takeError()));
  return std::move(*M);
}

llvm::Expected<Machine> machineFrom(const std::string &Text,
                                    const char *Name = "m.yaml") {
  return parseMachine(llvm::MemoryBufferRef(Text, Name));
}

/// The first line of the error of reading \p Text as \p Name.
std::string errorOf(const std::string &Text, const char *Name = "m.yaml") {
  auto M = machineFrom(Text, Name);
  if (M)
    return "no error";
  std::string S = llvm::toString(M.takeError());
  return S.substr(0, S.find('\n'));
}

/// A torus-16x16-net spec with \p Network as its network section.
std::string torusWith(const std::string &Network) {
  return "name: t\ntopology: {kind: torus, dims: [4, 4]}\nnetwork:\n" + Network;
}

const char *OneLink =
    "  links: [{class: link, latency: 1, bandwidth: 12500}]\n";

void checkSameLink(const LinkClass &A, const LinkClass &B) {
  CHECK(A.Name == B.Name);
  CHECK(A.Latency == doctest::Approx(B.Latency));
  CHECK(A.Bandwidth == doctest::Approx(B.Bandwidth));
  CHECK(A.FullDuplex == B.FullDuplex);
  CHECK(A.FatPipe == B.FatPipe);
}

/// Everything but the names: a platform and its spec describe one machine.
void checkSameMachine(const Machine &A, const Machine &B) {
  CHECK(A.Topo.Kind == B.Topo.Kind);
  CHECK(A.Topo.Nodes == B.Topo.Nodes);
  CHECK(A.Topo.Dims == B.Topo.Dims);
  CHECK(A.Topo.Routing == B.Topo.Routing);
  CHECK(A.Topo.Levels == B.Topo.Levels);
  CHECK(A.Topo.Down == B.Topo.Down);
  CHECK(A.Topo.Up == B.Topo.Up);
  CHECK(A.Topo.Parallel == B.Topo.Parallel);
  CHECK(A.Topo.Backbone == B.Topo.Backbone);
  CHECK(A.Ports == B.Ports);
  REQUIRE(A.Net);
  REQUIRE(B.Net);
  const Network &X = *A.Net, &Y = *B.Net;
  REQUIRE(X.Links.size() == Y.Links.size());
  for (size_t I = 0; I < X.Links.size(); ++I)
    checkSameLink(X.Links[I], Y.Links[I]);
  checkSameLink(X.IntraNode, Y.IntraNode);
  REQUIRE(X.Bands.size() == Y.Bands.size());
  for (size_t I = 0; I < X.Bands.size(); ++I) {
    CHECK(X.Bands[I].MinBytes == Y.Bands[I].MinBytes);
    CHECK(X.Bands[I].LatencyFactor == Y.Bands[I].LatencyFactor);
    CHECK(X.Bands[I].BandwidthFactor == Y.Bands[I].BandwidthFactor);
  }
  CHECK(X.SendOverhead == Y.SendOverhead);
  CHECK(X.InjectionLinks == Y.InjectionLinks);
  CHECK(X.InjectionBandwidth == Y.InjectionBandwidth);
  CHECK(X.SharedLimiter == Y.SharedLimiter);
  CHECK(X.RendezvousBytes == Y.RendezvousBytes);
  CHECK(X.EnvelopeBytes == Y.EnvelopeBytes);
  CHECK(X.WeightS == Y.WeightS);
  CHECK(X.CrossTraffic == Y.CrossTraffic);
  CHECK(X.TcpGamma == Y.TcpGamma);
  CHECK(X.ProcsPerNode == Y.ProcsPerNode);
  CHECK(X.Placement == Y.Placement);
  CHECK(A.M.Kind == B.M.Kind);
  CHECK(A.M.Linear.Ts == doctest::Approx(B.M.Linear.Ts));
  CHECK(A.M.Linear.PerByte == doctest::Approx(B.M.Linear.PerByte));
  CHECK(A.M.SendRecvFactor == B.M.SendRecvFactor);
}

} // namespace

TEST_CASE("platform: the bundled SimGrid platforms read as machines") {
  Machine Torus = load("examples/platforms/torus-16x16.xml");
  CHECK(Torus.Name == "torus-16x16");
  CHECK(Torus.Topo.Kind == TopologyKind::Torus);
  CHECK(Torus.Topo.Dims == std::vector<int64_t>{16, 16});
  CHECK(Torus.Topo.Routing == DimensionRouting::SimGrid);
  REQUIRE(Torus.Net);
  REQUIRE(Torus.Net->Links.size() == 1);
  checkSameLink(Torus.Net->Links[0], {"link", 1, 12500, true});
  CHECK(Torus.Net->IntraNode.Bandwidth == doctest::Approx(12500));
  CHECK(Torus.Net->IntraNode.FatPipe);
  CHECK(isSmpiDefault(Torus.Net->Bands));
  CHECK(Torus.Net->RendezvousBytes == 65536);
  CHECK(Torus.Net->EnvelopeBytes == 16);
  CHECK(Torus.Net->WeightS == 8775);

  Machine Big = load("examples/platforms/torus-32x32.xml");
  CHECK(Big.Topo.Nodes == 1024);
  CHECK(Big.Topo.Dims == std::vector<int64_t>{32, 32});

  Machine Cluster = load("examples/platforms/cluster-256.xml");
  CHECK(Cluster.Topo.Kind == TopologyKind::Cluster);
  CHECK(Cluster.Topo.Nodes == 256);
  CHECK(Cluster.Topo.Backbone);
  REQUIRE(Cluster.Net->Links.size() == 2);
  checkSameLink(Cluster.Net->Links[0], {"private", 1, 12500, true});
  // SimGrid's default bb_sharing_policy: SHARED, one resource both ways.
  checkSameLink(Cluster.Net->Links[1], {"backbone", 0, 3.2e6, false});
  CHECK(Cluster.Net->IntraNode.Bandwidth == 0); // no loopback

  Machine Sp2 = load("examples/platforms/sp2-32.xml");
  REQUIRE(Sp2.Net->Links.size() == 2);
  checkSameLink(Sp2.Net->Links[0], {"private", 23, 28.571428, false});
  checkSameLink(Sp2.Net->Links[1], {"backbone", 0, 1e5, false});

  Machine Fat = load("examples/platforms/fat-tree-256.xml");
  CHECK(Fat.Topo.Kind == TopologyKind::FatTree);
  CHECK(Fat.Topo.Levels == 2);
  CHECK(Fat.Topo.Down == std::vector<int64_t>{16, 16});
  CHECK(Fat.Topo.Up == std::vector<int64_t>{1, 4});
  CHECK(Fat.Topo.Parallel == std::vector<int64_t>{1, 2});
  CHECK(Fat.Topo.Nodes == 256);
  REQUIRE(Fat.Net->Links.size() == 2);
  checkSameLink(Fat.Net->Links[0], {"level-1", 1, 12500, true});
  checkSameLink(Fat.Net->Links[1], {"level-2", 1, 12500, true});
}

TEST_CASE("platform: the YAML and JSON machines equal the platforms") {
  checkSameMachine(load("examples/platforms/torus-16x16.xml"),
                   load("examples/machines/torus-16x16-net.yaml"));
  checkSameMachine(load("examples/platforms/cluster-256.xml"),
                   load("examples/machines/cluster-256-net.yaml"));
  checkSameMachine(load("examples/platforms/fat-tree-256.xml"),
                   load("examples/machines/fat-tree-256-net.yaml"));
  checkSameMachine(load("examples/machines/torus-16x16-net.yaml"),
                   load("examples/machines/torus-16x16-net.json"));
}

TEST_CASE("platform: SimGrid's own torus and fat-tree examples read") {
  // examples/platforms/cluster_torus.xml and cluster_fat_tree.xml of
  // SimGrid: a cluster in a zone of its own, unit-less zero latencies.
  auto Torus = machineFrom(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
      "\"http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd\">\n<platform "
      "version=\"4.1\">\n  <zone id=\"AS0\" routing=\"Full\">\n    <cluster "
      "id=\"bob_cluster\" prefix=\"node-\" radical=\"0-11\" "
      "suffix=\".acme.org\" speed=\"1Gf\"\n             bw=\"125MBps\" "
      "lat=\"50us\" topology=\"TORUS\" topo_parameters=\"3,2,2\" "
      "loopback_bw=\"100MBps\" loopback_lat=\"0\"/>\n  </zone>\n</platform>\n",
      "cluster_torus.xml");
  REQUIRE(Torus);
  CHECK(Torus->Topo.Dims == std::vector<int64_t>{2, 2, 3});
  CHECK(Torus->Net->Links[0].Bandwidth == doctest::Approx(125));
  CHECK(Torus->Net->Links[0].Latency == doctest::Approx(50));
  auto Fat = machineFrom(
      "<?xml version='1.0'?>\n<platform version=\"4.1\">\n  <!-- fat tree "
      "-->\n  <zone id=\"AS0\" routing=\"Full\">\n    <cluster "
      "id=\"bob_cluster\" prefix=\"node-\" suffix=\".acme.org\" "
      "radical=\"0-15\" speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\"\n         "
      "    topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2;1,2\" "
      "loopback_bw=\"100MBps\" loopback_lat=\"0\"/>\n  </zone>\n</platform>\n",
      "cluster_fat_tree.xml");
  REQUIRE(Fat);
  CHECK(Fat->Topo.Nodes == 16);
  CHECK(Fat->Topo.Up == std::vector<int64_t>{1, 2});
}

TEST_CASE("platform: a host runs 'core' ranks, block by block") {
  auto Plat = [](const std::string &Core) {
    return machineFrom("<platform version='4.1'><cluster id='c' prefix='n' "
                       "suffix='' radical='0-7' speed='1Gf' bw='1GBps' "
                       "lat='1us' loopback_bw='5GBps' loopback_lat='0.1us' "
                       "topology='TORUS' topo_parameters='4,2'" +
                           Core + "/></platform>",
                       "p.xml");
  };
  auto One = Plat("");
  REQUIRE(One);
  CHECK(One->Net->ProcsPerNode == 1);
  auto Four = Plat(" core='4'");
  REQUIRE(Four);
  CHECK(Four->Net->ProcsPerNode == 4);
  CHECK(Four->Net->Placement == RankPlacement::Block);
  CHECK(Four->Net->IntraNode.Bandwidth == doctest::Approx(5000));
  RequestOverrides O;
  O.Collective = "bcast";
  RequestFields Eight;
  Eight.Bytes = 8;
  auto All = parseRequest(nullptr, O, *Four, Eight);
  REQUIRE(All);
  CHECK(All->size() == 32);
  CHECK(All->Nodes[3] == 0);
  CHECK(All->Nodes[4] == 1);
  CHECK(All->Nodes[31] == 7);
  O.Ranks = "33";
  CHECK(!parseRequest(nullptr, O, *Four, Eight));
  CHECK(errorOf("<platform version='4.1'><cluster id='c' prefix='n' "
                "suffix='' radical='0-7' speed='1Gf' bw='1GBps' lat='1us' "
                "core='0'/></platform>",
                "p.xml") == "p.xml:1:115: error: expected a core count from 1 "
                            "to 1024 for 'core', got '0'");
}

TEST_CASE("platform: a limiter_link is one shared limit per node, as the "
          "spec's injection with shared: true") {
  auto Plat = machineFrom("<platform version='4.1'><cluster id='c' "
                          "prefix='n' suffix='' radical='0-7' speed='1Gf' "
                          "bw='1GBps' lat='1us' limiter_link='0.5GBps' "
                          "topology='TORUS' topo_parameters='4,2'/></platform>",
                          "p.xml");
  REQUIRE(Plat);
  CHECK(Plat->Net->InjectionBandwidth == doctest::Approx(500));
  CHECK(Plat->Net->SharedLimiter);
  auto Spec = machineFrom(torusWith(
      std::string(OneLink) + "  injection: {bandwidth: 500, shared: true}\n"));
  REQUIRE(Spec);
  CHECK(Spec->Net->InjectionBandwidth == doctest::Approx(500));
  CHECK(Spec->Net->SharedLimiter);
  auto Apart = machineFrom(
      torusWith(std::string(OneLink) + "  injection: {bandwidth: 500}\n"));
  REQUIRE(Apart);
  CHECK(!Apart->Net->SharedLimiter);
}

TEST_CASE("platform: SimGrid's units") {
  auto Lat = [](const std::string &Bw, const std::string &Lat) {
    auto M = machineFrom("<platform version='4.1'><cluster id='c' prefix='n' "
                         "suffix='' radical='0-1' speed='1Gf' bw='" +
                             Bw + "' lat='" + Lat + "'/></platform>",
                         "p.xml");
    REQUIRE(M);
    return std::make_pair(M->Net->Links[0].Bandwidth, M->Net->Links[0].Latency);
  };
  CHECK(Lat("12.5GBps", "1us").first == doctest::Approx(12500));
  CHECK(Lat("10Gbps", "1us").first == doctest::Approx(1250));
  CHECK(Lat("1KiBps", "1us").first == doctest::Approx(1024e-6));
  CHECK(Lat("1kBps", "1us").first == doctest::Approx(1e-3));
  CHECK(Lat("1MBps", "1ms").second == doctest::Approx(1000));
  CHECK(Lat("1MBps", "2.5e-6").second == doctest::Approx(2.5)); // seconds
  CHECK(Lat("1MBps", "1ns").second == doctest::Approx(1e-3));
  CHECK(Lat("100000000", "0").first == doctest::Approx(100)); // bytes/s
}

TEST_CASE("platform: located errors for what collc does not read") {
  const std::string Head = "<platform version='4.1'>\n";
  const std::string Cluster = "<cluster id='c' prefix='n' suffix='' "
                              "radical='0-3' speed='1Gf' bw='1GBps' "
                              "lat='1us'/>\n";
  CHECK(errorOf(Head + Cluster + "<host id='h' speed='1Gf'/>\n</platform>",
                "p.xml") ==
        "p.xml:3:1: error: <host> is not read: collc reads a platform of one "
        "<cluster> (topology FLAT, TORUS or FAT_TREE), in a <zone> of its own "
        "or not, after a <config>");
  CHECK(errorOf(Head + Cluster + Cluster + "</platform>", "p.xml") ==
        "p.xml:3:1: error: a second <cluster> is not read: collc reads a "
        "platform of one <cluster> (topology FLAT, TORUS or FAT_TREE), in a "
        "<zone> of its own or not, after a <config>");
  CHECK(errorOf(Head + "<cluster id='c' prefix='n' suffix='' radical='0-3' "
                       "speed='1Gf' bw='1GBps'/>\n</platform>",
                "p.xml") == "p.xml:2:1: error: missing attribute 'lat' of "
                            "<cluster>");
  CHECK(errorOf(Head + "</platfrom>", "p.xml") ==
        "p.xml:2:1: error: expected a SimGrid platform (XML): </platfrom> "
        "does not close <platform> (line 1)");
  CHECK(errorOf(Head + "<cluster id='c&nbsp;'/></platform>", "p.xml") ==
        "p.xml:2:15: error: expected a SimGrid platform (XML): expected an "
        "entity (&lt; &gt; &amp; &quot; &apos; or &#N;), got '&nbsp;'");
  // Sniffed by its first characters whatever its name.
  CHECK(errorOf("\n<platform version='3'/>", "m.yaml") ==
        "m.yaml:2:20: error: expected platform version 4 or 4.1 (SimGrid 3.13 "
        "and later), got '3'");
  CHECK(errorOf("  <?xml version='1.0'?>\n<platform version='4'/>", "m.yaml") ==
        "m.yaml:1:3: error: expected a SimGrid platform (XML): expected the "
        "XML declaration at the very start of the file");
}

TEST_CASE("xml: entities, both quotes, comments and a bounded depth") {
  auto M = machineFrom(
      "<?xml version=\"1.0\"?>\n<!-- a -- comment -->\n<platform "
      "version=\"4.1\"><cluster id=\"a&amp;b&#x41;&#66;\" prefix='n&lt;' "
      "suffix=\"&quot;&apos;\" radical = '0-1' speed='1Gf' bw='1GBps' "
      "lat='1us'><prop id='x' value='y'/></cluster></platform>",
      "p.xml");
  CHECK(M);
  std::string Deep = "<platform version='4.1'>";
  for (int I = 0; I < 70; ++I)
    Deep += "<zone>";
  CHECK(errorOf(Deep, "p.xml") ==
        "p.xml:1:403: error: expected a SimGrid platform (XML): expected at "
        "most 64 levels of nested elements");
}

TEST_CASE("network: SMPI's factors become bands exactly") {
  // A factor applies above its threshold; 1 up to the first.
  auto Steps = parseSmpiFactor("100:2;0:3");
  REQUIRE(Steps);
  CHECK(*Steps == FactorSteps{{0, 1}, {1, 3}, {101, 2}});
  auto One = parseSmpiFactor("0.5");
  REQUIRE(One);
  CHECK(*One == FactorSteps{{0, 0.5}});
  std::vector<ProtocolBand> Bands =
      bandsOf(*Steps, FactorSteps{{0, 1}, {51, 0.5}});
  REQUIRE(Bands.size() == 4);
  CHECK(Bands[1].MinBytes == 1);
  CHECK(Bands[2].MinBytes == 51);
  CHECK(Bands[2].LatencyFactor == 3);
  CHECK(Bands[2].BandwidthFactor == 0.5);
  CHECK(factorSteps(Bands, true) ==
        FactorSteps{{0, 1}, {1, 1}, {51, 0.5}, {101, 0.5}});
  const std::vector<ProtocolBand> &D = smpiDefaultBands();
  REQUIRE(D.size() == 10);
  CHECK(D[0].LatencyFactor == 1);
  CHECK(D[1].MinBytes == 1);
  CHECK(D[1].LatencyFactor == 2.01467);
  CHECK(D[9].MinBytes == 65473);
  CHECK(D[9].BandwidthFactor == 0.940694);
  CHECK(D.back().MinBytes == 65473);
  for (const char *Bad : {"0:0", "x:1", "1:2:3", "5:1;5:2", ";", "-1"}) {
    CAPTURE(Bad);
    CHECK(!parseSmpiFactor(Bad));
  }
  auto E = parseSmpiFactor("5:1;5:2");
  CHECK(llvm::toString(E.takeError()) == "threshold 5 given twice");
}

TEST_CASE("network: the command line replaces a platform's factors") {
  MachineOverrides O;
  O.SmpiLatFactor = "0:1";
  O.SmpiBwFactor = "0:1";
  // The SP2 platform without SMPI's factors is the SP2 of paper 001:
  // T_send = 46 + 0.035 m, a send and a receive at once twice as slow.
  Machine Sp2 = load("examples/platforms/sp2-32.xml", O);
  CHECK(Sp2.M.Kind == ModelKind::Linear);
  CHECK(Sp2.M.Linear.Ts == doctest::Approx(46));
  CHECK(Sp2.M.Linear.PerByte == doctest::Approx(0.035));
  CHECK(Sp2.M.SendRecvFactor == 2);
  MachineOverrides Lat;
  Lat.SmpiLatFactor = "1000:3";
  Machine T = load("examples/platforms/torus-16x16.xml", Lat);
  // The latency factors replaced, SMPI's bandwidth factors kept.
  CHECK(T.Net->band(1).LatencyFactor == 1);
  CHECK(T.Net->band(1).BandwidthFactor == 0.812084);
  CHECK(T.Net->band(2000).LatencyFactor == 3);
  CHECK(T.Net->band(2000).BandwidthFactor == 0.608902);
  auto NoNet = loadMachine(path("examples/machines/sp2.yaml"), Lat);
  REQUIRE(!NoNet);
  CHECK(llvm::toString(NoNet.takeError()) ==
        "--smpi-lat-factor: machine 'sp2' has no network (a network: section "
        "or a SimGrid platform gives it one)");
}

TEST_CASE("network: a machine without a model plans with the network's") {
  auto M = machineFrom(torusWith(
      "  links: [{class: link, latency: 1.5, bandwidth: 1000}]\n  protocol: "
      "{send_overhead: 0.5, bands: [{from: 0, latency_factor: 2, "
      "bandwidth_factor: 0.5}]}\n"));
  REQUIRE(M);
  CHECK(M->M.Kind == ModelKind::Linear);
  CHECK(M->M.Linear.Ts == doctest::Approx(0.5 + 1.5 * 2));
  CHECK(M->M.Linear.PerByte == doctest::Approx(1 / (0.5 * 1000)));
  CHECK(M->M.SendRecvFactor == 1);
  CHECK(M->Net->MaxPiece == 0); // the runtime's own, 1 GiB
  auto Pieces = machineFrom(
      torusWith(std::string(OneLink) + "  protocol: {max_piece: 65024}\n"));
  REQUIRE(Pieces);
  CHECK(Pieces->Net->MaxPiece == 65024);
  // A model given stays the model.
  auto Given = machineFrom("name: t\nmodel: {kind: linear, t_s: 7, per_byte: "
                           "1}\ntopology: {kind: torus, dims: [4, 4]}\n"
                           "network:\n" +
                           std::string(OneLink));
  REQUIRE(Given);
  CHECK(Given->M.Linear.Ts == 7);
  CHECK(errorOf("name: t\ntopology: {kind: torus, dims: [4, 4]}\n") ==
        "m.yaml:1:1: error: missing key 'model' in machine spec");
}

TEST_CASE("network: located errors in the network section") {
  CHECK(errorOf(torusWith(
            "  links: [{class: link, latency: 1, bandwidth: 0}]\n")) ==
        "m.yaml:4:48: error: expected a number > 0 for 'bandwidth', got '0'");
  CHECK(errorOf(torusWith(
            "  links: [{class: link, latency: -1, bandwidth: 1}]\n")) ==
        "m.yaml:4:34: error: expected a number >= 0 for 'latency', got '-1'");
  CHECK(errorOf(torusWith(
            "  links: [{class: wire, latency: 1, bandwidth: 1}]\n")) ==
        "m.yaml:4:19: error: unknown link class 'wire' for topology 'torus'; "
        "expected one of: link");
  CHECK(errorOf("name: c\ntopology: {kind: cluster, nodes: 4, backbone: "
                "true}\nnetwork:\n" +
                std::string("  links: [{class: private, latency: 1, "
                            "bandwidth: 1}]\n")) ==
        "m.yaml:4:11: error: missing link class 'backbone' in 'links'; "
        "topology 'cluster' has: private, backbone");
  CHECK(errorOf(torusWith(std::string(OneLink) +
                          "  protocol: {bands: [{from: 0, latency_factor: 1, "
                          "bandwidth_factor: 1}, {from: 0, latency_factor: 1, "
                          "bandwidth_factor: 1}]}\n")) ==
        "m.yaml:5:80: error: expected bands sorted by 'from' without overlap: "
        "'from' above the previous band's 0, got 0");
  CHECK(errorOf(
            torusWith(std::string(OneLink) + "  protocol: {max_piece: 0}\n")) ==
        "m.yaml:5:25: error: expected an integer in [1, 1073741824] for "
        "'max_piece', got '0'");
  CHECK(errorOf(torusWith(std::string(OneLink) +
                          "  nodes: {processes: 2, placement: [0, 1]}\n")) ==
        "m.yaml:5:37: error: expected 32 entries in 'placement' (the node of "
        "every rank: 16 nodes x 2 processes), got 2");
  CHECK(errorOf(torusWith(std::string(OneLink) +
                          "  nodes: {placement: [0, 16]}\n")) ==
        "m.yaml:5:26: error: expected an integer in [0, 15] for 'placement', "
        "got '16'");
}

TEST_CASE("network: ranks share nodes by the placement") {
  auto M = machineFrom(torusWith(std::string(OneLink) +
                                 "  nodes: {processes: 2, placement: "
                                 "cyclic}\n"));
  REQUIRE(M);
  RequestOverrides O;
  O.Collective = "bcast";
  O.Ranks = "20";
  RequestFields Eight;
  Eight.Bytes = 8;
  auto R = parseRequest(nullptr, O, *M, Eight);
  REQUIRE(R);
  // Cyclic over the 10 nodes 20 ranks need.
  CHECK(R->Nodes[0] == 0);
  CHECK(R->Nodes[9] == 9);
  CHECK(R->Nodes[10] == 0);
  CHECK(R->Nodes[19] == 9);
  O.Ranks.reset();
  auto All = parseRequest(nullptr, O, *M, Eight);
  REQUIRE(All);
  CHECK(All->size() == 32);
  O.Ranks = "33";
  CHECK(!parseRequest(nullptr, O, *M, Eight));
  // Two ranks on a node, not three.
  llvm::MemoryBufferRef Two(
      "collective: bcast\nparticipants: [3, 3, 4]\nbytes: 8\n", "r.yaml");
  CHECK(parseRequest(&Two, {}, *M));
  llvm::MemoryBufferRef Three(
      "collective: bcast\nparticipants: [3, 3, 3]\nbytes: 8\n", "r.yaml");
  auto Bad = parseRequest(&Three, {}, *M);
  REQUIRE(!Bad);
  std::string E = llvm::toString(Bad.takeError());
  CHECK(E.substr(0, E.find('\n')) ==
        "r.yaml:2:22: error: node 3 appears more than 2 times in the group "
        "(the machine runs 2 processes per node)");
}
