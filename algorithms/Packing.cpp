#include "algorithms/Packing.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Personalized.h"
#include "algorithms/Placement.h"
#include "passes/Routes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace collc {

namespace {

constexpr double Inf = std::numeric_limits<double>::infinity();
/// Nodes in use the packing routes every ordered pair of.
constexpr int64_t MaxPackingNodes = 512;
/// Timing a forest's candidates on a fat tree costs the evaluator more than
/// a torus's (every message crosses the shared uplinks): the segment search
/// stays within a smaller budget, as kary-pipeline's.
constexpr int64_t MaxPackingSearchTransfers = int64_t(1) << 13;

/// The nodes in use (vertices of the packing), the routes between them as
/// lists of resources, and the graph of links for the cut bound.
struct PackingNet {
  /// Node number of each vertex; the root's node is vertex 0.
  std::vector<int64_t> Nodes;
  /// Rank -> vertex, and vertex -> the rank that serves it (the root on the
  /// root's node, else the node's first rank).
  std::vector<int32_t> VertexOfRank, ServingRank;
  /// Bandwidth of each resource.
  std::vector<double> Cap;
  /// Route of vertex pair (A, B): Use[Begin[A N + B] .. Begin[A N + B + 1]).
  std::vector<uint32_t> Begin;
  std::vector<int32_t> Use;
  std::vector<uint16_t> Hops;
  /// Per vertex, the resources every route out of it crosses.
  std::vector<std::vector<int32_t>> SenderCommon;
  /// Directed links (parallel lanes summed) between topology vertices
  /// (nodes and switches); a FATPIPE has infinite capacity. A cluster's
  /// backbone (a channel from its switch to itself) is a resource only.
  std::map<std::pair<int64_t, int64_t>, double> Links;

