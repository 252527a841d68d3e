// Benchmark of `--emit select` (compiler/Select.h) on the bundled machines
// with a network, where the selection follows every candidate's shape
// changes with the network evaluator: one row per machine and collective,
// the bands found over 1 B .. 1 MiB and the CPU and wall seconds of
// selectBands (the same call `collc --emit select` makes). CPU seconds are
// the process's own, so other work on a shared machine moves them less than
// the wall clock.
//
//   build/bin/bench-select [--ranks P] [--max-bytes N] [--machine SUBSTR]
//                          [--collective NAME] [SRCDIR]

#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/AutoPolicy.h"
#include "compiler/Select.h"
#include "ir/Collective.h"
#include "readers/MachineSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <string>
#include <vector>

using namespace collc;
using namespace collc::bench;

namespace {

Request base(const Machine &M, Collective C, int32_t P) {
  return mustRequest(onFirstNodes(C, P, 0), M);
}

} // namespace

int main(int argc, char **argv) {
  int32_t Ranks = 16;
  uint64_t MaxBytes = uint64_t(1) << 20;
  std::string Src = ".", MachineFilter, CollFilter;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    auto Value = [&]() -> const char * {
      if (I + 1 >= argc) {
        fprintf(stderr, "bench-select: %s needs a value\n", argv[I]);
        std::exit(2);
      }
      return argv[++I];
    };
    if (A == "--ranks")
      Ranks = std::atoi(Value());
    else if (A == "--max-bytes")
      MaxBytes = std::strtoull(Value(), nullptr, 10);
    else if (A == "--machine")
      MachineFilter = Value();
    else if (A == "--collective")
      CollFilter = Value();
    else if (A.startswith("-")) {
      fprintf(stderr,
              "usage: bench-select [--ranks P] [--max-bytes N] [--machine "
              "SUBSTR] [--collective NAME] [SRCDIR]\n");
      return 2;
    } else
      Src = A.str();
  }
  if (Ranks < 1 || MaxBytes < 1) {
    fprintf(stderr, "bench-select: --ranks and --max-bytes must be >= 1\n");
    return 2;
  }
  const char *Machines[] = {
      "examples/platforms/torus-4x4.xml",
      "examples/platforms/sp2-32.xml",
      "examples/platforms/cluster-256.xml",
      "examples/platforms/fat-tree-256.xml",
      "examples/platforms/torus-16x16.xml",
      "examples/platforms/torus-32x32.xml",
      "examples/machines/torus-16x16-net.yaml",
      "examples/machines/cluster-256-net.yaml",
      "examples/machines/fat-tree-256-net.yaml",
  };
  printf("# bench-select: --emit select over 1..%llu bytes, %d ranks (or the "
         "machine's nodes, if fewer)\n",
         static_cast<unsigned long long>(MaxBytes), Ranks);
  printf("%-22s %-10s %6s %9s %9s\n", "machine", "collective", "bands", "cpu_s",
         "wall_s");
  double TotalCpu = 0, TotalWall = 0;
  for (const char *Rel : Machines) {
    if (!MachineFilter.empty() &&
        llvm::StringRef(Rel).find(MachineFilter) == llvm::StringRef::npos)
      continue;
    llvm::Expected<Machine> M = loadMachine(Src + "/" + Rel);
    if (!M) {
      fprintf(stderr, "bench-select: %s\n",
              llvm::toString(M.takeError()).c_str());
      return 1;
    }
    const int32_t P =
        M->Topo.Nodes > 0
            ? static_cast<int32_t>(std::min<int64_t>(Ranks, M->Topo.Nodes))
            : Ranks;
    for (Collective C : allCollectives()) {
      if (C == Collective::Multicast ||
          (!CollFilter.empty() && CollFilter != collectiveName(C)))
        continue;
      const bool Barrier = C == Collective::Barrier;
      const double Cpu0 = cpuSeconds();
      const Clock::time_point Wall0 = Clock::now();
      llvm::Expected<Selection> Sel =
          selectBands(*M, base(*M, C, P), Barrier ? 0 : 1,
                      Barrier ? 0 : MaxBytes, modelJudge());
      const double Cpu = cpuSeconds() - Cpu0;
      const double Wall = seconds(Wall0, Clock::now());
      TotalCpu += Cpu;
      TotalWall += Wall;
      std::string Bands = "-";
      if (Sel)
        Bands = std::to_string(Sel->Bands.size());
      else
        llvm::consumeError(Sel.takeError());
      printf("%-22s %-10s %6s %9.2f %9.2f\n", M->Name.c_str(),
             collectiveName(C), Bands.c_str(), Cpu, Wall);
      fflush(stdout);
    }
  }
  printf("%-22s %-10s %6s %9.2f %9.2f\n", "total", "", "", TotalCpu, TotalWall);
  return 0;
}
