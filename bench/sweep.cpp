//===- bench-sweep: paper 001's figures under collc's model ---------------===//
//
// Model time against message size for every broadcast, allreduce and scan
// algorithm of paper 001 on the SP2, T3E and PC-cluster machines at P = 8,
// 16 and 32 (the PC cluster has 16 PCs: P = 8 and 16 only), as the report's
// Figures 4.3-4.27 plot measurements. Writes OUT/sweep.csv and one SVG per
// machine and collective (OUT/<machine>-<collective>.svg, one panel per P),
// and prints the speedup of each algorithm over binomial at 1 MiB.
//
//   bench-sweep [SOURCE_DIR [OUT_DIR]]
//
//===----------------------------------------------------------------------===//

#include "bench/Inputs.h"
#include "compiler/AutoPolicy.h"
#include "readers/Spec.h"
#include "tools/SvgChart.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <numeric>

using namespace collc;
using namespace collc::bench;

namespace {

struct Series {
  std::string Algorithm;
  std::vector<std::pair<uint64_t, double>> Points; // bytes, time
};

/// One log-log panel per process count.
Chart sweepChart(
    std::string Title,
    const std::vector<std::pair<int32_t, std::vector<Series>>> &Panels) {
  Chart C;
  C.Title = std::move(Title);
  C.Markers = false;
  for (const auto &[P, Ss] : Panels) {
    ChartPanel Panel;
    Panel.X = {"message size (bytes), P = " + std::to_string(P), true};
    Panel.Y = {C.Panels.empty() ? "model time (us)" : "", true};
    for (const Series &S : Ss) {
      ChartSeries Line{S.Algorithm, {}};
      for (auto [B, T] : S.Points)
        Line.Points.push_back({static_cast<double>(B), T});
      Panel.Lines.push_back(std::move(Line));
    }
    C.Panels.push_back(std::move(Panel));
  }
  return C;
}

} // namespace

int main(int argc, char **argv) {
  std::string Src = argc > 1 ? argv[1] : ".";
  std::string Out = argc > 2 ? argv[2] : "sweep-out";
  llvm::sys::fs::create_directories(Out);
  const char *Machines[] = {"sp2", "t3e", "pc-cluster"};
  // The report's collectives; the speedups are over its baseline. The
  // algorithms are exactly what `--algorithm auto` chooses among.
  struct Coll {
    Collective C;
    const char *Baseline;
  } Colls[] = {{Collective::Bcast, "binomial"},
               {Collective::Allreduce, "binomial"},
               {Collective::Scan, "linear"}};
  std::error_code EC;
  llvm::raw_fd_ostream Csv(Out + "/sweep.csv", EC);
  if (EC) {
    llvm::errs() << "bench-sweep: cannot write " << Out << "/sweep.csv\n";
    return 1;
  }
  Csv << "machine,collective,ranks,algorithm,bytes,segments,model_time_us,"
         "auto\n";
  const CostJudge Judge = modelJudge();
  llvm::outs() << "Speedup over binomial (bcast, allreduce) or linear (scan) "
                  "at 1 MiB, model time:\n";
  for (const char *MN : Machines) {
    auto M = loadMachine(Src + "/examples/machines/" + MN + ".yaml");
    if (!M) {
      llvm::errs() << llvm::toString(M.takeError()) << "\n";
      return 1;
    }
    for (const Coll &C : Colls) {
      std::vector<std::pair<int32_t, std::vector<Series>>> Panels;
      for (int32_t P : {8, 16, 32}) {
        if (M->Topo.Nodes && P > M->Topo.Nodes)
          continue;             // more processes than the machine has
        std::vector<Series> Ss; // in registry order of first appearance
        auto SeriesOf = [&](const char *A) -> Series & {
          for (Series &S : Ss)
            if (S.Algorithm == A)
              return S;
          return Ss.emplace_back(Series{A, {}});
        };
        for (uint64_t B = 4; B <= (uint64_t(1) << 20); B *= 2) {
          const Request R = mustRequest(onFirstNodes(C.C, P, B), *M);
          // Every candidate of the auto policy, as it judges them; the
          // last column marks the one it chooses.
          std::vector<std::pair<std::string, std::string>> Lines; // alg, row
          ChooseOptions CO;
          CO.OnCandidate = [&](const AlgorithmInfo &A, const Schedule &Sch,
                               Score) {
            SeriesOf(A.Name).Points.push_back({B, Sch.Makespan});
            std::string Line;
            llvm::raw_string_ostream L(Line);
            L << MN << ',' << collectiveName(C.C) << ',' << P << ',' << A.Name
              << ',' << B << ',' << Sch.NumChunks << ','
              << llvm::format("%.3f", Sch.Makespan);
            Lines.push_back({A.Name, L.str()});
          };
          PipelineOptions Quiet;
          Pipeline Pl(Quiet);
          auto Chosen = chooseSchedule(*M, R, Judge, Pl, CO);
          if (!Chosen) {
            llvm::errs() << "bench-sweep: "
                         << llvm::toString(Chosen.takeError()) << "\n";
            return 1;
          }
          for (const auto &[Alg, Row] : Lines)
            Csv << Row << ',' << (Alg == Chosen->Algorithm ? 1 : 0) << '\n';
        }
        llvm::outs() << llvm::format("  %-10s %-9s P=%-3d", MN,
                                     collectiveName(C.C), P);
        const Series &Base = SeriesOf(C.Baseline);
        for (const Series &S : Ss)
          if (!S.Points.empty() &&
              S.Points.back().first == Base.Points.back().first)
            llvm::outs() << llvm::format(" %s %.2fx", S.Algorithm.c_str(),
                                         Base.Points.back().second /
                                             S.Points.back().second);
        llvm::outs() << "\n";
        Panels.push_back({P, std::move(Ss)});
      }
      std::string Name = Out + "/" + MN + "-" + collectiveName(C.C) + ".svg";
      llvm::raw_fd_ostream Svg(Name, EC);
      if (EC) {
        llvm::errs() << "bench-sweep: cannot write " << Name << "\n";
        return 1;
      }
      writeSvgChart(Svg, sweepChart(std::string(collectiveName(C.C)) + " on " +
                                        MN + " (linear model, collc cost pass)",
                                    Panels));
    }
  }
  llvm::outs() << "Wrote " << Out << "/sweep.csv and " << Out << "/*.svg\n";
  return 0;
}
