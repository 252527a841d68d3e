// The wormhole simulator (sim/): paper 000's per-message timing,
// blocking by hand-computed cases, deadlock freedom of dimension-ordered
// routing, and agreement with the contention checker and the cost model.
#include "compiler/Driver.h"
#include "passes/Contention.h"
#include "passes/Routes.h"
#include "tools/WormholeExperiments.h"
#include "sim/ScheduleSim.h"
#include "sim/Wormhole.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <sys/wait.h>
#include <unistd.h>

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

/// N worms of 100 flits on a cycle of N channels: worm I (rank I to rank
/// 4 + I) crosses channel I, then I + 1 (mod N).
SimInput ring(uint32_t N) {
  SimInput In;
  for (uint32_t I = 0; I < N; ++I)
    addMessage(In, static_cast<int32_t>(I), static_cast<int32_t>(4 + I), 100,
               {I, (I + 1) % N});
  return In;
}

Request multicast(std::vector<int64_t> Nodes, uint64_t Bytes) {
  Request R;
  R.Coll = Collective::Multicast;
  R.Nodes = std::move(Nodes);
  R.Bytes = Bytes;
  return R;
}

/// Paper 000's wormhole parameters on a Side x Side torus.
Machine paperTorus(int64_t Side) {
  Machine M = paperMesh();
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {Side, Side};
  M.Topo.Nodes = Side * Side;
  return M;
}

/// An all-to-all among ranks on nodes 0..Ranks-1.
Request alltoall(int64_t Ranks, uint64_t Bytes) {
  Request R;
  R.Coll = Collective::Alltoall;
  for (int64_t N = 0; N < Ranks; ++N)
    R.Nodes.push_back(N);
  R.Bytes = Bytes;
  return R;
}

/// The contention checker's verdicts on schedules and what the simulator
/// made of them.
struct Verdicts {
  int Clean = 0, Contended = 0, ContendedBlocked = 0;
};

