#include "algorithms/Trees.h"

#include "algorithms/OptTree.h"
#include "algorithms/Placement.h"
#include "passes/Routes.h"
#include "passes/StepCost.h"
#include "passes/Verify.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <optional>

#include "llvm/Support/MathExtras.h"

namespace collc {

ChainSplit optTreeSplit(const Machine &M, const Request &R) {
  auto Table = std::make_shared<const OptTreeTable>(
      optTreeSplits(R.size(), M.M.tHold(R.Bytes), M.M.tEnd(R.Bytes)));
  return [Table](int64_t I, int64_t Offset) -> int64_t {
    int64_t Keep = Table->J[I];
    if (Offset < Keep)
      return Keep; // keep the lower j nodes
    // Keep the upper j nodes if they contain the holder; otherwise (only
    // possible for a source in the middle when j < i/2, i.e. t_hold > t_end)
    // keep the lower i-j nodes.
    return I - Keep;
  };
}

ChainSplit binomialSplit() {
  return [](int64_t I, int64_t) -> int64_t { return I / 2; };
}

std::vector<int32_t> rotatedChain(int32_t Ranks, int32_t Root) {
  std::vector<int32_t> C(Ranks);
  for (int32_t I = 0; I < Ranks; ++I)
    C[I] = static_cast<int32_t>((static_cast<int64_t>(Root) + I) % Ranks);
  return C;
}

namespace {

/// A rank of the chain that holds the message and the range [L, R] of chain
/// indices it still serves.
struct ChainHolder {
  int64_t Self, L, R;
};

/// Holder \p H's sends, in the order it makes them: \p Send(To) for each,
/// To being the holder the receiver becomes. One code for the whole tree
/// (chainSplitTransfers) and for one rank's part (binomialBcastPart).
template <typename SendFn>
void holderSends(ChainHolder H, const ChainSplit &Split, SendFn Send) {
  while (H.L < H.R) {
    int64_t I = H.R - H.L + 1;
    int64_t A = Split(I, H.Self - H.L);
    ChainHolder To;
    if (H.Self < H.L + A) {
      To = {H.L + A, H.L + A, H.R};
      H.R = H.L + A - 1;
    } else {
      To = {H.L + A - 1, H.L, H.L + A - 1};
      H.L = H.L + A;
    }
    Send(To);
  }
}

} // namespace

std::vector<Transfer> chainSplitTransfers(const Schedule &S,
                                          const std::vector<int32_t> &Chain,
                                          int64_t SourceIndex,
                                          const ChainSplit &Split) {
  std::vector<Transfer> Out;
  Out.reserve(Chain.size() ? Chain.size() - 1 : 0);
  std::deque<ChainHolder> Work;
  if (!Chain.empty())
    Work.push_back({SourceIndex, 0, static_cast<int64_t>(Chain.size()) - 1});
  while (!Work.empty()) {
    ChainHolder H = Work.front();
    Work.pop_front();
    holderSends(H, Split, [&](const ChainHolder &To) {
      Out.push_back(wholeMessageCall(S, Chain[H.Self], Chain[To.Self]));
      Work.push_back(To);
    });
  }
  return Out;
}

double chainSplitBound(const Machine &M, const Schedule &S,
                       const std::vector<int32_t> &Chain, int64_t SourceIndex,
                       const ChainSplit &Split) {
  if (Chain.size() < 2 || !M.Net)
    return 0;
  const LeastHopTime Hop(M, S.Bytes);
  std::vector<double> At(Chain.size(), 0.0);
  double Most = 0;
  std::deque<ChainHolder> Work;
  Work.push_back({SourceIndex, 0, static_cast<int64_t>(Chain.size()) - 1});
  while (!Work.empty()) {
    const ChainHolder H = Work.front();
    Work.pop_front();
    holderSends(H, Split, [&](const ChainHolder &To) {
      At[To.Self] = At[H.Self] + Hop(S.Participants[Chain[H.Self]].Node,
                                     S.Participants[Chain[To.Self]].Node);
      Most = std::max(Most, At[To.Self]);
      Work.push_back(To);
    });
  }
  // Below the pricing's own arithmetic by a rounding's margin.
  return Most * (1 - 1e-9);
}

namespace {

/// chainSplitBound of treeSchedule's tree.
double treeBound(const Machine &M, const Request &R, const ChainSplit &Split) {
  const Schedule S = scheduleSkeleton(M, R, "");
  return chainSplitBound(M, S, rotatedChain(S.size(), S.Root), 0, Split);
}

Schedule treeSchedule(const Machine &M, const Request &R, llvm::StringRef Name,
                      const ChainSplit &Split) {
  Schedule S = scheduleSkeleton(M, R, Name);
  auto Chain = rotatedChain(S.size(), S.Root);
  S.Steps = stepsByRounds(chainSplitTransfers(S, Chain, 0, Split), S.size());
  return S;
}

} // namespace

llvm::Expected<Schedule> buildOptTree(const Machine &M, const Request &R) {
  return treeSchedule(M, R, "opt-tree", optTreeSplit(M, R));
}

llvm::Expected<Schedule> buildBinomial(const Machine &M, const Request &R) {
  return treeSchedule(M, R, "binomial", binomialSplit());
}

double optTreeBound(const Machine &M, const Request &R) {
  return treeBound(M, R, optTreeSplit(M, R));
}

double binomialBound(const Machine &M, const Request &R) {
  return treeBound(M, R, binomialSplit());
}

llvm::Expected<Schedule>
buildBinomialBcastPart(const Machine &M, const Request &R, int32_t Rank) {
  Schedule S = scheduleSkeleton(M, R, "binomial");
  const int32_t P = S.size();
  // A range of n nodes takes ceil(log2 n) steps: its holder sends to the
  // upper ceil(n/2) first.
  S.Steps.resize(int64_t(llvm::Log2_64_Ceil(P)));
  const ChainSplit Split = binomialSplit();
  auto RankOf = [&](int64_t I) { return relRank(I, S.Root, P); };
  const int64_t Me = (static_cast<int64_t>(Rank) - S.Root + P) % P;
  // Down the tree from the root to the holder whose receiver is Me, then
  // Me's own sends; each holder's k-th send in step Got + k.
  ChainHolder H{0, 0, P - 1};
  int64_t Got = -1;
  while (true) {
    std::optional<ChainHolder> Next;
    int64_t K = 0, NextGot = -1;
    holderSends(H, Split, [&](const ChainHolder &To) {
      const int64_t At = Got + ++K;
      if (H.Self == Me || To.Self == Me)
        S.Steps[At].Transfers.push_back(
            wholeMessageCall(S, RankOf(H.Self), RankOf(To.Self)));
      if (!Next && To.L <= Me && Me <= To.R) {
        Next = To;
        NextGot = At;
      }
    });
    if (H.Self == Me || !Next)
      break;
    H = *Next;
    Got = NextGot;
  }
  return S;
}

namespace {

/// Separate addressing (the root sends to every rank in chain order) or a
/// chain (each rank forwards to the next); with \p AllAtOnce, the root's
/// sends share one step where the ports allow it (groupedRounds).
Schedule flatSchedule(const Machine &M, const Request &R, llvm::StringRef Name,
                      bool FromRoot, bool AllAtOnce = false) {
  Schedule S = scheduleSkeleton(M, R, Name);
  auto Chain = rotatedChain(S.size(), S.Root);
  std::vector<Transfer> Ts;
  for (size_t I = 1; I < Chain.size(); ++I) {
    Transfer T;
    T.Src = FromRoot ? Chain[0] : Chain[I - 1];
    T.Dst = Chain[I];
    T.Bytes = S.Bytes;
    T.Pieces.push_back(S.wholeMessage());
    Ts.push_back(std::move(T));
  }
  if (AllAtOnce)
    S.Steps =
        groupedRounds(M, Ts, S.size(), std::vector<int64_t>(Ts.size(), 0));
  else
    S.Steps = stepsByRounds(std::move(Ts), S.size());
  return S;
}

} // namespace

llvm::Expected<Schedule> buildDirectBcast(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "direct", /*FromRoot=*/true, /*AllAtOnce=*/true);
}

