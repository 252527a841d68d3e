// The hardware-barrier simulator of paper 003: hand-computed episodes and
// the fault-injection guarantees (Figure 8: tests/tools).
#include "sim/BarrierSim.h"

#include <doctest/doctest.h>

using namespace collc::barrier;

namespace {

SimParams params(Scheme S) {
  SimParams P;
  P.S = S;
  return P;
}

EpisodeResult runOne(const SimParams &P, const Episode &E, uint64_t Seed = 1) {
  Simulator Sim(P);
  Rng R(Seed);
  return Sim.run(E, R);
}

} // namespace

TEST_CASE("barrier sim: two processors on one switch, by hand") {
  // Root p0 and p1 both reach the barrier at 4. p1's reached packet is on
  // the switch at 5; the unit takes c cycles and sends it on to the root.
  Episode E{{0, 1}, 0, {4, 4}};
  // Sivaram (c = 4): root has it at 5+4+1 = 10 and releases; the switch's
  // unit handles the release 11..15, p1 is released at 16, its ack reaches
  // the switch at 17 (AD = 17 - 4 = 13), the unit combines it 17..21 and
  // the root has the final ack at 22.
  EpisodeResult S = runOne(params(Scheme::Sivaram), E);
  REQUIRE(S.ok());
  CHECK(S.FirstRelease == 16);
  CHECK(S.AverageDelay == doctest::Approx(13));
  CHECK(S.Completion == 22);
  CHECK(S.Packets == 6);
  // Multi-drop (c = 3): root at 5+3+1 = 9, release unit 10..13, p1 released
  // at 14, its ack at the switch at 15 (AD = 11); the switch acked the root
  // at 13 (root done at 14) and finishes p1's ack at 18.
  EpisodeResult M = runOne(params(Scheme::MultiDrop), E);
  REQUIRE(M.ok());
  CHECK(M.FirstRelease == 14);
  CHECK(M.AverageDelay == doctest::Approx(11));
  CHECK(M.Completion == 18);
  CHECK(M.Packets == 6);
}

TEST_CASE("barrier sim: simultaneous packets are served one at a time "
          "(assumption 4)") {
  // Three processors on the root's switch arrive together: their reached
  // packets wait for each other in the unit (5..9, 9..13, 13..17).
  Episode E{{0, 1, 2, 3}, 0, {4, 4, 4, 4}};
  std::vector<std::string> Trace;
  Simulator Sim(params(Scheme::Sivaram));
  Sim.Trace = &Trace;
  Rng R(1);
  EpisodeResult S = Sim.run(E, R);
  REQUIRE(S.ok());
  bool RootAt18 = false;
  for (const std::string &L : Trace)
    RootAt18 |= L.rfind("t=18 root p0 <- reached", 0) == 0;
  CHECK(RootAt18);
}

TEST_CASE("barrier sim: fault-free episodes never time out and release "
          "everyone once") {
  for (Scheme S : {Scheme::Sivaram, Scheme::MultiDrop})
    for (int32_t N = 2; N <= 64; N += 3) {
      SweepPoint Pt = sweep(params(S), N, 50, 99);
      CHECK(Pt.Failures == 0);
      CHECK(Pt.MeanRetransmissions == 0);
    }
}

TEST_CASE("barrier sim: the unit-cycle length scales the unit's time, by "
          "hand") {
  // The episode of the first test with 2-unit cycles: Sivaram's unit takes 8
  // units per packet, the multi-drop unit 6; links still take 1.
  Episode E{{0, 1}, 0, {4, 4}};
  SimParams PS = params(Scheme::Sivaram);
  PS.CycleLength = 2;
  CHECK(PS.unitTime() == 8);
  CHECK(PS.corruptTime() == 4);
  // Sivaram: switch 5..13, root 14, release unit 15..23, p1 released at 24,
  // its ack at the switch at 25 (AD 21), combined 25..33, root done at 34.
  EpisodeResult S = runOne(PS, E);
  REQUIRE(S.ok());
  CHECK(S.FirstRelease == 24);
  CHECK(S.AverageDelay == doctest::Approx(21));
  CHECK(S.Completion == 34);
  // Multi-drop: switch 5..11, root 12, release unit 13..19 (acks the root:
  // done at 20), p1 released at 20, its ack at the switch at 21 (AD 17),
  // handled 21..27.
  SimParams PM = params(Scheme::MultiDrop);
  PM.CycleLength = 2;
  EpisodeResult M = runOne(PM, E);
  REQUIRE(M.ok());
  CHECK(M.FirstRelease == 20);
  CHECK(M.AverageDelay == doctest::Approx(17));
  CHECK(M.Completion == 27);
  // The timers grow with the unit: no fault-free episode times out.
  CHECK(PM.timeout() > params(Scheme::MultiDrop).timeout());
  CHECK(sweep(PM, 64, 20, 5).MeanRetransmissions == 0);
}

TEST_CASE("barrier sim: 10,000 barriers at 10% packet loss, nothing lost") {
  for (Scheme S : {Scheme::Sivaram, Scheme::MultiDrop}) {
    SimParams P = params(S);
    P.F = Faults::uniform(0.10, 0);
    Simulator Sim(P);
    uint64_t Lost = 0, Retx = 0, Dups = 0;
    int64_t Broken = 0;
    std::string First;
    for (uint64_t I = 0; I < 10000; ++I) {
      Rng EpisodeRng(I), FaultRng(I ^ 0xabcdef);
      Episode E = randomEpisode(
          P, static_cast<int32_t>(EpisodeRng.uniform(2, 64)), EpisodeRng);
      EpisodeResult R = Sim.run(E, FaultRng);
      if (!R.ok() && !Broken++)
        First = R.Problem;
      Lost += R.Lost;
      Retx += R.Retransmissions;
      Dups += R.Duplicates;
    }
    CAPTURE(schemeName(S));
    CAPTURE(First);
    CHECK(Broken == 0);
    // The faults did happen and were recovered from.
    CHECK(Lost > 10000);
    CHECK(Retx > 0);
    CHECK(Dups > 0);
  }
}

TEST_CASE("barrier sim: loss and corruption up to 20% in every phase, one "
          "phase at a time "
          "and all together") {
  for (Scheme S : {Scheme::Sivaram, Scheme::MultiDrop})
    for (int Phase = 0; Phase <= 3; ++Phase) {
      SimParams P = params(S);
      for (int I = 0; I < 3; ++I)
        if (Phase == 3 || I == Phase) {
          P.F.Loss[I] = 0.20;
          P.F.Corrupt[I] = 0.20;
        }
      SweepPoint Pt = sweep(P, 64, 300, 7 + Phase);
      CAPTURE(schemeName(S));
      CAPTURE(Phase);
      CHECK(Pt.Failures == 0);
      CHECK(Pt.MeanRetransmissions > 0);
    }
}
