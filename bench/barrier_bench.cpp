// Simulated hardware barriers per second (sim/BarrierSim.h): episodes of 64
// participants on the 64-node MIN of 8x8 switches, both schemes, without and
// with packet loss. Each configuration runs three times; the table quotes the
// median wall time.
//
//   bench-barrier [episodes]      (default 100000)
#include "sim/BarrierSim.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace collc::barrier;

int main(int argc, char **argv) {
  long long Episodes = argc > 1 ? std::atoll(argv[1]) : 100000;
  if (Episodes < 1) {
    std::fprintf(stderr,
                 "bench-barrier: error: expected a positive episode count\n");
    return 1;
  }
  std::printf(
      "%lld barrier episodes of 64 participants, 64-node MIN of 8x8 switches "
      "(median of 3 runs)\n\n",
      Episodes);
  std::printf("%-11s  %6s  %10s  %14s  %12s  %10s\n", "scheme", "loss",
              "wall s", "barriers/s", "events/s", "mean AD");
  for (double Loss : {0.0, 0.10})
    for (Scheme S : {Scheme::Sivaram, Scheme::MultiDrop}) {
      SimParams P;
      P.S = S;
      P.F = Faults::uniform(Loss, 0);
      Simulator Sim(P);
      std::vector<double> Times;
      uint64_t Events = 0;
      double SumAD = 0;
      int64_t Broken = 0;
      for (int Rep = 0; Rep < 3; ++Rep) {
        Events = 0;
        SumAD = 0;
        auto T0 = std::chrono::steady_clock::now();
        for (long long I = 0; I < Episodes; ++I) {
          Rng EpisodeRng(static_cast<uint64_t>(I)),
              FaultRng(static_cast<uint64_t>(I) ^ 0x5eed);
          Episode E = randomEpisode(P, 64, EpisodeRng);
          EpisodeResult R = Sim.run(E, FaultRng);
          Events += R.Events;
          SumAD += R.AverageDelay;
          Broken += !R.ok();
        }
        Times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count());
      }
      std::sort(Times.begin(), Times.end());
      double T = Times[1];
      std::printf("%-11s  %5.0f%%  %10.3f  %14.0f  %12.3g  %10.2f%s\n",
                  schemeName(S), 100 * Loss, T,
                  static_cast<double>(Episodes) / T,
                  static_cast<double>(Events) / T,
                  SumAD / static_cast<double>(Episodes),
                  Broken ? "  INVARIANT BROKEN" : "");
    }
  return 0;
}
