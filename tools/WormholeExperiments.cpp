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

/// 1, 2 or 5 times a power of ten, giving about \p Want ticks over [0, Max].
double tickStep(double Max, int Want) {
  double Raw = Max / Want;
  double P = std::pow(10, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * P >= Raw)
      return M * P;
  return 10 * P;
}

} // namespace

void writeFigureCsv(std::ostream &OS, const FigureSpec &F,
                    const std::vector<SweepPoint> &Points) {
  OS << "figure,algorithm,ranks,bytes,mean,min,max,mean_us,model_mean,"
        "mean_blocked\n";
  for (const SweepPoint &P : Points)
    OS << F.Id << "," << P.Algorithm << "," << P.Ranks << "," << P.Bytes << ","
       << num(P.Mean) << "," << num(P.Min) << "," << num(P.Max) << ","
       << num(P.Mean / 100) << "," << num(P.MeanModel) << ","
       << num(P.MeanBlocked) << "\n";
}

void writeFigureSvg(std::ostream &OS, const FigureSpec &F,
                    const std::vector<SweepPoint> &Points) {
  const double W = 720, H = 460, L = 80, R = 170, Top = 50, Bottom = 60;
  const double PW = W - L - R, PH = H - Top - Bottom;
  double XMax = 0, YMax = 0;
  for (const SweepPoint &P : Points) {
    XMax = std::max(XMax, xOf(F, P));
    YMax = std::max(YMax, P.Mean / 100);
  }
  double XStep = tickStep(XMax, 8), YStep = tickStep(YMax, 6);
  XMax = std::ceil(XMax / XStep) * XStep;
  YMax = std::ceil(YMax / YStep) * YStep;
  auto SX = [&](double X) { return L + PW * X / XMax; };
  auto SY = [&](double Y) { return Top + PH * (1 - Y / YMax); };

  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  OS << "<text x=\"" << L + PW / 2
     << "\" y=\"28\" text-anchor=\"middle\" "
        "font-size=\"15\">"
     << F.Title << " (16x16 wormhole mesh, mean of placements)</text>\n";
  // Grid and ticks.
  for (double Y = 0; Y <= YMax + YStep / 2; Y += YStep) {
    OS << "<line x1=\"" << L << "\" y1=\"" << SY(Y) << "\" x2=\"" << L + PW
       << "\" y2=\"" << SY(Y) << "\" stroke=\"#ddd\"/>\n";
    OS << "<text x=\"" << L - 6 << "\" y=\"" << SY(Y) + 4
       << "\" text-anchor=\"end\">" << num(Y) << "</text>\n";
  }
  for (double X = 0; X <= XMax + XStep / 2; X += XStep) {
    OS << "<line x1=\"" << SX(X) << "\" y1=\"" << Top + PH << "\" x2=\""
       << SX(X) << "\" y2=\"" << Top + PH + 5 << "\" stroke=\"black\"/>\n";
    OS << "<text x=\"" << SX(X) << "\" y=\"" << Top + PH + 20
       << "\" text-anchor=\"middle\">" << num(X) << "</text>\n";
  }
  OS << "<rect x=\"" << L << "\" y=\"" << Top << "\" width=\"" << PW
     << "\" height=\"" << PH << "\" fill=\"none\" stroke=\"black\"/>\n";
  OS << "<text x=\"" << L + PW / 2 << "\" y=\"" << H - 15
     << "\" text-anchor=\"middle\">"
     << (F.OverBytes ? "message size (KB)" : "group size (nodes)")
     << "</text>\n";
  OS << "<text transform=\"translate(22," << Top + PH / 2
     << ") rotate(-90)\" text-anchor=\"middle\">multicast time (µs)</text>\n";
  // One line per algorithm.
  static const char *Colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  static const char *Marks[] = {"circle", "rect", "diamond", "circle"};
  size_t I = 0;
  for (const std::string &A : paperAlgorithms()) {
    const char *C = Colors[I % 4];
    std::string Pts;
    std::vector<std::pair<double, double>> XY;
    for (const SweepPoint &P : Points)
      if (P.Algorithm == A)
        XY.push_back({SX(xOf(F, P)), SY(P.Mean / 100)});
    for (auto [X, Y] : XY)
      Pts += num(X) + "," + num(Y) + " ";
    OS << "<polyline fill=\"none\" stroke=\"" << C
       << "\" stroke-width=\"1.8\" points=\"" << Pts << "\"/>\n";
    for (auto [X, Y] : XY) {
      if (std::string(Marks[I % 4]) == "rect")
        OS << "<rect x=\"" << X - 3 << "\" y=\"" << Y - 3
           << "\" width=\"6\" height=\"6\" fill=\"" << C << "\"/>\n";
      else if (std::string(Marks[I % 4]) == "diamond")
        OS << "<polygon points=\"" << X << "," << Y - 4 << " " << X + 4 << ","
           << Y << " " << X << "," << Y + 4 << " " << X - 4 << "," << Y
           << "\" fill=\"" << C << "\"/>\n";
      else
        OS << "<circle cx=\"" << X << "\" cy=\"" << Y << "\" r=\"3\" fill=\""
           << C << "\"/>\n";
    }
    double LY = Top + 20 + 22 * static_cast<double>(I);
    OS << "<line x1=\"" << L + PW + 15 << "\" y1=\"" << LY << "\" x2=\""
       << L + PW + 45 << "\" y2=\"" << LY << "\" stroke=\"" << C
       << "\" stroke-width=\"2\"/>\n";
    OS << "<text x=\"" << L + PW + 52 << "\" y=\"" << LY + 4 << "\">"
       << (A == "opt-mesh"   ? "OPT-mesh"
           : A == "opt-tree" ? "OPT-tree"
           : A == "u-mesh"   ? "U-mesh"
                             : A)
       << "</text>\n";
    ++I;
  }
  OS << "</svg>\n";
}

} // namespace collc
