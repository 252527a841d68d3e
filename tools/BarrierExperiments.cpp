#include "tools/BarrierExperiments.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace collc::barrier {

namespace {

std::string fix(double V, int Digits = 3) {
  char Buf[48];
  std::snprintf(Buf, sizeof(Buf), "%.*f", Digits, V);
  return Buf;
}

SimParams withScheme(SimParams P, Scheme S) {
  P.S = S;
  return P;
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
    Row.Sivaram = sweep(withScheme(Base, Scheme::Sivaram), N, Runs, PointSeed);
    Row.MultiDrop =
        sweep(withScheme(Base, Scheme::MultiDrop), N, Runs, PointSeed);
    Row.ReductionPercent = reduction(Row.Sivaram.MeanAD, Row.MultiDrop.MeanAD);
    Row.CompletionReductionPercent = reduction(
        Row.Sivaram.MeanCompletionDelay, Row.MultiDrop.MeanCompletionDelay);
    Rows.push_back(Row);
  }
  return Rows;
}

void writeFigure8Csv(std::ostream &OS, const std::vector<Figure8Row> &Rows) {
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
  Chart C;
  int64_t CycleLength = Rows.empty() ? 1 : Rows.front().CycleLength;
  C.Title = "Figure 8: average delay on a 64-node MIN, unit cycle = " +
            std::to_string(CycleLength) + " time unit" +
            (CycleLength == 1 ? "" : "s");
  C.XLabel = "participants";
  C.YLabel = "average delay AD (time units)";
  Series S{"Sivaram et al. (4-cycle unit, end-to-end acks)", "#d62728", {}};
  Series M{"multi-drop (3-cycle unit, hop-by-hop acks)", "#1f77b4", {}};
  for (const Figure8Row &R : Rows) {
    S.Points.push_back({double(R.Participants), R.Sivaram.MeanAD});
    M.Points.push_back({double(R.Participants), R.MultiDrop.MeanAD});
  }
  C.Lines = {S, M};
  return C;
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
    Row.Sivaram =
        sweep(withScheme(P, Scheme::Sivaram), Participants, Runs, Seed);
    Row.MultiDrop =
        sweep(withScheme(P, Scheme::MultiDrop), Participants, Runs, Seed);
    Rows.push_back(Row);
  }
  return Rows;
}

void writeFaultCsv(std::ostream &OS, const std::vector<FaultRow> &Rows) {
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
  Chart C;
  C.Title = "Barrier completion under packet loss (" +
            std::to_string(Participants) + " participants, 64-node MIN)";
  C.XLabel = "packet loss rate per phase (%)";
  C.YLabel = "mean completion after the last arrival (time units)";
  Series S{"Sivaram et al. (end-to-end recovery)", "#d62728", {}};
  Series M{"multi-drop (hop-by-hop recovery)", "#1f77b4", {}};
  for (const FaultRow &R : Rows) {
    S.Points.push_back({R.LossPercent, R.Sivaram.MeanCompletion});
    M.Points.push_back({R.LossPercent, R.MultiDrop.MeanCompletion});
  }
  C.Lines = {S, M};
  return C;
}

} // namespace collc::barrier
