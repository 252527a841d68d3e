#include "passes/LowerBound.h"

#include "ir/FatTree.h"
#include "passes/Routes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

using namespace llvm;

namespace collc {

namespace {

constexpr double Inf = std::numeric_limits<double>::infinity();

Error failure(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// The best latency factor and the best bandwidth factor among the bands a
/// message of \p Lo to \p Hi bytes (envelope included) falls in.
std::pair<double, double> bestFactors(const Network &N, uint64_t Lo,
                                      uint64_t Hi) {
  if (N.Bands.empty())
    return {1, 1};
  double LF = Inf, BF = 0;
  for (size_t I = 0; I < N.Bands.size(); ++I) {
    const uint64_t BandHi = I + 1 < N.Bands.size()
                                ? N.Bands[I + 1].MinBytes - 1
                                : std::numeric_limits<uint64_t>::max();
    if (N.Bands[I].MinBytes > Hi || BandHi < Lo)
      continue;
    LF = std::min(LF, N.Bands[I].LatencyFactor);
    BF = std::max(BF, N.Bands[I].BandwidthFactor);
  }
  return {LF, BF};
}

/// Shortest paths over route latencies from (or, \p Reverse, to) node index
/// \p From: what relayed data needs at least. Dense Dijkstra, O(N^2).
std::vector<double> shortest(const std::vector<double> &Lat, size_t N,
                             size_t From, bool Reverse) {
  std::vector<double> D(N, Inf);
  std::vector<bool> Done(N, false);
  D[From] = 0;
  for (size_t Step = 0; Step < N; ++Step) {
    size_t U = N;
    for (size_t V = 0; V < N; ++V)
      if (!Done[V] && (U == N || D[V] < D[U]))
        U = V;
    if (U == N || D[U] == Inf)
      break;
    Done[U] = true;
    for (size_t V = 0; V < N; ++V)
      if (V != U) {
        const double W = Reverse ? Lat[V * N + U] : Lat[U * N + V];
        D[V] = std::min(D[V], D[U] + W);
      }
  }
  return D;
}

/// Sorted intersection of \p A with \p B, into \p A.
void intersect(std::vector<uint32_t> &A, const std::vector<uint32_t> &B) {
  std::vector<uint32_t> Out;
  std::set_intersection(A.begin(), A.end(), B.begin(), B.end(),
                        std::back_inserter(Out));
  A.swap(Out);
}

} // namespace

Expected<PhysicalBound> PhysicalBound::analyse(const Machine &Mach,
                                               int64_t Ranks) {
  if (!Mach.Net)
    return failure("machine '" + Mach.Name +
                   "' has no network: the bound needs its links (a SimGrid "
                   "platform or a spec with a `network:` section)");
  const Network &Net = *Mach.Net;
  const Topology &T = Mach.Topo;
  if (!isRouted(T) || T.Nodes < 1)
    return failure("machine '" + Mach.Name +
                   "' needs a routed topology of a fixed size");
  const int64_t PerNode = std::max<int64_t>(1, Net.ProcsPerNode);
  if (Ranks < 1 || Ranks > T.Nodes * PerNode)
    return failure("expected 1 to " + Twine(T.Nodes * PerNode) +
                   " ranks, got " + Twine(Ranks));
  PhysicalBound B;
  B.M = &Mach;
  B.P = Ranks;
  std::vector<int64_t> Index(static_cast<size_t>(T.Nodes), -1);
  std::vector<int64_t> RankNode(static_cast<size_t>(Ranks));
  for (int64_t R = 0; R < Ranks; ++R) {
    RankNode[R] = Net.nodeOfRank(R, Ranks, T.Nodes);
    Index[RankNode[R]] = 0;
  }
  for (int64_t N = 0; N < T.Nodes; ++N)
    if (Index[N] == 0) {
      Index[N] = static_cast<int64_t>(B.Used.size());
      B.Used.push_back(N);
    }
  const size_t N = B.Used.size();
  B.RanksOn.assign(N, 0);
  for (int64_t R = 0; R < Ranks; ++R) {
    B.NodeOfRank.push_back(Index[RankNode[R]]);
    ++B.RanksOn[Index[RankNode[R]]];
  }

  // Resources: one per direction of a full-duplex link, one per half-duplex
  // link, none for a FATPIPE (it never fills); a node's injection and
  // ejection when the network limits them.
  std::map<std::tuple<int64_t, int64_t, int32_t>, uint32_t> LinkIds;
  auto LinkResource = [&](const Channel &C) -> int64_t {
    const LinkClass &LC = Net.Links[C.Class];
    if (LC.FatPipe)
      return -1;
    std::tuple<int64_t, int64_t, int32_t> K{C.From, C.To, C.Lane};
    if (!LC.FullDuplex && C.From > C.To)
      K = {C.To, C.From, C.Lane};
    auto [It, New] =
        LinkIds.try_emplace(K, static_cast<uint32_t>(B.Resources.size()));
    if (New) {
      Resource R;
      // A channel from a vertex to itself is a cluster's backbone, one
      // channel for both ways: split duplex, SimGrid may give each way the
      // whole bandwidth, so it counts twice.
      R.Bandwidth = LC.Bandwidth * (C.From == C.To && LC.FullDuplex ? 2 : 1);
      R.Name = channelName(T, C);
      R.MinLatency = Inf;
      B.Resources.push_back(std::move(R));
    }
    return It->second;
  };
  const double Limit = Net.injectionLimit();
  // A SimGrid limiter (Network::SharedLimiter), which a node's sends and
  // receives share, counts as an injection and an ejection limit each: that
  // only lowers the bound.
  std::vector<uint32_t> Inject, Eject;
  if (Limit < Inf)
    for (size_t I = 0; I < N; ++I)
      for (bool Out : {true, false}) {
        Resource R;
        R.Bandwidth = Limit;
        R.Name = (Out ? "injection of node " : "ejection of node ") +
                 nodeName(T, B.Used[I]);
        R.MinLatency = Inf;
        (Out ? Inject : Eject)
            .push_back(static_cast<uint32_t>(B.Resources.size()));
        B.Resources.push_back(std::move(R));
      }

  // Every route: its latency, and the resources every route into (out of)
  // a node crosses.
  B.Lat.assign(N * N, 0);
  B.MinRouteLatency = N > 1 ? Inf : 0;
  std::vector<std::vector<uint32_t>> InRes(N), OutRes(N);
  std::vector<bool> InSeen(N, false), OutSeen(N, false);
  std::vector<Channel> Route;
  std::vector<uint32_t> Res;
  for (size_t A = 0; A < N; ++A)
    for (size_t Bn = 0; Bn < N; ++Bn) {
      if (A == Bn)
        continue;
      Route.clear();
      if (Error E = appendRoute(T, B.Used[A], B.Used[Bn], Route))
        return E;
      double L = 0;
      Res.clear();
      for (const Channel &C : Route) {
        L += Net.Links[C.Class].Latency;
        if (int64_t Id = LinkResource(C); Id >= 0)
          Res.push_back(static_cast<uint32_t>(Id));
      }
      if (!Inject.empty()) {
        Res.push_back(Inject[A]);
        Res.push_back(Eject[Bn]);
      }
      llvm::sort(Res);
      Res.erase(std::unique(Res.begin(), Res.end()), Res.end());
      B.Lat[A * N + Bn] = L;
      B.MinRouteLatency = std::min(B.MinRouteLatency, L);
      for (uint32_t R : Res)
        B.Resources[R].MinLatency = std::min(B.Resources[R].MinLatency, L);
      for (auto [Seen, Sets, At] : {std::make_tuple(&InSeen, &InRes, Bn),
                                    std::make_tuple(&OutSeen, &OutRes, A)}) {
        if (!(*Seen)[At]) {
          (*Seen)[At] = true;
          (*Sets)[At] = Res;
        } else {
          intersect((*Sets)[At], Res);
        }
      }
    }
  for (size_t I = 0; I < N; ++I) {
    for (uint32_t R : InRes[I])
      B.Resources[R].In.push_back(static_cast<uint32_t>(I));
    for (uint32_t R : OutRes[I])
      B.Resources[R].Out.push_back(static_cast<uint32_t>(I));
  }

  // Cuts. A route from outside S to inside enters it by a channel from a
  // vertex outside to one inside (its last such channel); they all cross
  // the set of those channels, and likewise out of S (the first channel
  // from inside to outside). A switch is inside when every node below it
  // is (on a fat tree, the switches of S's group); elsewhere switches are
  // outside, which keeps the rule valid (the last channel into a node).
  auto AddCut = [&](std::string Name, std::vector<uint32_t> Members,
                    std::function<bool(int64_t)> SwitchInside) {
    if (Members.empty() || Members.size() == N)
      return;
    Cut Ct;
    Ct.Name = std::move(Name);
    std::vector<bool> In(N, false);
    for (uint32_t I : Members) {
      In[I] = true;
      Ct.Ranks += B.RanksOn[I];
    }
    std::vector<bool> NodeIn(static_cast<size_t>(T.Nodes), false);
    for (uint32_t I : Members)
      NodeIn[B.Used[I]] = true;
    auto Inside = [&](int64_t V) {
      return V < T.Nodes ? static_cast<bool>(NodeIn[V])
                         : SwitchInside && SwitchInside(V);
    };
    for (bool Into : {true, false}) {
      // The links crossed (none counted when a FATPIPE is: it never
      // fills), and apart the injection or ejection limits of S's nodes:
      // each bounds what enters (leaves) S.
      std::vector<uint32_t> Crossed, Limits;
      bool Unbounded = false;
      double MinLat = Inf;
      // The routes from outside S to a member (Into), or from a member
      // out: |S| x N of them.
      for (uint32_t Mb : Members)
        for (size_t X = 0; X < N; ++X) {
          if (In[X])
            continue;
          const size_t A = Into ? X : Mb, Bn = Into ? Mb : X;
          Route.clear();
          cantFail(appendRoute(T, B.Used[A], B.Used[Bn], Route));
          MinLat = std::min(MinLat, B.Lat[A * N + Bn]);
          const Channel *Pick = nullptr;
          for (const Channel &C : Route)
            if (Inside(C.From) != Inside(C.To) && Inside(C.To) == Into) {
              Pick = &C;
              if (!Into)
                break; // the first way out
            }
          assert(Pick && "a route that leaves a set crosses its border");
          if (int64_t Id = LinkResource(*Pick); Id >= 0)
            Crossed.push_back(static_cast<uint32_t>(Id));
          else
            Unbounded = true;
          if (!Inject.empty())
            Limits.push_back(Into ? Eject[Bn] : Inject[A]);
        }
      auto Sum = [&](std::vector<uint32_t> &Ids) {
        llvm::sort(Ids);
        Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
        double Bw = 0;
        for (uint32_t R : Ids)
          Bw += B.Resources[R].Bandwidth;
        return Bw;
      };
      double Bw = Unbounded ? Inf : Sum(Crossed);
      if (!Limits.empty())
        Bw = std::min(Bw, Sum(Limits));
      (Into ? Ct.InBandwidth : Ct.OutBandwidth) = Bw == Inf ? 0 : Bw;
      (Into ? Ct.InLatency : Ct.OutLatency) = MinLat;
    }
    Ct.Members = std::move(Members);
    B.Cuts.push_back(std::move(Ct));
  };
  // The nodes alone first: of() finds them as Cuts[0 .. N-1].
  for (uint32_t I = 0; I < N; ++I)
    AddCut("node " + nodeName(T, B.Used[I]), {I}, nullptr);
  if (T.hasCoordinates()) {
    for (size_t D = 0; D < T.Dims.size(); ++D) {
      const int64_t Half = T.Dims[D] / 2;
      std::vector<uint32_t> Members;
      for (uint32_t I = 0; I < N; ++I)
        if (T.coordOf(B.Used[I])[D] < Half)
          Members.push_back(I);
      AddCut("half of written dimension " + std::to_string(D) + " (< " +
                 std::to_string(Half) + ")",
             Members, nullptr);
    }
  } else if (T.Kind == TopologyKind::FatTree) {
    const FatTreeNetwork F(T);
    // The nodes under the switches of level l whose digits l.. agree.
    for (int32_t L = 1; L < F.levels(); ++L) {
      std::map<std::vector<int64_t>, std::vector<uint32_t>> Groups;
      for (uint32_t I = 0; I < N; ++I) {
        std::vector<int64_t> Key;
        for (int32_t Dg = L; Dg < F.levels(); ++Dg)
          Key.push_back(F.digit({0, B.Used[I]}, Dg));
        Groups[Key].push_back(I);
      }
      for (auto &[Key, Members] : Groups) {
        std::string Name = "nodes under level-" + std::to_string(L) +
                           " group of node " + nodeName(T, B.Used[Members[0]]);
        AddCut(std::move(Name), Members, [&F, L, K = Key](int64_t V) {
          const FatTreeVertex X = F.vertexOf(V);
          if (X.Level > L)
            return false;
          for (int32_t Dg = L; Dg < F.levels(); ++Dg)
            if (F.digit(X, Dg) != K[Dg - L])
              return false;
          return true;
        });
      }
    }
  }
  return B;
}

Expected<LowerBound> PhysicalBound::of(Collective C, uint64_t Bytes,
                                       int64_t Root) const {
  if (C != Collective::Bcast && C != Collective::Reduce &&
      C != Collective::Allreduce && C != Collective::Allgather &&
      C != Collective::Alltoall)
    return failure(Twine("the bound covers bcast, reduce, allreduce, "
                         "allgather and alltoall, not ") +
                   collectiveName(C));
  if (Root < 0 || Root >= P)
    return failure("expected a root from 0 to " + Twine(P - 1) + ", got " +
                   Twine(Root));
  const Network &Net = *M->Net;
  const Topology &T = M->Topo;
  const size_t N = Used.size();
  const bool Blocks = C == Collective::Allgather || C == Collective::Alltoall;
  // Messages of a broadcast or a reduction carry at most the vector; those
  // of an allgather or all-to-all any number of blocks. Either may send
  // empty messages (synchronisation).
  const double Most =
      static_cast<double>(Bytes) * (Blocks ? static_cast<double>(P) * P : 1.0);
  const uint64_t Largest =
      Most >= 0x1p62 ? uint64_t(1) << 62 : static_cast<uint64_t>(Most);
  auto [LF, BF] =
      bestFactors(Net, Net.EnvelopeBytes, Largest + Net.EnvelopeBytes);
  LowerBound Best;
  Best.LatencyFactor = LF;
  Best.BandwidthFactor = BF;
  auto Consider = [&](double Lat, double Transfer, const std::string &Where) {
    if (Lat + Transfer > Best.Time) {
      Best.Time = Lat + Transfer;
      Best.Latency = Lat;
      Best.Transfer = Transfer;
      Best.Where = Where;
    }
  };
  const size_t RootNode = static_cast<size_t>(NodeOfRank[Root]);
  const double M = static_cast<double>(Bytes);

  // Latency: ranks of one node over the loopback; between nodes the
  // shortest chain of routes.
  // (A rank that shares its node gets data over the loopback or a route.)
  if (P > 1 && llvm::any_of(RanksOn, [](int64_t R) { return R > 1; }))
    Consider(std::min(Net.IntraNode.Latency, N > 1 ? MinRouteLatency : Inf) *
                 LF,
             0, "loopback latency");
  std::vector<double> FromRoot, ToRoot;
  if (N > 1) {
    if (C == Collective::Bcast || C == Collective::Reduce) {
      const bool Out = C == Collective::Bcast;
      std::vector<double> D = shortest(Lat, N, RootNode, !Out);
      for (size_t I = 0; I < N; ++I)
        Consider(D[I] * LF, 0,
                 "latency " + std::string(Out ? "from" : "to") +
                     " the root's node " + nodeName(T, Used[RootNode]) +
                     (Out ? " to " : " from ") + nodeName(T, Used[I]));
      (Out ? FromRoot : ToRoot) = std::move(D);
    } else {
      // Every result depends on every input: the farthest pair (from every
      // node up to 512 nodes; beyond, from the root's node).
      for (size_t S = 0; S < N; ++S) {
        if (N > 512 && S != RootNode)
          continue;
        std::vector<double> D = shortest(Lat, N, S, false);
        for (size_t I = 0; I < N; ++I)
          Consider(D[I] * LF, 0,
                   "latency from node " + nodeName(T, Used[S]) + " to node " +
                       nodeName(T, Used[I]));
      }
    }
  }
  if (N < 2 || Bytes == 0)
    return Best;

  // Shared resources.
  const double Pd = static_cast<double>(P);
  for (const Resource &R : Resources) {
    if (R.MinLatency == Inf)
      continue;
    const bool RootIn = llvm::is_contained(R.In, RootNode);
    const bool RootOut = llvm::is_contained(R.Out, RootNode);
    const bool Single =
        R.In.size() == 1 && R.Out.size() == 1 && R.In[0] == R.Out[0];
    double Carried = 0;
    switch (C) {
    case Collective::Bcast:
      Carried =
          M * std::max<double>(R.In.size() - (RootIn ? 1 : 0), RootOut ? 1 : 0);
      break;
    case Collective::Reduce:
      Carried = M * std::max<double>(R.Out.size() - (RootOut ? 1 : 0),
                                     RootIn ? 1 : 0);
      break;
    case Collective::Allreduce:
      if (R.In.size() == N && R.Out.size() == N)
        Carried = M * 2 * static_cast<double>(N - 1);
      else if (Single)
        Carried = 2 * M;
      else
        Carried = M * static_cast<double>(std::max(R.In.size(), R.Out.size()));
      break;
    case Collective::Allgather:
      for (uint32_t I : R.In)
        Carried += M * (Pd - static_cast<double>(RanksOn[I]));
      if (Single)
        Carried += M * static_cast<double>(RanksOn[R.In[0]]);
      break;
    case Collective::Alltoall: {
      double Cin = 0, Cout = 0, Both = 0, Pairs = 0;
      for (uint32_t I : R.In) {
        const double Ci = static_cast<double>(RanksOn[I]);
        Cin += Ci;
        Pairs += Ci * (Pd - Ci);
      }
      for (uint32_t I : R.Out) {
        const double Ci = static_cast<double>(RanksOn[I]);
        Cout += Ci;
        Pairs += Ci * (Pd - Ci);
        if (llvm::is_contained(R.In, I))
          Both += Ci * Ci;
      }
      Carried = M * (Pairs - (Cin * Cout - Both));
      break;
    }
    default:
      llvm_unreachable("checked above");
    }
    if (Carried > 0)
      Consider(R.MinLatency * LF, Carried / (R.Bandwidth * BF), R.Name);
  }

  // An allreduce's 2 (N - 1) messages per element each leave one node and
  // enter another: over all nodes' links out (in) together.
  if (C == Collective::Allreduce) {
    double In = 0, Out = 0;
    for (size_t I = 0; I < N; ++I) {
      // The first N cuts are the nodes alone; 0 bandwidth: unbounded.
      In = Cuts[I].InBandwidth > 0 && In >= 0 ? In + Cuts[I].InBandwidth : -1;
      Out = Cuts[I].OutBandwidth > 0 && Out >= 0 ? Out + Cuts[I].OutBandwidth
                                                 : -1;
    }
    const double Messages = 2 * static_cast<double>(N - 1) * M;
    if (In > 0)
      Consider(MinRouteLatency * LF, Messages / (In * BF),
               "into every node together");
    if (Out > 0)
      Consider(MinRouteLatency * LF, Messages / (Out * BF),
               "out of every node together");
  }

  // Cuts.
  for (const Cut &Ct : Cuts) {
    const bool HasRoot =
        llvm::any_of(Ct.Members, [&](uint32_t I) { return I == RootNode; });
    const double Rs = static_cast<double>(Ct.Ranks);
    double In = 0, Out = 0;
    switch (C) {
    case Collective::Bcast:
      In = HasRoot ? 0 : M;
      break;
    case Collective::Reduce:
      (HasRoot ? In : Out) = M;
      break;
    case Collective::Allreduce:
      In = Out = M;
      break;
    case Collective::Allgather:
      In = M * (Pd - Rs);
      Out = M * Rs;
      break;
    case Collective::Alltoall:
      In = Out = M * Rs * (Pd - Rs);
      break;
    default:
      llvm_unreachable("checked above");
    }
    double InLat = Ct.InLatency;
    if (C == Collective::Bcast && !FromRoot.empty()) {
      // No byte reaches S before the shortest chain from the root.
      InLat = Inf;
      for (uint32_t I : Ct.Members)
        InLat = std::min(InLat, FromRoot[I]);
    }
    if (In > 0 && Ct.InBandwidth > 0)
      Consider(InLat * LF, In / (Ct.InBandwidth * BF), "into " + Ct.Name);
    if (Out > 0 && Ct.OutBandwidth > 0)
      Consider(Ct.OutLatency * LF, Out / (Ct.OutBandwidth * BF),
               "out of " + Ct.Name);
  }
  return Best;
}

} // namespace collc
