// The wormhole simulator (runtime/sim): paper 000's per-message timing,
// blocking by hand-computed cases, deadlock freedom of dimension-ordered
// routing, and agreement with the contention checker and the cost model.
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Routes.h"
#include "runtime/sim/Experiments.h"
#include "runtime/sim/ScheduleSim.h"
#include "runtime/sim/Wormhole.h"

#include <doctest/doctest.h>

using namespace collc;
using namespace collc::sim;

namespace {

const WormTiming Paper = {2000, 2, 2, 3500, 3};

/// Appends a message along \p Channels (no dependencies).
void addMessage(SimInput &In, int32_t Src, int32_t Dst, uint64_t Flits,
                std::vector<uint32_t> Channels) {
  SimMessage M;
  M.Src = Src;
  M.Dst = Dst;
  M.Flits = Flits;
  M.RouteBegin = static_cast<uint32_t>(In.Route.size());
  for (uint32_t C : Channels) {
    In.Route.push_back(C);
    In.NumChannels = std::max(In.NumChannels, C + 1);
  }
  M.RouteEnd = static_cast<uint32_t>(In.Route.size());
  M.DepBegin = M.DepEnd = static_cast<uint32_t>(In.Deps.size());
  In.Messages.push_back(M);
  In.Ranks = std::max({In.Ranks, Src + 1, Dst + 1});
}

Request multicast(std::vector<int64_t> Nodes, uint64_t Bytes) {
  Request R;
  R.Coll = Collective::Multicast;
  R.Nodes = std::move(Nodes);
  R.Bytes = Bytes;
  return R;
}

} // namespace

TEST_CASE("sim.uncontended: t_send = s_s + m s_d, t_net = k c_d + (m-1) c_d, "
          "t_recv = r_s + m r_d exactly") {
  Model Mo;
  Mo.Kind = ModelKind::Wormhole;
  Mo.Worm = {2000, 2, 2, 3500, 3, 1};
  for (uint32_t K : {1u, 2u, 5u, 30u})
    for (uint64_t M : {1ull, 3ull, 5ull, 100ull, 65536ull}) {
      CAPTURE(K);
      CAPTURE(M);
      SimInput In;
      std::vector<uint32_t> Route;
      for (uint32_t C = 0; C < K; ++C)
        Route.push_back(C);
      addMessage(In, 0, 1, M, Route);
      SimResult R = simulate(In, Paper);
      REQUIRE_FALSE(R.deadlocked());
      const SimMessageResult &X = R.Messages[0];
      double Md = static_cast<double>(M);
      CHECK(X.Start == 0);
      CHECK(X.Inject - X.Start == 2000 + Md * 2);
      CHECK(X.Arrive - X.Inject == K * 2 + (Md - 1) * 2);
      CHECK(X.End - X.Arrive == 3500 + Md * 3);
      CHECK(X.Blocked == 0);
      CHECK(X.End == Mo.tEnd(M, K));
      // Every channel carries the worm for (m + 1) c_d, the last m c_d.
      for (uint32_t C = 0; C < K; ++C)
        CHECK(R.ChannelBusy[C] == (C + 1 == K ? Md * 2 : (Md + 1) * 2));
    }
}

TEST_CASE("sim.blocking: a header waits for the tail of the worm ahead and "
          "holds its channels meanwhile (hand-computed)") {
  // c_d = 1, s_s = 10, nothing else: every worm enters the network at 10.
  WormTiming T = {10, 0, 1, 0, 0};
  SimInput In;
  // A: 10 flits over channels 0, 1, 2. Header at channel 2 (route position
  // 2) at 11; tail frees channel 0 at 10 + 11, channels 1, 2 at 10 + 12.
  addMessage(In, 0, 1, 10, {0, 1, 2});
  // B: 1 flit over 3, 1, 4; wants channel 1 at 11, gets it at 22 (blocked
  // 11), reaches its receiver at 24, holds channel 3 from 10 to 23.
  addMessage(In, 2, 3, 1, {3, 1, 4});
  // C: 1 flit over 5, 6, 3; wants channel 3 at 12 (B holds it while B is
  // blocked), gets it at 23 (blocked 11), arrives at 24.
  addMessage(In, 4, 5, 1, {5, 6, 3});
  SimResult R = simulate(In, T);
  REQUIRE_FALSE(R.deadlocked());
  CHECK(R.Messages[0].Blocked == 0);
  CHECK(R.Messages[0].Arrive == 22);
  CHECK(R.Messages[1].Blocked == 11);
  CHECK(R.Messages[1].Arrive == 24);
  CHECK(R.Messages[2].Blocked == 11);
  CHECK(R.Messages[2].Arrive == 24);
  CHECK(R.TotalBlocked == 22);
  CHECK(R.ChannelBusy[3] == 23 - 10 + (24 - 23)); // B 10..23, then C 23..24
  CHECK(R.Makespan == 24);
}

TEST_CASE("sim.blocking: two worms of paper parameters crossing one channel") {
  // A: 1000 flits over channels 0, 1, 2; B: 1000 flits over 1, 3. Both
  // enter the network at s_s + m s_d = 2000 + 2 * 1000 = 4000. B takes
  // channel 1 at once; A's header wants it at 4000 + c_d = 4002. B's tail
  // leaves channel 1 as it reaches B's receiver: 4000 + (2 + 999) * 2 =
  // 6002. So A is blocked 6002 - 4002 = 2000 and arrives 2000 after its
  // uncontended 4000 + (3 + 999) * 2 = 6004.
  SimInput In;
  addMessage(In, 0, 1, 1000, {0, 1, 2});
  addMessage(In, 2, 3, 1000, {1, 3});
  SimResult R = simulate(In, Paper);
  REQUIRE_FALSE(R.deadlocked());
  CHECK(R.Messages[1].Blocked == 0);
  CHECK(R.Messages[1].Arrive == 6002);
  CHECK(R.Messages[0].Blocked == 2000);
  CHECK(R.Messages[0].Arrive == 6004 + 2000);
  CHECK(R.Messages[0].End == 8004 + 3500 + 3000);
  // A held channel 0 while it waited: 4000 .. 6004 + 2 (its tail leaves
  // channel 0 once it has crossed channel 1, 1001 c_d after the header
  // resumed at 6002 minus the one hop it had made).
  CHECK(R.ChannelBusy[0] == (4000 + 2000 + 1001 * 2) - 4000);
}

