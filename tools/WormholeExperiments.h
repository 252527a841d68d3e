/// \file
/// Paper 000 section 4.2 on the wormhole simulator: OPT-mesh, OPT-tree (on
/// the random placement as given) and U-mesh multicasts on a 16x16 mesh with
/// s_s = 2000, s_d = 2, c_d = 2, r_s = 3500, r_d = 3 (units of 10 ns, one
/// byte per flit), each point the mean over random placements of the group.
/// Figures 11 and 12: 32 and 128 nodes over message sizes up to 64 KB;
/// Figures 13 and 14: 4 KB and 64 KB over group sizes.
#ifndef COLLC_TOOLS_WORMHOLEEXPERIMENTS_H
#define COLLC_TOOLS_WORMHOLEEXPERIMENTS_H

#include "ir/Machine.h"
#include "tools/SvgChart.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

/// The paper's simulated machine: a 16x16 wormhole mesh.
Machine paperMesh();

/// \p Ranks distinct nodes out of \p Nodes, uniformly at random; the first is
/// the multicast's source. Deterministic in \p Seed.
std::vector<int64_t> randomPlacement(uint64_t Seed, int32_t Ranks,
                                     int64_t Nodes);

/// One point of a figure: one algorithm, group size and message size,
/// averaged over placements. Times in the machine's unit.
struct SweepPoint {
  std::string Algorithm;
  int32_t Ranks = 0;
  uint64_t Bytes = 0;
  double Mean = 0, Min = 0, Max = 0; ///< Simulated makespan.
  double MeanModel = 0;              ///< The cost model's makespan.
  double MeanBlocked = 0;            ///< Total header-blocked time.
  uint64_t Events = 0;               ///< Simulator events, all placements.
};

struct FigureSpec {
  std::string Id;        ///< "fig11".
  std::string Title;     ///< As the paper captions it.
  bool OverBytes = true; ///< x = message size (else group size).
  int32_t Ranks = 0;     ///< Fixed group size (OverBytes).
  uint64_t Bytes = 0;    ///< Fixed message size (!OverBytes).
  std::vector<int64_t> Xs;
};

/// The algorithms compared, in plotting order.
const std::vector<std::string> &paperAlgorithms();

/// Figures 11-14. \p Reduced: a few points each, for tests.
std::vector<FigureSpec> paperFigures(bool Reduced = false);

/// Runs every algorithm at every x of \p F on \p Placements placements
/// (placement p of group size k uses seed Seed + 1000003 k + p, the same for
/// every algorithm and message size). A run that deadlocks is an error with
/// code std::errc::resource_deadlock_would_occur and deadlockReport()'s text.
llvm::Expected<std::vector<SweepPoint>> runFigure(const Machine &M,
                                                  const FigureSpec &F,
                                                  int Placements,
                                                  uint64_t Seed = 1);

/// CSV: figure,algorithm,ranks,bytes,mean,min,max,mean_us,model_mean,
/// mean_blocked.
void writeFigureCsv(llvm::raw_ostream &OS, const FigureSpec &F,
                    const std::vector<SweepPoint> &Points);

/// The figure as a chart: one line per algorithm, time in µs (the paper's
/// unit of 10 ns / 100) over the figure's x.
Chart figureChart(const FigureSpec &F, const std::vector<SweepPoint> &Points);

} // namespace collc

#endif
