//===- bench-sim: the wormhole simulator's speed
//---------------------------===//
//
// Simulator throughput (events per second of simulate() alone, schedule
// built and routed beforehand) and wall time for paper 000's largest case
// (a 128-node 64 KB multicast on the 16x16 mesh, OPT-mesh and OPT-tree) and
// an all-to-all of 256 ranks on the 16x16 mesh; then the whole Figure-12
// sweep (17 sizes x 3 algorithms x 16 placements, building included).
// Medians of repeated runs: the machine is shared and noisy.
//
//===----------------------------------------------------------------------===//

#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "sim/ScheduleSim.h"
#include "tools/WormholeExperiments.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <numeric>

using namespace collc;
using namespace collc::bench;

namespace {

void row(const char *Name, const Schedule &S, const Machine &M, int Reps) {
  auto Prep = prepareSimulation(S, M);
  if (!Prep) {
    llvm::errs() << llvm::toString(Prep.takeError()) << "\n";
    std::exit(1);
  }
  sim::WormTiming T = wormTiming(M.M);
  std::vector<double> Secs;
  sim::SimResult R;
  for (int I = 0; I < Reps; ++I) {
    auto T0 = Clock::now();
    R = sim::simulate(Prep->Input, T);
    Secs.push_back(std::chrono::duration<double>(Clock::now() - T0).count());
  }
  double Med = median(Secs);
  llvm::outs() << llvm::format(
      "%-34s %9llu %10llu %10.3f %12.2f %12.0f %s\n", Name,
      static_cast<unsigned long long>(S.numTransfers()),
      static_cast<unsigned long long>(R.Events), Med * 1e3,
      static_cast<double>(R.Events) / Med / 1e6, R.Makespan,
      R.deadlocked() ? "DEADLOCK" : (R.TotalBlocked > 0 ? "blocked" : "clean"));
}

Schedule build(const Machine &M, Request R, const char *Algorithm) {
  auto S = buildAndCost(M, R, Algorithm);
  if (!S) {
    llvm::errs() << llvm::toString(S.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*S);
}

} // namespace

int main() {
  Machine M = paperMesh();
  llvm::outs() << "wormhole simulator, 16x16 mesh, s_s 2000 s_d 2 c_d 2 r_s "
                  "3500 r_d 3 (median of runs)\n\n";
  llvm::outs() << "case                               transfers     events     "
                  "    ms    Mevents/s     makespan network\n";
  RequestFields McF;
  McF.Coll = Collective::Multicast;
  const std::vector<int64_t> Group = randomPlacement(1, 128, 256);
  McF.Root = Group[0];
  McF.Destinations.emplace(Group.begin() + 1, Group.end());
  McF.Bytes = 65536;
  const Request Mc = mustRequest(McF, M);
  row("multicast 128 x 64 KB, opt-mesh", build(M, Mc, "opt-mesh"), M, 51);
  row("multicast 128 x 64 KB, opt-tree", build(M, Mc, "opt-tree"), M, 51);

  row("alltoall 256 x 1 KB, pairwise",
      build(M, mustRequest(onFirstNodes(Collective::Alltoall, 256, 1024), M),
            "pairwise"),
      M, 7);
  row("alltoall 256 x 64 KB, pairwise",
      build(M, mustRequest(onFirstNodes(Collective::Alltoall, 256, 65536), M),
            "pairwise"),
      M, 7);

  // The whole Figure-12 sweep, building and routing included.
  FigureSpec F12 = paperFigures()[1];
  std::vector<double> Secs;
  uint64_t Events = 0;
  for (int I = 0; I < 3; ++I) {
    auto T0 = Clock::now();
    auto P = runFigure(M, F12, 16);
    Secs.push_back(std::chrono::duration<double>(Clock::now() - T0).count());
    if (!P) {
      llvm::errs() << llvm::toString(P.takeError()) << "\n";
      return 1;
    }
    Events = 0;
    for (const SweepPoint &X : *P)
      Events += X.Events;
  }
  llvm::outs() << llvm::format(
      "\nFigure-12 sweep (%zu sizes x 3 algorithms x 16 placements): "
      "%.2f s, %llu simulator events\n",
      F12.Xs.size(), median(Secs), static_cast<unsigned long long>(Events));
  return 0;
}