  int32_t size() const { return static_cast<int32_t>(Nodes.size()); }
  llvm::ArrayRef<int32_t> route(int32_t A, int32_t B) const {
    const size_t I = size_t(A) * Nodes.size() + size_t(B);
    return llvm::ArrayRef<int32_t>(Use).slice(Begin[I],
                                              Begin[I + 1] - Begin[I]);
  }
};

/// How many of a set of routes cross each resource (once per route).
struct RouteCounter {
  explicit RouteCounter(size_t Resources)
      : Count(Resources, 0), Stamp(Resources, -1) {}
  void reset() { std::fill(Count.begin(), Count.end(), 0); }
  void add(llvm::ArrayRef<int32_t> Route) {
    ++Mark;
    for (int32_t Res : Route)
      if (Stamp[Res] != Mark) {
        Stamp[Res] = Mark;
        ++Count[Res];
      }
  }
  std::vector<int32_t> Count, Stamp;
  int32_t Mark = 0;
};

llvm::Expected<PackingNet> packingNet(const Machine &M, const Schedule &S) {
  // Without a network (a model machine) every link is one unit of
  // bandwidth, full duplex, and nothing limits injection.
  Network Unit;
  for (size_t C = 0; C < linkClassNames(M.Topo).size(); ++C)
    Unit.Links.push_back({"unit", 0, 1, true, false});
  const Network &Net = M.Net ? *M.Net : Unit;
  PackingNet PN;
  std::map<int64_t, int32_t> VertexOf;
  const int32_t P = S.size();
  auto AddNode = [&](int32_t Rank) {
    auto [It, New] = VertexOf.try_emplace(S.Participants[Rank].Node,
                                          static_cast<int32_t>(PN.size()));
    if (New) {
      PN.Nodes.push_back(S.Participants[Rank].Node);
      PN.ServingRank.push_back(Rank);
    }
    return It->second;
  };
  AddNode(S.Root);
  PN.VertexOfRank.resize(P);
  for (int32_t R = 0; R < P; ++R)
    PN.VertexOfRank[R] = AddNode(R);
  const int32_t N = PN.size();

  // Resources as the evaluator makes them.
  std::map<std::tuple<int64_t, int64_t, int32_t>, int32_t> LinkIds;
  std::map<int64_t, int32_t> LimiterIds;
  std::set<std::tuple<int64_t, int64_t, int32_t>> SeenLanes;
  auto NewResource = [&](double Bandwidth) {
    PN.Cap.push_back(Bandwidth);
    return static_cast<int32_t>(PN.Cap.size() - 1);
  };
  auto LinkResource = [&](const Channel &C) {
    std::tuple<int64_t, int64_t, int32_t> K{C.From, C.To, C.Lane};
    if (!Net.Links[C.Class].FullDuplex && C.From > C.To)
      K = {C.To, C.From, C.Lane};
    auto [It, New] = LinkIds.try_emplace(K, 0);
    if (New)
      It->second = NewResource(Net.Links[C.Class].Bandwidth);
    return It->second;
  };
  const double Limit = Net.injectionLimit();
  std::vector<int32_t> Inject(N, -1), Eject(N, -1);
  if (Limit < Inf && !Net.SharedLimiter)
    for (int32_t V = 0; V < N; ++V) {
      Inject[V] = NewResource(Limit);
      Eject[V] = NewResource(Limit);
    }

  std::vector<Channel> Route;
  std::vector<int64_t> LimiterNodes;
  PN.Begin.reserve(size_t(N) * N + 1);
  PN.Hops.assign(size_t(N) * N, 0);
  for (int32_t A = 0; A < N; ++A)
    for (int32_t B = 0; B < N; ++B) {
      PN.Begin.push_back(static_cast<uint32_t>(PN.Use.size()));
      if (A == B)
        continue;
      Route.clear();
      if (llvm::Error E = appendRoute(M.Topo, PN.Nodes[A], PN.Nodes[B], Route))
        return E;
      PN.Hops[size_t(A) * N + B] = static_cast<uint16_t>(Route.size());
      for (const Channel &C : Route) {
        const LinkClass &LC = Net.Links[C.Class];
        if (C.From != C.To) {
          // Each lane once: the route of another pair may cross it again.
          if (SeenLanes.insert({C.From, C.To, C.Lane}).second)
            PN.Links[{C.From, C.To}] += LC.FatPipe ? Inf : LC.Bandwidth;
        }
        if (!LC.FatPipe)
          PN.Use.push_back(LinkResource(C));
      }
      if (Net.SharedLimiter && Limit < Inf) {
        LimiterNodes.clear();
        appendLimiterNodes(M.Topo, PN.Nodes[A], PN.Nodes[B], Route,
                           LimiterNodes);
        for (int64_t X : LimiterNodes) {
          auto [It, New] = LimiterIds.try_emplace(X, 0);
          if (New)
            It->second = NewResource(Limit);
          PN.Use.push_back(It->second);
        }
      } else if (Inject[A] >= 0) {
        PN.Use.push_back(Inject[A]);
        PN.Use.push_back(Eject[B]);
      }
    }
  PN.Begin.push_back(static_cast<uint32_t>(PN.Use.size()));
  // A resource every route crosses (a cluster's backbone) is left out: a
  // tree loads it as much whoever sends.
  PN.SenderCommon.resize(N);
  RouteCounter Out(PN.Cap.size()), All(PN.Cap.size());
  for (int32_t A = 0; A < N; ++A)
    for (int32_t B = 0; B < N; ++B)
      if (B != A)
        All.add(PN.route(A, B));
  for (int32_t A = 0; A < N && N > 1; ++A) {
    Out.reset();
    for (int32_t B = 0; B < N; ++B)
      if (B != A)
        Out.add(PN.route(A, B));
    for (size_t Res = 0; Res < PN.Cap.size(); ++Res)
      if (Out.Count[Res] == N - 1 && All.Count[Res] < N * (N - 1))
        PN.SenderCommon[A].push_back(static_cast<int32_t>(Res));
  }
  return PN;
}

/// Maximum flow from \p Src to \p Dst in \p Links (Dinic's).
class MaxFlow {
public:
  explicit MaxFlow(const std::map<std::pair<int64_t, int64_t>, double> &Links) {
    std::map<int64_t, int32_t> Id;
    auto V = [&](int64_t X) {
      auto [It, New] = Id.try_emplace(X, static_cast<int32_t>(Id.size()));
      if (New)
        Adj.emplace_back();
      return It->second;
    };
    for (const auto &[Ends, Capacity] : Links) {
      const int32_t A = V(Ends.first), B = V(Ends.second);
      Adj[A].push_back(static_cast<int32_t>(Edges.size()));
      Edges.push_back({B, Capacity});
      Adj[B].push_back(static_cast<int32_t>(Edges.size()));
      Edges.push_back({A, 0});
    }
    Ids = std::move(Id);
  }

