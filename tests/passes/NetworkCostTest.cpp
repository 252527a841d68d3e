// The network evaluator on machines built in code: hand-computed times for
// one message, sharing, the latency phase, rendezvous, bands, injection
// limits, half duplex, cross traffic, the TCP bound, intra-node messages and
// the posting rules; SMPI's own times for messages on the 16x16 torus; and
// `auto` judging by the evaluator.
#include "passes/NetworkCost.h"
#include "compiler/Driver.h"
#include "passes/Cost.h"
#include "readers/MachineCheck.h"
#include "tests/network/Platforms.h"

#include <doctest/doctest.h>

#include <numeric>
#include <tuple>

using namespace collc;

namespace {

/// A network with the given links and none of SimGrid's corrections: factors
/// 1, no envelope, equal shares (no weight-S), no cross traffic, no TCP
/// bound, everything eager.
Network plainNetwork(double Latency, double Bandwidth, size_t Classes = 1) {
  Network N;
  for (size_t I = 0; I < Classes; ++I)
    N.Links.push_back({"c" + std::to_string(I), Latency, Bandwidth, true});
  N.EnvelopeBytes = 0;
  N.WeightS = 0;
  N.CrossTraffic = 0;
  N.TcpGamma = 0;
  N.RendezvousBytes = UINT64_MAX;
  return N;
}

Machine crossbar(int64_t Nodes, const Network &N) {
  Machine M;
  M.Name = "net";
  M.Topo.Kind = TopologyKind::Full;
  M.Topo.Nodes = Nodes;
  M.Net = N;
  return M;
}

Machine ring(int64_t Nodes, const Network &N) {
  Machine M = crossbar(Nodes, N);
  M.Topo.Kind = TopologyKind::Torus;
  M.Topo.Dims = {Nodes};
  return M;
}

using Xfer = std::tuple<int32_t, int32_t, uint64_t>;

/// Ranks 0..P-1 on nodes \p Nodes (default: rank r on node r); every
/// transfer carries the whole message (so a send depends on every earlier
/// receive of its sender).
Schedule schedule(int32_t P, std::vector<std::vector<Xfer>> Steps,
                  std::vector<int64_t> Nodes = {}) {
  Schedule S;
  S.Participants.resize(P);
  for (int32_t R = 0; R < P; ++R)
    S.Participants[R].Node = Nodes.empty() ? R : Nodes[R];
  for (auto &Ts : Steps) {
    Step St;
    for (auto [Src, Dst, Bytes] : Ts) {
      Transfer T;
      T.Src = Src;
      T.Dst = Dst;
      T.Bytes = Bytes;
      T.Pieces = {S.wholeMessage()};
      St.Transfers.push_back(T);
    }
    S.Steps.push_back(St);
  }
  return S;
}

double endOf(const Schedule &S, uint32_t Step, uint32_t I) {
  return S.Steps[Step].Transfers[I].End;
}

} // namespace

TEST_CASE("network cost: one message pays latency then bytes / bandwidth") {
  Machine M = crossbar(4, plainNetwork(1, 100));
  Schedule S = schedule(4, {{{0, 1, 1000}}});
  estimateCost(S, M);
  CHECK(S.Steps[0].Transfers[0].Start == 0);
  CHECK(endOf(S, 0, 0) == doctest::Approx(11));
  CHECK(S.Makespan == doctest::Approx(11));
}

TEST_CASE("network cost: two messages on one link share it") {
  Machine M = crossbar(4, plainNetwork(1, 100));
  Schedule S = schedule(4, {{{0, 1, 1000}, {0, 1, 1000}}});
  estimateCost(S, M);
  // From t = 1 each moves at 50.
  CHECK(endOf(S, 0, 0) == doctest::Approx(21));
  CHECK(endOf(S, 0, 1) == doctest::Approx(21));
}

