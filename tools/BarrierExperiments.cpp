#include "tools/BarrierExperiments.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <tuple>

namespace collc::barrier {

namespace {

std::string fix(double V, int Digits = 3) {
  char Buf[48];
  std::snprintf(Buf, sizeof(Buf), "%.*f", Digits, V);
  return Buf;
}

/// The same episodes under both schemes: (Sivaram, multi-drop).
std::pair<SweepPoint, SweepPoint> bothSchemes(SimParams P, int32_t N,
                                              int64_t Runs, uint64_t Seed) {
  P.S = Scheme::Sivaram;
  SweepPoint Sivaram = sweep(P, N, Runs, Seed);
  P.S = Scheme::MultiDrop;
  return {Sivaram, sweep(P, N, Runs, Seed)};
}

/// One panel, a line per scheme, from (x, Sivaram's y, multi-drop's y).
Chart schemesChart(std::string Title, ChartAxis X, ChartAxis Y,
                   std::string SivaramName, std::string MultiDropName,
                   const std::vector<std::array<double, 3>> &Points) {
  ChartSeries S{std::move(SivaramName), {}}, M{std::move(MultiDropName), {}};
  for (auto [Xv, Ys, Ym] : Points) {
    S.Points.push_back({Xv, Ys});
    M.Points.push_back({Xv, Ym});
  }
  Chart C;
  C.Title = std::move(Title);
  C.Panels = {ChartPanel{std::move(X), std::move(Y), {S, M}}};
  return C;
}

/// 1 - Better / Worse, in percent.
double reduction(double Worse, double Better) {
  return Worse > 0 ? 100.0 * (1 - Better / Worse) : 0;
}

} // namespace

std::vector<Figure8Row> figure8(const SimParams &Base, int64_t Runs,
                                uint64_t Seed, int32_t From, int32_t To,
                                int32_t Step) {
  std::vector<Figure8Row> Rows;
  for (int32_t N = From; N <= To; N += Step) {
    Figure8Row Row;
    Row.Participants = N;
    Row.CycleLength = Base.CycleLength;
    // Each point has its own seed range; both schemes share it.
    uint64_t PointSeed = Seed + static_cast<uint64_t>(N) * 1000003ULL;
    std::tie(Row.Sivaram, Row.MultiDrop) =
        bothSchemes(Base, N, Runs, PointSeed);
    Row.ReductionPercent = reduction(Row.Sivaram.MeanAD, Row.MultiDrop.MeanAD);
    Row.CompletionReductionPercent = reduction(
        Row.Sivaram.MeanCompletionDelay, Row.MultiDrop.MeanCompletionDelay);
    Rows.push_back(Row);
  }
  return Rows;
}

void writeFigure8Csv(llvm::raw_ostream &OS,
                     const std::vector<Figure8Row> &Rows) {
  OS << "participants,runs,ad_sivaram,sd_sivaram,ad_multidrop,sd_multidrop,"
        "reduction_percent,completion_ad_sivaram,completion_ad_multidrop,"
        "completion_reduction_percent,cycle_length\n";
  for (const Figure8Row &R : Rows)
    OS << R.Participants << "," << R.Sivaram.Runs << ","
       << fix(R.Sivaram.MeanAD) << "," << fix(R.Sivaram.StdAD) << ","
       << fix(R.MultiDrop.MeanAD) << "," << fix(R.MultiDrop.StdAD) << ","
       << fix(R.ReductionPercent, 2) << ","
       << fix(R.Sivaram.MeanCompletionDelay) << ","
       << fix(R.MultiDrop.MeanCompletionDelay) << ","
       << fix(R.CompletionReductionPercent, 2) << "," << R.CycleLength << "\n";
}

Chart figure8Chart(const std::vector<Figure8Row> &Rows) {
  int64_t CycleLength = Rows.empty() ? 1 : Rows.front().CycleLength;
  std::vector<std::array<double, 3>> Points;
  for (const Figure8Row &R : Rows)
    Points.push_back({static_cast<double>(R.Participants), R.Sivaram.MeanAD,
                      R.MultiDrop.MeanAD});
  return schemesChart(
      "Figure 8: average delay on a 64-node MIN, unit cycle = " +
          std::to_string(CycleLength) + " time unit" +
          (CycleLength == 1 ? "" : "s"),
      {"participants"}, {"average delay AD (time units)", false, true},
      "Sivaram et al. (4-cycle unit, end-to-end acks)",
      "multi-drop (3-cycle unit, hop-by-hop acks)", Points);
}

CycleFit cycleFit(const std::vector<Figure8Row> &Rows) {
  CycleFit F;
  if (Rows.empty())
    return F;
  F.CycleLength = Rows.front().CycleLength;
  F.MinReduction = F.MaxReduction = Rows.front().ReductionPercent;
  double Sum = 0;
  for (const Figure8Row &R : Rows) {
    F.MinReduction = std::min(F.MinReduction, R.ReductionPercent);
    F.MaxReduction = std::max(F.MaxReduction, R.ReductionPercent);
    Sum += R.ReductionPercent;
  }
  F.MeanReduction = Sum / static_cast<double>(Rows.size());
  F.Distance = std::max({0.0, PaperReductionMin - F.MinReduction,
                         F.MaxReduction - PaperReductionMax});
  return F;
}

std::vector<CycleFit> cycleFits(const SimParams &Base,
                                const std::vector<int64_t> &Lengths,
                                int64_t Runs, uint64_t Seed) {
  std::vector<CycleFit> Fits;
  for (int64_t L : Lengths) {
    SimParams P = Base;
    P.CycleLength = L;
    Fits.push_back(cycleFit(figure8(P, Runs, Seed)));
  }
  return Fits;
}

std::vector<FaultRow> faultSweep(const SimParams &Base, int32_t Participants,
                                 const std::vector<double> &LossPercents,
                                 double CorruptPercent, int64_t Runs,
                                 uint64_t Seed) {
  std::vector<FaultRow> Rows;
  for (double L : LossPercents) {
    SimParams P = Base;
    P.F = Faults::uniform(L / 100, CorruptPercent / 100);
    FaultRow Row;
    Row.LossPercent = L;
    Row.CorruptPercent = CorruptPercent;
    std::tie(Row.Sivaram, Row.MultiDrop) =
        bothSchemes(P, Participants, Runs, Seed);
    Rows.push_back(Row);
  }
  return Rows;
}

void writeFaultCsv(llvm::raw_ostream &OS, const std::vector<FaultRow> &Rows) {
  OS << "loss_percent,corrupt_percent,runs,completion_sivaram,retx_sivaram,"
        "failures_sivaram,completion_multidrop,retx_multidrop,failures_"
        "multidrop\n";
  for (const FaultRow &R : Rows)
    OS << fix(R.LossPercent, 1) << "," << fix(R.CorruptPercent, 1) << ","
       << R.Sivaram.Runs << "," << fix(R.Sivaram.MeanCompletion) << ","
       << fix(R.Sivaram.MeanRetransmissions) << "," << R.Sivaram.Failures << ","
       << fix(R.MultiDrop.MeanCompletion) << ","
       << fix(R.MultiDrop.MeanRetransmissions) << "," << R.MultiDrop.Failures
       << "\n";
}

Chart faultChart(const std::vector<FaultRow> &Rows, int32_t Participants) {
  std::vector<std::array<double, 3>> Points;
  for (const FaultRow &R : Rows)
    Points.push_back(
        {R.LossPercent, R.Sivaram.MeanCompletion, R.MultiDrop.MeanCompletion});
  return schemesChart(
      "Barrier completion under packet loss (" + std::to_string(Participants) +
          " participants, 64-node MIN)",
      {"packet loss rate per phase (%)"},
      {"mean completion after the last arrival (time units)", false, true},
      "Sivaram et al. (end-to-end recovery)",
      "multi-drop (hop-by-hop recovery)", Points);
}

} // namespace collc::barrier