llvm::Expected<Schedule> buildSequential(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "sequential", /*FromRoot=*/true);
}

double flatTreeBound(const Machine &M, const Request &R) {
  const int64_t P = R.size();
  if (P < 2 || !M.Net)
    return 0;
  const Network &N = *M.Net;
  const Schedule S = scheduleSkeleton(M, R, "");
  const int64_t RootNode = S.Participants[S.Root].Node;
  int64_t Remote = 0;
  for (const Participant &Pt : S.Participants)
    Remote += Pt.Node != RootNode;
  // The root posts P - 1 sends, one after the other, each after the
  // sender's overhead (estimateStepCost's clock of a rank, kept across
  // steps): the last starts no earlier than (P - 1) overheads, and takes
  // at least a transfer's least time past its own overhead.
  const double Posting =
      double(P - 2) * N.SendOverhead +
      leastTransferTime(N, R.Bytes, /*NodesShared=*/Remote < P - 1);
  // Where the network limits a node's injection, each send to another node
  // crosses the root node's (its limiter, which a route's first node
  // crosses on every topology), busy for its bytes one message after the
  // other from the first data phase's start, past one overhead.
  double Injected = 0;
  const double Limit = N.injectionLimit();
  if (Remote > 0 && Limit < std::numeric_limits<double>::infinity()) {
    const uint64_t Bytes = R.Bytes + N.EnvelopeBytes;
    Injected = N.SendOverhead + double(Remote) * double(Bytes) / Limit /
                                    N.band(Bytes).BandwidthFactor;
  }
  return std::max(Posting, Injected);
}

