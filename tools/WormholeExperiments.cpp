#include "tools/WormholeExperiments.h"

#include "compiler/Driver.h"
#include "sim/ScheduleSim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>

namespace collc {

Machine paperMesh() {
  Machine M;
  M.Name = "mesh16x16-wormhole";
  M.M.Kind = ModelKind::Wormhole;
  M.M.Worm = {2000, 2, 2, 3500, 3, 1};
  M.Ports = 1;
  M.Topo.Kind = TopologyKind::Mesh;
  M.Topo.Dims = {16, 16};
  M.Topo.Nodes = 256;
  return M;
}

std::vector<int64_t> randomPlacement(uint64_t Seed, int32_t Ranks,
                                     int64_t Nodes) {
  std::vector<int64_t> All(Nodes);
  std::iota(All.begin(), All.end(), 0);
  std::mt19937_64 Rng(Seed);
  // A partial Fisher-Yates shuffle: the first Ranks entries.
  for (int32_t I = 0; I < Ranks && I < Nodes; ++I) {
    std::uniform_int_distribution<int64_t> Pick(I, Nodes - 1);
    std::swap(All[I], All[Pick(Rng)]);
  }
  All.resize(std::min<int64_t>(Ranks, Nodes));
  return All;
}

const std::vector<std::string> &paperAlgorithms() {
  static const std::vector<std::string> Names = {"opt-mesh", "opt-tree",
                                                 "u-mesh"};
  return Names;
}

std::vector<FigureSpec> paperFigures(bool Reduced) {
  std::vector<int64_t> Sizes, Groups;
  if (Reduced) {
    Sizes = {1024, 16384, 32768, 65536};
    Groups = {16, 64, 128};
  } else {
    Sizes.push_back(1024);
    for (int64_t K = 4; K <= 64; K += 4)
      Sizes.push_back(K * 1024);
    for (int64_t G = 16; G <= 256; G += 16)
      Groups.push_back(G);
  }
  std::vector<FigureSpec> F(4);
  F[0] = {"fig11", "Figure 11: 32-node multicast", true, 32, 0, Sizes};
  F[1] = {"fig12", "Figure 12: 128-node multicast", true, 128, 0, Sizes};
  F[2] = {"fig13", "Figure 13: message size 4 KB", false, 0, 4096, Groups};
  F[3] = {"fig14", "Figure 14: message size 64 KB", false, 0, 65536, Groups};
  return F;
}

llvm::Expected<std::vector<SweepPoint>> runFigure(const Machine &M,
                                                  const FigureSpec &F,
                                                  int Placements,
                                                  uint64_t Seed) {
  std::vector<SweepPoint> Out;
  for (int64_t X : F.Xs) {
    int32_t Ranks = F.OverBytes ? F.Ranks : static_cast<int32_t>(X);
    uint64_t Bytes = F.OverBytes ? static_cast<uint64_t>(X) : F.Bytes;
    for (const std::string &A : paperAlgorithms()) {
      SweepPoint P;
      P.Algorithm = A;
      P.Ranks = Ranks;
      P.Bytes = Bytes;
      P.Min = INFINITY;
      P.Max = -INFINITY;
      for (int I = 0; I < Placements; ++I) {
        Request R;
        R.Coll = Collective::Multicast;
        R.Nodes = randomPlacement(
            Seed + 1000003ull * static_cast<uint64_t>(Ranks) + I, Ranks,
            M.Topo.Nodes);
        R.Root = 0;
        R.Bytes = Bytes;
        R.Algorithm = A;
        auto S = buildAndCost(M, R, A);
        if (!S)
          return S.takeError();
        auto Sim = simulateSchedule(*S, M);
        if (!Sim)
          return Sim.takeError();
        if (Sim->Result.deadlocked())
          return llvm::make_error<llvm::StringError>(
              A + ", " + std::to_string(Ranks) + " ranks, " +
                  std::to_string(Bytes) + " bytes: the network deadlocked: " +
                  deadlockReport(*Sim, *S, M),
              std::make_error_code(std::errc::resource_deadlock_would_occur));
        double T = Sim->Result.Makespan;
        P.Mean += T;
        P.Min = std::min(P.Min, T);
        P.Max = std::max(P.Max, T);
        P.MeanModel += S->Makespan;
        P.MeanBlocked += Sim->Result.TotalBlocked;
        P.Events += Sim->Result.Events;
      }
      P.Mean /= Placements;
      P.MeanModel /= Placements;
      P.MeanBlocked /= Placements;
      Out.push_back(P);
    }
  }
  return Out;
}

namespace {

std::string num(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%.10g", V);
  return Buf;
}

double xOf(const FigureSpec &F, const SweepPoint &P) {
  return F.OverBytes ? static_cast<double>(P.Bytes) / 1024 : P.Ranks;
}

} // namespace

void writeFigureCsv(llvm::raw_ostream &OS, const FigureSpec &F,
                    const std::vector<SweepPoint> &Points) {
  OS << "figure,algorithm,ranks,bytes,mean,min,max,mean_us,model_mean,"
        "mean_blocked\n";
  for (const SweepPoint &P : Points)
    OS << F.Id << "," << P.Algorithm << "," << P.Ranks << "," << P.Bytes << ","
       << num(P.Mean) << "," << num(P.Min) << "," << num(P.Max) << ","
       << num(P.Mean / 100) << "," << num(P.MeanModel) << ","
       << num(P.MeanBlocked) << "\n";
}

Chart figureChart(const FigureSpec &F, const std::vector<SweepPoint> &Points) {
  ChartPanel P;
  P.X = {F.OverBytes ? "message size (KB)" : "group size (nodes)", false, true};
  P.Y = {"multicast time (µs)", false, true};
  for (const std::string &A : paperAlgorithms()) {
    ChartSeries S;
    S.Name = A == "opt-mesh"   ? "OPT-mesh"
             : A == "opt-tree" ? "OPT-tree"
             : A == "u-mesh"   ? "U-mesh"
                               : A;
    for (const SweepPoint &Pt : Points)
      if (Pt.Algorithm == A)
        S.Points.push_back({xOf(F, Pt), Pt.Mean / 100});
    P.Lines.push_back(std::move(S));
  }
  Chart C;
  C.Title = F.Title + " (16x16 wormhole mesh, mean of placements)";
  C.Panels = {std::move(P)};
  return C;
}

} // namespace collc