  double operator()(int64_t SrcNode, int64_t DstNode) {
    auto S = Ids.find(SrcNode), T = Ids.find(DstNode);
    if (S == Ids.end() || T == Ids.end())
      return 0;
    Flow.assign(Edges.size(), 0);
    double Total = 0;
    while (levels(S->second, T->second)) {
      Next.assign(Adj.size(), 0);
      while (true) {
        const double F = push(S->second, T->second, Inf);
        if (F <= 0)
          break;
        Total += F;
        if (Total == Inf)
          return Inf;
      }
    }
    return Total;
  }

private:
  struct Edge {
    int32_t To;
    double Cap;
  };
  std::vector<Edge> Edges;
  std::vector<double> Flow;
  std::vector<std::vector<int32_t>> Adj;
  std::vector<int32_t> Level, Next;
  std::map<int64_t, int32_t> Ids;

  double residual(int32_t E) const { return Edges[E].Cap - Flow[E]; }

  bool levels(int32_t S, int32_t T) {
    Level.assign(Adj.size(), -1);
    std::vector<int32_t> Queue{S};
    Level[S] = 0;
    for (size_t I = 0; I < Queue.size(); ++I)
      for (int32_t E : Adj[Queue[I]])
        if (residual(E) > 1e-12 && Level[Edges[E].To] < 0) {
          Level[Edges[E].To] = Level[Queue[I]] + 1;
          Queue.push_back(Edges[E].To);
        }
    return Level[T] >= 0;
  }

  double push(int32_t U, int32_t T, double Pushed) {
    if (U == T)
      return Pushed;
    for (int32_t &I = Next[U]; I < static_cast<int32_t>(Adj[U].size()); ++I) {
      const int32_t E = Adj[U][I];
      const int32_t V = Edges[E].To;
      if (Level[V] != Level[U] + 1 || residual(E) <= 1e-12)
        continue;
      const double F = push(V, T, std::min(Pushed, residual(E)));
      if (F > 0) {
        Flow[E] += F;
        Flow[E ^ 1] -= F;
        return F;
      }
    }
    return 0;
  }
};

/// The cut bound of the file comment.
double cutBound(const PackingNet &PN) {
  const int32_t N = PN.size();
  double Bound = Inf;
  MaxFlow Flow(PN.Links);
  for (int32_t V = 1; V < N; ++V)
    Bound = std::min(Bound, Flow(PN.Nodes[0], PN.Nodes[V]));
  // Resources every route into a node crosses (counted once per node), or
  // every route out of the root's.
  std::vector<int32_t> Into(PN.Cap.size(), 0);
  RouteCounter Routes(PN.Cap.size());
  for (int32_t V = 1; V < N; ++V) {
    Routes.reset();
    for (int32_t A = 0; A < N; ++A)
      if (A != V)
        Routes.add(PN.route(A, V));
    for (size_t Res = 0; Res < Into.size(); ++Res)
      Into[Res] += Routes.Count[Res] == N - 1;
  }
  Routes.reset();
  for (int32_t B = 1; B < N; ++B)
    Routes.add(PN.route(0, B));
  for (size_t Res = 0; Res < Into.size(); ++Res) {
    const int32_t Crossings =
        std::max<int32_t>(Into[Res], N > 1 && Routes.Count[Res] == N - 1);
    if (Crossings > 0)
      Bound = std::min(Bound, PN.Cap[Res] / Crossings);
  }
  return Bound;
}

/// A tree over the vertices grown from vertex \p Root (its Parent -1), Prim's
/// rule on the resources' lengths plus the tree's own load on its senders:
/// an edge u -> v costs the lengths along its route, plus, for each child u
/// already has, the lengths of the resources every route out of u crosses
/// (its link to its switch, its injection), so a tree spreads its sends
/// instead of making a star. A sender's cost only grows as the tree does,
/// so a candidate's key is a lower bound; the least is brought up to date
/// from every member before it is taken (lazy Prim; O(N^3) at worst, when
/// every candidate ties, as on a crossbar).
std::vector<int32_t> growTree(const PackingNet &PN,
                              const std::vector<double> &Len, double Share,
                              int32_t Root = 0) {
  const int32_t N = PN.size();
  std::vector<double> Base(size_t(N) * N, 0), SenderLen(N, 0);
  for (int32_t U = 0; U < N; ++U) {
    for (int32_t Res : PN.SenderCommon[U])
      SenderLen[U] += Len[Res];
    for (int32_t V = 0; V < N; ++V)
      for (int32_t Res : PN.route(U, V))
        Base[size_t(U) * N + V] += Len[Res];
  }
  std::vector<double> Key(N, Inf), Dist(N, 0);
  std::vector<int32_t> Parent(N, -1), Depth(N, 0), KeyHops(N, 0),
      Children(N, 0), OfferedAt(N, 0), Members{Root};
  std::vector<char> In(N, 0);
  // Lower key first; on a tie (within 1e-9) fewer hops, then shallower.
  auto Less = [](double K, int32_t H, int32_t D, double K2, int32_t H2,
                 int32_t D2) {
    if (K < K2 * (1 - 1e-9))
      return true;
    if (K > K2 * (1 + 1e-9))
      return false;
    return H < H2 || (H == H2 && D < D2);
  };
  auto Offer = [&](int32_t U, int32_t V) {
    const double K =
        Base[size_t(U) * N + V] + Children[U] * SenderLen[U] + Share * Dist[U];
    const int32_t H = PN.Hops[size_t(U) * N + V];
    if (Parent[V] < 0 ||
        Less(K, H, Depth[U] + 1, Key[V], KeyHops[V], Depth[V])) {
      Key[V] = K;
      KeyHops[V] = H;
      Depth[V] = Depth[U] + 1;
      Parent[V] = U;
      OfferedAt[V] = Children[U];
    }
  };
  In[Root] = 1;
  for (int32_t V = 0; V < N; ++V)
    if (V != Root)
      Offer(Root, V);
  for (int32_t Added = 1; Added < N; ++Added) {
    int32_t Best = -1;
    while (true) {
      Best = -1;
      for (int32_t V = 0; V < N; ++V)
        if (!In[V] && (Best < 0 || Less(Key[V], KeyHops[V], Depth[V], Key[Best],
                                        KeyHops[Best], Depth[Best])))
          Best = V;
      if (OfferedAt[Best] == Children[Parent[Best]])
        break;
      // Its sender has had children since: the key from every member now.
      Parent[Best] = -1;
      for (int32_t U : Members)
        Offer(U, Best);
    }
    In[Best] = 1;
    Members.push_back(Best);
    const int32_t From = Parent[Best];
    ++Children[From];
    Dist[Best] = Dist[From] + Base[size_t(From) * N + Best];
    for (int32_t V = 0; V < N; ++V)
      if (!In[V])
        Offer(Best, V);
  }
  return Parent;
}

} // namespace

