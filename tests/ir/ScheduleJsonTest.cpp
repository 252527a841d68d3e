#include "ir/ScheduleJson.h"
#include "compiler/Driver.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {
std::string toJson(const Schedule &S, const Machine *M = nullptr) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeScheduleJson(OS, S, M);
  OS.flush();
  return Text;
}
} // namespace

TEST_CASE("json: schedules round-trip exactly") {
  Machine M = test::parameterized(20.5, 55.25, 0.02, 0.07);
  for (const char *Alg : {"opt-tree", "binomial", "sequential", "chain"})
    for (int K : {1, 2, 9, 33}) {
      auto S = compile(M, test::bcast(K, K / 2, 1000, Alg));
      REQUIRE(S);
      std::string Text = toJson(*S, &M);
      auto Back = readScheduleJson(Text, "x.json");
      REQUIRE(Back);
      CHECK(toJson(*Back, &M) == Text);
      CHECK(Back->Makespan == S->Makespan);
      CHECK(Back->numTransfers() == S->numTransfers());
    }
}

TEST_CASE("json: pieces, kinds and reductions survive the round trip") {
  Schedule S;
  S.Coll = Collective::Allreduce;
  S.Algorithm = "hand";
  S.Bytes = 16;
  S.NumChunks = 2;
  S.Op = "max";
  S.Datatype = "double";
  S.Commutative = false;
  S.Participants = {{4}, {7}};
  Transfer T;
  T.Src = 1;
  T.Dst = 0;
  T.Bytes = 8;
  T.Kind = TransferKind::Combine;
  T.Pieces = {{{1, 2}, {0, 2}, {1, 2}}};
  T.Start = 0.1;
  T.End = 1e-7;
  T.TieDown = 2;
  S.Steps = {Step{{T}}};
  auto Back = readScheduleJson(toJson(S), "x.json");
  REQUIRE(Back);
  CHECK(Back->Op == "max");
  CHECK(Back->Datatype == "double");
  CHECK(!Back->Commutative);
  CHECK(Back->NumChunks == 2);
  CHECK(Back->Participants[1].Node == 7);
  const Transfer &B = Back->Steps[0].Transfers[0];
  CHECK(B.Kind == TransferKind::Combine);
  CHECK(B.Pieces == T.Pieces);
  CHECK(B.Start == 0.1);
  CHECK(B.End == 1e-7);
  CHECK(B.TieDown == 2);
  CHECK(std::isnan(Back->Makespan));
}

TEST_CASE("json: malformed schedules are rejected with a location") {
  auto Bad = readScheduleJson("{\"collective\": \"bcast\",\n  \"algorithm\": }",
                              "s.json");
  REQUIRE(!Bad);
  std::string Msg = llvm::toString(Bad.takeError());
  CHECK(Msg.rfind("s.json:2:16: error: expected a JSON schedule", 0) == 0);
  auto Unknown = readScheduleJson(R"({"collective": "teleport"})", "s.json");
  REQUIRE(!Unknown);
  CHECK(llvm::toString(Unknown.takeError()) ==
        "s.json:1:16: error: unknown collective 'teleport'\n"
        "{\"collective\": \"teleport\"}\n"
        "               ^");
}

TEST_CASE("json: a piece is written as its three intervals, the widest "
          "numbers included, and reads back") {
  Schedule S;
  S.Coll = Collective::Alltoall;
  S.Algorithm = "hand";
  S.Bytes = 1;
  S.NumChunks = 1;
  S.Participants = {{0}, {1}};
  Transfer T;
  T.Src = 0;
  T.Dst = 1;
  T.Bytes = 1;
  const Piece Wide{{-9223372036854775807LL - 1, 9223372036854775807LL},
                   {0, 1048576},
                   {7, 65536}};
  T.Pieces = {{{0, 1}, {1, 2}, {0, 1}}, Wide};
  S.Steps = {Step{{T}}};
  const std::string Text = toJson(S);
  CHECK(Text.find("\"pieces\": [{\"origins\": [0,1], \"dests\": [1,2], "
                  "\"chunks\": [0,1]}, {\"origins\": "
                  "[-9223372036854775808,9223372036854775807], \"dests\": "
                  "[0,1048576], \"chunks\": [7,65536]}]") != std::string::npos);
  // Without the widest piece, it reads back and is written alike.
  S.Steps[0].Transfers[0].Pieces.pop_back();
  const std::string Small = toJson(S);
  auto Back = readScheduleJson(Small, "x.json");
  REQUIRE(Back);
  CHECK(Back->Steps[0].Transfers[0].Pieces ==
        PieceList{{{0, 1}, {1, 2}, {0, 1}}});
  CHECK(toJson(*Back) == Small);
}
