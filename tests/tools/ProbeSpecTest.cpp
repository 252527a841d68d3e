// collc-probe without MPI: the --topology reader and its hop counts, the
// partners it measures against, the options (exact diagnostics), and the
// spec it writes (YAML with the agreed keys, the fit's errors in comments).
#include "tools/probe/ProbeSpec.h"
#include "tools/probe/ProbeOptions.h"
#include "tools/probe/ProbeTopology.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <doctest/doctest.h>

#include <map>

using namespace collc::probe;

namespace {

ProbeTopology topology(const char *Text) {
  auto T = parseProbeTopology(Text);
  REQUIRE_MESSAGE(static_cast<bool>(T), Text);
  return *T;
}

std::string topologyError(const char *Text) {
  auto T = parseProbeTopology(Text);
  REQUIRE_FALSE(static_cast<bool>(T));
  return llvm::toString(T.takeError());
}

ProbeOptions options(std::vector<std::string> Args) {
  auto O = parseProbeOptions(Args);
  REQUIRE(static_cast<bool>(O));
  return *O;
}

std::string optionsError(std::vector<std::string> Args) {
  auto O = parseProbeOptions(Args);
  REQUIRE_FALSE(static_cast<bool>(O));
  return llvm::toString(O.takeError());
}

std::vector<int64_t> blockNodes(int Ranks) {
  std::vector<int64_t> N;
  for (int R = 0; R < Ranks; ++R)
    N.push_back(R);
  return N;
}

/// The mappings of a YAML document: each mapping's keys in order and the
/// mappings below them (LLVM's parser reads a node only once).
struct Keys {
  std::vector<std::string> Names;
  std::map<std::string, Keys> Below;
};

Keys keys(llvm::yaml::Node *N) {
  Keys K;
  auto *M = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(N);
  if (!M) {
    if (N)
      N->skip();
    return K;
  }
  for (llvm::yaml::KeyValueNode &KV : *M) {
    llvm::SmallString<32> Storage;
    std::string Name = llvm::cast<llvm::yaml::ScalarNode>(KV.getKey())
                           ->getValue(Storage)
                           .str();
    K.Names.push_back(Name);
    K.Below[Name] = keys(KV.getValue());
  }
  return K;
}

} // namespace

TEST_CASE("probe topology: every kind, its hop counts and link classes") {
  ProbeTopology Full = topology("full");
  CHECK(Full.nodeCount(5) == 5);
  CHECK(Full.hops(0, 3) == 1);
  CHECK(Full.hops(2, 2) == 0);
  CHECK(Full.yaml(5) == "{kind: full, nodes: 5}");
  CHECK(topology("full:64").nodeCount(5) == 64);

  ProbeTopology Cluster = topology("cluster");
  CHECK(Cluster.hops(0, 7) == 2);
  CHECK(Cluster.linkClasses() == std::vector<std::string>{"private"});
  CHECK(Cluster.yaml(16) == "{kind: cluster, nodes: 16, backbone: false}");

  ProbeTopology Torus = topology("torus:4,4");
  CHECK(Torus.nodeCount(3) == 16);
  CHECK(Torus.hops(0, 1) == 1);
  CHECK(Torus.hops(0, 3) == 1); // round the ring
  CHECK(Torus.hops(0, 10) == 4);
  CHECK(Torus.yaml(16) == "{kind: torus, dims: [4, 4]}");
  CHECK(Torus.text() == "torus:4,4");
  CHECK(Torus.linkClasses() == std::vector<std::string>{"link"});

  ProbeTopology Mesh = topology("mesh:4,4");
  CHECK(Mesh.hops(0, 15) == 6);
  CHECK(Mesh.yaml(16) == "{kind: mesh, dims: [4, 4]}");

  ProbeTopology Cube = topology("hypercube:3");
  CHECK(Cube.nodeCount(1) == 8);
  CHECK(Cube.hops(0, 7) == 3);
  CHECK(Cube.yaml(8) == "{kind: hypercube, dimension: 3}");

  ProbeTopology Tree = topology("fat-tree:2;4,4;1,2;1,2");
  CHECK(Tree.nodeCount(1) == 16);
  CHECK(Tree.hops(0, 3) == 2); // under one first-level switch
  CHECK(Tree.hops(0, 4) == 4);
  CHECK(Tree.linkClasses() == std::vector<std::string>{"level-1", "level-2"});
  CHECK(Tree.yaml(16) ==
        "{kind: fat-tree, levels: 2, down: [4, 4], up: [1, 2], parallel: "
        "[1, 2]}");
  CHECK(Tree.text() == "fat-tree:2;4,4;1,2;1,2");
}

