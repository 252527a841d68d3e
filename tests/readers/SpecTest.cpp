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
  RequestFields F;
  F.Bytes = 77;
  auto R = loadRequest(path("examples/requests/bcast-9.yaml"), O, *M, F);
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
  RequestDocument CommandLine;
  RequestFields F;
  CommandLine.commandLineBytes(" 8", F);
  auto R = makeRequest(F, *M, &CommandLine, Multicast);
  REQUIRE(R);
  CHECK(R->Nodes == std::vector<int64_t>{0, 11, 13});
  CHECK(R->Bytes == 8);
  Multicast.Destinations = "(1,5),(0,0)";
  auto Root = makeRequest(F, *M, &CommandLine, Multicast);
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

TEST_CASE("spec: makeRequest gives typed fields the file's checks") {
  auto M = machineFrom("name: m\nmodel: {kind: unit-call}\ntopology: {kind: "
                       "mesh, dims: [4, 4]}\n");
  REQUIRE(M);
  auto fields = [](Collective C, std::vector<int64_t> Nodes, uint64_t Bytes) {
    RequestFields F;
    F.Coll = C;
    F.Participants = std::move(Nodes);
    F.Bytes = Bytes;
    return F;
  };
  RequestFields F = fields(Collective::Bcast, {3, 5, 7, 9}, 64);
  F.Root = 7;
  auto R = makeRequest(F, *M);
  REQUIRE(R);
  CHECK(R->Nodes == std::vector<int64_t>{3, 5, 7, 9});
  CHECK(R->Root == 2);
  CHECK(R->Bytes == 64);
  CHECK(R->Algorithm == "auto");

  // What a file or the command line would be told, without a position.
  F.Root = 4;
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "root node 4 is not a participant (the group has 4 ranks)");
  F.Root.reset();
  F.Participants = {1, 2, 1};
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "node 1 appears twice in the group");
  F.Participants = {1, 16};
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "node 16 in 'participants' is outside the machine (nodes 0..15)");
  F = fields(Collective::Allreduce, {0, 1}, 6);
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected 'bytes' to be a multiple of 4 (the size of int32), got 6");
  // A reduce-scatter's bytes are the whole vector: a block of whole
  // elements per rank.
  F = fields(Collective::ReduceScatter, {0, 1, 2}, 6);
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected 'bytes' to be a multiple of 4 (the size of int32), got 6");
  F.Bytes = 20;
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected a reduce-scatter's 'bytes' (the whole vector) to be a "
        "multiple of 12 (3 ranks x 4 bytes of int32), got 20");
  for (uint64_t B : {0, 12, 24000}) {
    F.Bytes = B;
    auto RS = makeRequest(F, *M);
    REQUIRE(RS);
    CHECK(RS->Bytes == B);
  }
  F = fields(Collective::Allreduce, {0, 1}, 6);
  F.Bytes = 8;
  F.Op = "xor";
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "unknown operator 'xor'; expected one of: sum, prod, min, max");
  F = fields(Collective::Barrier, {0, 1}, 8);
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected 'bytes' to be 0 for a barrier (it moves no data)");
  F = fields(Collective::Bcast, {0, 1}, 8);
  F.Bytes.reset();
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "missing key 'bytes' in request");
  F.Bytes = uint64_t(1) << 51;
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected an integer in [0, 1125899906842624] for 'bytes', got "
        "'2251799813685248'");
  F.Bytes = 8;
  F.Algorithm = "star-search";
  CHECK(error(makeRequest(F, *M).takeError()).find("star-search") !=
        std::string::npos);
  F.Algorithm.reset();
  F.Participants.reset();
  F.Ranks = 17;
  CHECK(error(makeRequest(F, *M).takeError()) ==
        "expected an integer in [1, 16] for 'ranks', got '17'");
  F.Ranks = 16;
  F.RootRank = 5;
  R = makeRequest(F, *M);
  REQUIRE(R);
  CHECK(R->size() == 16);
  CHECK(R->Root == 5);
}

TEST_CASE("spec: one request document serves many requests") {
  auto M = loadMachine(path("examples/machines/ibm-sp.yaml"));
  REQUIRE(M);
  auto Doc = RequestDocument::read(path("examples/requests/bcast-9.yaml"));
  REQUIRE(Doc);
  for (uint64_t Bytes : {0, 8, 1024}) {
    RequestFields F;
    F.Bytes = Bytes;
    auto R = makeRequest(F, *M, Doc->get());
    REQUIRE(R);
    CHECK(R->size() == 9);
    CHECK(R->Bytes == Bytes);
  }
  // An error does not stick to the document: the next request reads anew,
  // and a located error stays located.
  RequestOverrides Bad;
  Bad.Ranks = "0";
  CHECK(error(makeRequest({}, *M, Doc->get(), Bad).takeError()) ==
        "--ranks: expected an integer in [1, 1048576] for 'ranks', got '0'");
  RequestFields Sum;
  Sum.Coll = Collective::Allreduce;
  Sum.Bytes = 8;
  auto E = error(makeRequest(Sum, *M, Doc->get()).takeError());
  CHECK(E.find("bcast-9.yaml:6:12: error: unknown algorithm 'opt-tree' for "
               "allreduce") != std::string::npos);
  auto R = makeRequest({}, *M, Doc->get());
  REQUIRE(R);
  CHECK(R->Bytes == 0);
}
