// Paper 003's experiments on the hardware-barrier simulator: Figure 8 under
// both readings of the unit's cycle, and the fault sweep.
#include "tools/BarrierExperiments.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace collc;
using namespace collc::barrier;

namespace {

/// Figure 8's plotted points (4..64 step 4), 200 episodes per point, with
/// unit cycles of \p CycleLength time units; checks what holds under every
/// reading: no failures, the multi-drop AD lower, AD growing with the
/// participants.
std::vector<Figure8Row> figure8Checked(int64_t CycleLength) {
  SimParams P;
  P.CycleLength = CycleLength;
  auto Rows = figure8(P, 200, 1);
  REQUIRE(Rows.size() == 16);
  double PrevS = 0, PrevM = 0;
  for (const Figure8Row &R : Rows) {
    CAPTURE(R.Participants);
    CHECK(R.Participants == 4 * static_cast<int32_t>(&R - &Rows[0] + 1));
    CHECK(R.CycleLength == CycleLength);
    CHECK(R.Sivaram.Failures == 0);
    CHECK(R.MultiDrop.Failures == 0);
    CHECK(R.MultiDrop.MeanAD < R.Sivaram.MeanAD);
    CHECK(R.Sivaram.MeanAD > PrevS);
    CHECK(R.MultiDrop.MeanAD > PrevM);
    PrevS = R.Sivaram.MeanAD;
    PrevM = R.MultiDrop.MeanAD;
    // The other end event, every processor and switch free: the hop-by-hop
    // acknowledgement removes Sivaram's combined climb to the root, which
    // the faster unit alone (at most 25%) cannot.
    CHECK(R.CompletionReductionPercent > 30);
  }
  return Rows;
}

} // namespace

TEST_CASE("paper003.Figure8: multi-drop AD 24.6-24.8% lower than Sivaram's "
          "at every plotted participant count, 24.7% on average") {
  // The paper does not say how long a barrier-unit cycle lasts; with
  // Figure8CycleLength (the closest fit, `collc-barrier cycle-fit`) every
  // point lies within 0.3 points of the paper's band and the mean within
  // 0.1 of its average.
  auto Rows = figure8Checked(Figure8CycleLength);
  for (const Figure8Row &R : Rows) {
    CAPTURE(R.Participants);
    CHECK(R.ReductionPercent >= PaperReductionMin - 0.3);
    CHECK(R.ReductionPercent <= PaperReductionMax + 0.3);
  }
  CycleFit F = cycleFit(Rows);
  CHECK(F.CycleLength == Figure8CycleLength);
  CHECK(F.Distance <= 0.3);
  CHECK(std::abs(F.MeanReduction - PaperReductionMean) <= 0.1);

  std::string Csv, Svg;
  llvm::raw_string_ostream CsvOS(Csv), SvgOS(Svg);
  writeFigure8Csv(CsvOS, Rows);
  CHECK(Csv.rfind("participants,runs,ad_sivaram", 0) == 0);
  writeSvgChart(SvgOS, figure8Chart(Rows));
  CHECK(Svg.find("<svg") == 0);
  CHECK(Svg.find("unit cycle = " + std::to_string(Figure8CycleLength) +
                 " time units") != std::string::npos);
  CHECK(Svg.find("</svg>") != std::string::npos);
}

TEST_CASE("paper003.Figure8 with one time unit per unit cycle: 19% at 4 "
          "participants rising to 23.5% at 64") {
  // The 1-unit reading: the 1-unit links and the arrivals' spread (up to 8
  // units), which the faster unit does not shorten, weigh most with few
  // participants; the reduction stays below 25% and approaches it as the
  // units' queues grow (docs/barrier.md).
  auto Rows = figure8Checked(1);
  CHECK(Rows.front().ReductionPercent == doctest::Approx(19.0).epsilon(0.01));
  CHECK(Rows.back().ReductionPercent == doctest::Approx(23.5).epsilon(0.01));
  for (const Figure8Row &R : Rows) {
    CAPTURE(R.Participants);
    CHECK(R.ReductionPercent < 25);
  }
  CHECK(cycleFit(Rows).Distance > 5);
}

TEST_CASE("barrier sim: completion grows with the loss rate, same seeds, same "
          "results") {
  auto Rows = faultSweep(SimParams(), 32, {0, 5, 10, 20}, 0, 300, 3);
  for (size_t I = 1; I < Rows.size(); ++I) {
    CHECK(Rows[I].Sivaram.MeanCompletion > Rows[I - 1].Sivaram.MeanCompletion);
    CHECK(Rows[I].MultiDrop.MeanCompletion >
          Rows[I - 1].MultiDrop.MeanCompletion);
  }
  auto Again = faultSweep(SimParams(), 32, {0, 5, 10, 20}, 0, 300, 3);
  for (size_t I = 0; I < Rows.size(); ++I)
    CHECK(Again[I].MultiDrop.MeanCompletion ==
          Rows[I].MultiDrop.MeanCompletion);
}