TEST_CASE("probe topology: links shared by routes out of one node") {
  // The torus's four neighbours leave by four links; 2 and 14 share theirs
  // with 1 and 15... on a 1x16 row, as on a 16x16 torus's first row.
  ProbeTopology Torus = topology("torus:16,16");
  CHECK(Torus.sharedFirstLink(0, {1, 15}) == 1);
  CHECK(Torus.sharedFirstLink(0, {1, 15, 2}) == 2);
  CHECK(Torus.sharedFirstLink(0, {1, 16, 15, 240}) == 1);
  CHECK(topology("full").sharedFirstLink(0, {1, 2, 3}) == 1);
  CHECK(topology("cluster").sharedFirstLink(0, {1, 2, 3}) == 3);
  CHECK(topology("fat-tree:2;4,4;1,2;1,2").sharedFirstLink(0, {1, 2, 3}) == 3);
}

TEST_CASE("probe topology: bad values, exact diagnostics") {
  CHECK(topologyError("ring") ==
        "--topology: expected full, cluster, mesh:..., torus:..., "
        "hypercube:D, fat-tree:... or discover in 'ring'");
  CHECK(topologyError("torus") ==
        "--topology: expected the extents, e.g. torus:4,4 in 'torus'");
  CHECK(topologyError("torus:4,x") ==
        "--topology: expected integers in [1, 16777216], got 'x' in "
        "'torus:4,x'");
  CHECK(topologyError("mesh:4096,4096,2") ==
        "--topology: more than 2^24 nodes in 'mesh:4096,4096,2'");
  CHECK(topologyError("hypercube:25") ==
        "--topology: expected the dimension in [0, 24], e.g. hypercube:4 in "
        "'hypercube:25'");
  CHECK(topologyError("fat-tree:2;4,4;1;1,2") ==
        "--topology: expected 2 values per list in 'fat-tree:2;4,4;1;1,2'");
  CHECK(topologyError("full:0") ==
        "--topology: expected integers in [1, 16777216], got '0' in "
        "'full:0'");
}

TEST_CASE("partners: near, middle and far; rank 0's node apart") {
  // A crossbar: rank 1, P/2, P-1.
  std::vector<Partner> Full = choosePartners(blockNodes(8), topology("full"));
  REQUIRE(Full.size() == 3);
  CHECK(Full[0].Rank == 1);
  CHECK(Full[1].Rank == 4);
  CHECK(Full[2].Rank == 7);
  CHECK_FALSE(Full[0].Intra);

  // A 4x4 torus: 1 link, 2 links, 4 links.
  std::vector<Partner> Torus =
      choosePartners(blockNodes(16), topology("torus:4,4"));
  REQUIRE(Torus.size() == 3);
  CHECK(Torus[0].Rank == 1);
  CHECK(Torus[0].Hops == 1);
  CHECK(Torus[1].Hops == 2);
  CHECK(Torus[2].Rank == 10);
  CHECK(Torus[2].Hops == 4);

  // Two processes per node, cyclic: the first rank on rank 0's node last.
  std::vector<Partner> Two =
      choosePartners({0, 1, 2, 3, 0, 1, 2, 3}, topology("full"));
  REQUIRE(Two.size() == 4);
  CHECK(Two.back().Rank == 4);
  CHECK(Two.back().Intra);

  // One node: the bands come from intra-node pairs.
  std::vector<Partner> One = choosePartners({0, 0, 0, 0}, topology("full"));
  REQUIRE(One.size() == 3);
  CHECK(One[0].Rank == 1);
  CHECK(One[2].Rank == 3);
  CHECK(One[0].Intra);

  // Two processes: one partner.
  CHECK(choosePartners({0, 1}, topology("full")).size() == 1);
}

