// Schedules in lockstep (Schedule::Lockstep): each rank runs its steps one
// after the other, as a loop of MPI_Sendrecv does. The posting plan makes
// every operation of a rank wait for all its operations of its previous
// step; the field survives the JSON round trip; and `neighbor-exchange`,
// which searches both postings, takes lockstep on the arena's three-level
// fat tree, where Open MPI's neighbor exchange (a loop of sendrecv) beat the
// same exchanges posted ahead (SMPI measured 3120.9 us against 3853.3 us).
#include "algorithms/Registry.h"
#include "compiler/Driver.h"
#include "ir/ScheduleJson.h"
#include "passes/NetworkCost.h"
#include "passes/Posting.h"
#include "tests/Examples.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace collc;

namespace {

/// Whether every operation of every rank of \p S waits (PostWaits) for all
/// the rank's operations of its latest earlier step that has any.
bool everyStepWaitsForThePrevious(const Schedule &S) {
  auto Plan = planPosting(S);
  REQUIRE(static_cast<bool>(Plan));
  for (const RankPlan &RP : Plan->Ranks) {
    std::vector<int32_t> Prev, Cur;
    int32_t Step = -1;
    for (size_t I = 0; I < RP.Ops.size(); ++I) {
      const PlannedOp &O = RP.Ops[I];
      if (O.Step != Step) {
        if (!Cur.empty())
          Prev.swap(Cur);
        Cur.clear();
        Step = O.Step;
      }
      Cur.push_back(int32_t(I));
      for (int32_t W : Prev)
        if (std::find(O.PostWaits.begin(), O.PostWaits.end(), W) ==
            O.PostWaits.end())
          return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("lockstep: every operation waits for the rank's previous step; "
          "neighbor-exchange takes it on the arena's three-level fat tree, "
          "and auto takes neighbor-exchange") {
  int32_t P = 0;
  const Machine M = test::arenaPlatform(17, P);
  REQUIRE(P == 30);
  Request R = test::arenaRequest(M, Collective::Allgather, 1 << 20,
                                 "neighbor-exchange");
  auto S = compile(M, R);
  REQUIRE(S);
  CHECK(S->Lockstep);
  CHECK(everyStepWaitsForThePrevious(*S));
  // The same exchanges posted ahead: receives of later steps out early.
  Schedule Ahead = *S;
  Ahead.Lockstep = false;
  CHECK_FALSE(everyStepWaitsForThePrevious(Ahead));
  estimateNetworkCost(Ahead, M);
  CAPTURE(S->Makespan);
  CAPTURE(Ahead.Makespan);
  CHECK(S->Makespan * 1.2 < Ahead.Makespan);
  R.Algorithm = "auto";
  auto Auto = compile(M, R);
  REQUIRE(Auto);
  CHECK(Auto->Algorithm == "neighbor-exchange");
  CHECK(Auto->Lockstep);
  CHECK(Auto->Makespan == doctest::Approx(S->Makespan));
}

TEST_CASE("lockstep: the field survives the JSON round trip, and is written "
          "only when set") {
  int32_t P = 0;
  const Machine M = test::arenaPlatform(17, P);
  auto S = compile(M, test::arenaRequest(M, Collective::Allgather, 1 << 20,
                                         "neighbor-exchange"));
  REQUIRE(S);
  for (bool Lockstep : {true, false}) {
    Schedule T = *S;
    T.Lockstep = Lockstep;
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    writeScheduleJson(OS, T);
    OS.flush();
    CHECK((Text.find("\"lockstep\": true") != std::string::npos) == Lockstep);
    auto Back = readScheduleJson(Text, "x.json");
    REQUIRE(Back);
    CHECK(Back->Lockstep == Lockstep);
  }
}