namespace {

/// The tree over ranks of a tree over vertices rooted at \p RootRank's
/// vertex: a vertex is served by its first rank (the root's by the root),
/// its other ranks hang off that one.
ParentArray rankTree(const PackingNet &PN, const std::vector<int32_t> &Tree,
                     int32_t RootRank) {
  const int32_t P = static_cast<int32_t>(PN.VertexOfRank.size());
  const int32_t RootV = PN.VertexOfRank[RootRank];
  auto Serving = [&](int32_t V) {
    return V == RootV ? RootRank : PN.ServingRank[V];
  };
  ParentArray Parent(P, -1);
  for (int32_t Rank = 0; Rank < P; ++Rank) {
    const int32_t V = PN.VertexOfRank[Rank];
    if (Rank != RootRank)
      Parent[Rank] = Rank != Serving(V) ? Serving(V) : Serving(Tree[V]);
  }
  return Parent;
}

/// Whether \p R uses at most \p Most nodes; if not, \p Why is "<What> at
/// most <Most> nodes in use, not <n>".
bool fewNodes(const Request &R, int64_t Most, const char *What,
              std::string &Why) {
  std::vector<int64_t> Nodes = R.Nodes;
  std::sort(Nodes.begin(), Nodes.end());
  const int64_t InUse = std::unique(Nodes.begin(), Nodes.end()) - Nodes.begin();
  if (InUse <= Most)
    return true;
  Why = std::string(What) + " at most " + std::to_string(Most) +
        " nodes in use, not " + std::to_string(InUse);
  return false;
}

} // namespace

bool packingApplies(const Machine &M, const Request &R, std::string &Why) {
  if (!isRouted(M.Topo)) {
    Why = std::string("needs routes between the nodes, not a '") +
          topologyKindName(M.Topo.Kind) + "' topology";
    return false;
  }
  return fewNodes(R, MaxPackingNodes, "routes every pair of nodes:", Why);
}

