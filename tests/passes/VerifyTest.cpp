// The verifier: every builder's schedules pass it, and it catches each kind
// of broken schedule.
#include "passes/Verify.h"
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "passes/Cost.h"
#include "tests/Requests.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>
#include <random>

using namespace collc;

namespace {

Schedule built(const Machine &M, const Request &R, const char *Alg) {
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

TEST_CASE("verifier: every broadcast builder passes for random sizes, roots "
          "and models") {
  std::mt19937_64 Rng(42);
  for (const AlgorithmInfo &A : algorithms()) {
    if (!A.supports(Collective::Bcast))
      continue;
    for (int Trial = 0; Trial < 40; ++Trial) {
      int32_t K = std::uniform_int_distribution<int32_t>(1, 200)(Rng);
      int32_t Root = std::uniform_int_distribution<int32_t>(0, K - 1)(Rng);
      uint64_t Bytes = std::uniform_int_distribution<uint64_t>(0, 100000)(Rng);
      Machine M = test::parameterized(
          std::uniform_real_distribution<double>(0, 60)(Rng),
          std::uniform_real_distribution<double>(0, 60)(Rng), 0.01, 0.05);
      Request R = test::bcast(K, Root, Bytes, A.Name);
      std::string Why;
      if (!A.applies(M, R, Why))
        continue;
      Schedule S = built(M, R, A.Name);
      CAPTURE(A.Name);
      CAPTURE(K);
      CAPTURE(Root);
      auto Problems = verifySchedule(S, M);
      CHECK(Problems.empty());
      if (S.NumChunks == 1)
        CHECK(S.numTransfers() == uint64_t(K - 1));
    }
  }
}

TEST_CASE("verifier: a rank that sends before it holds the data is caught") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(8), "binomial");
  // Move the root's first send to the end: its receiver now forwards early.
  std::swap(S.Steps.front(), S.Steps.back());
  auto Problems = verifySchedule(S, M, {.Timing = false});
  CHECK(mentions(Problems, "before it holds it"));
}

TEST_CASE("verifier: a rank that receives twice is caught") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(4), "sequential");
  Transfer Dup = S.Steps[0].Transfers[0];
  Step Extra;
  Extra.Transfers.push_back(Dup);
  S.Steps.push_back(Extra);
  CHECK(mentions(verifySchedule(S, M, {.Timing = false}), "a second time"));
}

TEST_CASE("verifier: a rank left out is caught") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(6), "chain");
  S.Steps.pop_back();
  CHECK(mentions(verifySchedule(S, M), "at the end rank 5 lacks the message"));
}

TEST_CASE("verifier: one-port is enforced per step") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(4), "sequential");
  // Put all of the root's sends in one step.
  Step All;
  for (Step &St : S.Steps)
    for (Transfer &T : St.Transfers)
      All.Transfers.push_back(T);
  S.Steps = {All};
  CHECK(mentions(verifySchedule(S, M, {.Timing = false}),
                 "sends more than 1 message"));
  Machine Three = M;
  Three.Ports = 3;
  CHECK(!mentions(verifySchedule(S, Three, {.Timing = false}),
                  "sends more than"));
}

TEST_CASE("verifier: timing — t_hold between sends and t_end per transfer") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(5), "sequential");
  CHECK(verifySchedule(S, M).empty());
  Schedule Tight = S;
  Tight.Steps[1].Transfers[0].Start -= 5; // 15 after the first send
  Tight.Steps[1].Transfers[0].End -= 5;
  CHECK(mentions(verifySchedule(Tight, M), "less than t_hold"));
  Schedule Short = S;
  Short.Steps[0].Transfers[0].End -= 1;
  CHECK(mentions(verifySchedule(Short, M), "expected start"));
  Schedule Early = built(M, test::bcast(4), "chain");
  Early.Steps[1].Transfers[0].Start = 10; // before its data arrived at 55
  Early.Steps[1].Transfers[0].End = 65;
  CHECK(mentions(verifySchedule(Early, M), "before the message arrived"));
}

TEST_CASE("verifier: bytes must match the pieces") {
  Machine M = test::parameterized(20, 55);
  Schedule S = built(M, test::bcast(3, 0, 100), "chain");
  S.Steps[0].Transfers[0].Bytes = 99;
  CHECK(mentions(verifySchedule(S, M, {.Timing = false}), "carries 99 bytes"));
}

