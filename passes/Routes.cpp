#include "passes/Routes.h"

#include "ir/FatTree.h"
#include "ir/MultistageNetwork.h"
#include "ir/NodeRef.h"

namespace collc {

namespace {

/// \p Out grown by \p Hops channels, to be written through the pointer
/// returned: a dimension's hops without a capacity check each (a step of a
/// million routes of hundreds of hops).
Channel *grow(std::vector<Channel> &Out, int64_t Hops) {
  const size_t Base = Out.size();
  Out.resize(Base + size_t(Hops));
  return Out.data() + Base;
}

/// Dimension-ordered route on a mesh, torus or hypercube: written dimension
/// 0 (sigma_{n-1}) first. On a hypercube (every extent 2) this is e-cube
/// routing in written order.
void appendDimensionOrdered(const Topology &T, int64_t Src, int64_t Dst,
                            std::vector<Channel> &Out, uint8_t TieDown) {
  size_t N = T.Dims.size();
  // Strides and coordinates of both ends, without allocating per call for
  // the usual 1-4 dimensions.
  int64_t Stride[16], From[16], To[16];
  std::vector<int64_t> Big;
  int64_t *S = Stride, *A = From, *B = To;
  if (N > 16) {
    Big.resize(3 * N);
    S = Big.data();
    A = S + N;
    B = A + N;
  }
  int64_t X = Src, Y = Dst, Prod = 1;
  for (size_t I = N; I-- > 0;) {
    S[I] = Prod;
    Prod *= T.Dims[I];
    A[I] = X % T.Dims[I];
    B[I] = Y % T.Dims[I];
    X /= T.Dims[I];
    Y /= T.Dims[I];
  }
  bool Torus = T.Kind == TopologyKind::Torus;
  bool SimGrid = T.Routing == DimensionRouting::SimGrid;
  int64_t Cur = Src;
  for (size_t K = 0; K < N; ++K) {
    // SimGrid's TorusZone resolves its dimension 0 first: stride 1, the last
    // written one.
    size_t I = SimGrid ? N - 1 - K : K;
    int64_t D = T.Dims[I], C = A[I], Target = B[I];
    if (C == Target)
      continue;
    if (!Torus) {
      int64_t Dir = Target > C ? 1 : -1;
      Channel *W = grow(Out, Target > C ? Target - C : C - Target);
      for (; C != Target; C += Dir) {
        int64_t Next = Cur + Dir * S[I];
        *W++ = {Cur, Next};
        Cur = Next;
      }
      continue;
    }
    // Torus: the shorter way round; on a tie, the increasing direction
    // unless the transfer asks for the other (SimGrid: unless the message
    // starts from the middle coordinate, as TorusZone's test has it).
    int64_t Up = ((Target - C) % D + D) % D;
    bool Down = SimGrid ? 2 * C == D : I < 8 && (TieDown >> I & 1);
    bool Increasing = Up < D - Up || (Up == D - Up && !Down);
    int64_t Hops = Increasing ? Up : D - Up;
    Channel *W = grow(Out, Hops);
    // One loop per way, the wrap found per hop.
    const int64_t Step = Increasing ? S[I] : -S[I], Wrap = (D - 1) * S[I];
    const int64_t Edge = Increasing ? D - 1 : 0;
    for (int64_t H = 0; H < Hops; ++H) {
      const int64_t Next =
          C == Edge ? Cur + (Increasing ? -Wrap : Wrap) : Cur + Step;
      *W++ = {Cur, Next};
      Cur = Next;
      C = C == Edge ? D - 1 - Edge : C + (Increasing ? 1 : -1);
    }
  }
}

/// SimGrid's fat-tree route (ir/FatTree.h) as channels: link class l-1
/// between levels l-1 and l.
void appendFatTree(const Topology &T, int64_t Src, int64_t Dst,
                   std::vector<Channel> &Out) {
  FatTreeNetwork Net(T);
  for (const FatTreeHop &H : Net.route(Src, Dst)) {
    int32_t Lower = std::min(H.From.Level, H.To.Level);
    Out.push_back({Net.vertexId(H.From), Net.vertexId(H.To),
                   static_cast<uint8_t>(Lower), H.Lane});
  }
}

/// A flat cluster: private link up to the switch, the backbone, private
/// link down.
void appendCluster(const Topology &T, int64_t Src, int64_t Dst,
                   std::vector<Channel> &Out) {
  const int64_t Switch = T.Nodes;
  Out.push_back({Src, Switch, 0, 0});
  if (T.Backbone)
    Out.push_back({Switch, Switch, 1, 0});
  Out.push_back({Switch, Dst, 0, 0});
}

} // namespace

std::vector<std::string> linkClassNames(const Topology &T) {
  switch (T.Kind) {
  case TopologyKind::FatTree: {
    std::vector<std::string> Names;
    for (int64_t L = 1; L <= T.Levels; ++L)
      Names.push_back("level-" + std::to_string(L));
    return Names;
  }
  case TopologyKind::Cluster:
    if (T.Backbone)
      return {"private", "backbone"};
    return {"private"};
  default:
    return {"link"};
  }
}

bool isRouted(const Topology &T) {
  switch (T.Kind) {
  case TopologyKind::Full:
  case TopologyKind::Mesh:
  case TopologyKind::Torus:
  case TopologyKind::Hypercube:
  case TopologyKind::Min:
  case TopologyKind::FatTree:
  case TopologyKind::Cluster:
    return true;
  case TopologyKind::Star:
  case TopologyKind::MacroStar:
    return false;
  }
  return false;
}

void appendLimiterNodes(const Topology &T, int64_t Src, int64_t Dst,
                        const std::vector<Channel> &Route,
                        std::vector<int64_t> &Out) {
  if (Src == Dst)
    return;
  if (T.hasCoordinates()) {
    for (const Channel &C : Route)
      Out.push_back(C.From);
    Out.push_back(Dst);
    return;
  }
  Out.push_back(Src);
  Out.push_back(Dst);
}

llvm::Error appendRoute(const Topology &T, int64_t Src, int64_t Dst,
                        std::vector<Channel> &Out, uint8_t TieDown) {
  if (Src == Dst)
    return llvm::Error::success();
  switch (T.Kind) {
  case TopologyKind::Full:
    // A crossbar: a private link per ordered pair.
    Out.push_back({Src, Dst});
    return llvm::Error::success();
  case TopologyKind::Mesh:
  case TopologyKind::Torus:
  case TopologyKind::Hypercube:
    appendDimensionOrdered(T, Src, Dst, Out, TieDown);
    return llvm::Error::success();
  // Dispatch point for the other topologies. Each plugs in here with a call
  // to a routing function kept in a file of its own, and returns true from
  // isRouted():
  //  - min: the turnaround route of MinNetwork (ir/MultistageNetwork.h) as
  //    Channels, with switch (l, s) numbered Nodes + switchId({l, s});
  //  - star, macro-star: a call joins neighbours and uses one generator edge,
  //    so the route is the single channel {Src, Dst} once adjacency is
  //    checked against the generators.
  case TopologyKind::Min: {
    // The turnaround route of ir/MultistageNetwork.h over vertices Src,
    // Nodes + switchId of each switch, Dst. On a MIN a processor's link to its
    // switch joins two vertices of the network, so it belongs to the route: the
    // route has 2(h+1) channels, Topology::distance.
    MinNetwork Net(T);
    int64_t Prev = Src;
    for (MinSwitch Sw : Net.switchesOnRoute(Src, Dst)) {
      int64_t V = T.Nodes + Net.switchId(Sw);
      Out.push_back({Prev, V});
      Prev = V;
    }
    Out.push_back({Prev, Dst});
    return llvm::Error::success();
  }
  case TopologyKind::FatTree:
    appendFatTree(T, Src, Dst, Out);
    return llvm::Error::success();
  case TopologyKind::Cluster:
    appendCluster(T, Src, Dst, Out);
    return llvm::Error::success();
  case TopologyKind::Star:
  case TopologyKind::MacroStar:
    break;
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no routing for topology '%s' yet",
                                 topologyKindName(T.Kind));
}

llvm::Expected<std::vector<Channel>> route(const Topology &T, int64_t Src,
                                           int64_t Dst, uint8_t TieDown) {
  std::vector<Channel> Out;
  if (llvm::Error E = appendRoute(T, Src, Dst, Out, TieDown))
    return E;
  return Out;
}

std::string nodeName(const Topology &T, int64_t Node) {
  if (T.Kind == TopologyKind::Min && Node >= T.Nodes)
    return MinNetwork::name(MinNetwork(T).switchOf(Node - T.Nodes));
  if (T.Kind == TopologyKind::FatTree && Node >= T.Nodes)
    return FatTreeNetwork::name(FatTreeNetwork(T).vertexOf(Node));
  if (T.Kind == TopologyKind::Cluster && Node == T.Nodes)
    return "switch";
  if (!T.hasCoordinates() || Node < 0 || (T.Nodes && Node >= T.Nodes))
    return std::to_string(Node);
  return formatCoordinates(T.coordOf(Node));
}

std::string channelName(const Topology &T, const Channel &C) {
  if (T.Kind == TopologyKind::Cluster && C.Class == 1)
    return "backbone";
  std::string S = nodeName(T, C.From) + "->" + nodeName(T, C.To);
  if (C.Lane)
    S += "#" + std::to_string(C.Lane);
  return S;
}

} // namespace collc
