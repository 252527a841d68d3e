// Request sets (readers/RequestSet.h): the list forms of --collective,
// --ranks, --root and --bytes, their expansion into one checked request per
// combination, and compileSet's size bands (compiler/Driver.h), which must be
// exactly the auto policy's.
#include "readers/RequestSet.h"
#include "compiler/Driver.h"
#include "compiler/Select.h"
#include "ir/Diagnostic.h"
#include "readers/Spec.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Machine pcCluster() {
  auto M = loadMachine(COLLC_SOURCE_DIR "/examples/machines/pc-cluster.yaml");
  REQUIRE(static_cast<bool>(M));
  return std::move(*M);
}

std::string message(llvm::Error E) { return llvm::toString(std::move(E)); }

/// The request set of the command-line fields \p O on pc-cluster.
llvm::Expected<RequestSet> expand(RequestSetOptions O,
                                  std::optional<ByteBand> Range = {},
                                  uint64_t Max = DefaultMaxRequests) {
  static const Machine M = pcCluster();
  O.Range = Range;
  O.MaxRequests = Max;
  return expandRequests("", O, M);
}

RequestSetOptions fields(const char *Coll, const char *Ranks,
                         std::optional<std::string> Root,
                         std::optional<std::string> Bytes) {
  RequestSetOptions O;
  O.Fields.Collective = Coll;
  O.Fields.Ranks = Ranks;
  O.Fields.Root = std::move(Root);
  O.Bytes = std::move(Bytes);
  return O;
}

} // namespace

TEST_CASE("request set: list options split at commas outside parentheses") {
  auto Items = splitListOption(" 3, (1,2),[4,5] ,7", "--root");
  REQUIRE(static_cast<bool>(Items));
  CHECK(*Items == std::vector<std::string>{"3", "(1,2)", "[4,5]", "7"});
  for (const char *Bad : {"1,,3", "1,", ",1", ""})
    CHECK(message(splitListOption(Bad, "--ranks").takeError()) ==
          std::string("--ranks: expected a list of values separated by "
                      "commas, got '") +
              Bad + "'");
}

TEST_CASE("request set: --ranks takes numbers, inclusive ranges and lists") {
  auto K = parseRankList("1:4,16, 6:6", 64);
  REQUIRE(static_cast<bool>(K));
  CHECK(*K == std::vector<int64_t>{1, 2, 3, 4, 16, 6});
  const std::string Form = "--ranks: expected a group size in [1, 64] or a "
                           "range LO:HI of them with LO <= HI, got '";
  for (const char *Bad :
       {"0", "8:1", "0:3", "a:4", "4:b", "1:65", "65", "-1", "1:2:3"})
    CHECK(message(parseRankList(Bad, 64).takeError()) == Form + Bad + "'");
  CHECK(message(parseRankList("1:4,3", 64).takeError()) ==
        "--ranks: 3 appears twice in '1:4,3'");
}

TEST_CASE("request set: one request per combination, in order") {
  auto S = expand(fields("bcast,allreduce", "2:3", "all", "8,64"));
  REQUIRE(static_cast<bool>(S));
  std::vector<std::string> Labels;
  for (const PlannedRequest &P : S->Requests)
    Labels.push_back(P.Label);
  // bcast: every root of each group; allreduce: no root.
  CHECK(Labels == std::vector<std::string>{"bcast on 2 ranks, root 0, 8 bytes",
                                           "bcast on 2 ranks, root 0, 64 bytes",
                                           "bcast on 2 ranks, root 1, 8 bytes",
                                           "bcast on 2 ranks, root 1, 64 bytes",
                                           "bcast on 3 ranks, root 0, 8 bytes",
                                           "bcast on 3 ranks, root 0, 64 bytes",
                                           "bcast on 3 ranks, root 1, 8 bytes",
                                           "bcast on 3 ranks, root 1, 64 bytes",
                                           "bcast on 3 ranks, root 2, 8 bytes",
                                           "bcast on 3 ranks, root 2, 64 bytes",
                                           "allreduce on 2 ranks, 8 bytes",
                                           "allreduce on 2 ranks, 64 bytes",
                                           "allreduce on 3 ranks, 8 bytes",
                                           "allreduce on 3 ranks, 64 bytes"});
  for (const PlannedRequest &P : S->Requests) {
    CHECK(P.R.Root < P.R.size());
    CHECK(P.R.Bytes ==
          (P.Label.find("64 bytes") != std::string::npos ? 64 : 8));
  }
  CHECK(S->Requests[3].R.Root == 1);
  CHECK(S->Notes.empty());
}

