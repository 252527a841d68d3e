#include "readers/Spec.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {
std::string path(const char *Rel) {
  return std::string(COLLC_SOURCE_DIR) + "/" + Rel;
}

llvm::Expected<Machine> machineFrom(const char *Text,
                                    const char *Name = "m.yaml") {
  return parseMachine(llvm::MemoryBufferRef(Text, Name));
}
llvm::Expected<Request> requestFrom(const char *Text, const Machine &M,
                                    const char *Name = "r.yaml") {
  llvm::MemoryBufferRef Ref(Text, Name);
  return parseRequest(&Ref, {}, M);
}
std::string error(llvm::Error E) { return llvm::toString(std::move(E)); }
std::string firstLine(const std::string &S) {
  return S.substr(0, S.find('\n'));
}
} // namespace

TEST_CASE("spec: the bundled machines load") {
  for (const char *F :
       {"examples/machines/ibm-sp.yaml", "examples/machines/ibm-sp.json",
        "examples/machines/sp2.yaml", "examples/machines/t3e.yaml",
        "examples/machines/pc-cluster.yaml"}) {
    CAPTURE(F);
    auto M = loadMachine(path(F));
    REQUIRE(M);
  }
  auto SP = loadMachine(path("examples/machines/ibm-sp.yaml"));
  REQUIRE(SP);
  CHECK(SP->M.tHold(1000) == doctest::Approx(40));
  CHECK(SP->M.tEnd(1000) == doctest::Approx(125));
  auto J = loadMachine(path("examples/machines/ibm-sp.json"));
  REQUIRE(J);
  CHECK(J->M.tEnd(1000) == SP->M.tEnd(1000));
}

TEST_CASE("spec: the linear model reads as t_hold = t_end = t_s + m per_byte") {
  auto M = loadMachine(path("examples/machines/sp2.yaml"));
  REQUIRE(M);
  CHECK(M->M.Kind == ModelKind::Linear);
  CHECK(M->M.tHold(1000) == doctest::Approx(81));
  CHECK(M->M.tEnd(1000) == doctest::Approx(81));
  CHECK(M->M.SendRecvFactor == 2);
}

TEST_CASE("spec: the bundled requests load") {
  auto M = loadMachine(path("examples/machines/ibm-sp.yaml"));
  REQUIRE(M);
  auto R = loadRequest(path("examples/requests/bcast-9.yaml"), {}, *M);
  REQUIRE(R);
  CHECK(R->size() == 9);
  CHECK(R->Algorithm == "opt-tree");
  auto MC = loadRequest(path("examples/requests/multicast.yaml"), {}, *M);
  REQUIRE(MC);
  CHECK(MC->Nodes == std::vector<int64_t>{3, 10, 4, 7, 12, 1, 30});
  CHECK(MC->Root == 0);
  auto P =
      loadRequest(path("examples/requests/bcast-participants.yaml"), {}, *M);
  REQUIRE(P);
  CHECK(P->Root == 2);
  auto JR = loadRequest(path("examples/requests/bcast-128-1k.json"), {}, *M);
  REQUIRE(JR);
  CHECK(JR->Bytes == 1024);
}

TEST_CASE("spec: command-line fields override the request file") {
  auto M = loadMachine(path("examples/machines/ibm-sp.yaml"));
  REQUIRE(M);
  RequestOverrides O;
  O.Ranks = "5";
  O.Algorithm = "binomial";
  O.Bytes = "77";
  auto R = loadRequest(path("examples/requests/bcast-9.yaml"), O, *M);
  REQUIRE(R);
  CHECK(R->size() == 5);
  CHECK(R->Algorithm == "binomial");
  CHECK(R->Bytes == 77);
}

TEST_CASE("spec: mesh coordinates are written highest dimension first") {
  auto M = machineFrom("name: m\nmodel: {kind: unit-call}\ntopology: {kind: "
                       "mesh, dims: [6, 4]}\n");
  REQUIRE(M);
  CHECK(M->Topo.Nodes == 24);
  CHECK(M->Topo.nodeOf({3, 2}) == 14);
  CHECK(M->Topo.coordOf(14) == std::vector<int64_t>{3, 2});
  auto R = requestFrom("collective: multicast\nroot: [3, 2]\ndestinations: "
                       "[[1, 3], 0]\nbytes: 1\n",
                       *M);
  REQUIRE(R);
  CHECK(R->Nodes == std::vector<int64_t>{14, 7, 0});
  auto Out = requestFrom(
      "collective: multicast\nroot: [6, 2]\ndestinations: [1]\nbytes: 1\n", *M);
  REQUIRE(!Out);
  CHECK(error(Out.takeError())
            .find("r.yaml:2:8: error: node (6, 2) in 'root' is outside the (6, "
                  "4) mesh") == 0);
}

TEST_CASE("spec: YAML and JSON report the same schema errors at their own "
          "positions") {
  auto Y =
      machineFrom("name: x\nmodel:\n  kind: parameterized\n  t_hold: {base: "
                  "-1, per_byte: 0}\n  t_end: {base: 1, per_byte: 0}\n");
  REQUIRE(!Y);
  CHECK(error(Y.takeError())
            .find("m.yaml:4:18: error: expected a number >= 0 for 'base', got "
                  "'-1'") == 0);
  auto J = machineFrom(
      "{\"name\": \"x\", \"model\": {\"kind\": \"parameterized\",\n "
      "\"t_hold\": {\"base\": -1, \"per_byte\": 0}, \"t_end\": {\"base\": 1, "
      "\"per_byte\": 0}}}",
      "m.json");
  REQUIRE(!J);
  CHECK(error(J.takeError())
            .find("m.json:2:21: error: expected a number >= 0 for 'base', got "
                  "'-1'") == 0);
}

TEST_CASE("spec: command-line values are read like the file's fields") {
  auto M = machineFrom("name: m\nmodel: {kind: unit-call}\ntopology: {kind: "
                       "mesh, dims: [6, 6]}\n");
  REQUIRE(M);
  RequestOverrides Multicast;
  Multicast.Collective = "multicast";
  Multicast.Root = "(0,0)";
  Multicast.Destinations = "(1,5),(2,1)";
  Multicast.Bytes = " 8";
  auto R = parseRequest(nullptr, Multicast, *M);
  REQUIRE(R);
  CHECK(R->Nodes == std::vector<int64_t>{0, 11, 13});
  CHECK(R->Bytes == 8);
  Multicast.Destinations = "(1,5),(0,0)";
  auto Root = parseRequest(nullptr, Multicast, *M);
  REQUIRE(!Root);
  CHECK(error(Root.takeError()) ==
        "--destinations: the root (node 0) must not be among "
        "the destinations");

  // The same mistake in a file and on the command line.
  auto InFile = requestFrom(
      "collective: reduce\nranks: 4\nbytes: 8\ncommutative: no\n", *M);
  CHECK(!InFile);
  CHECK(firstLine(error(InFile.takeError())) ==
        "r.yaml:4:14: error: expected true or false for 'commutative', got "
        "'no'");
  llvm::MemoryBufferRef Reduce("collective: reduce\nranks: 4\nbytes: 8\n",
                               "r.yaml");
  RequestOverrides Commutative;
  Commutative.Commutative = "no";
  auto Bad = parseRequest(&Reduce, Commutative, *M);
  REQUIRE(!Bad);
  CHECK(error(Bad.takeError()) == "--commutative: expected "
                                  "true or false for 'commutative', got 'no'");
}
