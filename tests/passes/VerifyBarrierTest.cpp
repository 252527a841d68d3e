// The verifier on barriers: it proves by happens-before that no rank leaves
// before every rank arrived, and catches each way of breaking that.
#include "compiler/Driver.h"
#include "passes/Cost.h"
#include "passes/Verify.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Transfer sig(int32_t Src, int32_t Dst) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Kind = TransferKind::Signal;
  return T;
}

Schedule
barrierOf(int32_t P,
          std::vector<std::vector<std::pair<int32_t, int32_t>>> Steps) {
  Schedule S;
  S.Coll = Collective::Barrier;
  S.Algorithm = "test";
  S.Participants.resize(P);
  for (int32_t R = 0; R < P; ++R)
    S.Participants[R].Node = R;
  for (auto &St : Steps) {
    Step X;
    for (auto [A, B] : St)
      X.Transfers.push_back(sig(A, B));
    S.Steps.push_back(X);
  }
  return S;
}

Schedule built(const Machine &M, int32_t P, const char *Alg) {
  Request R = test::bcast(P, 0, 0, Alg);
  R.Coll = Collective::Barrier;
  auto S = buildAndCost(M, R, Alg);
  REQUIRE(S);
  return std::move(*S);
}

bool mentions(const std::vector<std::string> &Problems,
              const std::string &Word) {
  for (const std::string &P : Problems)
    if (P.find(Word) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("verifier: a correct barrier of three passes") {
  Machine M = test::parameterized(1, 2);
  // Gather 2->1->0, release 0->1->2.
  Schedule S = barrierOf(3, {{{2, 1}}, {{1, 0}}, {{0, 1}}, {{1, 2}}});
  CHECK(verifySchedule(S, M).empty());
}

TEST_CASE("verifier: a barrier missing one dissemination round lets ranks "
          "leave early") {
  Machine M = test::parameterized(1, 2);
  for (int32_t P : {3, 4, 9, 16, 33}) {
    Schedule S = built(M, P, "dissemination");
    REQUIRE(verifySchedule(S, M).empty());
    S.Steps.pop_back();
    auto Problems = verifySchedule(S, M, {.Timing = false});
    CHECK(mentions(Problems, "may leave the barrier before rank"));
  }
}

TEST_CASE("verifier: a tree barrier whose release starts before the gather "
          "ends fails") {
  Machine M = test::parameterized(1, 2);
  Schedule S = built(M, 8, "tree");
  REQUIRE(verifySchedule(S, M).empty());
  // Move the last gather step (into the root) after the release: the root
  // releases ranks 1..3 before it heard of ranks 4..7.
  size_t Half = S.Steps.size() / 2;
  Step Last = S.Steps[Half - 1];
  S.Steps.erase(S.Steps.begin() + static_cast<std::ptrdiff_t>(Half) - 1);
  S.Steps.push_back(Last);
  auto Problems = verifySchedule(S, M, {.Timing = false});
  CHECK(mentions(Problems, "may leave the barrier before rank"));
}

TEST_CASE(
    "verifier: a signal forwarded in the step it arrives carries nothing") {
  Machine M = test::parameterized(1, 2);
  // 2->1 and 1->0 in the same step: rank 0 does not yet know of rank 2.
  Schedule S = barrierOf(3, {{{2, 1}, {1, 0}}, {{0, 1}}, {{1, 2}}});
  auto Problems = verifySchedule(S, M, {.Timing = false});
  CHECK(
      mentions(Problems, "rank 0 may leave the barrier before rank 2 arrived"));
}

TEST_CASE("verifier: a release that skips a rank leaves it uninformed") {
  Machine M = test::parameterized(1, 2);
  Schedule S = barrierOf(4, {{{3, 2}}, {{2, 1}}, {{1, 0}}, {{0, 1}}, {{1, 2}}});
  auto Problems = verifySchedule(S, M, {.Timing = false});
  CHECK(
      mentions(Problems, "rank 3 may leave the barrier before rank 0 arrived"));
}

TEST_CASE("verifier: barriers move only signals without data") {
  Machine M = test::parameterized(1, 2);
  Schedule S = barrierOf(2, {{{1, 0}}, {{0, 1}}});
  S.Steps[0].Transfers[0].Bytes = 8;
  CHECK(mentions(verifySchedule(S, M), "only signals without data"));
  S = barrierOf(2, {{{1, 0}}, {{0, 1}}});
  S.Steps[1].Transfers[0].Kind = TransferKind::Copy;
  CHECK(mentions(verifySchedule(S, M), "only signals without data"));
}

TEST_CASE("verifier: a signal sent before what it forwards arrived fails the "
          "timing check") {
  Machine M = test::parameterized(1, 2);
  Schedule S = barrierOf(3, {{{2, 1}}, {{1, 0}}, {{0, 1}}, {{1, 2}}});
  estimateCost(S, M);
  REQUIRE(verifySchedule(S, M).empty());
  // Rank 1 forwards to 0 at time 1, but 2's signal reaches it only at 2.
  S.Steps[1].Transfers[0].Start = 1;
  S.Steps[1].Transfers[0].End = 3;
  CHECK(
      mentions(verifySchedule(S, M), "before the signals it forwards arrived"));
}
