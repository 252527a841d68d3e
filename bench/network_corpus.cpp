//===- network_corpus: the network evaluator's results on a corpus --------===//
//
//   build/bin/bench-network-corpus record FILE [options]
//   build/bin/bench-network-corpus compare FILE [options]
//
// A regression check for passes/NetworkCost: builds every algorithm of
// bcast, allreduce, allgather, alltoall, reduce, gather, scatter, scan and
// barrier (as `--algorithm NAME` builds it, root 0; reductions sum int32)
// on every platform of examples/platforms/ at 16, 64 and 256 ranks and 1 B
// (4 B for reductions), 1 KiB, 64 KiB and 1 MiB (barrier: 0 B), where the
// platform has the nodes and the algorithm applies, and times each under
// both posting rules. `record` writes every transfer's Start and End and the
// makespan to FILE; `compare` rebuilds and re-times the corpus and compares
// with FILE: a case is "same" when every time is bit for bit equal, else the
// largest relative difference is printed. Exit status 1 when a case differs
// by more than --tolerance (relative), is missing, or has another transfer
// count. Builders that search with the evaluator (segments, trees) are part
// of the check: a changed evaluator that picks other segments shows as a
// changed schedule.
//
// Options: --platforms DIR (examples/platforms), --ranks 16,64,256,
// --only SUBSTRING (cases whose key contains it), --tolerance 0.
//
//===----------------------------------------------------------------------===//

#include "algorithms/Registry.h"
#include "bench/Inputs.h"
#include "ir/InputFile.h"
#include "passes/NetworkCost.h"
#include "readers/MachineSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

using namespace collc;
using namespace collc::bench;
using namespace llvm;

namespace {

cl::opt<std::string> Mode(cl::Positional, cl::Required,
                          cl::desc("record|compare"));
cl::opt<std::string> File(cl::Positional, cl::Required, cl::desc("FILE"));
cl::opt<std::string> PlatformDir("platforms", cl::init("examples/platforms"),
                                 cl::desc("directory of platform files"));
cl::list<int32_t> RankList("ranks", cl::CommaSeparated,
                           cl::desc("rank counts (16,64,256)"));
cl::opt<std::string> Only("only", cl::init(""),
                          cl::desc("cases whose key contains this"));
cl::opt<double> Tolerance("tolerance", cl::init(0.0),
                          cl::desc("largest relative difference accepted"));

/// One timed case: every transfer's Start and End, then the makespan.
using Times = std::vector<double>;

void writeCase(raw_ostream &OS, StringRef Key, const Times &T) {
  const uint32_t Len = uint32_t(Key.size());
  const uint64_t N = T.size();
  OS.write(reinterpret_cast<const char *>(&Len), sizeof Len);
  OS << Key;
  OS.write(reinterpret_cast<const char *>(&N), sizeof N);
  OS.write(reinterpret_cast<const char *>(T.data()), N * sizeof(double));
}

Expected<std::map<std::string, Times>> readCases(StringRef Path) {
  auto Buf = readInputFile(Path);
  if (!Buf)
    return Buf.takeError();
  std::map<std::string, Times> Cases;
  StringRef Data = (*Buf)->getBuffer();
  auto Take = [&](void *To, size_t N) {
    if (Data.size() < N)
      return false;
    std::memcpy(To, Data.data(), N);
    Data = Data.drop_front(N);
    return true;
  };
  while (!Data.empty()) {
    uint32_t Len = 0;
    uint64_t N = 0;
    std::string Key;
    if (!Take(&Len, sizeof Len) || Data.size() < Len)
      return createStringError(inconvertibleErrorCode(), "%s: error: truncated",
                               Path.str().c_str());
    Key = Data.take_front(Len).str();
    Data = Data.drop_front(Len);
    if (!Take(&N, sizeof N) || N > Data.size() / sizeof(double))
      return createStringError(inconvertibleErrorCode(), "%s: error: truncated",
                               Path.str().c_str());
    Times T(N);
    Take(T.data(), N * sizeof(double));
    Cases[Key] = std::move(T);
  }
  return Cases;
}

/// The largest relative difference between two times (0 when both are
/// equal, infinite ones included).
double relDiff(double A, double B) {
  if (A == B || (std::isnan(A) && std::isnan(B)))
    return 0;
  if (!std::isfinite(A) || !std::isfinite(B))
    return INFINITY;
  return std::fabs(A - B) / std::max({std::fabs(A), std::fabs(B), 1e-300});
}

/// \p C on ranks 0..Ranks-1 of \p M; reductions sum at least one int32.
Request request(const Machine &M, Collective C, int32_t Ranks, uint64_t Bytes) {
  return mustRequest(
      onFirstNodes(C, Ranks,
                   isReduction(C) ? std::max<uint64_t>(Bytes, 4) : Bytes),
      M);
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "the network evaluator's corpus\n");
  const bool Record = Mode == "record";
  if (!Record && Mode != "compare") {
    errs() << "bench-network-corpus: error: expected record or compare, not '"
           << Mode << "'\n";
    return 1;
  }
  std::map<std::string, Times> Base;
  std::unique_ptr<raw_fd_ostream> Out;
  if (Record) {
    std::error_code EC;
    Out = std::make_unique<raw_fd_ostream>(File, EC);
    if (EC) {
      errs() << "bench-network-corpus: error: cannot write " << File << "\n";
      return 1;
    }
  } else {
    auto B = readCases(File);
    if (!B) {
      errs() << toString(B.takeError()) << "\n";
      return 1;
    }
    Base = std::move(*B);
  }
  std::vector<int32_t> RankCounts(RankList.begin(), RankList.end());
  if (RankCounts.empty())
    RankCounts = {16, 64, 256};

