// Complete exchange on wormhole 2D tori (paper 004): SEM's step structure and
// the paper's counts, recomputed from the schedules collc builds, and the
// torus baselines. Every schedule here goes through compile(), i.e. the
// block-exact verifier.
#include "algorithms/TorusAlltoall.h"
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "passes/MergeSteps.h"
#include "passes/Verify.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>

using namespace collc;

namespace {

Machine torus(int64_t N) {
  Machine M;
  M.Name = "torus";
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {5, 0.001, 0.0001, 5, 0.001, 1};
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {N, N};
  M.Topo.Nodes = N * N;
  return M;
}

Request alltoall(int64_t N, const char *Algorithm, uint64_t Bytes = 1) {
  Request R;
  R.Coll = Collective::Alltoall;
  R.Nodes.resize(N * N);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Bytes = Bytes;
  R.Algorithm = Algorithm;
  return R;
}

/// Per step: the most blocks (1-byte blocks: bytes) any transfer carries and
/// the longest route.
struct StepLoad {
  uint64_t Blocks = 0;
  unsigned Hops = 0;
};

std::vector<StepLoad> loads(const Schedule &S, const Machine &M) {
  std::vector<StepLoad> Out;
  for (const Step &St : S.Steps) {
    StepLoad L;
    for (const Transfer &T : St.Transfers) {
      L.Blocks = std::max(L.Blocks, T.Bytes);
      L.Hops = std::max(L.Hops, M.Topo.distance(T.Src, T.Dst));
    }
    Out.push_back(L);
  }
  return Out;
}

} // namespace

TEST_CASE("paper004.StartUps: SEM takes N/4 + 5 steps for N = 16, 32, 64, "
          "not Table 1's N/2 + 5") {
  for (int64_t N : {16, 32, 64}) {
    CAPTURE(N);
    auto Plan = semStepPlan(N);
    CHECK(static_cast<int64_t>(Plan.size()) == N / 4 + 5);
    CHECK(static_cast<int64_t>(Plan.size()) != N / 2 + 5);
    // The step count the text derives: stage 1: 2; phases 1 and 2: N/8 - 1
    // each; phases 3 and 4: 2 each; stage 3: 1.
    std::map<std::pair<int, int>, int64_t> Count;
    for (const SemStepInfo &I : Plan)
      ++Count[{I.Stage, I.Phase}];
    CHECK(Count[{1, 0}] == 2);
    CHECK(Count[{2, 1}] == N / 8 - 1);
    CHECK(Count[{2, 2}] == N / 8 - 1);
    CHECK(Count[{2, 3}] == 2);
    CHECK(Count[{2, 4}] == 2);
    CHECK(Count[{3, 0}] == 1);
  }
  // The schedule built for 16x16 and 32x32 has exactly those steps.
  for (int64_t N : {16, 32}) {
    auto S = buildAndCost(torus(N), alltoall(N, "sem"), "sem");
    REQUIRE(S);
    CHECK(static_cast<int64_t>(S->Steps.size()) == N / 4 + 5);
  }
}

TEST_CASE("paper004.DataTransmission: data per stage against N^2(N+10)/4 and "
          "the bisection bound N^3/8") {
  for (int64_t N : {16, 32}) {
    CAPTURE(N);
    Machine M = torus(N);
    auto S = compile(M, alltoall(N, "sem"));
    REQUIRE(S);
    auto Plan = semStepPlan(N);
    auto L = loads(*S, M);
    REQUIRE(L.size() == Plan.size());
    std::map<std::pair<int, int>, uint64_t> Data;
    uint64_t Total = 0;
    for (size_t I = 0; I < L.size(); ++I) {
      Data[{Plan[I].Stage, Plan[I].Phase}] += L[I].Blocks;
      Total += L[I].Blocks;
    }
    const uint64_t N2 = N * N, N3 = N2 * N;
    CHECK(Data[{1, 0}] == N2 / 2 + N2); // stage 1: N^2/2 + N^2
    CHECK(Data[{2, 1}] + Data[{2, 2}] == N3 / 4 - 2 * N2); // 2(N/8-1) N^2
    CHECK(Data[{2, 3}] == 2 * N2);                         // phase 3: 2 N^2
    CHECK(Data[{2, 4}] == 2 * N2); // phase 4 (paper: not counted)
    CHECK(Data[{3, 0}] == N2 - 1); // stage 3: N^2, own block kept
    // The paper's total N^2 (N + 10)/4 leaves out phase 4's 2 N^2 (and the
    // slave's own block); collc moves N^2 (N + 18)/4 - 1.
    CHECK(Total == N2 * (N + 18) / 4 - 1);
    CHECK(Total - 2 * N2 + 1 == N2 * (N + 10) / 4);
    // Twice the bisection bound to leading order: every master moves its
    // blocks in one direction per dimension, so a block travels half a ring
    // on average instead of a quarter.
    CHECK(Total > N3 / 8);
    CHECK(N3 / 4 < Total);
  }
}

