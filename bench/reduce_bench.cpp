//===- reduce_bench: allreduce laid onto the topology
//----------------------===//
//
//   build/bin/bench-reduce [torus-16x16|fat-tree-256|cluster-256 ...]
//
// The network evaluator's times (passes/NetworkCost.h, simulated µs) of
// every allreduce builder and of auto's choice, 256 ranks, sum of int32, at
// 4 B, 1 KiB, 64 KiB and 1 MiB on the bundled SimGrid platforms, under both
// posting rules: StepByStep (the runtime today) and AsDataArrives (receives
// posted ahead, sends as their data arrives). auto chooses under
// StepByStep; its row re-times that choice under AsDataArrives. Also the
// wall time of auto's choice (build, cost and verify of every candidate).
//
//===----------------------------------------------------------------------===//

#include "algorithms/Registry.h"
#include "algorithms/TopologyReductions.h"
#include "bench/Inputs.h"
#include "compiler/Driver.h"
#include "passes/NetworkCost.h"
#include "tests/network/Platforms.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <numeric>

using namespace collc;
using namespace collc::bench;

namespace {

/// An allreduce of \p Bytes on 256 ranks by \p Alg, or why \p M refuses it.
llvm::Expected<Request> allreduce(const Machine &M, uint64_t Bytes,
                                  const char *Alg) {
  return makeRequest(onFirstNodes(Collective::Allreduce, 256, Bytes, Alg), M);
}

/// "  123.4  98.7" (StepByStep, AsDataArrives) or a dash when it declines.
std::string times(const Machine &M, llvm::Expected<Request> R,
                  std::string *Name, double *Secs) {
  auto T0 = std::chrono::steady_clock::now();
  auto S = R ? compile(M, *R) : llvm::Expected<Schedule>(R.takeError());
  if (Secs)
    *Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
                .count();
  if (!S) {
    llvm::consumeError(S.takeError());
    return "        -         -";
  }
  if (Name)
    *Name = S->Algorithm;
  const double Step = S->Makespan;
  NetworkCostOptions O;
  O.Posting = PostingRule::AsDataArrives;
  estimateNetworkCost(*S, M, O);
  char Text[64];
  std::snprintf(Text, sizeof Text, "%9.1f %9.1f", Step, S->Makespan);
  return Text;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Names;
  for (int I = 1; I < Argc; ++I)
    Names.push_back(Argv[I]);
  if (Names.empty())
    Names = {"torus-16x16", "fat-tree-256"};
  const char *Algs[] = {"binomial", "reduce-scatter-allgather",
                        "nearest-halving", "nearest-doubling",
                        "dimension-rings"};
  for (const std::string &Name : Names) {
    std::optional<Machine> M = test::smpiPlatform(Name);
    if (!M) {
      llvm::errs() << "bench-reduce: no platform " << Name << "\n";
      return 1;
    }
    llvm::outs() << Name
                 << ": allreduce, 256 ranks, sum int32; evaluator µs, "
                    "StepByStep / AsDataArrives\n";
    llvm::outs() << llvm::format("%-26s",
                                 static_cast<const char *>("algorithm"));
    for (const char *B : {"4 B", "1 KiB", "64 KiB", "1 MiB"})
      llvm::outs() << llvm::format("%19s", B);
    llvm::outs() << "\n";
    const uint64_t Sizes[] = {4, 1024, 65536, 1048576};
    for (const char *A : Algs) {
      llvm::outs() << llvm::format("%-26s", A);
      for (uint64_t B : Sizes)
        llvm::outs() << " " << times(*M, allreduce(*M, B, A), nullptr, nullptr);
      llvm::outs() << "\n";
    }
    // dimension-rings per cut: lanes = directions x orders.
    for (auto [D, O] : {std::pair<int, int>{1, 1}, {2, 1}, {2, 2}}) {
      llvm::outs() << llvm::format(
          "  %d dir x %d order%s      ", D, O,
          static_cast<const char *>(O > 1 ? "s" : " "));
      for (uint64_t B : Sizes) {
        auto R = allreduce(*M, B, "dimension-rings");
        auto S = R ? buildDimensionRingsCut(*M, *R, D, O)
                   : llvm::Expected<Schedule>(R.takeError());
        if (!S) {
          llvm::consumeError(S.takeError());
          llvm::outs() << "         -         -";
          continue;
        }
        estimateNetworkCost(*S, *M);
        const double Step = S->Makespan;
        NetworkCostOptions Opt;
        Opt.Posting = PostingRule::AsDataArrives;
        estimateNetworkCost(*S, *M, Opt);
        llvm::outs() << llvm::format(" %9.1f %9.1f", Step, S->Makespan);
      }
      llvm::outs() << "\n";
    }
    std::string Chosen[4];
    double Secs[4];
    llvm::outs() << llvm::format("%-26s", static_cast<const char *>("auto"));
    for (int I = 0; I < 4; ++I)
      llvm::outs() << " "
                   << times(*M, allreduce(*M, Sizes[I], "auto"), &Chosen[I],
                            &Secs[I]);
    llvm::outs() << "\nauto's choice (wall s):  ";
    for (int I = 0; I < 4; ++I)
      llvm::outs() << llvm::format(" %s (%.2f)", Chosen[I].c_str(), Secs[I]);
    llvm::outs() << "\n\n";
  }
  return 0;
}