TEST_CASE("sim.deadlock: worms waiting on each other in a cycle are reported") {
  SimInput In;
  for (uint32_t I = 0; I < 4; ++I)
    addMessage(In, static_cast<int32_t>(I), static_cast<int32_t>(4 + I), 100,
               {I, (I + 1) % 4});
  SimResult R = simulate(In, Paper);
  CHECK(R.deadlocked());
  CHECK(R.Stuck.size() == 4);
}

TEST_CASE("sim.deadlock-free: all-to-all traffic under dimension-ordered "
          "routing on a mesh completes") {
  Machine M = paperMesh();
  M.Topo.Dims = {8, 8};
  M.Topo.Nodes = 64;
  // Every node sends to every other at once (all in one step, no data
  // dependencies): the worst contention the mesh can get.
  Schedule S;
  S.Coll = Collective::Alltoall;
  S.Bytes = 256;
  for (int64_t N = 0; N < 64; ++N)
    S.Participants.push_back({N});
  S.Steps.resize(1);
  for (int32_t Off = 1; Off < 64; ++Off)
    for (int32_t A = 0; A < 64; ++A) {
      Transfer T;
      T.Src = A;
      T.Dst = (A + Off) % 64;
      T.Bytes = 256;
      T.Pieces = {Piece{{A, A + 1}, {T.Dst, T.Dst + 1}, {0, 1}}};
      S.Steps[0].Transfers.push_back(T);
    }
  auto Sim = simulateSchedule(S, M);
  REQUIRE(Sim);
  CHECK_FALSE(Sim->Result.deadlocked());
  CHECK(Sim->Result.TotalBlocked > 0); // it is contended...
  for (const SimMessageResult &X : Sim->Result.Messages)
    CHECK(X.End > 0); // ...and every message is delivered
}

TEST_CASE("sim.contention: every schedule the contention checker calls clean "
          "shows zero blocked time (random groups)") {
  Machine M = paperMesh();
  int Clean = 0, Contended = 0, ContendedBlocked = 0;
  for (uint64_t Seed = 1; Seed <= 12; ++Seed)
    for (int32_t Ranks : {5, 17, 40, 100})
      for (const char *A : {"opt-mesh", "u-mesh", "opt-tree", "binomial"})
        for (uint64_t Bytes : {64ull, 4096ull, 65536ull}) {
          CAPTURE(Seed);
          CAPTURE(Ranks);
          CAPTURE(A);
          CAPTURE(Bytes);
          auto S = buildAndCost(
              M, multicast(randomPlacement(Seed, Ranks, 256), Bytes), A);
          REQUIRE(S);
          auto Sim = simulateSchedule(*S, M);
          REQUIRE(Sim);
          REQUIRE_FALSE(Sim->Result.deadlocked());
          ContentionReport C = checkContention(*S, M);
          REQUIRE(C.Checked);
          if (C.clean()) {
            ++Clean;
            CHECK(Sim->Result.TotalBlocked == 0);
          } else {
            ++Contended;
            ContendedBlocked += Sim->Result.TotalBlocked > 0;
          }
          if (std::string(A) == "opt-mesh" || std::string(A) == "u-mesh")
            CHECK(C.clean());
        }
  // Both verdicts occur, and the checker's contention is often real.
  CHECK(Clean > 0);
  CHECK(Contended > 0);
  CHECK(ContendedBlocked > 0);
}

TEST_CASE("sim.model: the simulated makespan of an uncontended schedule "
          "equals the cost model's (wormhole t_hold and t_end with hops)") {
  Machine M = paperMesh();
  for (uint64_t Seed = 1; Seed <= 8; ++Seed)
    for (const char *A : {"opt-mesh", "u-mesh"})
      for (uint64_t Bytes : {1ull, 1000ull, 65536ull}) {
        CAPTURE(Seed);
        CAPTURE(A);
        auto S = buildAndCost(
            M, multicast(randomPlacement(Seed, 64, 256), Bytes), A);
        REQUIRE(S);
        auto Sim = simulateSchedule(*S, M);
        REQUIRE(Sim);
        CHECK(Sim->Result.TotalBlocked == 0);
        CHECK(Sim->Result.Makespan == S->Makespan);
        size_t W = 0;
        for (const Step &St : S->Steps)
          for (const Transfer &T : St.Transfers) {
            CHECK(Sim->Result.Messages[W].Start == T.Start);
            CHECK(Sim->Result.Messages[W].End == T.End);
            ++W;
          }
      }
}

TEST_CASE("sim.schedule: a rank sends only after receiving what it forwards") {
  Machine M = paperMesh();
  auto S = buildAndCost(M, multicast({0, 17, 34, 51, 68}, 512), "chain");
  REQUIRE(S);
  auto Sim = simulateSchedule(*S, M);
  REQUIRE(Sim);
  // A chain: each transfer starts when the previous one has been received.
  for (size_t W = 1; W < Sim->Result.Messages.size(); ++W)
    CHECK(Sim->Result.Messages[W].Start == Sim->Result.Messages[W - 1].End);
}