bool oneBookedClass(const Machine &M) {
  const Network &N = *M.Net;
  return M.Topo.hasCoordinates() && N.Links.size() == 1 &&
         !N.Links[0].FatPipe && N.Links[0].Bandwidth > 0;
}

std::vector<int64_t> rootLinks(const Machine &M, const Schedule &S,
                               RootEnd End) {
  const Topology &T = M.Topo;
  const size_t Dims = T.Dims.size();
  const bool SimGrid = T.Routing == DimensionRouting::SimGrid;
  const bool Leaving = End == RootEnd::Leaving;
  const int64_t RootNode = S.Participants[S.Root].Node;
  const std::vector<int64_t> RootCoord = T.coordOf(RootNode);
  // Keys (dimension, coordinate) numbered Offset[dimension] + coordinate.
  std::vector<int64_t> Offset(Dims + 1, 0);
  for (size_t I = 0; I < Dims; ++I)
    Offset[I + 1] = Offset[I] + T.Dims[I];
  std::vector<int64_t> LinkOf(static_cast<size_t>(Offset[Dims]), -1);
  std::vector<int64_t> Coord(Dims);
  std::vector<Channel> Route;
  std::vector<int64_t> Out;
  Out.reserve(S.Participants.size());
  for (const Participant &Pt : S.Participants) {
    if (Pt.Node == RootNode) {
      Out.push_back(-1);
      continue;
    }
    int64_t X = Pt.Node;
    for (size_t I = Dims; I-- > 0;) {
      Coord[I] = X % T.Dims[I];
      X /= T.Dims[I];
    }
    // The first differing dimension in routing order (Leaving), or the
    // last (Entering).
    size_t Dim = Dims;
    for (size_t K = 0; K < Dims && (Dim == Dims || !Leaving); ++K) {
      const size_t I = SimGrid ? Dims - 1 - K : K;
      if (Coord[I] != RootCoord[I])
        Dim = I;
    }
    int64_t &Link = LinkOf[size_t(Offset[Dim] + Coord[Dim])];
    if (Link < 0) {
      std::vector<int64_t> Other = RootCoord;
      Other[Dim] = Coord[Dim];
      Route.clear();
      if (Leaving) {
        llvm::cantFail(appendRoute(T, RootNode, T.nodeOf(Other), Route));
        Link = Route.front().To;
      } else {
        llvm::cantFail(appendRoute(T, T.nodeOf(Other), RootNode, Route));
        Link = Route.back().From;
      }
    }
    Out.push_back(Link);
  }
  return Out;
}