TEST_CASE("fan peers: distinct links first") {
  CHECK(chooseFanPeers(blockNodes(16), topology("torus:4,4"), 4) ==
        std::vector<int>{1, 3, 4, 12});
  // One row of a 16x16 torus: two links out of node 0 among the ranks.
  CHECK(chooseFanPeers(blockNodes(16), topology("torus:16,16"), 4) ==
        std::vector<int>{1, 15, 2, 14});
  CHECK(chooseFanPeers(blockNodes(3), topology("full"), 4) ==
        std::vector<int>{1, 2});
  // Other nodes before rank 0's own.
  CHECK(chooseFanPeers({0, 0, 1, 1}, topology("full"), 2) ==
        std::vector<int>{2, 3});
}

TEST_CASE("probe options: defaults, every option, exact diagnostics") {
  auto O = parseProbeOptions({});
  REQUIRE(static_cast<bool>(O));
  CHECK(O->Output.empty());
  CHECK(O->Name == "probed");
  CHECK(O->MaxBytes == (uint64_t(16) << 20));
  CHECK(O->BaseLink.K == Base::Smpi);
  CHECK(O->MaxError < 0);
  CHECK_FALSE(O->Quick);

  O = parseProbeOptions({"-o", "m.yaml", "--name=lab", "--topology",
                         "torus:16,16", "--base", "1,12500", "--max-bytes",
                         "4096", "--quick", "--max-error", "5"});
  REQUIRE(static_cast<bool>(O));
  CHECK(O->Output == "m.yaml");
  CHECK(O->Name == "lab");
  CHECK(O->Topology.K == ProbeTopology::Torus);
  CHECK(O->BaseLink.K == Base::Given);
  CHECK(O->BaseLink.Link.Bandwidth == 12500);
  CHECK(O->MaxBytes == 4096);
  CHECK(O->Quick);
  CHECK(O->MaxError == doctest::Approx(0.05));
  CHECK(options({"--base", "measured"}).BaseLink.K == Base::Measured);
  CHECK(options({"--help"}).Help);

  CHECK(optionsError({"--frob"}) == "unknown option '--frob' (see --help)");
  CHECK(optionsError({"--frob=1"}) == "unknown option '--frob' (see --help)");
  CHECK(optionsError({"extra"}) == "unexpected argument 'extra' (see --help)");
  CHECK(optionsError({"-o"}) == "-o: missing value");
  CHECK(optionsError({"--quick=yes"}) == "--quick: takes no value");
  CHECK(optionsError({"--max-bytes", "100"}) ==
        "--max-bytes: expected an integer in [1024, 268435456], got '100'");
  CHECK(optionsError({"--max-error", "0"}) ==
        "--max-error: expected a number > 0 and <= 1000, got '0'");
  CHECK(optionsError({"--base", "fast"}) ==
        "--base: expected smpi, measured or LATENCY,BANDWIDTH, got 'fast'");
  CHECK(optionsError({"--base", "1,-5"}) ==
        "--base bandwidth: expected a number > 0 and <= 1e12, got '-5'");
  CHECK(optionsError({"--name", ""}) ==
        "--name: expected a non-empty UTF-8 name");
  CHECK(optionsError({"--topology", "ring"}).find("--topology:") == 0);
}

