// The contention checker: what it reports, what it does not, and that it
// scales with channel uses rather than pairs of transfers.
#include "passes/Contention.h"
#include "passes/Cost.h"
#include "tests/TestUtil.h"

#include <doctest/doctest.h>

using namespace collc;

namespace {

Machine lineMesh(int64_t Width) {
  Machine M = test::parameterized(20, 55);
  M.Topo.Kind = TopologyKind::Mesh;
  M.Topo.Dims = {1, Width};
  M.Topo.Nodes = Width;
  return M;
}

Transfer xfer(int32_t Src, int32_t Dst, double Start, double End) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Start = Start;
  T.End = End;
  return T;
}

/// Ranks sit on nodes 0..P-1; one step per transfer list.
Schedule sched(int32_t P, std::vector<std::vector<Transfer>> Steps) {
  Schedule S;
  S.Coll = Collective::Bcast;
  S.Participants.resize(P);
  for (int32_t R = 0; R < P; ++R)
    S.Participants[R].Node = R;
  for (auto &Ts : Steps)
    S.Steps.push_back({Ts});
  return S;
}

} // namespace

TEST_CASE("contention: overlapping windows on a shared channel are reported "
          "with both transfers, the channel and the overlap") {
  Machine M = lineMesh(4);
  // 0 -> 2 and 1 -> 3 both cross (0,1)->(0,2).
  Schedule S = sched(4, {{xfer(0, 2, 0, 55), xfer(1, 3, 10, 65)}});
  ContentionReport R = checkContention(S, M);
  REQUIRE(R.NumConflicts == 1);
  CHECK(R.Conflicts[0].Shared == Channel{1, 2});
  CHECK(R.Conflicts[0].From == 10);
  CHECK(R.Conflicts[0].To == 55);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printContention(OS, S, M, R);
  OS.flush();
  CHECK(Text.find("channel (0,1)->(0,2)") != std::string::npos);
  CHECK(Text.find("rank 0 (0,0) -> rank 2 (0,2) [0, 55)") != std::string::npos);
  CHECK(Text.find("rank 1 (0,1) -> rank 3 (0,3) [10, 65)") !=
        std::string::npos);
  CHECK(Text.find("overlap [10, 55)") != std::string::npos);
}

TEST_CASE("contention: disjoint windows, opposite directions and touching "
          "windows are not contention") {
  Machine M = lineMesh(4);
  // Back to back on the same channel: [0, 55) then [55, 110).
  CHECK(
      checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(1, 3, 55, 110)}}), M)
          .clean());
  // Opposite directions use different directed channels.
  CHECK(checkContention(sched(4, {{xfer(0, 3, 0, 55), xfer(3, 0, 0, 55)}}), M)
            .clean());
}

TEST_CASE("contention: two sends of one node t_hold apart are not "
          "contention, closer ones are") {
  Machine M = lineMesh(4);
  CHECK(
      checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(0, 3, 20, 75)}}), M)
          .clean());
  Machine Two = M;
  Two.Ports = 2;
  CHECK(checkContention(sched(4, {{xfer(0, 2, 0, 55), xfer(0, 3, 5, 60)}}), Two)
            .NumConflicts == 1);
}

TEST_CASE("contention: on a network, one rank's messages to one rank in "
          "flight together are one stream, not contention; to another rank "
          "they are") {
  // A pipeline posts its next segment before the previous one arrived: both
  // are on the route 0 -> 2 at once, and on no other channel. Without a
  // network (several ports) they contend.
  Machine M = lineMesh(4);
  M.Ports = 2;
  CHECK(checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(0, 2, 5, 60)}}), M)
            .NumConflicts == 1);
  M.Net = Network();
  M.Net->Links = {{"link", 1, 12500, true}};
  CHECK(checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(0, 2, 5, 60)}}), M)
            .clean());
  // The same overlap towards rank 3 shares (0,0)->(0,1) and (0,1)->(0,2)
  // with traffic that is not the stream's own.
  CHECK(checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(0, 3, 5, 60)}}), M)
            .NumConflicts == 1);
  // Another rank sending to the same destination is another stream.
  CHECK(checkContention(sched(4, {{xfer(0, 2, 0, 55)}, {xfer(1, 2, 5, 60)}}), M)
            .NumConflicts == 1);
}

