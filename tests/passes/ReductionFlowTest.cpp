// The reduction flow (passes/ReductionFlow.h): what each value holds, and
// how each delivered chunk updates the receiver's values.
#include "passes/ReductionFlow.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Schedule reduction(Collective C, int32_t P, int64_t Chunks = 1,
                   bool Commutative = true) {
  Schedule S;
  S.Coll = C;
  S.Algorithm = "hand";
  S.Bytes = 8 * Chunks;
  S.NumChunks = Chunks;
  S.Commutative = Commutative;
  for (int32_t R = 0; R < P; ++R)
    S.Participants.push_back({R});
  return S;
}

/// A combine of contributors [Lo, Hi) over chunks [C0, C1).
Transfer combine(int32_t Src, int32_t Dst, Interval Origins,
                 Interval Chunks = {0, 1}) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Kind = TransferKind::Combine;
  T.Bytes = 8 * static_cast<uint64_t>(Chunks.size());
  T.Pieces = {{Origins, {0, 0}, Chunks}};
  return T;
}

} // namespace

TEST_CASE("reduction-flow: a linear scan folds each prefix from the left") {
  Schedule S = reduction(Collective::Scan, 4);
  for (int32_t R = 0; R + 1 < 4; ++R)
    S.Steps.push_back({{combine(R, R + 1, {0, R + 1})}});
  ScheduleFlow F = reductionFlow(S);
  REQUIRE(F.Steps.size() == 3);
  for (const auto &Step : F.Steps) {
    REQUIRE(Step.size() == 1);
    const TransferFlow &T = Step[0];
    CHECK(!T.Sent);
    REQUIRE(T.Runs.size() == 1);
    CHECK(T.Runs[0].Chunks == Interval{0, 1});
    CHECK(T.Runs[0].Into[0] == Fold::Left);
    CHECK(T.Runs[0].Into[1] == Fold::None);
  }
  CHECK(!F.NeedsCommutative);
}

TEST_CASE("reduction-flow: higher ranks fold from the right; ranges that "
          "do not join need a commutative operator") {
  Schedule S = reduction(Collective::Reduce, 3);
  S.Steps = {{{combine(2, 0, {2, 3})}}, {{combine(1, 0, {1, 2})}}};
  ReductionFlow Flow(S);
  std::vector<TransferFlow> A = Flow.step({&S.Steps[0].Transfers[0]});
  CHECK(A[0].Runs[0].Into[0] == Fold::Right);
  CHECK(Flow.value(0, 0, 0).str() == "{0, 2}");
  CHECK(Flow.needsCommutative());
  std::vector<TransferFlow> B = Flow.step({&S.Steps[1].Transfers[0]});
  CHECK(B[0].Runs[0].Into[0] == Fold::Left);
  CHECK(Flow.value(0, 0, 0).str() == "{0..2}");

  // Under a non-commutative operator the first fold is refused and not
  // applied.
  S.Commutative = false;
  ScheduleFlow F = reductionFlow(S);
  const TransferFlow &Refused = F.Steps[0][0];
  CHECK(Refused.Runs[0].Into[0] == Fold::Unordered);
  CHECK(Refused.Refused[0].Chunk == 0);
  CHECK(Refused.Refused[0].Carried.str() == "{2}");
  CHECK(Refused.Refused[0].Held.str() == "{0}");
  // Rank 1 then joins {0}: adjacent, folded from the right.
  CHECK(F.Steps[1][0].Runs[0].Into[0] == Fold::Right);
  CHECK(!F.NeedsCommutative);
}

