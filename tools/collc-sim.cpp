//===- collc-sim: paper 000's wormhole-mesh experiments -------------------===//
//
//   collc-sim [--placements N] [--seed S] [--reduced] [--out DIR]
//
// Runs Figures 11-14 of paper 000 (section 4.2) on the wormhole simulator
// and writes DIR/figNN.csv and DIR/figNN.svg for each, then prints a table
// of the means (µs) and the time taken.
//
//===----------------------------------------------------------------------===//

#include "ir/Diagnostic.h"
#include "ir/OutOfMemory.h"
#include "tools/WormholeExperiments.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace llvm;
using namespace collc;

static cl::opt<int>
    Placements("placements",
               cl::desc("Random placements per point (paper: 16)"),
               cl::init(16));
static cl::opt<unsigned long long> Seed("seed", cl::desc("First random seed"),
                                        cl::init(1));
static cl::opt<bool> Reduced("reduced", cl::desc("A few points per figure"));
static cl::opt<std::string>
    OutDir("out",
           cl::desc("Directory for figNN.csv and figNN.svg (default: the "
                    "current directory; the committed figures are "
                    "docs/figures)"),
           cl::value_desc("dir"), cl::init("."));
static cl::list<std::string>
    Only("figure", cl::desc("Run only this figure (fig11..fig14); "
                            "repeatable"));

static int run(int argc, char **argv) {
  if (!parseToolOptions(argc, argv, "collc-sim",
                        "collc-sim: paper 000's wormhole-mesh "
                        "multicast experiments\n"))
    return ExitBadInput;
  if (Placements < 1) {
    WithColor::error(errs(), "collc-sim")
        << "--placements: must be at least 1\n";
    return 1;
  }
  if (std::error_code EC = sys::fs::create_directories(OutDir)) {
    WithColor::error(errs(), "collc-sim")
        << "--out: cannot create '" << OutDir << "': " << EC.message() << "\n";
    return 1;
  }
  Machine M = paperMesh();
  for (const FigureSpec &F : paperFigures(Reduced)) {
    if (!Only.empty() &&
        std::find(Only.begin(), Only.end(), F.Id) == Only.end())
      continue;
    auto T0 = std::chrono::steady_clock::now();
    auto Points = runFigure(M, F, Placements, Seed);
    if (!Points) {
      // A deadlocked run exits 2, like collc --emit sim; other errors 1.
      int Code = 1;
      handleAllErrors(Points.takeError(), [&](const ErrorInfoBase &E) {
        if (E.convertToErrorCode() == std::errc::resource_deadlock_would_occur)
          Code = 2;
        WithColor::error(errs(), "collc-sim") << E.message() << "\n";
      });
      return Code;
    }
    double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    for (StringRef Ext : {"csv", "svg"}) {
      std::string Path = OutDir + "/" + F.Id + "." + Ext.str();
      std::error_code EC;
      raw_fd_ostream OS(Path, EC);
      if (!EC) {
        if (Ext == "csv")
          writeFigureCsv(OS, F, *Points);
        else
          writeSvgChart(OS, figureChart(F, *Points));
        OS.close();
        EC = OS.error();
        OS.clear_error();
      }
      if (EC) {
        WithColor::error(errs(), "collc-sim")
            << "cannot write '" << Path << "': " << EC.message() << "\n";
        return 1;
      }
    }
    uint64_t Events = 0;
    for (const SweepPoint &P : *Points)
      Events += P.Events;
    outs() << F.Title << " (" << Placements << " placements, "
           << format("%.2f", Secs) << " s, " << Events << " events)\n";
    outs() << (F.OverBytes ? "     bytes" : "     ranks");
    for (const std::string &A : paperAlgorithms())
      outs() << format(" %12s", A.c_str());
    outs() << "   (mean multicast time, µs)\n";
    std::map<int64_t, std::map<std::string, double>> Rows;
    for (const SweepPoint &P : *Points)
      Rows[F.OverBytes ? static_cast<int64_t>(P.Bytes) : P.Ranks][P.Algorithm] =
          P.Mean / 100;
    for (auto &[X, Row] : Rows) {
      outs() << format("%10lld", static_cast<long long>(X));
      for (const std::string &A : paperAlgorithms())
        outs() << format(" %12.1f", Row[A]);
      outs() << "\n";
    }
    outs() << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  return collc::runReportingOutOfMemory("collc-sim", run, argc, argv);
}