TEST_CASE("verifier: reductions count each contribution once") {
  Machine M = test::parameterized(20, 55);
  Schedule S;
  S.Coll = Collective::Reduce;
  S.Algorithm = "hand";
  S.Bytes = 8;
  S.Op = "sum";
  S.Datatype = "int32";
  S.Participants = {{0}, {1}, {2}};
  auto Combine = [&](int32_t Src, int32_t Dst, Interval Origins) {
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Bytes = 8;
    T.Kind = TransferKind::Combine;
    T.Pieces.push_back({Origins, {0, 3}, {0, 1}});
    return T;
  };
  // 2 -> 1, then 1 -> 0 with {1, 2}: correct.
  S.Steps = {Step{{Combine(2, 1, {2, 3})}}, Step{{Combine(1, 0, {1, 3})}}};
  CHECK(verifySchedule(S, M, {.Timing = false}).empty());
  // 1 -> 0 claims only {1} while rank 1 holds {1, 2}.
  Schedule Lie = S;
  Lie.Steps[1].Transfers[0].Pieces[0].Origins = {1, 2};
  CHECK(mentions(verifySchedule(Lie, M, {.Timing = false}),
                 "holds it combined over"));
  // 2 -> 0 directly as well: rank 2 counted twice.
  Schedule Twice = S;
  Twice.Steps.push_back(Step{{Combine(2, 0, {2, 3})}});
  CHECK(mentions(verifySchedule(Twice, M, {.Timing = false}), "count twice"));
  // Non-commutative: 0 <- 2 first, then 1: ranges {0} and {2} are not adjacent.
  Schedule NC;
  NC = S;
  NC.Commutative = false;
  NC.Steps = {Step{{Combine(2, 0, {2, 3})}}, Step{{Combine(1, 0, {1, 2})}}};
  CHECK(mentions(verifySchedule(NC, M, {.Timing = false}), "adjacent"));
}

TEST_CASE("verifier: barriers need every arrival known everywhere") {
  Machine M = test::parameterized(1, 1);
  Schedule S;
  S.Coll = Collective::Barrier;
  S.Algorithm = "hand";
  S.Participants = {{0}, {1}, {2}};
  auto Sig = [](int32_t A, int32_t B) {
    Transfer T;
    T.Src = A;
    T.Dst = B;
    T.Kind = TransferKind::Signal;
    return T;
  };
  // Gather to 0, then release: correct.
  S.Steps = {Step{{Sig(1, 0)}}, Step{{Sig(2, 0)}}, Step{{Sig(0, 1)}},
             Step{{Sig(0, 2)}}};
  CHECK(verifySchedule(S, M, {.Timing = false}).empty());
  // Release rank 1 before rank 2 arrived.
  Schedule Early = S;
  std::swap(Early.Steps[1], Early.Steps[2]);
  CHECK(mentions(verifySchedule(Early, M, {.Timing = false}),
                 "rank 1 may leave the barrier before rank 2 arrived"));
}

TEST_CASE("verifier: personalized blocks reach their destination once") {
  Machine M = test::parameterized(1, 1);
  Schedule S;
  S.Coll = Collective::Scatter;
  S.Algorithm = "hand";
  S.Bytes = 4;
  S.Participants = {{0}, {1}, {2}, {3}};
  auto Blocks = [](int32_t Src, int32_t Dst, Interval Dests) {
    Transfer T;
    T.Src = Src;
    T.Dst = Dst;
    T.Bytes = 4 * Dests.size();
    T.Pieces.push_back({{0, 1}, Dests, {0, 1}});
    return T;
  };
  // Binomial scatter: 0 -> 2 with blocks 2,3; then 0 -> 1 and 2 -> 3.
  S.Steps = {Step{{Blocks(0, 2, {2, 4})}},
             Step{{Blocks(0, 1, {1, 2}), Blocks(2, 3, {3, 4})}}};
  CHECK(verifySchedule(S, M, {.Timing = false}).empty());
  Schedule Missing = S;
  Missing.Steps[1].Transfers.pop_back();
  CHECK(mentions(verifySchedule(Missing, M, {.Timing = false}),
                 "rank 3 lacks block M[0][3]"));
  Schedule Wrong = S;
  Wrong.Steps[1].Transfers[1].Src = 1; // rank 1 never held block 3
  CHECK(mentions(verifySchedule(Wrong, M, {.Timing = false}),
                 "before it holds it"));
}