TEST_CASE("probe spec: YAML with the agreed keys, the fit's error per band "
          "in comments") {
  ProbeReport R;
  R.Name = "lab \"A\"";
  R.Processes = 4;
  R.Where = detectPlacement({"n0", "n0", "n1", "n1"});
  R.Topology = topology("cluster");
  R.TopologyNamed = true;
  R.Nodes = 2;
  R.Net.Link = {1, 12500};
  R.Net.Bands = {{0, 2, 0.8}, {65536, 11, 0.94}};
  R.Net.SendOverhead = 0.25;
  R.Net.HasIntra = true;
  R.Net.Intra = {0.1, 40000};
  R.TimerCost = 0.02;
  MeasuredPair Inter;
  Inter.Peer = 2;
  Inter.Hops = 2;
  for (uint64_t B : {0, 1024, 65536, 1 << 20})
    Inter.Samples.push_back({B, 2, R.Net.predict(B, 2) * 1.01, 0});
  MeasuredPair Intra;
  Intra.Peer = 1;
  Intra.Intra = true;
  for (uint64_t B : {0, 1024})
    Intra.Samples.push_back({B, 1, R.Net.predictIntra(B), 0});
  R.Pairs = {Inter, Intra};
  R.Fans = {{1, 1, 11000}, {2, 2, 11000}};
  R.FanPeers = {2, 3};
  R.FanBytes = 1 << 20;
  R.FansInterNode = true;
  R.ExchangeMeasured = true;
  R.ExchangeBytes = 1 << 20;
  R.ExchangeRatio = 1.04;

  std::vector<BandCheck> Checks = selfCheck(R);
  REQUIRE(Checks.size() == 2);
  CHECK(Checks[0].Rows.size() == 4);
  CHECK(Checks[1].Rows.size() == 2);
  CHECK(maxError(Checks) == doctest::Approx(0.01 / 1.01));

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeProbeSpec(OS, R);
  OS.flush();
  CHECK(Text.find("name: \"lab \\\"A\\\"\"\n") != std::string::npos);
  CHECK(Text.find("topology: {kind: cluster, nodes: 2, backbone: false}\n") !=
        std::string::npos);
  CHECK(Text.find("    - {class: private, latency: 1, bandwidth: 12500, "
                  "duplex: full}\n") != std::string::npos);
  CHECK(Text.find("      - {from: 65536, latency_factor: 11, "
                  "bandwidth_factor: 0.94}\n") != std::string::npos);
  CHECK(Text.find("  nodes: {processes: 2, placement: block, intra: "
                  "{latency: 0.1, bandwidth: 40000}}\n") != std::string::npos);
  CHECK(Text.find("# band from 64 KiB: 2 medians, largest error 0.99%") !=
        std::string::npos);

  // It reads back as YAML with the schema's keys.
  llvm::SourceMgr SM;
  llvm::yaml::Stream Stream(Text, SM);
  auto Doc = Stream.begin();
  REQUIRE(Doc != Stream.end());
  Keys Root = keys(Doc->getRoot());
  CHECK(Root.Names == std::vector<std::string>{"name", "topology", "network"});
  const Keys &Net = Root.Below["network"];
  CHECK(Net.Names ==
        std::vector<std::string>{"links", "injection", "protocol", "nodes"});
  CHECK(Net.Below.at("protocol").Names ==
        std::vector<std::string>{"send_overhead", "bands"});
  CHECK(Net.Below.at("nodes").Names ==
        std::vector<std::string>{"processes", "placement", "intra"});
  CHECK(Net.Below.at("injection").Names ==
        std::vector<std::string>{"links", "bandwidth"});
  CHECK_FALSE(Stream.failed());

  // An exchange in pieces much faster than whole: max_piece, and why.
  R.ExchangeRatio = 2.01;
  R.PiecesRatio = 1.03;
  R.Net.MaxPiece = 65024;
  std::string Pieces;
  llvm::raw_string_ostream PS(Pieces);
  writeProbeSpec(PS, R);
  PS.flush();
  CHECK(Pieces.find("  protocol:\n    send_overhead: 0.25\n    max_piece: "
                    "65024\n    bands:\n") != std::string::npos);
  CHECK(Pieces.find("# In pieces below the eager limit it took 1.03 times one "
                    "way: whole messages that cross share a connection") !=
        std::string::npos);

  // An exchange within a node measured half duplex: the intra-node link
  // says so (the node's messages then share it); measured between nodes,
  // it does not.
  R.Net.MaxPiece = 0;
  R.PiecesRatio = 0;
  R.Net.FullDuplex = false;
  for (bool Within : {true, false}) {
    R.ExchangeIntra = Within;
    std::string Half;
    llvm::raw_string_ostream HS(Half);
    writeProbeSpec(HS, R);
    HS.flush();
    CHECK((Half.find("intra: {latency: 0.1, bandwidth: 40000, duplex: "
                     "half}}\n") != std::string::npos) == Within);
    CHECK((Half.find("intra: {latency: 0.1, bandwidth: 40000}}\n") !=
           std::string::npos) == !Within);
  }
}
