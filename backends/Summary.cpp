#include "backends/Emit.h"
#include "ir/Escape.h"
#include "ir/Format.h"
#include "ir/NodeRef.h"
#include "ir/SmpiFactors.h"
#include "passes/Posting.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

namespace collc {

int64_t scheduleDepth(const Schedule &S) {
  std::vector<int64_t> Depth(S.size(), 0);
  int64_t Max = 0;
  for (const Step &St : S.Steps) {
    std::vector<std::pair<int32_t, int64_t>> Arrivals;
    for (const Transfer &T : St.Transfers) {
      int64_t D = Depth[T.Src] + 1;
      Max = std::max(Max, D);
      Arrivals.push_back({T.Dst, D});
    }
    for (auto [R, D] : Arrivals)
      Depth[R] = std::max(Depth[R], D);
  }
  return Max;
}

namespace {

std::string affine(const Affine &A) {
  return formatNumber(A.Base) + " + " + formatNumber(A.PerByte) + " m";
}

std::string modelLine(const Machine &M) {
  const Model &Mo = M.M;
  std::string S = modelKindName(Mo.Kind);
  switch (Mo.Kind) {
  case ModelKind::Parameterized:
    S += ": t_hold = " + affine(Mo.Parameterized.THold) +
         ", t_end = " + affine(Mo.Parameterized.TEnd);
    break;
  case ModelKind::Linear:
    S += ": T_send = " + affine({Mo.Linear.Ts, Mo.Linear.PerByte});
    break;
  case ModelKind::UnitCall:
    S += ": one time unit per call";
    break;
  case ModelKind::Wormhole:
    S += ": s_s " + formatNumber(Mo.Worm.Ss) + ", s_d " +
         formatNumber(Mo.Worm.Sd) + ", c_d " + formatNumber(Mo.Worm.Cd) +
         ", r_s " + formatNumber(Mo.Worm.Rs) + ", r_d " +
         formatNumber(Mo.Worm.Rd);
    break;
  }
  return S;
}

std::string topologyLine(const Topology &T) {
  std::string S = topologyKindName(T.Kind);
  if (!T.Dims.empty() && T.Kind != TopologyKind::Hypercube) {
    S += " ";
    for (size_t I = 0; I < T.Dims.size(); ++I)
      S += (I ? "x" : "") + std::to_string(T.Dims[I]);
  }
  if (T.Nodes)
    S += " (" + std::to_string(T.Nodes) + " nodes)";
  return S;
}

/// "network: 2 link classes, SMPI factors, 4 processes per node (cyclic)".
std::string networkLine(const Network &N) {
  std::string S = "network: " + std::to_string(N.Links.size()) + " link class" +
                  (N.Links.size() == 1 ? "" : "es") + ", ";
  if (isSmpiDefault(N.Bands))
    S += "SMPI factors";
  else if (N.Bands.empty())
    S += "no protocol factors";
  else
    S += std::to_string(N.Bands.size()) + " protocol band" +
         (N.Bands.size() == 1 ? "" : "s");
  if (N.ProcsPerNode > 1)
    S += ", " + std::to_string(N.ProcsPerNode) + " processes per node (" +
         rankPlacementName(N.Placement) + ")";
  return S;
}

/// 1536 -> "1.5 KiB".
std::string formatBytes(uint64_t B) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double V = static_cast<double>(B);
  int U = 0;
  while (V >= 1024 && U < 4) {
    V /= 1024;
    ++U;
  }
  return (U ? formatRounded(std::round(V * 10) / 10) : std::to_string(B)) +
         " " + Units[U];
}

/// "scratch:    peak 1.5 MiB per rank (rank 17), 18 MiB with every block
/// apart": what collc's MPI runtime holds besides the user's buffers.
std::string scratchLine(const Schedule &S) {
  llvm::Expected<ScratchPeak> Peak = peakScratchByRank(S);
  if (!Peak)
    return "not run by the MPI backend (" + toString(Peak.takeError()) + ")";
  std::string L = "peak " + formatBytes(Peak->Bytes) + " per rank (rank " +
                  std::to_string(Peak->Rank) + ")";
  if (Peak->Apart != Peak->Bytes)
    L += ", " + formatBytes(Peak->Apart) + " with every block apart";
  return L;
}

} // namespace

