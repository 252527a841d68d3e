/// \file
/// The experiments of paper 003 on the simulator: Figure 8 (average delay
/// against participants, both schemes) and completion time against the
/// packet loss rate. Shared by the `collc-barrier` tool, the tests and the
/// benchmark, so that each reproduces the same numbers from the same seeds.
#ifndef COLLC_RUNTIME_BARRIER_EXPERIMENTS_H
#define COLLC_RUNTIME_BARRIER_EXPERIMENTS_H

#include "runtime/barrier/BarrierSim.h"
#include "runtime/barrier/Plot.h"

#include <ostream>
#include <vector>

namespace collc::barrier {

struct Figure8Row {
  int32_t Participants = 0;
  SweepPoint Sivaram, MultiDrop;
  /// 1 - AD(multi-drop) / AD(Sivaram), in percent.
  double ReductionPercent = 0;
};

/// Figure 8: participants From..To step Step on \p Base's network (the
/// paper: 4..64 step 4 on 64 nodes of 8 x 8 switches), \p Runs seeded
/// episodes per point, the same episodes for both schemes.
std::vector<Figure8Row> figure8(const SimParams &Base, int64_t Runs,
                                uint64_t Seed, int32_t From = 4,
                                int32_t To = 64, int32_t Step = 4);
void writeFigure8Csv(std::ostream &OS, const std::vector<Figure8Row> &Rows);
Chart figure8Chart(const std::vector<Figure8Row> &Rows);

struct FaultRow {
  double LossPercent = 0, CorruptPercent = 0;
  SweepPoint Sivaram, MultiDrop;
};

/// Completion against the loss rate (every phase), with \p CorruptPercent
/// corruption on top, for \p Participants participants.
std::vector<FaultRow> faultSweep(const SimParams &Base, int32_t Participants,
                                 const std::vector<double> &LossPercents,
                                 double CorruptPercent, int64_t Runs,
                                 uint64_t Seed);
void writeFaultCsv(std::ostream &OS, const std::vector<FaultRow> &Rows);
Chart faultChart(const std::vector<FaultRow> &Rows, int32_t Participants);

} // namespace collc::barrier

#endif