double rootLinkShareTime(const Machine &M, const Schedule &S,
                         const std::vector<int64_t> &Links) {
  const Topology &T = M.Topo;
  const Network &N = *M.Net;
  const int64_t RootNode = S.Participants[S.Root].Node;
  // Per root link, the messages on it; the most of any root link of a
  // farthest message.
  llvm::DenseMap<int64_t, int64_t> ByLink;
  unsigned MostHops = 0;
  for (size_t P = 0; P < Links.size(); ++P)
    if (Links[P] >= 0) {
      ++ByLink[Links[P]];
      MostHops =
          std::max(MostHops, T.distance(RootNode, S.Participants[P].Node));
    }
  if (MostHops == 0)
    return 0;
  int64_t Sharing = 0;
  for (size_t P = 0; P < Links.size(); ++P)
    if (Links[P] >= 0 &&
        T.distance(RootNode, S.Participants[P].Node) == MostHops)
      Sharing = std::max(Sharing, ByLink[Links[P]]);
  const uint64_t Bytes = S.Bytes + N.EnvelopeBytes;
  const ProtocolBand &Band = N.band(Bytes);
  // Below the pricing's own arithmetic by a rounding's margin.
  return (N.SendOverhead +
          double(MostHops) * N.Links[0].Latency * Band.LatencyFactor +
          double(Sharing) * double(Bytes) / N.Links[0].Bandwidth /
              Band.BandwidthFactor) *
         (1 - 1e-9);
}

namespace {

/// The root's share of its first link, for `direct` on a mesh, torus or
/// hypercube whose sends share one step (rootLinkShareTime).
double rootLinkShare(const Machine &M, const Schedule &S) {
  if (!oneBookedClass(M) || uint64_t(portsPerStep(M)) + 1 < uint64_t(S.size()))
    return 0;
  return rootLinkShareTime(M, S, rootLinks(M, S, RootEnd::Leaving));
}

/// The root's first links, for `sequential` on a mesh, torus or hypercube:
/// its sends take one step each, in the chain's order, the i-th after i
/// overheads, and the step pricing books each message on the link it leaves
/// by from its data phase's start (its overheads and its hops' latencies
/// past the start), after the messages booked there before it (occupy():
/// the link is free again its bytes at the link's bandwidth later). Where
/// the links are thin next to the hops' latencies, the messages queue there.
double rootLinkQueue(const Machine &M, const Schedule &S) {
  const Topology &T = M.Topo;
  const Network &N = *M.Net;
  if (!oneBookedClass(M))
    return 0;
  const int64_t RootNode = S.Participants[S.Root].Node;
  const std::vector<int64_t> Links = rootLinks(M, S, RootEnd::Leaving);
  const uint64_t Bytes = S.Bytes + N.EnvelopeBytes;
  const ProtocolBand &Band = N.band(Bytes);
  const double Hop = N.Links[0].Latency * Band.LatencyFactor;
  const double Busy =
      double(Bytes) / N.Links[0].Bandwidth / Band.BandwidthFactor;
  llvm::DenseMap<int64_t, double> FreeAt;
  double Clock = 0, Most = 0;
  for (int32_t Rank : rotatedChain(S.size(), S.Root)) {
    if (Rank == S.Root)
      continue;
    Clock += N.SendOverhead;
    if (Links[size_t(Rank)] < 0)
      continue;
    const double From =
        Clock + double(T.distance(RootNode, S.Participants[Rank].Node)) * Hop;
    double &Free = FreeAt[Links[size_t(Rank)]];
    Free = std::max(Free, From) + Busy;
    Most = std::max(Most, Free);
  }
  // Below the pricing's own arithmetic by a rounding's margin.
  return Most * (1 - 1e-9);
}

} // namespace

double directBound(const Machine &M, const Request &R) {
  const double Flat = flatTreeBound(M, R);
  if (Flat <= 0)
    return Flat;
  return std::max(Flat, rootLinkShare(M, scheduleSkeleton(M, R, "")));
}

double sequentialBound(const Machine &M, const Request &R) {
  const double Flat = flatTreeBound(M, R);
  if (Flat <= 0)
    return Flat;
  return std::max(Flat, rootLinkQueue(M, scheduleSkeleton(M, R, "")));
}

llvm::Expected<Schedule> buildChain(const Machine &M, const Request &R) {
  return flatSchedule(M, R, "chain", /*FromRoot=*/false);
}

} // namespace collc