/// Builds \p R with \p Algorithm on \p M, simulates it and checks it against
/// the checker: clean implies zero blocked time and the model's makespan.
ContentionReport checkAgainstSim(const Machine &M, const Request &R,
                                 const char *Algorithm, Verdicts &V) {
  auto S = buildAndCost(M, R, Algorithm);
  REQUIRE(S);
  auto Sim = simulateSchedule(*S, M);
  REQUIRE(Sim);
  REQUIRE_FALSE(Sim->Result.deadlocked());
  ContentionReport C = checkContention(*S, M);
  REQUIRE(C.Checked);
  if (C.clean()) {
    ++V.Clean;
    CHECK(Sim->Result.TotalBlocked == 0);
    CHECK(Sim->Result.Makespan == S->Makespan);
  } else {
    ++V.Contended;
    V.ContendedBlocked += Sim->Result.TotalBlocked > 0;
  }
  return C;
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

TEST_CASE("sim.deadlock: worms waiting on each other in a cycle are reported, "
          "with the channels they wait for and their blocked time") {
  SimInput In = ring(4);
  // An unrelated worm on channel 10 keeps the network moving after the
  // cycle closes: injected at 2200, its tail arrives (1 + 99) c_d later, at
  // 2400, and its receive ends at 2400 + 3500 + 100 * 3 = 6200.
  addMessage(In, 8, 9, 100, {10});
  SimResult R = simulate(In, Paper);
  CHECK(R.deadlocked());
  CHECK(R.Stuck == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(R.Messages[4].End == 6200);
  CHECK(R.StopTime == 6200);
  // Every worm took its first channel at injection (2200) and found its
  // second, the next worm's first, taken at 2202: blocked until 6200.
  REQUIRE(R.Waits.size() == 4);
  for (uint32_t I = 0; I < 4; ++I) {
    CHECK(R.Waits[I].Message == I);
    CHECK(R.Waits[I].Channel == (I + 1) % 4);
    CHECK(R.Waits[I].Holder == (I + 1) % 4);
    CHECK(R.Messages[I].Blocked == 6200 - 2202);
  }
  CHECK(R.TotalBlocked == 4 * (6200 - 2202));
  std::vector<SimWait> Cycle = deadlockCycle(R);
  REQUIRE(Cycle.size() == 4);
  for (size_t I = 0; I < 4; ++I)
    CHECK(Cycle[I].Holder == Cycle[(I + 1) % 4].Message);
}

TEST_CASE("sim.deadlock: a worm waiting behind a deadlock cycle is stuck "
          "but not part of the cycle") {
  SimInput In = ring(3);
  // Its header crosses channel 5 and wants channel 0 at 2202, held forever
  // by worm 0.
  addMessage(In, 3, 7, 100, {5, 0});
  SimResult R = simulate(In, Paper);
  CHECK(R.Stuck.size() == 4);
  CHECK(R.Waits.size() == 4);
  std::vector<SimWait> Cycle = deadlockCycle(R);
  REQUIRE(Cycle.size() == 3);
  for (const SimWait &W : Cycle)
    CHECK(W.Message != 3);
  // Nothing moved after the last header blocked, at 2202.
  CHECK(R.StopTime == 2202);
  CHECK(R.TotalBlocked == 0);
}

TEST_CASE("sim.deadlock: a torus without virtual channels deadlocks under "
          "all-to-all traffic, and the report names a cycle") {
  // 8x8 wormhole torus, pairwise exchange: in each step every node sends
  // to the node (step) positions on, so the worms of a row wrap around it
  // together.
  Machine M = paperTorus(8);
  auto S = buildAndCost(M, alltoall(64, 4096), "pairwise");
  REQUIRE(S);
  auto Sim = simulateSchedule(*S, M);
  REQUIRE(Sim);
  const SimResult &Res = Sim->Result;
  REQUIRE(Res.deadlocked());
  CHECK(Res.Stuck.size() < S->numTransfers());
  CHECK(Res.TotalBlocked > 0);
  double Waiting = 0;
  for (const SimWait &W : Res.Waits) {
    CHECK(Res.Messages[W.Message].End == 0); // never received
    Waiting += Res.Messages[W.Message].Blocked;
  }
  CHECK(Waiting > 0);
  std::vector<SimWait> Cycle = deadlockCycle(Res);
  REQUIRE(Cycle.size() >= 2);
  std::string Text = deadlockReport(*Sim, *S, M);
  CHECK(Text.find(std::to_string(Res.Stuck.size()) + " of " +
                  std::to_string(S->numTransfers()) +
                  " transfers never completed") != std::string::npos);
  CHECK(Text.find("transfer " + std::to_string(Cycle[0].Message) + " (step ") !=
        std::string::npos);
  CHECK(Text.find("waits for channel " +
                  channelName(M.Topo, Sim->Channels[Cycle[0].Channel]) +
                  ", held by transfer " + std::to_string(Cycle[0].Holder)) !=
        std::string::npos);
  // The contention checker saw it coming.
  CHECK_FALSE(checkContention(*S, M).clean());
}

TEST_CASE("sim.deadlock: collc --emit sim fails with status 2 and names the "
          "stuck transfers") {
  // The collc driver sits beside this test binary (build/bin).
  std::filesystem::path Bin =
      std::filesystem::read_symlink("/proc/self/exe").parent_path();
  REQUIRE(std::filesystem::exists(Bin / "collc"));
  std::filesystem::path Dir =
      std::filesystem::temp_directory_path() /
      ("collc-sim-deadlock-" + std::to_string(::getpid()));
  std::filesystem::create_directories(Dir);
  {
    std::ofstream Y(Dir / "torus.yaml");
    Y << "name: torus-8x8\n"
         "model: {kind: wormhole, s_s: 2000, s_d: 2, c_d: 2, r_s: 3500, "
         "r_d: 3}\n"
         "topology: {kind: torus, dims: [8, 8]}\n";
  }
  std::string Cmd = (Bin / "collc").string() + " --machine " +
                    (Dir / "torus.yaml").string() +
                    " --collective alltoall --ranks 64 --bytes 4096"
                    " --algorithm pairwise --emit sim -o " +
                    (Dir / "report.txt").string() + " 2>&1";
  FILE *P = ::popen(Cmd.c_str(), "r");
  REQUIRE(P);
  std::string Out;
  char Buf[4096];
  while (size_t N = std::fread(Buf, 1, sizeof Buf, P))
    Out.append(Buf, N);
  int Status = ::pclose(P);
  CAPTURE(Out);
  REQUIRE(WIFEXITED(Status));
  CHECK(WEXITSTATUS(Status) == 2);
  CHECK(Out.rfind("collc: error: --emit sim: the network deadlocked: ", 0) ==
        0);
  CHECK(Out.find("transfers never completed") != std::string::npos);
  CHECK(Out.find("waits for channel (") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(Dir / "report.txt"));
  std::filesystem::remove_all(Dir);
}

TEST_CASE("sim.torus: transfers take the routes the checker checks (tie "
          "direction included): 16x16 sem is clean and simulates to its "
          "model") {
  // SEM's '-' classes send their half-ring worms the decreasing way
  // (Transfer::TieDown). Routed the default way instead, four 8-hop worms
  // of a row wrap around it together and deadlock.
  Machine M = paperTorus(16);
  M.M.Worm = {5, 0.001, 0.0001, 5, 0.001, 1};
  auto S = buildAndCost(M, alltoall(256, 64), "sem");
  REQUIRE(S);
  REQUIRE(checkContention(*S, M).clean());
  auto Sim = simulateSchedule(*S, M);
  REQUIRE(Sim);
  CHECK_FALSE(Sim->Result.deadlocked());
  CHECK(Sim->Result.TotalBlocked == 0);
  CHECK(Sim->Result.Makespan == doctest::Approx(S->Makespan).epsilon(1e-12));
  Schedule Plain = *S;
  for (Step &St : Plain.Steps)
    for (Transfer &T : St.Transfers)
      T.TieDown = 0;
  auto Default = simulateSchedule(Plain, M);
  REQUIRE(Default);
  CHECK(Default->Result.deadlocked());
  CHECK(deadlockCycle(Default->Result).size() == 4);
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
  Verdicts V;
  for (uint64_t Seed = 1; Seed <= 12; ++Seed)
    for (int32_t Ranks : {5, 17, 40, 100})
      for (const char *A : {"opt-mesh", "u-mesh", "opt-tree", "binomial"})
        for (uint64_t Bytes : {64ull, 4096ull, 65536ull}) {
          CAPTURE(Seed);
          CAPTURE(Ranks);
          CAPTURE(A);
          CAPTURE(Bytes);
          ContentionReport C = checkAgainstSim(
              M, multicast(randomPlacement(Seed, Ranks, 256), Bytes), A, V);
          if (std::string(A) == "opt-mesh" || std::string(A) == "u-mesh")
            CHECK(C.clean());
        }
  // Both verdicts occur, and with wormhole channel windows the checker's
  // contention is always real.
  CHECK(V.Clean > 0);
  CHECK(V.Contended > 0);
  CHECK(V.ContendedBlocked == V.Contended);
}

TEST_CASE("sim.contention: clean implies zero blocked time for random "
          "wormhole parameters, small s_s included") {
  // Integer parameters keep every time exact in both the checker and the
  // simulator. s_s spans the regime where a node's second worm catches up
  // with its first (s_s + m s_d < (m + 1) c_d) and the paper's, where it
  // cannot.
  std::mt19937_64 Rng(20260);
  auto Pick = [&](int Lo, int Hi) {
    return std::uniform_int_distribution<int>(Lo, Hi)(Rng);
  };
  Verdicts V;
  int CatchUp = 0;
  for (int Machine_ = 0; Machine_ < 60; ++Machine_) {
    Machine M = paperMesh();
    const bool Small = Machine_ % 2 == 0;
    M.M.Worm.Ss = Small ? Pick(0, 20) : Pick(100, 3000);
    M.M.Worm.Sd = Pick(0, 3);
    M.M.Worm.Cd = Pick(1, 4);
    M.M.Worm.Rs = Pick(0, Small ? 20 : 4000);
    M.M.Worm.Rd = Pick(0, 3);
    M.M.Worm.FlitBytes = Pick(0, 1) ? 1 : 4;
    int64_t Side = Pick(0, 1) ? 8 : 16;
    M.Topo.Dims = {Side, Side};
    M.Topo.Nodes = Side * Side;
    for (const char *A :
         {"opt-mesh", "u-mesh", "opt-tree", "binomial", "sequential"})
      for (uint64_t Bytes : {1ull, 100ull, 4096ull}) {
        int32_t Ranks = Pick(3, 40);
        uint64_t Seed = Rng();
        CAPTURE(Machine_);
        CAPTURE(A);
        CAPTURE(Bytes);
        CAPTURE(Ranks);
        CAPTURE(Seed);
        ContentionReport C = checkAgainstSim(
            M, multicast(randomPlacement(Seed, Ranks, M.Topo.Nodes), Bytes), A,
            V);
        CHECK(C.PerChannel);
        uint64_t Flits = (Bytes + M.M.Worm.FlitBytes - 1) / M.M.Worm.FlitBytes;
        CatchUp +=
            M.M.tHold(Bytes) < static_cast<double>(Flits + 1) * M.M.Worm.Cd;
      }
  }
  CHECK(V.Clean > 0);
  CHECK(V.Contended > 0);
  CHECK(V.ContendedBlocked == V.Contended);
  // The regime of the counterexample (paper 000's exception unsound) came up.
  CHECK(CatchUp > 0);
}

TEST_CASE("sim.contention: two sends of one node t_hold apart block when "
          "s_s + m s_d < (m + 1) c_d, and the checker says so") {
  // 4x4 mesh, s_s = 10, s_d = 0, c_d = 1: the root (0,0) sends 100 flits to
  // (0,3), then t_hold = 10 later to (0,2). The second header reaches the
  // shared channel (0,0)->(0,1) at 20; the first worm's tail leaves it
  // (1 + 100) c_d after its injection at 10, at 111.
  Machine M = paperMesh();
  M.M.Worm = {10, 0, 1, 0, 0, 1};
  M.Topo.Dims = {4, 4};
  M.Topo.Nodes = 16;
  auto S = buildAndCost(M, multicast({0, 3, 2}, 100), "sequential");
  REQUIRE(S);
  REQUIRE(S->numTransfers() == 2);
  CHECK(S->Makespan == 121);
  auto Sim = simulateSchedule(*S, M);
  REQUIRE(Sim);
  CHECK(Sim->Result.Makespan == 212);
  CHECK(Sim->Result.Messages[1].Blocked == 91);
  ContentionReport C = checkContention(*S, M);
  REQUIRE(C.NumConflicts == 1);
  CHECK(C.Conflicts[0].Shared == Channel{0, 1});
  CHECK(C.Conflicts[0].From == 20);
  CHECK(C.Conflicts[0].To == 111);
  CHECK(C.Conflicts[0].To - C.Conflicts[0].From ==
        Sim->Result.Messages[1].Blocked);
  // With paper 000's parameters the same two sends are t_hold apart and the
  // second worm follows the first's tail: clean, and nothing blocks.
  Machine P = paperMesh();
  P.Topo = M.Topo;
  auto SP = buildAndCost(P, multicast({0, 3, 2}, 100), "sequential");
  REQUIRE(SP);
  CHECK(checkContention(*SP, P).clean());
  auto SimP = simulateSchedule(*SP, P);
  REQUIRE(SimP);
  CHECK(SimP->Result.TotalBlocked == 0);
  CHECK(SimP->Result.Makespan == SP->Makespan);
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
