//===- verify_bench: the verifier on runs against the atom-exact one ------===//
//
//   build/bin/bench-verify [max ranks, default 65536]
//
// CPU time of the process (median of 3, seconds; CPU rather than wall time
// because on a shared host the wall time varies several-fold) of
// verifySchedule on the schedules of
// reduction and replicated-data builders, followed atom by atom
// (VerifyOptions::Tracking::Atoms, within VerifyLimits) and as runs
// (Tracking::Runs), at 256 to 65,536 ranks on a parameterized machine
// (t_hold 10, t_end 20, 0.01 and 0.02 per byte), 1 MiB of int32. A dash: the
// builder declines that size (its reason is printed below the table), or the
// atom verifier refuses it (beyond its limits). Both verifiers must find the
// schedule correct; the bench stops if one does not.
//
// Last, a reduce-scatter by recursive halving and an allgather by recursive
// doubling written out here, P chunks, at 4,096 to 65,536 ranks: the shape
// of the bandwidth-optimal allreduce at sizes its builders still decline
// (they cap ranks x segments), so that the verifier's own scaling is
// measured there. Untimed (no cost pass): the data flow alone.
//
//===----------------------------------------------------------------------===//

#include "algorithms/Registry.h"
#include "bench/Inputs.h"
#include "bench/Timing.h"
#include "compiler/Driver.h"
#include "passes/Verify.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace collc;

namespace {

struct Row {
  Collective Coll;
  const char *Algorithm;
  /// Beyond this the schedule itself does not fit (a ring's P^2 transfers).
  int32_t MaxRanks = 1 << 20;
};

const Row Rows[] = {
    {Collective::Allreduce, "reduce-scatter-allgather"},
    {Collective::Allreduce, "nearest-halving"},
    {Collective::Allreduce, "nearest-doubling"},
    {Collective::Allreduce, "binomial"},
    {Collective::Reduce, "binomial"},
    {Collective::Scan, "brent-kung"},
    {Collective::Exscan, "brent-kung"},
    {Collective::Bcast, "binomial"},
    {Collective::Bcast, "scatter-allgather", 1024},
    {Collective::Allgather, "bruck"},
    {Collective::Allgather, "ring", 256},
};

double cpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}

/// Median CPU seconds of three verifications, or a negative number when the
/// verifier reports problems (the first one in \p Problem).
double timeVerify(const Schedule &S, const Machine &M,
                  VerifyOptions::Tracking T, std::string &Problem) {
  VerifyOptions O;
  O.Flow = T;
  std::vector<double> Times;
  for (int I = 0; I < 3; ++I) {
    const double T0 = cpuSeconds();
    std::vector<std::string> Problems = verifySchedule(S, M, O);
    Times.push_back(cpuSeconds() - T0);
    if (!Problems.empty()) {
      Problem = Problems.front();
      return -1;
    }
    if (Times.back() > 20)
      break; // one run is enough to show it
  }
  return bench::median(Times);
}

/// r's lowest \p Bits bits reversed.
int64_t reversed(int64_t R, int Bits) {
  int64_t Out = 0;
  for (int B = 0; B < Bits; ++B)
    Out |= (R >> B & 1) << (Bits - 1 - B);
  return Out;
}

/// The allreduce of \p P = 2^n ranks over P chunks: in reduce-scatter step s
/// rank r and r xor 2^s split their common window of chunks (the block of
/// rev_s(r mod 2^s)), each combining into the half the other keeps, so that
/// the contributors stay one range of ranks and the window one range of
/// chunks; rank r ends with chunk rev_n(r) complete. The allgather copies the
/// windows back in the reverse order.
Schedule halvingDoubling(int32_t P, uint64_t Bytes) {
  int N = 0;
  while ((int64_t(1) << N) < P)
    ++N;
  Schedule S;
  S.Coll = Collective::Allreduce;
  S.Algorithm = "halving-doubling (written out)";
  S.Bytes = Bytes;
  S.NumChunks = P;
  S.Op = "sum";
  S.Datatype = "int32";
  S.Participants.resize(P);
  for (int32_t R = 0; R < P; ++R)
    S.Participants[R].Node = R;
  // Rank r's window before reduce-scatter step s.
  auto Window = [&](int32_t R, int Step) {
    const int64_t Size = int64_t(P) >> Step;
    const int64_t Lo = reversed(R & ((int64_t(1) << Step) - 1), Step) * Size;
    return Interval{Lo, Lo + Size};
  };
  auto Send = [&](int32_t R, int32_t Q, TransferKind Kind, Interval Origins,
                  Interval Chunks) {
    Transfer T;
    T.Src = R;
    T.Dst = Q;
    T.Kind = Kind;
    T.Bytes = S.chunkBytes(Chunks);
    T.Pieces = {{Origins, {0, P}, Chunks}};
    return T;
  };
  for (int St = 0; St < N; ++St) {
    Step &Out = S.Steps.emplace_back();
    const int64_t D = int64_t(1) << St;
    for (int32_t R = 0; R < P; ++R) {
      const Interval W = Window(R, St);
      const int64_t Half = W.size() / 2;
      // r keeps the lower half when its bit s is 0: it sends the other.
      const Interval Sent = (R >> St & 1) ? Interval{W.Lo, W.Lo + Half}
                                          : Interval{W.Lo + Half, W.Hi};
      const int64_t Block = R & ~(D - 1);
      Out.Transfers.push_back(Send(R, static_cast<int32_t>(R ^ D),
                                   TransferKind::Combine, {Block, Block + D},
                                   Sent));
    }
  }
  for (int St = N - 1; St >= 0; --St) {
    Step &Out = S.Steps.emplace_back();
    for (int32_t R = 0; R < P; ++R)
      Out.Transfers.push_back(Send(R, static_cast<int32_t>(R ^ (1 << St)),
                                   TransferKind::Copy, {0, P},
                                   Window(R, St + 1)));
  }
  return S;
}

} // namespace