TEST_CASE("reduction-flow: a contribution twice is refused, and so are the "
          "transfer's later chunks into that value") {
  Schedule S = reduction(Collective::Allreduce, 2, 3);
  S.Steps = {{{combine(1, 0, {1, 2}, {1, 2})}},
             {{combine(1, 0, {1, 2}, {0, 3})}}};
  ScheduleFlow F = reductionFlow(S);
  const TransferFlow &T = F.Steps[1][0];
  REQUIRE(T.Runs.size() == 3);
  CHECK(T.Runs[0].Chunks == Interval{0, 1});
  CHECK(T.Runs[0].Into[0] == Fold::Right);
  CHECK(T.Runs[1].Chunks == Interval{1, 2});
  CHECK(T.Runs[1].Into[0] == Fold::Twice);
  CHECK(T.Runs[2].Chunks == Interval{2, 3});
  CHECK(T.Runs[2].Into[0] == Fold::None);
  CHECK(T.Refused[0].Held.str() == "{0..1}");
}

TEST_CASE("reduction-flow: a step's sends read the values before the step, "
          "and what a sender does not hold is reported") {
  // An exchange: both ranks send their own contribution in one step.
  Schedule S = reduction(Collective::Allreduce, 2, 2);
  S.Steps = {{{combine(0, 1, {0, 1}, {0, 2}), combine(1, 0, {1, 2}, {0, 2})}},
             {{combine(0, 1, {0, 1}, {0, 2})}}};
  ScheduleFlow F = reductionFlow(S);
  for (const TransferFlow &T : F.Steps[0]) {
    CHECK(!T.Sent);
    REQUIRE(T.Runs.size() == 1);
    CHECK(T.Runs[0].Chunks == Interval{0, 2});
  }
  CHECK(F.Steps[0][0].Runs[0].Into[0] == Fold::Left);
  CHECK(F.Steps[0][1].Runs[0].Into[0] == Fold::Right);
  // Rank 0 now holds {0, 1}: sending {0} alone disagrees.
  const TransferFlow &Stale = F.Steps[1][0];
  CHECK(Stale.Sent.Chunk == 0);
  CHECK(Stale.Sent.Carried.str() == "{0}");
  CHECK(Stale.Sent.Held.str() == "{0..1}");
}

TEST_CASE("reduction-flow: an exscan stores into its empty result and folds "
          "into its partial; copies store") {
  Schedule S = reduction(Collective::Exscan, 3);
  Transfer T01 = combine(0, 1, {0, 1});
  T01.Into = 3;
  Transfer T12 = combine(1, 2, {0, 2});
  T12.Into = 3;
  Transfer Copy = combine(2, 0, {0, 3});
  Copy.Kind = TransferKind::Copy;
  S.Steps = {{{T01}}, {{T12}}, {{Copy}}};
  ScheduleFlow F = reductionFlow(S);
  CHECK(F.Steps[0][0].Runs[0].Into[0] == Fold::Left);
  CHECK(F.Steps[0][0].Runs[0].Into[1] == Fold::Store);
  CHECK(F.Steps[1][0].Runs[0].Into[0] == Fold::Left);
  CHECK(F.Steps[1][0].Runs[0].Into[1] == Fold::Store);
  CHECK(F.Steps[2][0].Runs[0].Into[0] == Fold::Store);
  ReductionFlow Flow(S);
  for (const Step &St : S.Steps)
    Flow.step({&St.Transfers[0]});
  CHECK(Flow.value(1, 2, 0).str() == "{0..1}");
  CHECK(Flow.value(0, 0, 0).str() == "{0..2}");
  CHECK(Flow.value(1, 0, 0).str() == "{}");
}

TEST_CASE("reduction-flow: transfers it cannot follow get an empty flow") {
  Schedule S = reduction(Collective::Reduce, 2);
  Transfer Out = combine(1, 5, {1, 2});
  Transfer Self = combine(1, 1, {1, 2});
  S.Steps = {{{Out, Self}}};
  ScheduleFlow F = reductionFlow(S);
  REQUIRE(F.Steps[0].size() == 2);
  CHECK(F.Steps[0][0].Runs.empty());
  CHECK(F.Steps[0][1].Runs.empty());
}