TEST_CASE("network cost: shares weighted by route latency (weight-S)") {
  // Ring of 4, latency 1, bandwidth 100: A = 0 -> 2 over 0->1->2 (penalty
  // 2), B = 1 -> 2 (penalty 1). B alone on 1->2 during [1, 2] moves 100
  // bytes; from t = 2 link 1->2 is shared 1:2 (A 33.3, B 66.7): B's last 500
  // take 7.5 (end 9.5), A has moved 250 by then and its last 350 take 3.5 at
  // the full 100 (end 13).
  Machine M = ring(4, plainNetwork(1, 100));
  Schedule S = schedule(4, {{{0, 2, 600}, {1, 2, 600}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 1) == doctest::Approx(9.5));
  CHECK(endOf(S, 0, 0) == doctest::Approx(13));
}

TEST_CASE("network cost: the latency phase holds no bandwidth") {
  // Band from 1500 bytes: latency x 5. A (1000 bytes) is alone on the link
  // during [1, 5] (400 bytes), then shares it 50/50 with B: its last 600
  // take 12 (end 17); B has 600 by then, its last 1400 take 14 (end 31).
  Network N = plainNetwork(1, 100);
  N.Bands = {{0, 1, 1}, {1500, 5, 1}};
  Machine M = crossbar(4, N);
  Schedule S = schedule(4, {{{0, 1, 1000}, {0, 1, 2000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(17));
  CHECK(endOf(S, 0, 1) == doctest::Approx(31));
}

TEST_CASE("network cost: bands scale latency and rate; the envelope "
          "travels") {
  Network N = plainNetwork(1, 100);
  N.Bands = {{0, 3, 0.5}};
  Machine M = crossbar(4, N);
  Schedule S = schedule(4, {{{0, 1, 1000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(3 + 1000 / 50.0));
  M.Net->EnvelopeBytes = 16;
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(3 + 1016 / 50.0));
  // The band is chosen by the size with the envelope.
  M.Net->Bands = {{0, 3, 0.5}, {1010, 1, 1}};
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(1 + 1016 / 100.0));
}

TEST_CASE("network cost: a rendezvous send waits for the receive and holds "
          "its sender") {
  // Posting step by step: rank 1 receives from 2 (ends 11), then sends to 3:
  // only then (t = 11) does it reach step 2 and post the receive from 0. Rank
  // 0's send to 1 moves from 11 to 22. Rendezvous: rank 0's next send (step 3)
  // waits for it and ends 22 + 1 + 1; eager: it left at 0 and ends at 2.
  auto Sched = [] {
    return schedule(
        4, {{{2, 1, 1000}}, {{1, 3, 1000}}, {{0, 1, 1000}}, {{0, 2, 100}}});
  };
  Network N = plainNetwork(1, 100);
  N.RendezvousBytes = 500;
  Machine M = crossbar(4, N);
  Schedule S = Sched();
  const NetworkCostOptions Old{PostingRule::StepByStep};
  estimateNetworkCost(S, M, Old);
  CHECK(S.Steps[2].Transfers[0].Start == doctest::Approx(11));
  CHECK(endOf(S, 2, 0) == doctest::Approx(22));
  CHECK(S.Steps[3].Transfers[0].Start == doctest::Approx(22));
  CHECK(endOf(S, 3, 0) == doctest::Approx(24));
  M.Net->RendezvousBytes = UINT64_MAX;
  S = Sched();
  estimateNetworkCost(S, M, Old);
  CHECK(endOf(S, 2, 0) == doctest::Approx(22));
  CHECK(endOf(S, 3, 0) == doctest::Approx(2));
  // Receives posted ahead: 0 -> 1 moves at once.
  S = Sched();
  estimateNetworkCost(S, M, {PostingRule::AsDataArrives});
  CHECK(endOf(S, 2, 0) == doctest::Approx(11));
  CHECK(S.Steps[1].Transfers[0].Start == doctest::Approx(11));
}

TEST_CASE("network cost: a step that sends waits for the rank's earlier "
          "receives, one that only receives does not") {
  // Rank 1 receives 1000 bytes from 0 in step 0 and sends to 2 in step 1.
  Machine M = crossbar(3, plainNetwork(1, 100));
  Schedule S = schedule(3, {{{0, 1, 1000}}, {{1, 2, 100}}});
  estimateCost(S, M);
  CHECK(S.Steps[1].Transfers[0].Start == doctest::Approx(11));
  CHECK(S.Makespan == doctest::Approx(13));
}

TEST_CASE("network cost: injection limits are shared resources") {
  // Node 0 sends to 1 and 2 over two links of 100; it injects 100 in all.
  Network N = plainNetwork(1, 100);
  N.InjectionBandwidth = 100;
  Machine M = crossbar(3, N);
  Schedule S = schedule(3, {{{0, 1, 1000}, {0, 2, 1000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(21));
  CHECK(endOf(S, 0, 1) == doctest::Approx(21));
  // One link at a time: the same.
  M.Net->InjectionBandwidth = 0;
  M.Net->InjectionLinks = 1;
  estimateCost(S, M);
  CHECK(endOf(S, 0, 1) == doctest::Approx(21));
  // No limit.
  M.Net->InjectionLinks = 0;
  estimateCost(S, M);
  CHECK(endOf(S, 0, 1) == doctest::Approx(11));
  // Ejection: two senders into node 2.
  M.Net->InjectionBandwidth = 100;
  Schedule E = schedule(3, {{{0, 2, 1000}, {1, 2, 1000}}});
  estimateCost(E, M);
  CHECK(endOf(E, 0, 1) == doctest::Approx(21));
}

TEST_CASE("network cost: a SimGrid limiter is one resource for a node's "
          "sends, receives and forwarded messages") {
  // Links of 1000, limiters of 100 (SimGrid's limiter_link).
  Network N = plainNetwork(1, 1000);
  N.InjectionBandwidth = 100;
  N.SharedLimiter = true;
  // A cluster: node 1 receives from 0 and sends to 2; its one limiter
  // carries both at 50 each (apart, an injection and an ejection limit, at
  // 100 each).
  Machine M = crossbar(3, N);
  Schedule Through = schedule(3, {{{0, 1, 1000}, {1, 2, 1000}}});
  estimateCost(Through, M);
  CHECK(endOf(Through, 0, 0) == doctest::Approx(21));
  CHECK(endOf(Through, 0, 1) == doctest::Approx(21));
  M.Net->SharedLimiter = false;
  estimateCost(Through, M);
  CHECK(endOf(Through, 0, 1) == doctest::Approx(11));
  // Two senders into node 2 share its limiter on a cluster.
  M.Net->SharedLimiter = true;
  Schedule Into = schedule(3, {{{0, 2, 1000}, {1, 2, 1000}}});
  estimateCost(Into, M);
  CHECK(endOf(Into, 0, 1) == doctest::Approx(21));
  // A ring of 4: a message crosses the limiter of every node of its route.
  // 0 -> 2 crosses 0, 1 and 2, 3 -> 1 crosses 3, 0 and 1: both share two
  // limiters (two hops of latency 1 each).
  Machine R = ring(4, N);
  Schedule Pass = schedule(4, {{{0, 2, 1000}, {3, 1, 1000}}});
  estimateCost(Pass, R);
  CHECK(endOf(Pass, 0, 0) == doctest::Approx(22));
  CHECK(endOf(Pass, 0, 1) == doctest::Approx(22));
  // Into one receiver: they share its limiter; on disjoint nodes, nothing.
  Schedule Meet = schedule(4, {{{0, 1, 1000}, {2, 1, 1000}}});
  estimateCost(Meet, R);
  CHECK(endOf(Meet, 0, 1) == doctest::Approx(21));
  Schedule Apart = schedule(4, {{{0, 1, 1000}, {2, 3, 1000}}});
  estimateCost(Apart, R);
  CHECK(endOf(Apart, 0, 0) == doctest::Approx(11));
  CHECK(endOf(Apart, 0, 1) == doctest::Approx(11));
}

TEST_CASE("network cost: half-duplex links share both directions") {
  Network N = plainNetwork(1, 100);
  Machine M = crossbar(2, N);
  Schedule S = schedule(2, {{{0, 1, 1000}, {1, 0, 1000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(11));
  M.Net->Links[0].FullDuplex = false;
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(21));
  CHECK(endOf(S, 0, 1) == doctest::Approx(21));
}

TEST_CASE("network cost: a FATPIPE bounds each message and is shared by no "
          "one") {
  // Two messages on one link: 50 each when shared; a FATPIPE gives each
  // the whole 100, and still bounds one message by it.
  Machine M = crossbar(4, plainNetwork(1, 100));
  M.Net->Links[0].FatPipe = true;
  Schedule S = schedule(4, {{{0, 1, 1000}, {0, 1, 1000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(11));
  CHECK(endOf(S, 0, 1) == doctest::Approx(11));
  // A cluster's FATPIPE backbone: four messages between distinct pairs
  // cross it at once, each at the private links' 100.
  Machine C;
  C.Name = "cluster";
  C.Topo.Kind = TopologyKind::Cluster;
  C.Topo.Nodes = 8;
  C.Topo.Backbone = true;
  C.Net = plainNetwork(1, 100, 2);
  C.Net->Links[1].Bandwidth = 150;
  Schedule B =
      schedule(8, {{{0, 1, 1000}, {2, 3, 1000}, {4, 5, 1000}, {6, 7, 1000}}});
  estimateCost(B, C);
  CHECK(endOf(B, 0, 0) == doctest::Approx(3 + 1000 / 37.5));
  C.Net->Links[1].FatPipe = true;
  estimateCost(B, C);
  for (uint32_t I = 0; I < 4; ++I)
    CHECK(endOf(B, 0, I) == doctest::Approx(3 + 1000 / 100.0));
}

TEST_CASE("network cost: cross traffic and the TCP bound") {
  // Each message also loads the other's link with 5% of its rate: 1.05 v =
  // 100.
  Network N = plainNetwork(1, 100);
  N.CrossTraffic = 0.05;
  Machine M = crossbar(2, N);
  Schedule S = schedule(2, {{{0, 1, 1000}, {1, 0, 1000}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(1 + 1000 / (100 / 1.05)));
  // TCP window: at most 100 / (2 x 1) = 50 per message.
  M.Net->CrossTraffic = 0;
  M.Net->TcpGamma = 100;
  Schedule One = schedule(2, {{{0, 1, 1000}}});
  estimateCost(One, M);
  CHECK(endOf(One, 0, 0) == doctest::Approx(21));
}

TEST_CASE("network cost: ranks on one node use the intra-node link alone") {
  Network N = plainNetwork(1, 100);
  N.ProcsPerNode = 2;
  N.IntraNode = {"intra-node", 0.5, 1000, true};
  Machine M = crossbar(2, N);
  // Ranks 0, 1 on node 0; 2, 3 on node 1.
  Schedule S =
      schedule(4, {{{0, 1, 1000}, {0, 1, 1000}, {0, 2, 1000}}}, {0, 0, 1, 1});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(1.5));
  CHECK(endOf(S, 0, 1) == doctest::Approx(1.5));
  CHECK(endOf(S, 0, 2) == doctest::Approx(11));
  CHECK(N.nodeOfRank(3, 4, 2) == 1);
  N.Placement = RankPlacement::Cyclic;
  CHECK(N.nodeOfRank(3, 4, 2) == 1);
  CHECK(N.nodeOfRank(2, 4, 2) == 0);
}

TEST_CASE("network cost: a half-duplex intra-node link is the node's, "
          "shared by its messages") {
  Network N = plainNetwork(1, 100);
  N.ProcsPerNode = 4;
  N.IntraNode = {"intra-node", 0.5, 1000, false};
  Machine M = crossbar(2, N);
  // Ranks 0..3 on node 0, 4..7 on node 1.
  const std::vector<int64_t> Nodes = {0, 0, 0, 0, 1, 1, 1, 1};
  // An exchange within node 0 and a message within node 1: the exchange's
  // two messages share node 0's link (each at 500 once both move), the
  // other has node 1's alone.
  Schedule S = schedule(8, {{{0, 1, 1000}, {1, 0, 1000}, {4, 5, 1000}}}, Nodes);
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(2.5));
  CHECK(endOf(S, 0, 1) == doctest::Approx(2.5));
  CHECK(endOf(S, 0, 2) == doctest::Approx(1.5));
  // Three messages out of rank 0 and one between two other ranks of its
  // node: four shares of 250.
  Schedule Fan = schedule(
      8, {{{0, 1, 1000}, {0, 2, 1000}, {0, 3, 1000}, {2, 3, 1000}}}, Nodes);
  estimateCost(Fan, M);
  for (uint32_t I = 0; I < 4; ++I)
    CHECK(endOf(Fan, 0, I) == doctest::Approx(4.5));
  // Full duplex (the default) or a fat pipe: every message alone, as before.
  for (bool FatPipe : {false, true}) {
    M.Net->IntraNode.FullDuplex = !FatPipe;
    M.Net->IntraNode.FatPipe = FatPipe;
    Schedule Alone = S;
    estimateCost(Alone, M);
    CHECK(endOf(Alone, 0, 0) == doctest::Approx(1.5));
    CHECK(endOf(Alone, 0, 1) == doctest::Approx(1.5));
  }
}

TEST_CASE("network cost: a rank's sends leave one send overhead apart") {
  Network N = plainNetwork(1, 100);
  N.SendOverhead = 3;
  Machine M = crossbar(3, N);
  Schedule S = schedule(3, {{{0, 1, 1000}, {0, 2, 1000}}});
  estimateCost(S, M);
  CHECK(S.Steps[0].Transfers[0].Start == doctest::Approx(3));
  CHECK(endOf(S, 0, 0) == doctest::Approx(14));
  CHECK(endOf(S, 0, 1) == doctest::Approx(17));
}

TEST_CASE("network cost: SMPI's times on the 16x16 torus") {
  // Measured under SMPI 3.32 on examples/platforms/torus-16x16.xml with
  // MPI_Irecv/MPI_Isend (µs, the 0.01 µs of MPI_Wtime taken off).
  Machine M = test::smpiTorus16x16();
  auto One = [&](int32_t Dst, uint64_t Bytes) {
    Schedule S = schedule(256, {{{0, Dst, Bytes}}});
    estimateCost(S, M);
    return S.Makespan;
  };
  CHECK(One(1, 1) == doctest::Approx(2.0163).epsilon(1e-4));
  CHECK(One(1, 1024) == doctest::Approx(2.1935).epsilon(1e-4));
  CHECK(One(1, 65536) == doctest::Approx(17.2183).epsilon(1e-4));
  CHECK(One(1, 1 << 20) == doctest::Approx(100.8196).epsilon(1e-4));
  CHECK(One(8, 1 << 20) == doctest::Approx(182.3248).epsilon(1e-4));
  // 0 -> 1 and 0 -> 2 share link 0->1 in the ratio 2:1 of their routes.
  Schedule S = schedule(256, {{{0, 1, 1 << 20}, {0, 2, 1 << 20}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(139.5858).epsilon(1e-4));
  CHECK(endOf(S, 0, 1) == doctest::Approx(189.9956).epsilon(1e-4));
  // Opposite directions: cross traffic.
  S = schedule(256, {{{0, 1, 1 << 20}, {1, 0, 1 << 20}}});
  estimateCost(S, M);
  CHECK(endOf(S, 0, 0) == doctest::Approx(105.2784).epsilon(1e-4));
  // An eager message moves only once its receive is posted: stepping
  // through the schedule, rank 2 posts the receive from 0 after the 1 MiB
  // from 3 arrived; posted ahead, it moves at once.
  S = schedule(256, {{{3, 2, 1 << 20}}, {{2, 4, 1}}, {{0, 2, 1024}}});
  estimateNetworkCost(S, M, {PostingRule::StepByStep});
  CHECK(endOf(S, 2, 0) == doctest::Approx(100.8196 + 4.1439).epsilon(1e-4));
  estimateCost(S, M);
  CHECK(endOf(S, 2, 0) == doctest::Approx(4.1439).epsilon(1e-4));
}

TEST_CASE("network cost: checkNetwork") {
  Machine M = ring(4, plainNetwork(1, 100));
  CHECK(!errorToBool(checkNetwork(M)));
  M.Net->Links.push_back({"extra", 1, 1, true});
  CHECK(toString(checkNetwork(M)) ==
        "topology 'torus' has 1 link class ('link'), the network describes 2");
  M.Net->Links.pop_back();
  M.Net->Bands = {{10, 1, 1}};
  CHECK(toString(checkNetwork(M)) ==
        "the first protocol band must start at 0 bytes");
  M.Net->Bands = {{0, 1, 1}, {0, 2, 1}};
  CHECK(toString(checkNetwork(M)) ==
        "protocol bands must be sorted by their first size, without repeats");
  M.Net->Bands.clear();
  M.Topo.Kind = TopologyKind::Star;
  CHECK(toString(checkNetwork(M)) ==
        "a network needs routes, and topology 'star' has none");
}

TEST_CASE("network cost: auto picks the lowest makespan under the network, "
          "contention included") {
  // On the 16x16 torus the contention-free chain takes 544 µs for 1 byte;
  // the evaluator prices the binomial tree's shared links and still finds
  // it (and the root sending to everyone) faster.
  Machine M = test::smpiTorus16x16();
  Request R;
  R.Coll = Collective::Bcast;
  R.Nodes.resize(256);
  std::iota(R.Nodes.begin(), R.Nodes.end(), 0);
  R.Bytes = 1;
  auto Auto = compile(M, R);
  REQUIRE(static_cast<bool>(Auto));
  for (const char *Alg : {"binomial", "chain", "opt-tree"}) {
    R.Algorithm = Alg;
    auto S = compile(M, R);
    REQUIRE(static_cast<bool>(S));
    CHECK(Auto->Makespan <= S->Makespan);
  }
  CHECK(Auto->Makespan < 61);
}
