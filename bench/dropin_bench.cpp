// The drop-in library's first call of a kind: what the engine
// (dropin/Engine.h) spends building, verifying and lowering a schedule for
// 256 ranks, per collective and size, on machines of each kind of cost judge
// (a model; a network, judged by the flow-level evaluator), and the cache's
// memory once every kind measured is in it. Each figure is the median of
// three first calls by fresh engines (the first call of a kind in a
// process): built (build + verify + lower), and read from a warm cache file
// (COLLC_CACHE: a later run, or another rank of the node). Wall time, and
// the process's CPU time of the build (what it costs on a machine shared
// with other work).
//
//   bench-dropin [machine...]   (default: the bundled 16x16 torus model and
//                                256-node cluster with a network)
#include "dropin/Engine.h"

#include "bench/Timing.h"

#include "readers/MachineSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <ctime>
#include <numeric>
#include <string>
#include <vector>

using namespace collc;
using namespace collc::dropin;

int main(int argc, char **argv) {
  std::vector<std::string> Paths;
  for (int I = 1; I < argc; ++I)
    Paths.push_back(argv[I]);
  if (Paths.empty())
    Paths = {COLLC_SOURCE_DIR "/examples/machines/torus-16x16.yaml",
             COLLC_SOURCE_DIR "/examples/machines/cluster-256-net.yaml"};
  const int Ranks = 256, Repeats = 3;
  const int Colls[] = {rt::Bcast,    rt::Reduce, rt::Allreduce, rt::Scan,
                       rt::Exscan,   rt::Gather, rt::Scatter,   rt::Allgather,
                       rt::Alltoall, rt::Barrier};
  const uint64_t Sizes[] = {8, 65536, 1048576};
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory("collc-bench-dropin", Dir)) {
    llvm::errs() << "bench-dropin: cannot make a cache directory\n";
    return 1;
  }
  Config Cached;
  Cached.CacheDir = std::string(Dir);
  llvm::outs() << "first call of a kind on " << Ranks << " ranks (median of "
               << Repeats
               << "), auto policy: built (build + verify + lower) and read "
                  "from a cache file\n\n";
  const char *Head[] = {"machine",  "collective", "bytes",   "algorithm",
                        "built ms", "(CPU ms)",   "file ms", "table KiB"};
  llvm::outs() << llvm::format("%-18s %-10s %9s %-26s %10s %10s %10s %10s\n",
                               Head[0], Head[1], Head[2], Head[3], Head[4],
                               Head[5], Head[6], Head[7]);
  for (const std::string &Path : Paths) {
    llvm::Expected<Machine> M = loadMachine(Path);
    if (!M) {
      llvm::errs() << "bench-dropin: " << llvm::toString(M.takeError()) << "\n";
      return 1;
    }
    std::vector<int64_t> World(Ranks);
    // The whole machine, and the cache that keeps every kind measured.
    Engine Kept(*M, Config{});
    for (int64_t R = 0; R < Ranks; ++R) {
      llvm::Expected<int64_t> N = Kept.nodeOfWorldRank(R, Ranks);
      if (!N) {
        llvm::errs() << "bench-dropin: " << llvm::toString(N.takeError())
                     << "\n";
        return 1;
      }
      World[R] = *N;
    }
    const int32_t KeptLayout = Kept.layout(World);
    double Worst = 0, WorstFile = 0;
    for (int C : Colls)
      for (uint64_t B : Sizes) {
        if (C == rt::Barrier && B != Sizes[0])
          continue;
        Key K;
        K.Coll = C;
        K.Root = 0;
        K.Band = C == rt::Barrier ? 0 : powerOfTwoBand(B);
        std::vector<double> Times, Cpu;
        std::string Algo, Error;
        uint64_t TableBytes = 0;
        for (int Rep = 0; Rep < Repeats; ++Rep) {
          Engine E(*M, Config{});
          K.Layout = E.layout(World);
          auto T0 = bench::Clock::now();
          std::clock_t C0 = std::clock();
          const Entry &En = E.get(K);
          Cpu.push_back(static_cast<double>(std::clock() - C0) /
                        CLOCKS_PER_SEC);
          Times.push_back(bench::seconds(T0, bench::Clock::now()));
          Algo = En.Algorithm;
          Error = En.Error;
          TableBytes = En.Tables.RankOps.size() * sizeof(int64_t) +
                       En.Tables.Ops.size() * sizeof(rt::Op) +
                       En.Tables.Segs.size() * sizeof(rt::Seg);
        }
        K.Layout = KeptLayout;
        Kept.get(K);
        // The cache file: one engine writes it, fresh ones read it.
        std::vector<double> FileTimes;
        for (int Rep = 0; Rep <= Repeats; ++Rep) {
          Engine E(*M, Cached, 1);
          K.Layout = E.layout(World);
          auto T0 = bench::Clock::now();
          const Entry &En = E.get(K);
          double T = bench::seconds(T0, bench::Clock::now());
          if (Rep > 0 && En.FromFile)
            FileTimes.push_back(T);
        }
        double Ms = bench::median(Times) * 1e3,
               CpuMs = bench::median(Cpu) * 1e3;
        double FileMs = bench::median(FileTimes) * 1e3;
        Worst = std::max(Worst, Ms);
        WorstFile = std::max(WorstFile, FileMs);
        llvm::outs() << llvm::format(
            "%-18s %-10s %9llu %-26s %10.2f %10.2f %10.3f %10.1f\n",
            M->Name.c_str(), rt::collName(C),
            (unsigned long long)(C == rt::Barrier ? 0 : B),
            Error.empty() ? Algo.c_str() : "(none)", Ms, CpuMs, FileMs,
            TableBytes / 1024.0);
        if (!Error.empty())
          llvm::outs() << "  " << Error << "\n";
      }
    llvm::outs() << llvm::format(
        "%-18s cache: %zu kinds, %.1f KiB per process; slowest first call "
        "%.2f ms built, %.3f ms from a cache file\n\n",
        M->Name.c_str(), Kept.size(), Kept.memoryBytes() / 1024.0, Worst,
        WorstFile);
  }
  llvm::sys::fs::remove_directories(Dir);
  return 0;
}