llvm::Expected<TreePacking> packBroadcast(const Machine &M, const Request &R,
                                          int MaxTrees, double DijkstraShare) {
  assert(MaxTrees >= 1);
  const Schedule Skel = scheduleSkeleton(M, R, "packing");
  llvm::Expected<PackingNet> PNOr = packingNet(M, Skel);
  if (!PNOr)
    return PNOr.takeError();
  const PackingNet &PN = *PNOr;
  const int32_t N = PN.size();
  const size_t NumRes = PN.Cap.size();
  TreePacking Out;
  Out.CutBound = N > 1 ? cutBound(PN) : Inf;

  // Multiplicative weights: each round the tree of least length at its
  // bottleneck rate; identical trees add up.
  struct Found {
    std::vector<int32_t> Parent;
    std::vector<int32_t> Uses;
    double Flow = 0;
  };
  std::vector<Found> Trees;
  std::vector<double> Len(NumRes);
  for (size_t Res = 0; Res < NumRes; ++Res)
    Len[Res] = 1 / PN.Cap[Res];
  const double Eps = 0.3;
  const int Rounds = N > 1 ? 8 * MaxTrees : 1;
  for (int Round = 0; Round < Rounds; ++Round) {
    std::vector<int32_t> Parent = growTree(PN, Len, DijkstraShare);
    std::vector<int32_t> Uses(NumRes, 0);
    for (int32_t V = 1; V < N; ++V)
      for (int32_t Res : PN.route(Parent[V], V))
        ++Uses[Res];
    double Bottleneck = Inf;
    for (size_t Res = 0; Res < NumRes; ++Res)
      if (Uses[Res])
        Bottleneck = std::min(Bottleneck, PN.Cap[Res] / Uses[Res]);
    auto Same = std::find_if(Trees.begin(), Trees.end(), [&](const Found &F) {
      return F.Parent == Parent;
    });
    if (Bottleneck == Inf) {
      // Nothing shared on the way (all on one node, or fat pipes only).
      if (Trees.empty())
        Trees.push_back({std::move(Parent), std::move(Uses), Inf});
      break;
    }
    for (size_t Res = 0; Res < NumRes; ++Res)
      Len[Res] *= 1 + Eps * Uses[Res] * Bottleneck / PN.Cap[Res];
    if (Same != Trees.end())
      Same->Flow += Bottleneck;
    else
      Trees.push_back({std::move(Parent), std::move(Uses), Bottleneck});
  }
  std::stable_sort(
      Trees.begin(), Trees.end(),
      [](const Found &A, const Found &B) { return A.Flow > B.Flow; });

  // The fewest trees within 2% of the best rate their scaled flows reach.
  std::vector<double> Rates;
  if (Trees.front().Flow == Inf) {
    Rates = {Inf};
  } else {
    std::vector<double> Load(NumRes, 0);
    std::vector<std::pair<double, double>> TotalScale;
    const size_t MaxK = std::min<size_t>(Trees.size(), size_t(MaxTrees));
    for (size_t K = 0; K < MaxK; ++K) {
      double Flow = 0, Scale = 0;
      for (size_t Res = 0; Res < NumRes; ++Res) {
        Load[Res] += Trees[K].Flow * Trees[K].Uses[Res];
        Scale = std::max(Scale, Load[Res] / PN.Cap[Res]);
      }
      for (size_t T = 0; T <= K; ++T)
        Flow += Trees[T].Flow;
      TotalScale.push_back({Flow / Scale, Scale});
    }
    double BestTotal = 0;
    for (auto [Total, Scale] : TotalScale)
      BestTotal = std::max(BestTotal, Total);
    size_t K = 0;
    while (TotalScale[K].first < 0.98 * BestTotal)
      ++K;
    for (size_t T = 0; T <= K; ++T)
      Rates.push_back(Trees[T].Flow / TotalScale[K].second);
  }

  for (size_t T = 0; T < Rates.size(); ++T) {
    Out.Trees.push_back(rankTree(PN, Trees[T].Parent, R.Root));
    Out.Rates.push_back(Rates[T]);
    Out.Rate += Rates[T];
  }
  return Out;
}