  std::vector<std::string> Platforms;
  std::error_code EC;
  for (sys::fs::directory_iterator It(PlatformDir, EC), End; It != End && !EC;
       It.increment(EC))
    if (StringRef(It->path()).endswith(".xml"))
      Platforms.push_back(It->path());
  llvm::sort(Platforms);
  if (Platforms.empty()) {
    errs() << "bench-network-corpus: error: no platform files in "
           << PlatformDir << "\n";
    return 1;
  }

  const Collective Colls[] = {
      Collective::Bcast,    Collective::Allreduce, Collective::Allgather,
      Collective::Alltoall, Collective::Reduce,    Collective::Gather,
      Collective::Scatter,  Collective::Scan,      Collective::Barrier};
  const uint64_t Sizes[] = {1, 1024, 65536, 1048576};
  uint64_t Cases = 0, Same = 0, Close = 0, Failed = 0;
  double Worst = 0, EvalSeconds = 0;
  std::map<std::string, bool> Seen;
  outs() << "case                                                      "
            "transfers      makespan   eval s  result\n";
  for (const std::string &Path : Platforms) {
    Expected<Machine> M = loadMachine(Path);
    if (!M) {
      errs() << "bench-network-corpus: error: " << toString(M.takeError())
             << "\n";
      return 1;
    }
    if (!M->Net)
      continue;
    const std::string Platform = sys::path::stem(Path).str();
    for (int32_t P : RankCounts) {
      if (P > M->Topo.Nodes * M->Net->ProcsPerNode)
        continue;
      for (Collective C : Colls)
        for (uint64_t Bytes : Sizes) {
          if (C == Collective::Barrier && Bytes != Sizes[0])
            continue;
          Request R = request(*M, C, P, C == Collective::Barrier ? 0 : Bytes);
          std::map<std::string, bool> Names;
          for (const AlgorithmInfo &A : algorithms()) {
            if (!A.supports(C) || Names.count(A.Name))
              continue;
            Names[A.Name] = true;
            R.Algorithm = A.Name;
            const std::string Base0 = Platform + "/" + collectiveName(C) + "/" +
                                      A.Name + "/P" + std::to_string(P) + "/" +
                                      std::to_string(R.Bytes);
            if (!Only.empty() && Base0.find(Only) == std::string::npos)
              continue;
            auto Info = lookupAlgorithm(A.Name, *M, R);
            if (!Info) {
              consumeError(Info.takeError());
              continue;
            }
            auto S = (*Info)->Build(*M, R);
            if (!S) {
              consumeError(S.takeError());
              continue;
            }
            for (PostingRule Rule :
                 {PostingRule::AsDataArrives, PostingRule::StepByStep}) {
              const std::string Key =
                  Base0 +
                  (Rule == PostingRule::AsDataArrives ? "/arrives" : "/steps");
              Schedule T = *S;
              auto T0 = std::chrono::steady_clock::now();
              estimateNetworkCost(T, *M, {Rule});
              const double Secs = std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - T0)
                                      .count();
              EvalSeconds += Secs;
              Times Got;
              Got.reserve(2 * T.numTransfers() + 1);
              for (const Step &St : T.Steps)
                for (const Transfer &Tr : St.Transfers) {
                  Got.push_back(Tr.Start);
                  Got.push_back(Tr.End);
                }
              Got.push_back(T.Makespan);
              ++Cases;
              outs() << format("%-56s %9llu %13.6f %8.3f  ", Key.c_str(),
                               (unsigned long long)T.numTransfers(), T.Makespan,
                               Secs);
              if (Record) {
                writeCase(*Out, Key, Got);
                outs() << "recorded\n";
                continue;
              }
              Seen[Key] = true;
              auto It = Base.find(Key);
              if (It == Base.end() || It->second.size() != Got.size()) {
                ++Failed;
                outs() << (It == Base.end() ? "NOT RECORDED\n"
                                            : "OTHER TRANSFERS\n");
                continue;
              }
              double D = 0;
              for (size_t I = 0; I < Got.size(); ++I)
                D = std::max(D, relDiff(Got[I], It->second[I]));
              Worst = std::max(Worst, D);
              if (D == 0) {
                ++Same;
                outs() << "same\n";
              } else if (D <= Tolerance) {
                ++Close;
                outs() << format("within %.3g\n", D);
              } else {
                ++Failed;
                outs() << format("DIFFERS by %.3g\n", D);
              }
            }
          }
        }
    }
  }
  if (!Record)
    for (const auto &[Key, T] : Base)
      if (!Seen.count(Key) &&
          (Only.empty() || Key.find(Only) != std::string::npos)) {
        ++Failed;
        outs() << Key << ": recorded but not built now\n";
      }
  outs() << format("%llu cases, evaluator %.1f s", (unsigned long long)Cases,
                   EvalSeconds);
  if (!Record)
    outs() << format("; %llu bit for bit, %llu within tolerance, %llu "
                     "failed; largest relative difference %.3g",
                     (unsigned long long)Same, (unsigned long long)Close,
                     (unsigned long long)Failed, Worst);
  outs() << "\n";
  return Failed ? 1 : 0;
}
