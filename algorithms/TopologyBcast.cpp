#include "algorithms/TopologyBcast.h"
#include "algorithms/LibraryBcast.h"

#include "algorithms/Cheapest.h"
#include "algorithms/Placement.h"
#include "algorithms/SegmentedBcast.h"
#include "ir/Diagnostic.h"
#include "passes/Cost.h"
#include "passes/Posting.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <tuple>

namespace collc {

namespace {

int64_t floorMod(int64_t A, int64_t N) { return ((A % N) + N) % N; }

/// The ranks of a mesh or torus by node: RanksOn[n] lists the ranks on node
/// n, its leader (the root on the root's node, else the lowest rank) first.
struct Layout {
  std::vector<std::vector<int32_t>> RanksOn;
  int64_t RootNode = 0;
};

Layout layoutOf(const Schedule &S, int64_t Nodes) {
  Layout L;
  L.RanksOn.resize(Nodes);
  for (int32_t R = 0; R < S.size(); ++R)
    L.RanksOn[S.Participants[R].Node].push_back(R);
  L.RootNode = S.Participants[S.Root].Node;
  auto &Home = L.RanksOn[L.RootNode];
  std::rotate(Home.begin(), std::find(Home.begin(), Home.end(), S.Root),
              std::find(Home.begin(), Home.end(), S.Root) + 1);
  return L;
}

/// A tree over nodes as a tree over ranks: a node's leader receives from the
/// leader of its parent node, the node's other ranks from the rank before
/// them on the node.
ParentArray rankTree(const Layout &L, const ParentArray &NodeParent,
                     int32_t Ranks) {
  ParentArray Out(Ranks, -1);
  for (size_t N = 0; N < L.RanksOn.size(); ++N) {
    const auto &On = L.RanksOn[N];
    if (NodeParent[N] >= 0)
      Out[On[0]] = L.RanksOn[NodeParent[N]][0];
    for (size_t I = 1; I < On.size(); ++I)
      Out[On[I]] = On[I - 1];
  }
  return Out;
}

/// Lead groups spanning-trees tries on a machine with a network: segments of
/// G chunks behind a first segment of one. Under the posting rule a rank
/// posts RecvWindow receives per peer at once (passes/Posting.h), so a
/// link's first two equal segments start together, share the link and end
/// together, and so do the next two: every hop takes latency + twice the
/// transmission. A short first segment ends sooner, and the segments behind
/// it stay offset on every link of the tree, each alone on the link while it
/// transmits (16x16 SMPI torus, 1 MiB: 130.8 us with G = 1, 106.4 with 6).
constexpr int64_t LeadGroups[] = {3, 6};

/// The dimensions of \p T with an extent of at least 2.
std::vector<size_t> activeDims(const Topology &T) {
  std::vector<size_t> A;
  for (size_t J = 0; J < T.Dims.size(); ++J)
    if (T.Dims[J] >= 2)
      A.push_back(J);
  return A;
}

bool isGrid(const Topology &T) {
  return T.Kind == TopologyKind::Mesh || T.Kind == TopologyKind::Torus ||
         T.Kind == TopologyKind::Hypercube;
}

/// The node one step of \p Delta (+1 or -1) from \p C in dimension \p Dim.
int64_t neighbour(const Topology &T, std::vector<int64_t> C, size_t Dim,
                  int64_t Delta) {
  C[Dim] = T.Kind == TopologyKind::Torus ? floorMod(C[Dim] + Delta, T.Dims[Dim])
                                         : C[Dim] + Delta;
  return T.nodeOf(C);
}

/// Transfers of a schedule spanning-trees tries behind a lead beyond its
/// search's budget (two or three such schedules at most).
constexpr int64_t MaxLeadTransfers = int64_t(1) << 17;

/// What every mesh and torus builder starts from (the registry lists them
/// where topologyBcastApplies: a mesh or torus): runs \p Build(S, L) on the
/// skeleton S of a schedule named \p Name and its ranks by node L. With
/// fewer than 2 ranks there is nothing to send: the skeleton is the
/// schedule.
template <class F>
llvm::Expected<Schedule> onGrid(const Machine &M, const Request &R,
                                llvm::StringRef Name, F &&Build) {
  Schedule S = scheduleSkeleton(M, R, Name);
  if (S.size() < 2)
    return S;
  const Layout L = layoutOf(S, M.Topo.Nodes);
  return Build(S, L);
}

/// Node order of a reflected (boustrophedon) walk over the coordinates,
/// dimensions \p Order outermost first: consecutive nodes are neighbours.
/// Coordinates are offsets added to \p Origin (mod the extent on a torus).
std::vector<int64_t> snakeOrder(const Topology &T,
                                const std::vector<size_t> &Order,
                                const std::vector<int64_t> &Origin) {
  int64_t N = 1;
  for (size_t J : Order)
    N *= T.Dims[J];
  std::vector<int64_t> Out;
  Out.reserve(N);
  std::vector<int64_t> C = Origin;
  for (int64_t I = 0; I < N; ++I) {
    int64_t Block = N;
    for (size_t L = 0; L < Order.size(); ++L) {
      const int64_t Ext = T.Dims[Order[L]];
      const int64_t Sweep = I / Block; // sweeps of this level before
      Block /= Ext;
      int64_t Digit = (I / Block) % Ext;
      if (Sweep % 2)
        Digit = Ext - 1 - Digit;
      C[Order[L]] = T.Kind == TopologyKind::Torus
                        ? floorMod(Origin[Order[L]] + Digit, Ext)
                        : Origin[Order[L]] + Digit;
    }
    Out.push_back(T.nodeOf(C));
  }
  return Out;
}

/// The ring-pipeline's tree over nodes: one or two chains from the root.
ParentArray ringTree(const Topology &T, int64_t Root) {
  const std::vector<size_t> Act = activeDims(T);
  ParentArray Parent(T.Nodes, -1);
  const std::vector<int64_t> RootC = T.coordOf(Root);
  std::vector<int64_t> Seq;
  int64_t Pos = 0;
  bool Cycle = false;
  if (T.Kind == TopologyKind::Torus) {
    // An even extent outermost closes the snake into a ring (its last node
    // is one wrap-around step from the first).
    std::vector<size_t> Order = Act;
    auto Even = std::find_if(Order.begin(), Order.end(),
                             [&](size_t J) { return T.Dims[J] % 2 == 0; });
    if (Even != Order.end()) {
      std::rotate(Order.begin(), Even, Even + 1);
      Seq = snakeOrder(T, Order, RootC);
      Cycle = true;
    } else {
      // All extents odd: a path, shifted so that the root is its middle.
      std::vector<int64_t> Zero(T.Dims.size(), 0);
      std::vector<int64_t> Plain = snakeOrder(T, Order, Zero);
      Pos = static_cast<int64_t>(Plain.size()) / 2;
      std::vector<int64_t> Mid = T.coordOf(Plain[Pos]), Origin = RootC;
      for (size_t J = 0; J < Origin.size(); ++J)
        Origin[J] = floorMod(RootC[J] - Mid[J], T.Dims[J]);
      Seq = snakeOrder(T, Order, Origin);
    }
  } else {
    // A mesh: the dimension rotation that puts the root nearest the middle.
    int64_t BestCost = -1;
    std::vector<int64_t> Zero(T.Dims.size(), 0);
    for (size_t Rot = 0; Rot < std::max<size_t>(1, Act.size()); ++Rot) {
      std::vector<size_t> Order = Act;
      std::rotate(Order.begin(), Order.begin() + Rot, Order.end());
      std::vector<int64_t> Cand = snakeOrder(T, Order, Zero);
      int64_t At = std::find(Cand.begin(), Cand.end(), Root) - Cand.begin();
      int64_t Cost = std::max<int64_t>(At, Cand.size() - 1 - At);
      if (BestCost < 0 || Cost < BestCost) {
        BestCost = Cost;
        Seq = std::move(Cand);
        Pos = At;
      }
    }
  }
  const int64_t N = static_cast<int64_t>(Seq.size());
  if (Cycle) {
    // The root first, then one chain each way round.
    std::rotate(Seq.begin(), std::find(Seq.begin(), Seq.end(), Root),
                Seq.end());
    const int64_t H = N / 2;
    for (int64_t I = 1; I <= H; ++I)
      Parent[Seq[I]] = Seq[I - 1];
    for (int64_t I = N - 1; I > H; --I)
      Parent[Seq[I]] = I == N - 1 ? Seq[0] : Seq[I + 1];
    return Parent;
  }
  for (int64_t I = Pos + 1; I < N; ++I)
    Parent[Seq[I]] = Seq[I - 1];
  for (int64_t I = Pos - 1; I >= 0; --I)
    Parent[Seq[I]] = Seq[I + 1];
  return Parent;
}

} // namespace

bool topologyBcastApplies(const Machine &M, const Request &R,
                          std::string &Why) {
  if (!isGrid(M.Topo) || M.Topo.Nodes <= 0) {
    Why = std::string("needs a mesh, torus or hypercube topology, not '") +
          topologyKindName(M.Topo.Kind) + "'";
    return false;
  }
  std::vector<bool> Used(M.Topo.Nodes, false);
  int64_t Count = 0;
  for (int64_t N : R.Nodes) {
    if (N < 0 || N >= M.Topo.Nodes)
      continue;
    Count += !Used[N];
    Used[N] = true;
  }
  if (Count != M.Topo.Nodes || Count == 0) {
    Why = "needs a rank on every node of the topology (" +
          std::to_string(Count) + " of " + std::to_string(M.Topo.Nodes) +
          " nodes have one)";
    return false;
  }
  return true;
}

bool topologyBcastInAuto(const Machine &M, const Request &, std::string &Why) {
  if (M.Net)
    return true;
  Why = "auto considers broadcasts laid onto the topology only on a machine "
        "with a network";
  return false;
}

std::vector<ParentArray> spanningTreesOf(const Topology &T, int64_t Root,
                                         bool Unidirectional) {
  const std::vector<size_t> Act = activeDims(T);
  const size_t D = Act.size();
  const bool Torus = T.Kind == TopologyKind::Torus;
  if (D == 0)
    return {};
  if (Unidirectional &&
      (!Torus || std::any_of(Act.begin(), Act.end(),
                             [&](size_t J) { return T.Dims[J] < 3; })))
    return {};
  const std::vector<int64_t> RootC = T.coordOf(Root);
  std::vector<ParentArray> Trees;
  // Offsets of node coordinates \p C from the root per active dimension.
  std::vector<int64_t> Off(D);
  // The first dimension index with a non-zero offset going backward from
  // K - 1 (cyclically; K itself last): the last one a route taking the
  // dimensions in the order K, K+1, ... resolves.
  auto lastResolved = [&](size_t K) {
    for (size_t I = 1; I <= D; ++I) {
      size_t J = (K + D - I) % D;
      if (Off[J] != 0)
        return J;
    }
    return K;
  };
  const std::vector<int64_t> Signs =
      Unidirectional ? std::vector<int64_t>{1, -1} : std::vector<int64_t>{1};
  for (int64_t Sign : Signs)
    for (size_t K = 0; K < D; ++K) {
      ParentArray Parent(T.Nodes, -1);
      for (int64_t V = 0; V < T.Nodes; ++V) {
        if (V == Root)
          continue;
        const std::vector<int64_t> C = T.coordOf(V);
        for (size_t I = 0; I < D; ++I) {
          const int64_t Ext = T.Dims[Act[I]];
          const int64_t Delta = C[Act[I]] - RootC[Act[I]];
          if (Unidirectional)
            Off[I] = floorMod(Sign * Delta, Ext);
          else if (Torus) {
            Off[I] = floorMod(Delta, Ext);
            if (Off[I] > Ext / 2)
              Off[I] -= Ext;
          } else {
            Off[I] = Delta;
          }
        }
        if (Off[K] == 0) {
          // Enter through a neighbour one step off in dimension K: the
          // wrap-around link (one direction), or the side that exists.
          int64_t Side = -1;
          if (Unidirectional)
            Side = -Sign;
          else if (!Torus && RootC[Act[K]] == 0)
            Side = 1;
          Parent[V] = neighbour(T, C, Act[K], Side);
          continue;
        }
        const size_t J = lastResolved(K);
        const int64_t Toward = Unidirectional ? -Sign : (Off[J] > 0 ? -1 : 1);
        Parent[V] = neighbour(T, C, Act[J], Toward);
      }
      Trees.push_back(std::move(Parent));
    }
  return Trees;
}

std::vector<ParentArray> halfSpaceTreesOf(const Topology &T, int64_t Root) {
  const std::vector<size_t> Act = activeDims(T);
  const size_t D = Act.size();
  if (D == 0 || T.Kind != TopologyKind::Torus ||
      std::any_of(Act.begin(), Act.end(),
                  [&](size_t J) { return T.Dims[J] < 3; }))
    return {};
  const std::vector<int64_t> RootC = T.coordOf(Root);
  // Offsets of every node from the root per active dimension, in
  // (-ceil(n/2), floor(n/2)].
  std::vector<std::vector<int64_t>> Off(T.Nodes, std::vector<int64_t>(D));
  for (int64_t V = 0; V < T.Nodes; ++V) {
    const std::vector<int64_t> C = T.coordOf(V);
    for (size_t I = 0; I < D; ++I) {
      const int64_t Ext = T.Dims[Act[I]];
      int64_t O = floorMod(C[Act[I]] - RootC[Act[I]], Ext);
      Off[V][I] = O > Ext / 2 ? O - Ext : O;
    }
  }
  std::vector<ParentArray> Trees;
  for (int64_t Sign : {1, -1})
    for (size_t K = 0; K < D; ++K) {
      ParentArray Parent(T.Nodes, -1);
      for (int64_t V = 0; V < T.Nodes; ++V) {
        if (V == Root)
          continue;
        const std::vector<int64_t> &O = Off[V];
        const std::vector<int64_t> C = T.coordOf(V);
        // The previous dimension before K (cyclically) with a non-zero
        // offset; K itself when no other has one.
        size_t J = K;
        for (size_t I = 1; I < D && J == K; ++I)
          if (O[(K + D - I) % D] != 0)
            J = (K + D - I) % D;
        if (O[K] == 0)
          // The hyperplane of offset 0: from the neighbour at offset Sign.
          Parent[V] = neighbour(T, C, Act[K], Sign);
        else if (O[K] * Sign < 0 || J == K)
          // The other half, the long way round, or the root's line of K:
          // one step of Sign along K.
          Parent[V] = neighbour(T, C, Act[K], -Sign);
        else
          // This tree's half, off the line: toward the root in J (each
          // dimension's inner in-link serves the tree of the next one).
          Parent[V] = neighbour(T, C, Act[J], O[J] > 0 ? -1 : 1);
      }
      Trees.push_back(std::move(Parent));
    }
  return Trees;
}

llvm::Expected<Schedule> buildRingPipeline(const Machine &M, const Request &R,
                                           Pipeline &Pl) {
  return onGrid(
      M, R, "ring-pipeline",
      [&](Schedule &S, const Layout &L) -> llvm::Expected<Schedule> {
        const int32_t P = S.size();
        const ParentArray Tree = rankTree(L, ringTree(M.Topo, L.RootNode), P);
        // Two chains of about P/2: the linear model's optimum for that depth.
        return searchOneTree(M, R, Pl, S, Tree,
                             pipelineOptimalSegments(M, P / 2 + 1, R.Bytes));
      });
}

llvm::Expected<Schedule> buildSpanningTrees(const Machine &M, const Request &R,
                                            Pipeline &Pl) {
  return onGrid(
      M, R, "spanning-trees",
      [&](const Schedule &Skel, const Layout &L) -> llvm::Expected<Schedule> {
        const int32_t P = Skel.size();
        // Each family's trees over ranks, and the schedule of K segments per
        // tree, each of \p Group chunks behind a first of one.
        std::vector<std::vector<ParentArray>> RankFamilies;
        auto Forest = [&](const std::vector<ParentArray> &Trees, int64_t K,
                          int64_t Group) {
          const int64_t Ways = static_cast<int64_t>(Trees.size());
          Schedule S = Skel;
          S.NumChunks = Ways * K * Group;
          std::vector<TreeShare> Shares;
          for (int64_t T = 0; T < Ways; ++T)
            Shares.push_back(
                {Trees[T], T * K * Group, (T + 1) * K * Group, Group});
          S.Steps = forestSteps(S, Shares);
          return S;
        };
        // Each family searched, then the leads: the cheapest of all, the first
        // on a tie (TieKey: the order considered).
        Cheapest Families(M, Pl, makespanJudge());
        int64_t Considered = 0;
        auto Consider =
            [&](const llvm::Twine &Name,
                llvm::function_ref<llvm::Expected<Schedule>()> Build) {
              CandidateHooks Hooks;
              Hooks.TieKey = Considered++;
              Families.consider(Name, Build, Hooks);
            };
        // The one-direction trees are not searched: the half-space trees apply
        // where they do, with as many trees, and are never deeper.
        const std::vector<std::vector<ParentArray>> NodeFamilies{
            spanningTreesOf(M.Topo, L.RootNode, false),
            halfSpaceTreesOf(M.Topo, L.RootNode)};
        for (const std::vector<ParentArray> &Family : NodeFamilies) {
          std::vector<ParentArray> Trees;
          for (const ParentArray &T : Family)
            Trees.push_back(rankTree(L, T, P));
          if (Trees.empty())
            continue;
          // Never more trees than bytes: each carries at least one segment.
          const int64_t Ways =
              std::min<int64_t>(Trees.size(), std::max<uint64_t>(1, R.Bytes));
          Trees.resize(Ways);
          Consider("family " + llvm::Twine(RankFamilies.size() + 1) + ", " +
                       llvm::Twine(Ways) + " trees",
                   [&] {
                     return searchSegments(
                         M, R, Pl, 0, maxSegmentsPerTree(R, Ways),
                         [&](int64_t K) -> llvm::Expected<Schedule> {
                           return Forest(Trees, K, 1);
                         },
                         Ways);
                   });
          RankFamilies.push_back(std::move(Trees));
        }
        // The fastest family's segments behind a short lead (network machines:
        // the posting window is what a lead works around), if its chunks stay
        // within what a schedule over P ranks may have.
        if (M.Net && Families.best()) {
          const std::vector<ParentArray> &Trees =
              RankFamilies[*Families.bestKey()];
          const int64_t Ways = static_cast<int64_t>(Trees.size());
          // The count found, and the nearest count below it whose segments fill
          // a protocol band (counts near-equal without a lead are not with
          // one); when the search stopped at its budget, also the count above
          // whose segments fill the band of the best bandwidth factor, if
          // better than the found segments' band, within a larger budget (one
          // more count, not a search).
          const int64_t Found = Families.best()->NumChunks / Ways;
          const bool Capped = Found == maxSegmentsPerTree(R, Ways);
          std::vector<int64_t> Counts{Found};
          auto FactorAt = [&](int64_t K) {
            const uint64_t Longest =
                (R.Bytes + Ways * K - 1) / (Ways * K) + M.Net->EnvelopeBytes;
            return M.Net->band(Longest).BandwidthFactor;
          };
          int64_t Below = 0, Above = 0;
          double AboveFactor = FactorAt(Found);
          for (int64_t K : bandEdgeCounts(M, R.Bytes, Ways)) {
            if (K < Found)
              Below = K;
            const double Factor = FactorAt(K);
            if (K > Found && Factor > AboveFactor &&
                K <= maxSegmentsPerTree(R, Ways, MaxLeadTransfers))
              Above = K, AboveFactor = Factor;
          }
          if (R.Segments <= 0) {
            if (Below >= 2)
              Counts.push_back(Below);
            if (Above && Capped)
              Counts.push_back(Above);
          }
          for (int64_t K : Counts)
            for (int64_t Group : LeadGroups)
              if (K >= 2 && Ways * K * Group <= maxSegmentsFor(P) &&
                  static_cast<uint64_t>(Ways * K * Group) <= R.Bytes)
                Consider("lead, k=" + llvm::Twine(K) + ", groups of " +
                             llvm::Twine(Group),
                         [&]() -> llvm::Expected<Schedule> {
                           return Forest(Trees, K, Group);
                         });
        }
        return Families.take();
      });
}

llvm::Expected<Schedule> buildScatterRing(const Machine &M, const Request &R) {
  return onGrid(
      M, R, "scatter-ring",
      [&](Schedule &S, const Layout &L) -> llvm::Expected<Schedule> {
        const int32_t P = S.size();
        const Topology &T = M.Topo;
        const bool Torus = T.Kind == TopologyKind::Torus;
        // Gather order: the last written dimension first; blocks numbered so
        // that what a node holds after each gather level is one range.
        std::vector<size_t> G = activeDims(T);
        std::reverse(G.begin(), G.end());
        const size_t D = G.size();
        std::vector<int64_t> Stride(D + 1, 1);
        for (size_t I = 0; I < D; ++I)
          Stride[I + 1] = Stride[I] * T.Dims[G[I]];
        // One block per node, each transfer a range of them: what it lists
        // grows with the rings' exchanges, about P x the sum of the extents
        // (the scatter's relays are fewer), not with P x blocks.
        int64_t Extents = 0;
        for (size_t I = 0; I < D; ++I)
          Extents += T.Dims[G[I]];
        std::string Why;
        if (!transfersFit(2.0 * double(P) * double(Extents), Why))
          return notApplicable("scatter-ring", Why);
        S.NumChunks = Stride[D];
        // Blocks of the nodes that share node C's coordinates in levels >= Lv.
        auto Slab = [&](const std::vector<int64_t> &C, size_t Lv) {
          int64_t Base = 0;
          for (size_t I = Lv; I < D; ++I)
            Base += C[G[I]] * Stride[I];
          return Interval{Base, Base + Stride[Lv]};
        };
        auto Leader = [&](int64_t Node) { return L.RanksOn[Node][0]; };
        // The members of node C's line in dimension Dim one way (+1 or -1),
        // nearest first: half the ring each way on a torus, to the mesh's edge
        // otherwise.
        auto Line = [&](std::vector<int64_t> C, size_t Dim, int64_t Way) {
          const int64_t Ext = T.Dims[Dim];
          int64_t Len = Torus ? (Way > 0 ? Ext / 2 : (Ext - 1) / 2)
                              : (Way > 0 ? Ext - 1 - C[Dim] : C[Dim]);
          std::vector<int64_t> Out;
          for (int64_t I = 0; I < Len; ++I) {
            C[Dim] = Torus ? floorMod(C[Dim] + Way, Ext) : C[Dim] + Way;
            Out.push_back(T.nodeOf(C));
          }
          return Out;
        };
        std::vector<Transfer> Ts;
        // Which blocks each node holds; a transfer carries only the blocks of
        // its slab its receiver lacks (relays of the scatter hold some
        // already).
        std::vector<std::vector<bool>> Held(
            T.Nodes, std::vector<bool>(S.NumChunks, false));
        Held[L.RootNode].assign(S.NumChunks, true);
        auto Send = [&](int64_t From, int64_t To, Interval Blocks) {
          std::vector<Interval> Missing;
          for (int64_t C = Blocks.Lo; C < Blocks.Hi; ++C) {
            if (Held[To][C])
              continue;
            Held[To][C] = true;
            if (!Missing.empty() && Missing.back().Hi == C)
              ++Missing.back().Hi;
            else
              Missing.push_back({C, C + 1});
          }
          if (!Missing.empty())
            Ts.push_back(rootChunksCall(S, Leader(From), Leader(To), Missing));
        };
        // Scatter, the slowest level first: each holder relays along its line
        // the slab of each member, the farthest first, both ways interleaved.
        std::vector<int64_t> Holders{L.RootNode};
        for (size_t Lv = D; Lv-- > 0;) {
          std::vector<int64_t> Next;
          for (int64_t H : Holders) {
            const std::vector<int64_t> HC = T.coordOf(H);
            std::vector<std::vector<int64_t>> Ways{Line(HC, G[Lv], 1),
                                                   Line(HC, G[Lv], -1)};
            const size_t Far = std::max(Ways[0].size(), Ways[1].size());
            for (size_t Tgt = Far; Tgt-- > 0;)
              for (const std::vector<int64_t> &W : Ways) {
                if (Tgt >= W.size())
                  continue;
                const Interval Blocks = Slab(T.coordOf(W[Tgt]), Lv);
                int64_t From = H;
                for (size_t I = 0; I <= Tgt; ++I) {
                  Send(From, W[I], Blocks);
                  From = W[I];
                }
              }
            Next.push_back(H);
            for (const auto &W : Ways)
              Next.insert(Next.end(), W.begin(), W.end());
          }
          Holders = std::move(Next);
        }
        // Allgather, the fastest level first: along each line, round r passes
        // on the slab that came from r - 1 hops away (or the node's own).
        for (size_t Lv = 0; Lv < D; ++Lv) {
          const size_t Dim = G[Lv];
          const int64_t Ext = T.Dims[Dim];
          for (int64_t Round = 1; Round < Ext; ++Round)
            for (int64_t V = 0; V < T.Nodes; ++V) {
              const std::vector<int64_t> C = T.coordOf(V);
              for (int64_t Way : {1, -1}) {
                // Torus: blocks go ceil((n-1)/2) hops up, floor((n-1)/2) down.
                const int64_t Reach =
                    Torus ? (Way > 0 ? Ext / 2 : (Ext - 1) / 2) : Ext - 1;
                if (Round > Reach)
                  continue;
                std::vector<int64_t> To = C, Origin = C;
                To[Dim] += Way;
                Origin[Dim] -= Way * (Round - 1);
                if (Torus) {
                  To[Dim] = floorMod(To[Dim], Ext);
                  Origin[Dim] = floorMod(Origin[Dim], Ext);
                } else if (To[Dim] < 0 || To[Dim] >= Ext || Origin[Dim] < 0 ||
                           Origin[Dim] >= Ext) {
                  continue;
                }
                Send(V, T.nodeOf(To), Slab(Origin, Lv));
              }
            }
        }
        // Ranks sharing a node: the whole message down the node's chain.
        for (const auto &On : L.RanksOn)
          for (size_t I = 1; I < On.size(); ++I)
            Ts.push_back(
                rootChunksCall(S, On[I - 1], On[I], {{0, S.NumChunks}}));
        S.Steps = orderedRounds(Ts, P);
        return std::move(S);
      });
}

llvm::Expected<Schedule> buildScatterTrees(const Machine &M, const Request &R,
                                           Pipeline &Pl) {
  return onGrid(
      M, R, "scatter-trees",
      [&](const Schedule &Skel, const Layout &L) -> llvm::Expected<Schedule> {
        const Topology &T = M.Topo;
        const int32_t P = Skel.size();
        auto Leader = [&](int64_t Node) { return L.RanksOn[Node][0]; };
        // The trees of the candidate sources, computed once per source node.
        std::vector<std::optional<ParentArray>> TreeOf(T.Nodes);
        // Nodes by distance from the root (the root first).
        std::vector<int64_t> ByDistance(T.Nodes);
        std::iota(ByDistance.begin(), ByDistance.end(), 0);
        std::stable_sort(
            ByDistance.begin(), ByDistance.end(), [&](int64_t A, int64_t C) {
              return T.distance(L.RootNode, A) < T.distance(L.RootNode, C);
            });
        bool Nearest = false;
        auto Build = [&](int64_t B) -> llvm::Expected<Schedule> {
          Schedule S = Skel;
          S.NumChunks = B;
          std::vector<Transfer> Ts;
          // Block b's source: one of the nearest or of the farthest nodes; the
          // scatter sends each block straight to its source, the farthest
          // first.
          std::vector<int64_t> Src(B);
          for (int64_t Bl = 0; Bl < B; ++Bl)
            Src[Bl] = Nearest ? ByDistance[1 + Bl % (T.Nodes - 1)]
                              : ByDistance[T.Nodes - 1 - Bl % (T.Nodes - 1)];
          std::vector<int64_t> Order(B);
          std::iota(Order.begin(), Order.end(), 0);
          std::stable_sort(Order.begin(), Order.end(),
                           [&](int64_t A, int64_t C) {
                             return T.distance(L.RootNode, Src[A]) >
                                    T.distance(L.RootNode, Src[C]);
                           });
          for (int64_t Bl : Order)
            if (Src[Bl] != L.RootNode)
              Ts.push_back(rootChunksCall(S, Leader(L.RootNode),
                                          Leader(Src[Bl]), {{Bl, Bl + 1}}));
          // Each block down a shortest-path spanning tree rooted at its source
          // (tree source mod d, so that the trees spread over the dimensions),
          // listed by the depth of the sender; the root needs nothing.
          struct Edge {
            int64_t Depth, Block, From, To;
          };
          std::vector<Edge> Edges;
          for (int64_t Bl = 0; Bl < B; ++Bl) {
            const int64_t V = Src[Bl];
            if (!TreeOf[V]) {
              std::vector<ParentArray> Trees = spanningTreesOf(T, V, false);
              TreeOf[V] = std::move(Trees[V % Trees.size()]);
            }
            const ParentArray &Tree = *TreeOf[V];
            std::vector<int64_t> D = depths(Tree);
            for (int64_t U = 0; U < T.Nodes; ++U)
              if (U != V && U != L.RootNode)
                Edges.push_back({D[Tree[U]], Bl, Tree[U], U});
          }
          std::stable_sort(
              Edges.begin(), Edges.end(),
              [](const Edge &A, const Edge &C) { return A.Depth < C.Depth; });
          for (const Edge &E : Edges)
            Ts.push_back(rootChunksCall(S, Leader(E.From), Leader(E.To),
                                        {{E.Block, E.Block + 1}}));
          // Ranks sharing a node: the whole message down the node's chain.
          for (const auto &On : L.RanksOn)
            for (size_t I = 1; I < On.size(); ++I)
              Ts.push_back(
                  rootChunksCall(S, On[I - 1], On[I], {{0, S.NumChunks}}));
          S.Steps = orderedRounds(Ts, P);
          return S;
        };
        // Block sources the nearest nodes (short scatter routes), the block
        // count searched; then the farthest (the root a leaf of most trees)
        // with the count found: the faster is kept.
        const int64_t Max = std::min(T.Nodes - 1, maxSegmentsPerTree(R, 1));
        Cheapest Placements(M, Pl, makespanJudge());
        Nearest = true;
        Placements.consider("nearest sources", [&] {
          return searchSegments(M, R, Pl, 0, Max, Build);
        });
        if (const Schedule *Found = Placements.best()) {
          const int64_t K = Found->NumChunks;
          Nearest = false;
          Placements.consider("farthest sources, k=" + llvm::Twine(K),
                              [&] { return Build(K); });
        }
        return Placements.take();
      });
}

} // namespace collc