llvm::Expected<Schedule> buildPacking(const Machine &M, const Request &R,
                                      Pipeline &Pl) {
  const Schedule Skel = scheduleSkeleton(M, R, "packing");
  if (Skel.size() < 2)
    return Skel;
  Cheapest Shares(M, Pl, makespanJudge());
  // A tree of least load alone is a chain (Prim's rule on a fat tree or a
  // cluster): a little of Dijkstra's keeps the trees shallow.
  for (double Share : {0.1, 0.25}) {
    Shares.consider(
        "dijkstra share " + std::to_string(Share).substr(0, 4),
        [&]() -> llvm::Expected<Schedule> {
          llvm::Expected<TreePacking> Pk = packBroadcast(M, R, 6, Share);
          if (!Pk)
            return Pk.takeError();
          // Never more trees than bytes: each carries a chunk.
          const size_t Ways = std::min<uint64_t>(
              Pk->Trees.size(), std::max<uint64_t>(1, R.Bytes));
          auto Build = [&](int64_t K) -> llvm::Expected<Schedule> {
            Schedule S = Skel;
            std::vector<TreeShare> Forest;
            int64_t Lo = 0;
            for (size_t T = 0; T < Ways; ++T) {
              const double Part =
                  Pk->Rates[T] == Inf ? 1 : Pk->Rates[T] / Pk->Rates.front();
              const int64_t Chunks =
                  std::max<int64_t>(1, std::llround(double(K) * Part));
              Forest.push_back({Pk->Trees[T], Lo, Lo + Chunks, 1});
              Lo += Chunks;
            }
            S.NumChunks = Lo;
            S.Steps = forestSteps(S, Forest);
            return S;
          };
          return searchSegments(M, R, Pl, 0,
                                maxSegmentsPerTree(R,
                                                   static_cast<int64_t>(Ways),
                                                   MaxPackingSearchTransfers),
                                Build, static_cast<int64_t>(Ways));
        });
  }
  return Shares.take();
}

llvm::Expected<Schedule> buildPackingAllgather(const Machine &M,
                                               const Request &R, Pipeline &Pl) {
  const Schedule Skel = scheduleSkeleton(M, R, "packing");
  const int32_t P = Skel.size();
  if (P < 2)
    return Skel;
  llvm::Expected<PackingNet> PNOr = packingNet(M, Skel);
  if (!PNOr)
    return PNOr.takeError();
  const PackingNet &PN = *PNOr;
  Cheapest Shares(M, Pl, makespanJudge());
  for (double Share : {0.1, 0.25})
    Shares.consider("dijkstra share " + std::to_string(Share).substr(0, 4),
                    [&]() -> llvm::Expected<Schedule> {
                      // One tree per origin, each on the lengths the trees
                      // before it left: a resource's length is the time one
                      // more block takes through it after the blocks routed
                      // there so far.
                      std::vector<double> Load(PN.Cap.size(), 0),
                          Len(PN.Cap.size());
                      std::vector<ParentArray> Trees;
                      for (int32_t O = 0; O < P; ++O) {
                        for (size_t Res = 0; Res < Len.size(); ++Res)
                          Len[Res] = (1 + Load[Res]) / PN.Cap[Res];
                        const std::vector<int32_t> Tree =
                            growTree(PN, Len, Share, PN.VertexOfRank[O]);
                        for (int32_t V = 0; V < PN.size(); ++V)
                          if (Tree[V] >= 0)
                            for (int32_t Res : PN.route(Tree[V], V))
                              Load[Res] += 1;
                        Trees.push_back(rankTree(PN, Tree, O));
                      }
                      // Origin O's block down its tree, level by level over all
                      // the trees (a causal order: a rank passes a block on
                      // after it got it).
                      std::vector<std::vector<int64_t>> Depths;
                      int64_t Deepest = 0;
                      for (const ParentArray &T : Trees) {
                        Depths.push_back(depths(T));
                        for (int64_t D : Depths.back())
                          Deepest = std::max(Deepest, D);
                      }
                      std::vector<Transfer> Ts;
                      for (int64_t D = 1; D <= Deepest; ++D)
                        for (int32_t O = 0; O < P; ++O)
                          for (int32_t Rank = 0; Rank < P; ++Rank)
                            if (Depths[O][Rank] == D)
                              Ts.push_back(allgatherBlocks(
                                  Skel, static_cast<int32_t>(Trees[O][Rank]),
                                  Rank, {{O, O + 1}}));
                      Schedule S = Skel;
                      S.Steps = orderedRounds(Ts, P);
                      return S;
                    });
  return Shares.take();
}

} // namespace collc
