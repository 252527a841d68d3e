//===- collc-handbuilt: schedules of every collective, built by hand ------===//
//
// Until every collective has a builder, the MPI backend is tested on these:
// classic algorithms written directly in the IR, checked by the verifier,
// written as JSON for `collc --schedule`.
//
//   collc-handbuilt <ranks> <root> <dir>
//
// writes <dir>/<collective>-<algorithm>.json for: bcast (chunked pipeline on
// a chain), reduce (binomial, order-preserving), allreduce (ring
// reduce-scatter + allgather over P chunks, commutative), scan (linear),
// gather and scatter (binomial around the root), allgather (ring), alltoall
// (direct pairwise, and relayed through the next rank), barrier
// (dissemination).
//
//===----------------------------------------------------------------------===//

#include "ir/ScheduleJson.h"
#include "passes/Verify.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace collc;

namespace {

int32_t P, Root;

Schedule skeleton(Collective C, const char *Algorithm, uint64_t Bytes,
                  int64_t Chunks = 1) {
  Schedule S;
  S.Coll = C;
  S.Algorithm = Algorithm;
  S.MachineName = "handbuilt";
  S.Bytes = Bytes;
  S.Root = Root;
  S.NumChunks = Chunks;
  for (int32_t R = 0; R < P; ++R)
    S.Participants.push_back({R});
  return S;
}

Transfer xfer(const Schedule &S, int32_t Src, int32_t Dst, TransferKind K,
              std::vector<Piece> Pieces) {
  Transfer T;
  T.Src = Src;
  T.Dst = Dst;
  T.Kind = K;
  bool Reduction = S.Coll == Collective::Reduce ||
                   S.Coll == Collective::Allreduce ||
                   S.Coll == Collective::Scan;
  for (size_t I = 0; I < Pieces.size(); ++I) {
    const Piece &Pc = Pieces[I];
    uint64_t N = S.chunkBytes(Pc.Chunks);
    if (S.Coll == Collective::Gather || S.Coll == Collective::Scatter ||
        S.Coll == Collective::Alltoall)
      N *= Pc.Origins.size() * Pc.Dests.size();
    else if (S.Coll == Collective::Allgather || S.Coll == Collective::Bcast)
      N *= Pc.Origins.size();
    // A reduction carries one partial result per chunk, however many
    // origin ranges it folds: pieces of one chunk count once.
    if (Reduction && I > 0 && Pieces[I - 1].Chunks.Lo == Pc.Chunks.Lo &&
        Pieces[I - 1].Chunks.Hi == Pc.Chunks.Hi)
      N = 0;
    T.Bytes += N;
  }
  T.Pieces.assign(Pieces.begin(), Pieces.end());
  return T;
}

void add(Schedule &S, size_t Step, Transfer T) {
  if (S.Steps.size() <= Step)
    S.Steps.resize(Step + 1);
  S.Steps[Step].Transfers.push_back(std::move(T));
}

int32_t real(int64_t V) { return static_cast<int32_t>((V + Root) % P); }

/// Real-rank intervals of virtual ranks [A, B) (rank = (v + root) mod P).
std::vector<Interval> realRanges(int64_t A, int64_t B) {
  std::vector<Interval> Out;
  int64_t Lo = (A + Root) % P, Len = B - A;
  if (Lo + Len <= P)
    Out.push_back({Lo, Lo + Len});
  else {
    Out.push_back({Lo, P});
    Out.push_back({0, Lo + Len - P});
  }
  return Out;
}

Schedule bcastPipeline() {
  const int64_t K = 4;
  Schedule S = skeleton(Collective::Bcast, "hand-pipeline", 1000, K);
  // Chain root, root+1, ...; chunk c leaves virtual rank v in step v + c.
  for (int64_t V = 0; V + 1 < P; ++V)
    for (int64_t C = 0; C < K; ++C)
      add(S, V + C,
          xfer(S, real(V), real(V + 1), TransferKind::Copy,
               {{{Root, Root + 1}, {0, P}, {C, C + 1}}}));
  return S;
}

Schedule reduceBinomial() {
  Schedule S = skeleton(Collective::Reduce, "hand-binomial", 4000);
  S.Op = "sum";
  S.Datatype = "int32";
  S.Commutative = false;
  // Binomial tree over ranks 0..P-1 towards 0: rank i folds [i + d, ...)
  // from rank i + d, adjacent ranges in order; then 0 hands the result to
  // the root.
  size_t Step = 0;
  for (int64_t D = 1; D < P; D *= 2, ++Step)
    for (int64_t I = 0; I + D < P; I += 2 * D)
      add(S, Step,
          xfer(S, I + D, I, TransferKind::Combine,
               {{{I + D, std::min<int64_t>(I + 2 * D, P)}, {0, P}, {0, 1}}}));
  if (Root != 0)
    add(S, Step,
        xfer(S, 0, Root, TransferKind::Copy, {{{0, P}, {0, P}, {0, 1}}}));
  return S;
}

Schedule allreduceRing() {
  Schedule S = skeleton(Collective::Allreduce, "hand-ring", 4 * P * 100, P);
  S.Root = 0;
  S.Op = "sum";
  S.Datatype = "int32";
  // Reduce-scatter: in step s rank r passes chunk (r - s) mod P, folded over
  // ranks r-s..r (mod P), to r+1. Then an allgather of the reduced chunks.
  auto Ring = [&](int64_t Lo, int64_t Len) {
    std::vector<Interval> Out;
    Lo = ((Lo % P) + P) % P;
    if (Lo + Len <= P)
      Out.push_back({Lo, Lo + Len});
    else {
      Out.push_back({Lo, P});
      Out.push_back({0, Lo + Len - P});
    }
    return Out;
  };
  for (int64_t St = 0; St + 1 < P; ++St)
    for (int64_t R = 0; R < P; ++R) {
      int64_t C = ((R - St) % P + P) % P;
      std::vector<Piece> Pcs;
      for (Interval I : Ring(R - St, St + 1))
        Pcs.push_back({I, {0, P}, {C, C + 1}});
      add(S, St, xfer(S, R, (R + 1) % P, TransferKind::Combine, Pcs));
    }
  for (int64_t St = 0; St + 1 < P; ++St)
    for (int64_t R = 0; R < P; ++R) {
      int64_t C = ((R + 1 - St) % P + P) % P;
      add(S, P - 1 + St,
          xfer(S, R, (R + 1) % P, TransferKind::Copy,
               {{{0, P}, {0, P}, {C, C + 1}}}));
    }
  return S;
}

Schedule scanLinear() {
  Schedule S = skeleton(Collective::Scan, "hand-linear", 4000);
  S.Root = 0;
  S.Op = "sum";
  S.Datatype = "int32";
  S.Commutative = false;
  for (int64_t R = 0; R + 1 < P; ++R)
    add(S, R,
        xfer(S, R, R + 1, TransferKind::Combine,
             {{{0, R + 1}, {0, P}, {0, 1}}}));
  return S;
}

/// Binomial gather (or, reversed, scatter) around the root in virtual ranks.
Schedule gatherBinomial(bool Scatter) {
  Schedule S = skeleton(Scatter ? Collective::Scatter : Collective::Gather,
                        "hand-binomial", 1000);
  std::vector<std::pair<int64_t, Transfer>> Ts;
  int64_t Rounds = 0;
  for (int64_t D = 1; D < P; D *= 2)
    ++Rounds;
  int64_t Round = 0;
  for (int64_t D = 1; D < P; D *= 2, ++Round)
    for (int64_t V = 0; V + D < P; V += 2 * D) {
      // Virtual rank V + D holds the blocks of [V + D, V + 2D).
      std::vector<Piece> Pcs;
      for (Interval I : realRanges(V + D, std::min<int64_t>(V + 2 * D, P)))
        Pcs.push_back(Scatter ? Piece{{Root, Root + 1}, I, {0, 1}}
                              : Piece{I, {Root, Root + 1}, {0, 1}});
      if (Scatter)
        add(S, Rounds - 1 - Round,
            xfer(S, real(V), real(V + D), TransferKind::Copy, Pcs));
      else
        add(S, Round, xfer(S, real(V + D), real(V), TransferKind::Copy, Pcs));
    }
  return S;
}

Schedule allgatherRing() {
  Schedule S = skeleton(Collective::Allgather, "hand-ring", 1000);
  S.Root = 0;
  for (int64_t St = 0; St + 1 < P; ++St)
    for (int64_t R = 0; R < P; ++R) {
      int64_t O = ((R - St) % P + P) % P;
      add(S, St,
          xfer(S, R, (R + 1) % P, TransferKind::Copy,
               {{{O, O + 1}, {0, P}, {0, 1}}}));
    }
  return S;
}

Schedule alltoallDirect() {
  Schedule S = skeleton(Collective::Alltoall, "hand-direct", 1000);
  S.Root = 0;
  for (int64_t St = 1; St < P; ++St)
    for (int64_t R = 0; R < P; ++R) {
      int64_t D = (R + St) % P;
      add(S, St - 1,
          xfer(S, R, D, TransferKind::Copy,
               {{{R, R + 1}, {D, D + 1}, {0, 1}}}));
    }
  return S;
}

/// Every block M[o][d] with d != o+1 travels through rank o+1 (scratch on
/// the relay, multi-piece messages).
Schedule alltoallRelay() {
  Schedule S = skeleton(Collective::Alltoall, "hand-relay", 1000);
  S.Root = 0;
  if (P < 2)
    return S;
  for (int64_t O = 0; O < P; ++O) {
    int64_t M = (O + 1) % P;
    std::vector<Piece> Pcs;
    for (int64_t D = 0; D < P; ++D)
      if (D != O)
        Pcs.push_back({{O, O + 1}, {D, D + 1}, {0, 1}});
    add(S, 0, xfer(S, O, M, TransferKind::Copy, Pcs));
  }
  // Relay m = o+1 forwards M[o][d] to d in step d - m (mod P).
  for (int64_t O = 0; O < P; ++O) {
    int64_t M = (O + 1) % P;
    for (int64_t D = 0; D < P; ++D)
      if (D != O && D != M)
        add(S, 1 + ((D - M) % P + P) % P,
            xfer(S, M, D, TransferKind::Copy,
                 {{{O, O + 1}, {D, D + 1}, {0, 1}}}));
  }
  return S;
}

Schedule barrierDissemination() {
  Schedule S = skeleton(Collective::Barrier, "hand-dissemination", 0);
  S.Root = 0;
  size_t Step = 0;
  for (int64_t D = 1; D < P; D *= 2, ++Step)
    for (int64_t R = 0; R < P; ++R) {
      Transfer T;
      T.Src = R;
      T.Dst = (R + D) % P;
      T.Kind = TransferKind::Signal;
      add(S, Step, T);
    }
  return S;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    llvm::errs() << "usage: collc-handbuilt <ranks> <root> <dir>\n";
    return 1;
  }
  P = std::atoi(argv[1]);
  Root = std::atoi(argv[2]);
  std::string Dir = argv[3];
  if (P < 1 || Root < 0 || Root >= P) {
    llvm::errs() << "collc-handbuilt: bad ranks or root\n";
    return 1;
  }
  Machine M;
  M.Name = "handbuilt";
  M.Ports = 1u << 30;
  VerifyOptions VO;
  VO.Timing = false;
  std::vector<Schedule> All = {bcastPipeline(), reduceBinomial(),
                               gatherBinomial(false), gatherBinomial(true)};
  if (Root == 0)
    for (Schedule S :
         {allreduceRing(), scanLinear(), allgatherRing(), alltoallDirect(),
          alltoallRelay(), barrierDissemination()})
      All.push_back(std::move(S));
  for (const Schedule &S : All) {
    if (llvm::Error E = verify(S, M, VO)) {
      llvm::errs() << "collc-handbuilt: " << llvm::toString(std::move(E))
                   << "\n";
      return 1;
    }
    std::string Path = Dir + "/" + collectiveName(S.Coll) + "-" + S.Algorithm +
                       "-p" + std::to_string(P) + "-r" + std::to_string(Root) +
                       ".json";
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (EC) {
      llvm::errs() << "collc-handbuilt: " << Path << ": " << EC.message()
                   << "\n";
      return 1;
    }
    writeScheduleJson(OS, S);
  }
  return 0;
}