TEST_CASE(
    "paper004.Propagation: 2N - 1 hops (the text's 2N - 5 omits phase 4)") {
  for (int64_t N : {16, 32}) {
    CAPTURE(N);
    Machine M = torus(N);
    auto S = buildAndCost(M, alltoall(N, "sem"), "sem");
    REQUIRE(S);
    unsigned Hops = 0, Phase4 = 0;
    auto Plan = semStepPlan(N);
    auto L = loads(*S, M);
    for (size_t I = 0; I < L.size(); ++I) {
      Hops += L[I].Hops;
      if (Plan[I].Stage == 2 && Plan[I].Phase == 4)
        Phase4 += L[I].Hops;
    }
    CHECK(Hops == 2 * N - 1);
    CHECK(Phase4 == 4);
    CHECK(Hops - Phase4 == 2 * N - 5);
  }
}

TEST_CASE("paper004.Rearrangement: a master reorders its 2N^2-block array five "
          "times, 10 N^2 blocks") {
  const int64_t N = 16;
  Machine M = torus(N);
  auto S = buildAndCost(M, alltoall(N, "sem"), "sem");
  REQUIRE(S);
  auto Plan = semStepPlan(N);
  // Blocks held per rank under move semantics (a forwarded block leaves).
  std::vector<int64_t> Held(N * N, N * N);
  int64_t Rearranged = 0;
  for (size_t I = 0; I < S->Steps.size(); ++I) {
    for (const Transfer &T : S->Steps[I].Transfers) {
      Held[T.Src] -= static_cast<int64_t>(T.Bytes);
      Held[T.Dst] += static_cast<int64_t>(T.Bytes);
    }
    // The array is rearranged where the send pattern changes: after stage 1,
    // after phases 1, 2 and 3, and after phase 4 (before stage 3).
    bool Boundary =
        I + 1 < Plan.size() && (Plan[I].Stage != Plan[I + 1].Stage ||
                                Plan[I].Phase != Plan[I + 1].Phase);
    if (Boundary) {
      // Master (0,0): 2N^2 blocks but the slave's own, which stays home.
      CHECK(Held[0] == 2 * N * N - 1);
      Rearranged += Held[0];
    }
  }
  CHECK(Rearranged == 10 * N * N - 5);
}

TEST_CASE("sem: block-exact and contention-free on 2x2, 4x4, 8x8 and 12x12") {
  for (int64_t N : {2, 4, 8, 12}) {
    CAPTURE(N);
    Machine M = torus(N);
    auto S = compile(M, alltoall(N, "sem", 64));
    REQUIRE(S);
    CHECK(verifySchedule(*S, M).empty());
    ContentionReport C = checkContention(*S, M);
    CHECK(C.Checked);
    CHECK(C.clean());
  }
}

TEST_CASE("sem on 16x16: contention-free once the '-' classes' half-ring "
          "worms go the decreasing way") {
  // At N = 16 a phase 1/2 move (8 hops) is exactly half the ring. Under the
  // router's default tie rule both the '+' and the '-' classes would go the
  // increasing way and share each channel in steps 2 and 3 (256 pairs); the
  // builder marks the '-' classes' moves TieDown, as the paper's
  // P ->_d P' lets it, and nothing is shared.
  Machine M = torus(16);
  auto S = compile(M, alltoall(16, "sem", 64));
  REQUIRE(S);
  CHECK(S->Steps.size() == 9);
  CHECK(verifySchedule(*S, M).empty());
  ContentionReport C = checkContention(*S, M);
  CHECK(C.Checked);
  CHECK(C.clean());
  // Without the hint the default tie rule brings the conflicts back, all in
  // phases 1 and 2 (steps 2 and 3).
  Schedule Plain = *S;
  size_t Hinted = 0;
  for (Step &St : Plain.Steps)
    for (Transfer &T : St.Transfers) {
      Hinted += T.TieDown != 0;
      T.TieDown = 0;
    }
  CHECK(Hinted == 128); // the half of 2 x 64 masters in each of 2 steps
  ContentionReport D = checkContention(Plain, M);
  CHECK(D.NumConflicts == 256);
  for (const Conflict &X : D.Conflicts) {
    CHECK((X.A.Step == 2 || X.A.Step == 3));
    CHECK(X.A.Step == X.B.Step);
  }
}