TEST_CASE("request set: a barrier in a list takes one request per group") {
  auto S = expand(fields("barrier,bcast", "4,2", std::nullopt, "8,16"));
  REQUIRE(static_cast<bool>(S));
  REQUIRE(S->Requests.size() == 6);
  CHECK(S->Requests[0].Label == "barrier on 4 ranks");
  CHECK(S->Requests[0].R.Bytes == 0);
  CHECK(S->Requests[1].Label == "barrier on 2 ranks");
  CHECK(S->Requests[5].Label == "bcast on 2 ranks, 16 bytes");
}

TEST_CASE("request set: a root outside some groups is skipped with a note") {
  auto S = expand(fields("bcast", "2:5", "0,3", "8"));
  REQUIRE(static_cast<bool>(S));
  CHECK(S->Requests.size() == 4 + 2);
  REQUIRE(S->Notes.size() == 1);
  CHECK(S->Notes[0] ==
        "bcast: root 3 is not a node of the groups of 2, 3 ranks: skipped "
        "there");
  // In no group at all: the error a single request gives, with the
  // combination.
  CHECK(message(expand(fields("bcast", "2:5", "0,7", "8")).takeError()) ==
        "bcast on 5 ranks, root 7, 8 bytes: --root: root node 7 is not a "
        "participant (the group has 5 ranks)");
}

TEST_CASE("request set: one value of each reads as a single request did") {
  CHECK(message(expand(fields("bcast", "4", "4", "8")).takeError()) ==
        "--root: root node 4 is not a participant (the group has 4 ranks)");
  CHECK(message(expand(fields("bcast", "0", std::nullopt, "8")).takeError()) ==
        "--ranks: expected an integer in [1, 16] for 'ranks', got '0'");
  auto S = expand(fields("allreduce", "4", "2", "8"));
  REQUIRE(static_cast<bool>(S));
  REQUIRE(S->Requests.size() == 1);
  CHECK(S->Requests[0].R.Root == 2); // a rootless algorithm may centre on it
}

TEST_CASE("request set: errors name the combination and are said first") {
  CHECK(
      message(expand(fields("bcast", "1:17", std::nullopt, "8")).takeError()) ==
      "bcast on 17 ranks, 8 bytes: --ranks: "
      "expected an integer in [1, 16] for "
      "'ranks', got '17'");
  CHECK(message(expand(fields("bcast,allreduce", "2", std::nullopt, "6"))
                    .takeError()) ==
        "allreduce on 2 ranks, 6 bytes: --bytes: expected 'bytes' to be a "
        "multiple of 4 (the size of int32), got 6");
  CHECK(
      message(
          expand(fields("bcast,bcast", "2", std::nullopt, "8")).takeError()) ==
      "--collective: 'bcast' appears twice in 'bcast,bcast'");
  CHECK(message(expand(fields("bcast", "2", "all", "8,8")).takeError()) ==
        "--bytes: '8' appears twice in '8,8'");
  CHECK(message(expand(fields("bcast", "2", "all", "8"), ByteBand{0, 9})
                    .takeError()) ==
        "--bytes and --bytes-range do not go together: give sizes or a range");
  RequestSetOptions Multi = fields("multicast", "1", "all", "8");
  Multi.Fields.Ranks.reset();
  Multi.Fields.Destinations = "1,2";
  CHECK(message(expand(Multi).takeError()) ==
        "--root all: a multicast's group is its source and destinations; "
        "give the source with --root");
}