TEST_CASE("contention: on a wormhole model each channel use has the worm's "
          "own window, and sends t_hold apart contend when the later header "
          "catches the earlier tail") {
  // 100 flits over 3 channels, sent at 0: injected at s_s + m s_d = 10, the
  // header takes channel i at 10 + (i-1) c_d, the tail frees it at
  // 10 + min(i + 100, 102) c_d.
  WormholeParams W{10, 0, 1, 0, 0, 1};
  CHECK(wormChannelWindow(W, 100, 3, 1, 0).From == 10);
  CHECK(wormChannelWindow(W, 100, 3, 1, 0).To == 111);
  CHECK(wormChannelWindow(W, 100, 3, 3, 0).From == 12);
  CHECK(wormChannelWindow(W, 100, 3, 3, 0).To == 112);
  // A signal is one header flit: it frees channel i one c_d after the next.
  CHECK(wormChannelWindow(W, 0, 3, 1, 0).To == 12);
  // Flits are ceil(bytes / flit_bytes).
  W.FlitBytes = 4;
  W.Sd = 1;
  CHECK(wormChannelWindow(W, 9, 2, 1, 5).From == 5 + 10 + 3);
  CHECK(wormChannelWindow(W, 9, 2, 1, 5).To == 5 + 10 + 3 + 4);

  Machine M = lineMesh(4);
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {10, 0, 1, 0, 0, 1};
  auto Sends = [](double Gap) {
    Transfer A = xfer(0, 3, 0, 112), B = xfer(0, 2, Gap, Gap + 111);
    A.Bytes = B.Bytes = 100;
    return sched(4, {{A}, {B}});
  };
  // t_hold = 10 apart: the second header wants (0,0)->(0,1) at 20, the first
  // tail leaves it at 111.
  ContentionReport R = checkContention(Sends(10), M);
  CHECK(R.PerChannel);
  REQUIRE(R.NumConflicts == 1);
  CHECK(R.Conflicts[0].Shared == Channel{0, 1});
  CHECK(R.Conflicts[0].From == 20);
  CHECK(R.Conflicts[0].To == 111);
  // 101 apart the second header arrives as the tail leaves: clean.
  CHECK(checkContention(Sends(101), M).clean());
  CHECK(checkContention(Sends(100), M).NumConflicts == 1);
  // With s_s + m s_d >= (m + 1) c_d, t_hold apart is enough (paper 000):
  // the worms need only (m + 1) c_d = 202 between them.
  M.M.Worm = {2000, 2, 2, 3500, 3, 1};
  CHECK(checkContention(Sends(M.M.tHold(100)), M).clean());
  CHECK(checkContention(Sends(202), M).clean());
  CHECK(checkContention(Sends(201), M).NumConflicts == 1);
  // The parameterized model keeps the paper's rule: t_hold apart is clean.
  CHECK(checkContention(Sends(20), lineMesh(4)).clean());
}

TEST_CASE("contention: without times, transfers of one step are in the "
          "network together") {
  Machine M = lineMesh(4);
  Schedule S = sched(4, {{xfer(0, 2, NAN, NAN), xfer(1, 3, NAN, NAN)},
                         {xfer(2, 3, NAN, NAN)}});
  ContentionReport R = checkContention(S, M);
  CHECK(!R.Timed);
  CHECK(R.NumConflicts == 1);
}

TEST_CASE("contention: a crossbar has no shared channels, unrouted "
          "topologies are reported as not checked") {
  Machine M = test::parameterized(20, 55);
  CHECK(checkContention(sched(3, {{xfer(0, 2, 0, 55), xfer(1, 2, 0, 55)}}), M)
            .clean());
  M.Topo.Kind = TopologyKind::Star;
  ContentionReport R = checkContention(sched(2, {{xfer(0, 1, 0, 55)}}), M);
  CHECK(!R.Checked);
  CHECK(R.clean());
}

TEST_CASE("contention: many transfers on one long line are checked by "
          "channel, and every pair is counted once") {
  // 2000 transfers i -> i+1 in one window: adjacent ones never share a
  // channel. Then 200 transfers 0 -> 199 all at once: every pair collides on
  // the first channel and is counted once, not once per shared channel.
  Machine M = lineMesh(2001);
  std::vector<Transfer> Ts;
  for (int32_t I = 0; I < 2000; ++I)
    Ts.push_back(xfer(I, I + 1, 0, 55));
  ContentionReport R = checkContention(sched(2001, {Ts}), M);
  CHECK(R.clean());
  CHECK(R.ChannelUses == 2000);
  Ts.clear();
  Machine Wide = lineMesh(200);
  Wide.Ports = 200;
  for (int32_t I = 0; I < 200; ++I)
    Ts.push_back(xfer(0, 199, 0, 55));
  R = checkContention(sched(200, {Ts}), Wide);
  CHECK(R.NumConflicts == 200 * 199 / 2);
  CHECK(R.Conflicts.size() == ContentionOptions().MaxConflicts);
}

TEST_CASE("contention: StopAtFirst gives the verdict after one conflict") {
  Machine Wide = lineMesh(50);
  Wide.Ports = 50;
  std::vector<Transfer> Ts;
  for (int32_t I = 0; I < 50; ++I)
    Ts.push_back(xfer(0, 49, 0, 55));
  ContentionOptions O;
  O.StopAtFirst = true;
  ContentionReport R = checkContention(sched(50, {Ts}), Wide, O);
  CHECK(R.NumConflicts == 1);
  CHECK(!R.clean());
  CHECK(checkContention(sched(50, {Ts}), Wide).NumConflicts == 50 * 49 / 2);
}
