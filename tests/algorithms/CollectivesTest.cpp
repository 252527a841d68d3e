// Paper 001's collectives: every builder, every process count up to 20 (and
// a few larger), every root, passes the verifier; reductions respect the
// operator; exscan's result is kept apart and checked.
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/ScheduleJson.h"
#include "passes/Cost.h"
#include "passes/Verify.h"
#include "tests/Requests.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace collc;

namespace {

Machine sp2() {
  Machine M;
  M.Name = "sp2";
  M.M.Kind = ModelKind::Linear;
  M.M.Linear = {46, 0.035};
  M.M.SendRecvFactor = 2;
  M.M.OpPerByte = 0.01;
  return M;
}

bool hasRoot(Collective C) {
  return C == Collective::Bcast || C == Collective::Reduce ||
         C == Collective::Gather || C == Collective::Scatter;
}

/// Builds through the driver (build, cost, verify) and also checks the
/// schedule survives a JSON round trip unchanged in meaning.
void checkCompiles(const Machine &M, const Request &R) {
  auto S = compile(M, R);
  if (!S) {
    std::string Msg = llvm::toString(S.takeError());
    CAPTURE(Msg);
    CHECK(false);
    return;
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeScheduleJson(OS, *S, &M);
  OS.flush();
  auto Back = readScheduleJson(Text, "round-trip.json");
  REQUIRE(Back);
  CHECK(verifySchedule(*Back, M).empty());
  CHECK(Back->numTransfers() == S->numTransfers());
}

struct Case {
  Collective C;
  const char *Alg;
};

const Case Cases[] = {
    {Collective::Bcast, "edge-disjoint"},
    {Collective::Bcast, "k-segment"},
    {Collective::Bcast, "pipeline"},
    {Collective::Bcast, "two-path-pipeline"},
    {Collective::Bcast, "scatter-allgather"},
    {Collective::Reduce, "binomial"},
    {Collective::Reduce, "reduce-scatter-allgather"},
    {Collective::Allreduce, "binomial"},
    {Collective::Allreduce, "reduce-scatter-allgather"},
    {Collective::Scan, "linear"},
    {Collective::Scan, "pipelined"},
    {Collective::Scan, "brent-kung"},
    {Collective::Scan, "rootp"},
    {Collective::Exscan, "linear"},
    {Collective::Exscan, "pipelined"},
    {Collective::Exscan, "brent-kung"},
    {Collective::Exscan, "rootp"},
    {Collective::Gather, "linear"},
    {Collective::Gather, "binomial"},
    {Collective::Scatter, "linear"},
    {Collective::Scatter, "binomial"},
    {Collective::Alltoall, "pairwise"},
    {Collective::Alltoall, "bruck"},
    {Collective::Allgather, "ring"},
    {Collective::Allgather, "bruck"},
};

} // namespace

TEST_CASE("collectives: every paper-001 builder verifies for P = 1..20, 33, 64 "
          "(every root up to 12)") {
  Machine M = sp2();
  for (const Case &C : Cases)
    for (int32_t P : {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                      12, 13, 14, 15, 16, 17, 18, 19, 20, 33, 64}) {
      int32_t Roots = hasRoot(C.C) && P <= 12 ? P : 1;
      for (int32_t Root = 0; Root < Roots; ++Root)
        for (uint64_t Bytes : {uint64_t(0), uint64_t(4) * 64 * 3}) {
          CAPTURE(C.Alg);
          CAPTURE(collectiveName(C.C));
          CAPTURE(P);
          CAPTURE(Root);
          CAPTURE(Bytes);
          checkCompiles(M, test::request(M, C.C, P, Root, Bytes, C.Alg));
        }
    }
}

TEST_CASE("collectives: explicit segment counts, any k, verify") {
  Machine M = sp2();
  for (int32_t P : {2, 5, 8, 13})
    for (int64_t K : {1, 2, 3, 7, 16}) {
      for (const char *Alg : {"k-segment", "pipeline", "two-path-pipeline"}) {
        RequestFields F = test::fields(Collective::Bcast, P, P / 2, 1000, Alg);
        F.Segments = K;
        Request R = test::made(M, F);
        CAPTURE(Alg);
        CAPTURE(P);
        CAPTURE(K);
        auto S = compile(M, R);
        REQUIRE(S);
        if (std::string(Alg) != "k-segment" || K <= P)
          CHECK(S->NumChunks == K);
      }
      for (Collective C : {Collective::Scan, Collective::Exscan}) {
        RequestFields F = test::fields(C, P, 0, 4 * 16 * 7 * 3, "pipelined");
        F.Segments = K;
        Request R = test::made(M, F);
        auto S = compile(M, R);
        REQUIRE(S);
        CHECK(S->NumChunks == K);
      }
    }
}

TEST_CASE("collectives: non-commutative operators") {
  Machine M = sp2();
  // Algorithms that keep rank order verify with commutative: false.
  for (int32_t P : {2, 3, 6, 8, 11})
    for (int32_t Root = 0; Root < P; ++Root) {
      for (Collective C : {Collective::Reduce, Collective::Allreduce}) {
        if (C == Collective::Allreduce && Root)
          continue;
        checkCompiles(M, test::request(M, C, P, Root, 64, "binomial", false));
      }
    }
  for (int32_t P : {2, 5, 8, 13})
    for (Collective C : {Collective::Scan, Collective::Exscan})
      for (const char *Alg : {"linear", "pipelined", "brent-kung", "rootp"})
        checkCompiles(M, test::request(M, C, P, 0, 64, Alg, false));
  // The reduce-scatter keeps rank order too (nearest partner first).
  for (int32_t P : {2, 3, 6, 8, 11})
    for (int32_t Root = 0; Root < P; ++Root)
      for (Collective C : {Collective::Reduce, Collective::Allreduce})
        if (C == Collective::Reduce || Root == 0)
          checkCompiles(M, test::request(M, C, P, Root, 64 * 8,
                                         "reduce-scatter-allgather", false));
}

TEST_CASE("collectives: the verifier catches broken reductions and scans") {
  Machine M = sp2();
  // A scan whose last combine is dropped leaves rank P-1 short.
  auto S = compile(M, test::request(M, Collective::Scan, 6, 0, 64, "linear"));
  REQUIRE(S);
  Schedule Broken = *S;
  Broken.Steps.pop_back();
  auto Problems = verifySchedule(Broken, M);
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0].find("rank 5") != std::string::npos);
  // An exscan read as an inclusive scan: results land in the wrong value.
  auto E =
      compile(M, test::request(M, Collective::Exscan, 5, 0, 64, "brent-kung"));
  REQUIRE(E);
  Schedule AsScan = *E;
  AsScan.Coll = Collective::Scan;
  CHECK_FALSE(verifySchedule(AsScan, M).empty());
  // An exscan whose shift goes into the partial instead of the result.
  Schedule Wrong = *E;
  for (Transfer &T : Wrong.Steps.back().Transfers)
    T.Into = 1;
  CHECK_FALSE(verifySchedule(Wrong, M).empty());
  // A contribution combined twice.
  auto A =
      compile(M, test::request(M, Collective::Allreduce, 4, 0, 64, "binomial"));
  REQUIRE(A);
  Schedule Twice = *A;
  Twice.Steps.insert(Twice.Steps.begin() + 1, Twice.Steps.front());
  Problems = verifySchedule(Twice, M, {/*Timing=*/false});
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0].find("count twice") != std::string::npos);
  // Non-commutative: the rotated tree of a commutative reduce is refused.
  auto Rot =
      compile(M, test::request(M, Collective::Reduce, 6, 3, 64, "binomial"));
  REQUIRE(Rot);
  Schedule NonComm = *Rot;
  NonComm.Commutative = false;
  CHECK_FALSE(verifySchedule(NonComm, M, {false}).empty());
}