TEST_CASE("request set: the output's check runs on every combination") {
  static const Machine M = pcCluster();
  RequestSetOptions O = fields("bcast,scan,gather", "3", std::nullopt, "8");
  O.Check = [](const Request &R) -> llvm::Error {
    if (R.Coll == Collective::Scan)
      return error("no scan here");
    return llvm::Error::success();
  };
  CHECK(message(expandRequests("", O, M).takeError()) ==
        "scan on 3 ranks, 8 bytes: no scan here");
}

TEST_CASE("request set: the number of combinations is capped before work") {
  // 16 groups, 1 + 2 + ... + 16 roots, 2 sizes: 272 requests.
  CHECK(message(expand(fields("bcast", "1:16", "all", "8,16"), {}, 271)
                    .takeError()) ==
        "the options ask for 272 requests (every combination of "
        "--collective, --ranks, --root and --bytes); at most 271 are "
        "allowed: give fewer values, or raise the cap with --max-requests N");
  auto S = expand(fields("bcast", "1:16", "all", "8,16"), {}, 272);
  REQUIRE(static_cast<bool>(S));
  CHECK(S->Requests.size() == 272);
}

TEST_CASE("request set: banded schedules are auto's bands, no more") {
  const Machine M = pcCluster();
  auto S = expand(
      fields("bcast,allreduce,alltoall,barrier", "4,7", "all", std::nullopt),
      ByteBand{3, 1 << 20});
  REQUIRE(static_cast<bool>(S));
  auto Built = compileSet(M, *S);
  REQUIRE(static_cast<bool>(Built));
  size_t Next = 0;
  for (const PlannedRequest &P : S->Requests) {
    if (P.R.Coll == Collective::Barrier) {
      REQUIRE(Next < Built->size());
      CHECK(!(*Built)[Next++].Band);
      continue;
    }
    auto Sel = selectBands(M, P.R, 3, 1 << 20, modelJudge());
    REQUIRE(static_cast<bool>(Sel));
    for (const AlgorithmBand &B : Sel->Bands) {
      REQUIRE(Next < Built->size());
      const SetSchedule &X = (*Built)[Next++];
      REQUIRE(X.Band);
      CHECK(X.Band->Lo == B.Lo);
      CHECK(X.Band->Hi == B.Hi);
      CHECK(X.S.Algorithm == B.Algorithm);
      CHECK(X.S.Bytes >= B.Lo);
      CHECK(X.S.Bytes <= B.Hi);
      CHECK(X.S.size() == P.R.size());
      CHECK(X.S.Root == P.R.Root);
    }
    // A reduction's bands hold whole int32 elements: 4 .. 1048576.
    if (P.R.Coll == Collective::Allreduce) {
      CHECK(Sel->Bands.front().Lo == 4);
      CHECK(Sel->Bands.back().Hi == 1 << 20);
    }
  }
  CHECK(Next == Built->size());
}

TEST_CASE("request set: errors keep their kind with the combination") {
  llvm::Error E = inCombination(
      llvm::make_error<LocatedError>("r.yaml:1:2: error: bad"), "bcast on 2");
  CHECK(E.isA<LocatedError>());
  CHECK(message(std::move(E)) ==
        "r.yaml:1:2: error: bad\ncollc: note: in the request for bcast on 2");
  llvm::Error I =
      inCombination(llvm::make_error<InternalError>("broken"), "scan on 3");
  CHECK(I.isA<InternalError>());
  CHECK(message(std::move(I)) == "scan on 3: broken");
  llvm::Error C =
      inCombination(llvm::make_error<CheckFailure>("contention"), "x");
  CHECK(C.isA<CheckFailure>());
  consumeError(std::move(C));
  CHECK(message(inCombination(error("plain"), "y")) == "y: plain");
}