TEST_CASE("sem: refuses tori it cannot split") {
  std::string Why;
  CHECK_FALSE(semApplies(torus(6), alltoall(6, "sem"), Why));
  CHECK(Why.find("multiple of 4") != std::string::npos);
  Machine Rect = torus(8);
  Rect.Topo.Dims = {8, 16};
  Rect.Topo.Nodes = 128;
  CHECK_FALSE(semApplies(Rect, alltoall(8, "sem"), Why));
  auto S = compile(torus(6), alltoall(6, "sem"));
  CHECK_FALSE(S);
  llvm::consumeError(S.takeError());
}

TEST_CASE("torus baselines: block-exact, row-column is contention-free") {
  for (int64_t N : {4, 8}) {
    CAPTURE(N);
    Machine M = torus(N);
    auto RC = compile(M, alltoall(N, "torus-row-column", 64));
    REQUIRE(RC);
    CHECK(static_cast<int64_t>(RC->Steps.size()) == 2 * (N - 1));
    CHECK(checkContention(*RC, M).clean());
    auto D = compile(M, alltoall(N, "torus-direct", 64));
    REQUIRE(D);
    CHECK(D->numTransfers() == static_cast<uint64_t>(N * N * (N * N - 1)));
    // Every step of the direct schedule is channel-disjoint on its own.
    for (Step &St : D->Steps)
      for (Transfer &T : St.Transfers)
        T.Start = T.End = NAN;
    CHECK(checkContention(*D, M).clean());
  }
}

TEST_CASE("sem: auto picks sem over the baselines for small blocks on 8x8") {
  auto S = compile(torus(8), alltoall(8, "auto", 16));
  REQUIRE(S);
  CHECK(S->Algorithm == "sem");
}

TEST_CASE("sem: step merging finds no step to fold (one port, every master "
          "busy in every stage-2 step) and keeps it contention-free") {
  for (int64_t N : {8, 32}) {
    CAPTURE(N);
    Machine M = torus(N);
    auto S = buildAndCost(M, alltoall(N, "sem", 64), "sem");
    REQUIRE(S);
    double Before = S->Makespan;
    MergeStats St = mergeSteps(*S, M);
    estimateCost(*S, M);
    CHECK(St.StepsBefore == St.StepsAfter);
    CHECK(S->Makespan == Before);
    CHECK(checkContention(*S, M).clean());
    CHECK(verifySchedule(*S, M).empty());
  }
}

TEST_CASE("torus baselines: row-column applies while the dense tracker "
          "follows its block hops (64x64), not past them (128x128)") {
  // N^4 (N - 1) block hops: 1.06e9 on a 64x64 torus, within MaxDenseMoved
  // (the verifier follows an all-to-all of 1,024 ranks or more densely);
  // 3.4e10 on a 128x128 torus, beyond any. A 16x16 torus (983,040 hops)
  // stays within MaxMoved.
  for (int64_t N : {16, 64, 128}) {
    CAPTURE(N);
    std::string Why;
    const bool Applies =
        torusRowColumnApplies(torus(N), alltoall(N, "torus-row-column"), Why);
    CHECK(Applies == (N <= 64));
    // (At 16,384 ranks the dense tracker does not fit either: MaxMoved.)
    if (!Applies)
      CHECK(Why.find("hops in all, more than the " +
                     std::to_string(VerifyLimits::MaxMoved)) !=
            std::string::npos);
  }
  // The verifier's own bound: 257 transfers of every block of 1,024 ranks
  // move 269 million blocks, past MaxMoved: refused per rank, followed by
  // the dense tracker (which finds the blocks are not the sender's).
  Schedule S;
  S.Coll = Collective::Alltoall;
  S.Bytes = 1;
  S.Participants.resize(1024);
  for (int I = 0; I < 257; ++I) {
    Transfer T;
    T.Src = 0;
    T.Dst = 1;
    T.Bytes = 1024 * 1024;
    T.Pieces.push_back({{0, 1024}, {0, 1024}, {0, 1}});
    S.Steps.push_back({{T}});
  }
  auto Refused = [](const std::vector<std::string> &Problems) {
    return std::any_of(
        Problems.begin(), Problems.end(), [](const std::string &Pb) {
          return Pb.find("more than the verifier follows") != std::string::npos;
        });
  };
  VerifyOptions O;
  O.Timing = false;
  O.AlltoallBlocks = VerifyOptions::BlockState::PerRank;
  CHECK(Refused(verifySchedule(S, torus(32), O)));
  O.AlltoallBlocks = VerifyOptions::BlockState::Auto;
  const std::vector<std::string> Dense = verifySchedule(S, torus(32), O);
  CHECK_FALSE(Dense.empty());
  CHECK_FALSE(Refused(Dense));
  static_assert(VerifyLimits::MaxDenseMoved > VerifyLimits::MaxMoved);
}
