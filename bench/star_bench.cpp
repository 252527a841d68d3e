// Benchmark and step-count table of the star and macro-star broadcasts
// (paper 002) under the unit-call model.
//
//   bench-star [--table] [--time] [--runs N] [--greedy-max NODES]
//
// --table: steps of star-search (S_k) or macro-star (MS(l,n)) and of the
//   greedy maximum-matching baseline against the lower bound ceil(log2 N), for
//   S_4..S_10 and MS(2,2), MS(2,3), MS(3,2), MS(2,4), MS(3,3), MS(4,2).
//   Greedy runs only up to --greedy-max nodes (default 362880 = 9!).
// --time: build and verify times (medians of --runs, default 3) of the
//   broadcast of MS(2,4) and S_10, as wall time and as the process's CPU
//   time (the machine may be shared). Without options, both.

#include "algorithms/Builder.h"
#include "algorithms/Registry.h"
#include "bench/Args.h"
#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "ir/StarGraph.h"
#include "passes/Cost.h"
#include "passes/Verify.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace collc;
using namespace collc::bench;

namespace {

Machine unitCall(const StarGraph &G) {
  Machine M;
  M.Name = G.title();
  M.M.Kind = ModelKind::UnitCall;
  M.Topo.Kind = G.isStar() ? TopologyKind::Star : TopologyKind::MacroStar;
  M.Topo.StarK = G.symbols();
  M.Topo.MacroL = G.isStar() ? 0 : G.clusters();
  M.Topo.MacroN = G.isStar() ? 0 : G.clusterSize();
  M.Topo.Nodes = G.nodes();
  return M;
}

Request bcast(const Machine &M, const StarGraph &G, const char *Algorithm) {
  return mustRequest(onFirstNodes(Collective::Bcast, G.nodes(), 8, Algorithm),
                     M);
}

/// Build + cost + verify; exits on failure (a benchmark of a broken schedule
/// means nothing).
Schedule compileOrDie(const StarGraph &G, const char *Algorithm) {
  const Machine M = unitCall(G);
  auto S = compile(M, bcast(M, G, Algorithm));
  if (!S) {
    llvm::errs() << "bench-star: " << G.title() << " " << Algorithm << ": "
                 << llvm::toString(S.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*S);
}

std::vector<StarGraph> graphs() {
  std::vector<StarGraph> Gs;
  for (int K = 4; K <= 10; ++K)
    Gs.push_back(StarGraph::star(K));
  for (auto [L, N] : {std::pair{2, 2}, {2, 3}, {3, 2}, {2, 4}, {3, 3}, {4, 2}})
    Gs.push_back(StarGraph::macroStar(L, N));
  return Gs;
}

void table(int64_t GreedyMax) {
  llvm::outs()
      << "| graph   |   nodes N | ceil(log2 N) | algorithm    | steps | "
         "makespan | greedy steps |\n";
  llvm::outs()
      << "|---------|-----------|--------------|--------------|-------|"
         "----------|--------------|\n";
  for (const StarGraph &G : graphs()) {
    const char *Alg = G.isStar() ? "star-search" : "macro-star";
    Schedule S = compileOrDie(G, Alg);
    std::string Greedy = "-";
    if (G.nodes() <= GreedyMax)
      Greedy = std::to_string(compileOrDie(G, "greedy").Steps.size());
    char Line[200];
    snprintf(Line, sizeof(Line),
             "| %-7s | %9lld | %12lld | %-12s | %5zu | %8.0f | %12s |\n",
             G.title().c_str(), static_cast<long long>(G.nodes()),
             static_cast<long long>(ceilLog2(G.nodes())), Alg, S.Steps.size(),
             S.Makespan, Greedy.c_str());
    llvm::outs() << Line;
    llvm::outs().flush();
  }
}

void timing(int Runs) {
  llvm::outs()
      << "| graph   |   nodes N | algorithm    | build (s) | cost (s) | "
         "verify (s) | total (s) | total cpu (s) | max RSS (MiB) |\n";
  llvm::outs()
      << "|---------|-----------|--------------|-----------|----------|"
         "------------|-----------|---------------|---------------|\n";
  for (StarGraph G : {StarGraph::macroStar(2, 4), StarGraph::star(10)}) {
    const char *Alg = G.isStar() ? "star-search" : "macro-star";
    Machine M = unitCall(G);
    Request R = bcast(M, G, Alg);
    std::vector<double> Build, Cost, Verify, Total, Cpu;
    for (int I = 0; I < Runs; ++I) {
      double C0 = cpuSeconds();
      auto T0 = Clock::now();
      auto S = findAlgorithm(Alg, Collective::Bcast)->Build(M, R);
      auto T1 = Clock::now();
      if (!S) {
        llvm::errs() << "bench-star: " << llvm::toString(S.takeError()) << "\n";
        std::exit(1);
      }
      estimateCost(*S, M);
      auto T2 = Clock::now();
      if (llvm::Error E = verify(*S, M)) {
        llvm::errs() << "bench-star: " << llvm::toString(std::move(E)) << "\n";
        std::exit(1);
      }
      auto T3 = Clock::now();
      Cpu.push_back(cpuSeconds() - C0);
      Build.push_back(seconds(T0, T1));
      Cost.push_back(seconds(T1, T2));
      Verify.push_back(seconds(T2, T3));
      Total.push_back(seconds(T0, T3));
    }
    struct rusage U;
    getrusage(RUSAGE_SELF, &U);
    char Line[240];
    snprintf(Line, sizeof(Line),
             "| %-7s | %9lld | %-12s | %9.2f | %8.2f | %10.2f | %9.2f | %13.2f "
             "| %13.0f |\n",
             G.title().c_str(), static_cast<long long>(G.nodes()), Alg,
             median(Build), median(Cost), median(Verify), median(Total),
             median(Cpu), U.ru_maxrss / 1024.0);
    llvm::outs() << Line;
    llvm::outs().flush();
  }
}

} // namespace

int main(int argc, char **argv) {
  bool Table = false, Time = false;
  int Runs = 3;
  int64_t GreedyMax = 362880;
  if (!readOptions(argc, argv,
                   {{"--table", &Table},
                    {"--time", &Time},
                    {"--runs", &Runs},
                    {"--greedy-max", &GreedyMax}},
                   "bench-star [--table] [--time] [--runs N] "
                   "[--greedy-max NODES]"))
    return 1;
  Runs = std::max(1, Runs);
  if (!Table && !Time)
    Table = Time = true;
  if (Table)
    table(GreedyMax);
  if (Time) {
    if (Table)
      llvm::outs() << "\n";
    timing(Runs);
  }
  return 0;
}