void emitSummary(llvm::raw_ostream &OS, const Schedule &S, const Machine &M) {
  OS << "collective: " << collectiveName(S.Coll) << "\n";
  OS << "algorithm:  " << printableText(S.Algorithm) << "\n";
  OS << "machine:    " << printableText(S.MachineName) << " (" << modelLine(M)
     << "; " << M.Ports << (M.Ports == 1 ? " port" : " ports") << "; "
     << topologyLine(M.Topo) << (M.Net ? "; " + networkLine(*M.Net) : "")
     << ")\n";
  OS << "ranks:      " << S.size() << "\n";
  OS << "root:       " << S.Root << "\n";
  OS << "bytes:      " << S.Bytes;
  if (S.NumChunks > 1)
    OS << " in " << S.NumChunks << " segments";
  OS << "\n";
  if (!S.Op.empty())
    OS << "operator:   " << S.Op << " on " << S.Datatype << "\n";
  OS << "makespan:   " << formatRounded(S.Makespan) << "\n";
  OS << "depth:      " << scheduleDepth(S) << "\n";
  // Complete exchange (paper 004): every step costs each rank one message
  // start-up, so the start-ups on the critical path are the depth.
  if (S.Coll == Collective::Alltoall)
    OS << "start-ups:  " << scheduleDepth(S) << "\n";
  OS << "steps:      " << S.Steps.size() << "\n";
  OS << "transfers:  " << S.numTransfers() << "\n";
  OS << "scratch:    " << scratchLine(S) << "\n\n";

  // Per rank: who it received from (and when it completed), whom it sent to.
  struct Line {
    std::vector<std::pair<int32_t, double>> From, To;
  };
  std::vector<Line> Lines(S.size());
  for (const Step &St : S.Steps)
    for (const Transfer &T : St.Transfers) {
      Lines[T.Src].To.push_back({T.Dst, T.Start});
      Lines[T.Dst].From.push_back({T.Src, T.End});
    }
  bool Coords = M.Topo.hasCoordinates();
  // A barrier has no data and no parent: list whom each rank hears from and
  // when it may leave (its last signal received or sent).
  bool Barrier = S.Coll == Collective::Barrier;
  OS << llvm::format("%6s  %-10s  %-8s  %-10s  %s\n",
                     static_cast<const char *>("rank"),
                     static_cast<const char *>(Coords ? "coord" : "node"),
                     static_cast<const char *>(Barrier ? "hears" : "parent"),
                     static_cast<const char *>(Barrier ? "leaves" : "received"),
                     static_cast<const char *>("sends (rank@start)"));
  for (int32_t R = 0; R < S.size(); ++R) {
    std::string Node;
    if (Coords)
      Node = formatCoordinates(M.Topo.coordOf(S.Participants[R].Node));
    else
      Node = std::to_string(S.Participants[R].Node);
    std::string Parent = "-", Received = "-";
    if (!Lines[R].From.empty()) {
      Parent.clear();
      Received.clear();
      for (size_t I = 0; I < Lines[R].From.size(); ++I) {
        Parent += (I ? "," : "") + std::to_string(Lines[R].From[I].first);
        Received += (I ? "," : "") + formatRounded(Lines[R].From[I].second);
      }
    } else if (R == S.Root) {
      Received = "0";
    }
    if (Barrier) {
      double Leave = 0;
      for (auto &[Peer, T] : Lines[R].From)
        Leave = std::max(Leave, T);
      for (auto &[Peer, T] : Lines[R].To)
        Leave = std::max(Leave, T);
      Received = formatRounded(Leave);
    }
    std::string Sends;
    for (size_t I = 0; I < Lines[R].To.size(); ++I)
      Sends += (I ? " " : "") + std::to_string(Lines[R].To[I].first) + "@" +
               formatRounded(Lines[R].To[I].second);
    std::string Line;
    llvm::raw_string_ostream LS(Line);
    LS << llvm::format("%6d  %-10s  %-8s  %-10s  ", R, Node.c_str(),
                       Parent.c_str(), Received.c_str())
       << Sends;
    LS.flush();
    OS << llvm::StringRef(Line).rtrim() << "\n";
  }
}

} // namespace collc