int main(int Argc, char **Argv) {
  const int32_t MaxP = Argc > 1 ? std::atoi(Argv[1]) : 65536;
  Machine M;
  M.Name = "bench";
  M.M.Kind = ModelKind::Parameterized;
  M.M.Parameterized = {{10, 0.01}, {20, 0.02}};
  const uint64_t Bytes = 1 << 20;
  std::vector<std::string> Notes;
  const char *const Format = "%-10s %-26s %7s %7s %10s %10s %10s %10s\n";
  using Text = const char *;
  llvm::outs() << llvm::format(Format, Text("collective"), Text("algorithm"),
                               Text("ranks"), Text("chunks"), Text("transfers"),
                               Text("atoms s"), Text("runs s"),
                               Text("atoms/runs"));
  bool Failed = false;
  // Times both verifiers on S and prints its row.
  auto Measure = [&](const Schedule &S, const std::string &Name) {
    std::string AtomProblem, RunProblem;
    const double Runs =
        timeVerify(S, M, VerifyOptions::Tracking::Runs, RunProblem);
    const double Atoms =
        timeVerify(S, M, VerifyOptions::Tracking::Atoms, AtomProblem);
    if (Runs < 0) {
      llvm::errs() << Name << " at " << S.size()
                   << " ranks, runs: " << RunProblem << "\n";
      Failed = true;
    }
    if (Atoms < 0)
      Notes.push_back(Name + " at " + std::to_string(S.size()) +
                      " ranks, atoms: " + AtomProblem);
    auto Fixed = [](double T, const char *Spec) {
      char Buf[64];
      std::snprintf(Buf, sizeof Buf, Spec, T);
      return std::string(Buf);
    };
    const std::string Ratio =
        Atoms < 0 || Runs <= 0 ? "-" : Fixed(Atoms / Runs, "%.1fx");
    llvm::outs() << llvm::format(
        Format, collectiveName(S.Coll), Name.c_str(),
        std::to_string(S.size()).c_str(), std::to_string(S.NumChunks).c_str(),
        std::to_string(S.numTransfers()).c_str(),
        Atoms < 0 ? "-" : Fixed(Atoms, "%.3f").c_str(),
        Runs < 0 ? "-" : Fixed(Runs, "%.3f").c_str(), Ratio.c_str());
    llvm::outs().flush();
  };
  for (const Row &Rw : Rows)
    for (int32_t P = 256; P <= std::min(MaxP, Rw.MaxRanks); P *= 4) {
      auto R =
          makeRequest(bench::onFirstNodes(Rw.Coll, P, Bytes, Rw.Algorithm), M);
      auto S = R ? buildAndCost(M, *R, Rw.Algorithm)
                 : llvm::Expected<Schedule>(R.takeError());
      if (!S) {
        Notes.push_back(std::string(collectiveName(Rw.Coll)) + " " +
                        Rw.Algorithm + " at " + std::to_string(P) +
                        " ranks: " + llvm::toString(S.takeError()));
        continue;
      }
      Measure(*S, Rw.Algorithm);
    }
  for (int32_t P = 4096; P <= MaxP; P *= 4)
    Measure(halvingDoubling(P, Bytes), "halving-doubling (here)");
  for (const std::string &N : Notes)
    llvm::outs() << "  " << N << "\n";
  return Failed ? 1 : 0;
}