TEST_CASE("collectives: from/into survive JSON and default to the old format") {
  Machine M = sp2();
  auto S = compile(M, test::request(M, Collective::Exscan, 4, 0, 64, "linear"));
  REQUIRE(S);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeScheduleJson(OS, *S, &M);
  OS.flush();
  CHECK(Text.find("\"into\": 3") != std::string::npos);
  auto Scan =
      compile(M, test::request(M, Collective::Scan, 4, 0, 64, "linear"));
  REQUIRE(Scan);
  std::string Plain;
  llvm::raw_string_ostream OS2(Plain);
  writeScheduleJson(OS2, *Scan, &M);
  OS2.flush();
  CHECK(Plain.find("\"into\"") == std::string::npos);
  CHECK(Plain.find("\"from\"") == std::string::npos);
  CHECK_FALSE(readScheduleJson(
      R"({"collective": "exscan", "algorithm": "x", "bytes": 4, "root": 0,
          "chunks": 1, "participants": [{"node": 0}, {"node": 1}],
          "steps": [{"transfers": [{"src": 0, "dst": 1, "bytes": 4,
          "kind": "combine", "into": 7}]}]})",
      "bad.json"));
}

TEST_CASE("collectives: allgather step counts, and a lost block is caught") {
  Machine M = sp2();
  for (int32_t P = 1; P <= 40; ++P) {
    CAPTURE(P);
    auto Ring =
        compile(M, test::request(M, Collective::Allgather, P, 0, 100, "ring"));
    auto Bruck =
        compile(M, test::request(M, Collective::Allgather, P, 0, 100, "bruck"));
    REQUIRE(Ring);
    REQUIRE(Bruck);
    CHECK(Ring->Steps.size() == size_t(P - 1));
    size_t Log = 0;
    while ((int64_t(1) << Log) < P)
      ++Log;
    CHECK(Bruck->Steps.size() == Log);
    // Each rank sends P - 1 blocks in all, in either algorithm.
    uint64_t Sent = 0;
    for (const Step &St : Bruck->Steps)
      for (const Transfer &T : St.Transfers)
        Sent += T.Bytes;
    CHECK(Sent == uint64_t(P) * (P - 1) * 100);
  }
  auto S =
      compile(M, test::request(M, Collective::Allgather, 7, 0, 100, "bruck"));
  REQUIRE(S);
  Schedule Broken = *S;
  Broken.Steps.back().Transfers.pop_back();
  auto Problems = verifySchedule(Broken, M);
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0].find("the block of rank") != std::string::npos);
}
